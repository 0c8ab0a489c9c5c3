import ArgumentParsing
import BenchmarkKit
import Foundation
import OpenSwiftData

/// `harness bench`: runs the persistence workloads against raw SQLite and writes the reports.
package enum BenchCommand {
    /// The subcommand's options, for the harness's argument parser.
    package static let subcommand = Subcommand(
        "bench",
        abstract: "Measure every core operation against raw SQLite in the same process and write reports.",
        options: [
            .flag("quick", help: "Fewer iterations, scales 1k/10k/100k: the set `make bench` runs (under 5 minutes)."),
            .option(
                "scale", placeholder: "rows", repeatable: true, range: .integers(rows),
                help: "Row counts to run at (comma-separated or repeated); default 1000,10000,100000."),
            .flag("million", help: "Also run at 1,000,000 rows."),
            .option(
                "filter", placeholder: "text", repeatable: true,
                help: "Only workloads whose name or group contains this text."),
            .option("store", placeholder: "memory|disk|all", help: "Which stores to run on; default all."),
            .option(
                "strategy", placeholder: "strategies", repeatable: true,
                help:
                    "Index strategies for the query workloads: none, declared, custom:BenchItem(a,b);BenchItem(c). Default none,declared."
            ),
            .option(
                "compare", placeholder: "FILE",
                help:
                    "Compare with a baseline report; exit 1 when a ratio to raw or malloc count regresses, or a result misses its ratio target."
            ),
            .option("out", placeholder: "DIR", help: "Where the report files go; default Reports."),
            .option(
                "fixture", placeholder: "FILE",
                help:
                    "Instead of the built-in workloads: equality, 1 % range and sorted-limit queries (fetch, count, identifiers) on every indexed attribute of a fixture file's entities, under each --strategy and suggested (harness only)."
            ),
            .flag("allow-debug", help: "Run even in a debug build (numbers are then meaningless)."),
            .flag(
                "memory-check",
                help:
                    "Also compare peak RSS at 1M vs 100k rows: inserting in 10k-row saves, and reading a stored table through enumerate and fetch(_:batchSize:) (one child process each)."
            ),
            .option(
                "rss-probe", placeholder: "rows", range: .integers(rows),
                help: "Internal: insert this many rows in 10k-row saves and print the peak RSS."),
            .option(
                "rss-probe-enumerate", placeholder: "FILE",
                help: "Internal: read every item of a benchmark store through enumerate and print the peak RSS."),
            .option(
                "rss-probe-batched", placeholder: "FILE",
                help:
                    "Internal: read every item of a benchmark store through fetch(_:batchSize:) and print the peak RSS."
            ),
        ])

    /// The row counts `--scale` and `--rss-probe` take: up to 10,000,000, ten times the largest
    /// scale the benchmarks are measured at (`--million`). A scale is rows held at once (the
    /// in-memory store and the fetch-all workloads keep every row), so a mistyped count beyond
    /// this would allocate until the machine runs out of memory rather than fail.
    package static let rows = 1...10_000_000

    /// The workloads' ratio targets (our cost ÷ raw SQLite's), drawn on the ratio chart: one
    /// line a target, labelled with the workloads that have it (``Workload/ratioTarget``).
    package static var targets: [RatioBarChart.Target] {
        let byTarget = Dictionary(grouping: PersistenceWorkloads.all.filter { $0.ratioTarget != nil }) {
            $0.ratioTarget!
        }
        return byTarget.keys.sorted(by: >).map { target in
            let names = byTarget[target]!.map(\.name).joined(separator: ", ")
            return RatioBarChart.Target(label: "\(names) ≤ \(String(format: "%g", target))×", ratio: target)
        }
    }

    /// The `bench` options, parsed and validated; ``options(_:)`` builds them without running anything.
    ///
    /// ```swift
    /// let options = try BenchCommand.options(parser.parse(["bench", "--quick", "--scale", "1000"]))
    /// options.scales   // [1000]
    /// ```
    package struct Options: Equatable, Sendable {
        /// `--quick`: a quarter-second budget per result instead of two seconds.
        package var quick: Bool = false
        /// The row counts to run at (`--scale`, then 1,000,000 with `--million`).
        package var scales: [Int] = [1_000, 10_000, 100_000]
        /// The stores to run on (`--store`).
        package var stores: [BenchStore] = [.disk, .memory]
        /// The index strategies for the query workloads (`--strategy`).
        package var strategies: [IndexStrategy] = [.none, .declared]
        /// Lowercased texts a workload's name or group must contain (`--filter`); empty runs all.
        package var filters: [String] = []
        /// The baseline report to compare with (`--compare`), read before the run.
        package var baseline: BenchmarkReport?
        /// The directory the report files go to (`--out`).
        package var out: URL = URL(fileURLWithPath: "Reports", isDirectory: true)
        /// `--allow-debug`: run even in a debug build.
        package var allowDebug: Bool = false
        /// `--memory-check`: also compare peak RSS of two child processes.
        package var memoryCheck: Bool = false
        /// `--rss-probe`: only insert this many rows and print the peak RSS.
        package var rssProbe: Int?
        /// `--rss-probe-enumerate` / `--rss-probe-batched`: only read this benchmark store in
        /// batches and print the peak RSS.
        package var readProbe: ReadProbe?
        /// `--fixture`: the fixture file whose entities the query shapes run on (`harness bench` only).
        package var fixture: URL?

        /// How the runner measures: a quarter second (quick) or two seconds per result, at least 5 runs.
        package var configuration: RunnerConfiguration {
            // Quick: one warm-up, then about a quarter second per result (at least 5 runs), so cheap
            // operations still get enough runs for a stable median (at least 5, so a 25 % gate is not tripped by noise).
            var config =
                quick
                ? RunnerConfiguration(
                    warmUpIterations: 1, mode: .timeBudget(seconds: 0.25, minIterations: 5, maxIterations: 200))
                : RunnerConfiguration(
                    warmUpIterations: 1, mode: .timeBudget(seconds: 2, minIterations: 5, maxIterations: 500))
            config.allowDebug = allowDebug
            return config
        }
    }

    /// Parses and validates every option, reading the `--compare` baseline and probing `--out`;
    /// runs nothing, so a bad value fails at once.
    ///
    /// ```swift
    /// try BenchCommand.options(parser.parse(["bench", "--scale", "-5"]))
    /// // throws ArgumentError.invalidValue: --scale takes an integer from 1 to 10000000, not '-5'
    /// ```
    /// - Throws: ``ArgumentError`` `.invalidValue` whose message names the option.
    package static func options(_ args: ParsedArguments) throws -> Options {
        var o = Options()
        o.quick = args.flag("quick")
        o.allowDebug = args.flag("allow-debug")
        o.memoryCheck = args.flag("memory-check")
        o.rssProbe = try args.integer("rss-probe", in: rows)
        if let file = try args.existingFile("rss-probe-enumerate") {
            o.readProbe = ReadProbe(file: file, batched: false)
        }
        if let file = try args.existingFile("rss-probe-batched") {
            o.readProbe = ReadProbe(file: file, batched: true)
        }
        let scales = try args.integers("scale", in: rows)
        if !scales.isEmpty { o.scales = scales }
        if args.flag("million"), !o.scales.contains(1_000_000) { o.scales.append(1_000_000) }
        switch try args.choice("store", from: ["memory", "disk", "all"]) ?? "all" {
        case "memory": o.stores = [.memory]
        case "disk": o.stores = [.disk]
        default: o.stores = [.disk, .memory]
        }
        let strategies = try args.values("strategy").flatMap(splitStrategies).map(parseStrategy)
        if !strategies.isEmpty { o.strategies = strategies }
        o.filters = args.list("filter").map { $0.lowercased() }
        let workloads = PersistenceWorkloads.all
        for filter in o.filters where !workloads.contains(where: { PersistenceWorkloads.matches($0, [filter]) }) {
            let groups = Array(Set(workloads.map(\.group))).sorted()
            throw ArgumentError(
                code: .invalidValue, argument: filter,
                message:
                    "--filter '\(filter)' matches no workload's name or group (groups: \(groups.joined(separator: ", ")))",
                suggestion: ArgumentParser.closest(to: filter, in: groups))
        }
        o.baseline = try args.existingFile("compare", holding: "a benchmark report") {
            try JSONReportCoder.read(from: $0)
        }
        o.out = try args.writableDirectory("out", default: "Reports")
        o.fixture = try args.existingFile("fixture")
        return o
    }

    /// Refuses what would stop the run later: a debug build without `--allow-debug`.
    ///
    /// ```swift
    /// try BenchCommand.checkRunnable(options)   // before any long work
    /// ```
    /// - Throws: ``BenchmarkError`` `.debugBuild` or `.invalidConfiguration`.
    package static func checkRunnable(_ options: Options) throws {
        try BenchmarkRunner(configuration: options.configuration).validate()
    }

    /// Parses, validates and runs the command; returns the process exit code.
    ///
    /// ```swift
    /// exit(try BenchCommand.run(parser.parse(["bench", "--quick"]), toolchain: nil))
    /// ```
    package static func run(_ args: ParsedArguments, toolchain: String?) throws -> Int32 {
        try run(options(args), toolchain: toolchain)
    }

    /// Runs validated options; returns the process exit code (1 when `--compare` finds a regression).
    ///
    /// ```swift
    /// exit(try BenchCommand.run(options, toolchain: nil))
    /// ```
    package static func run(_ o: Options, toolchain: String?) throws -> Int32 {
        if let rows = o.rssProbe {
            print(try PersistenceWorkloads.rssProbe(rows: rows))
            return 0
        }
        if let probe = o.readProbe {
            print(try PersistenceWorkloads.rssProbe(reading: probe.file, batched: probe.batched))
            return 0
        }
        try checkRunnable(o)
        if let fixture = o.fixture {
            throw ArgumentError(
                code: .invalidValue, argument: fixture.path,
                message:
                    "--fixture runs through the harness, which knows the sample schemas: swift run -c release harness bench --fixture \(fixture.path)"
            )
        }
        let cache = FixtureCache()
        defer { cache.removeAll() }
        let benchmarks = PersistenceWorkloads.makeBenchmarks(
            cache: cache, stores: o.stores, strategies: o.strategies, scales: o.scales, filters: o.filters)
        guard !benchmarks.isEmpty else {
            print("no workload matches the filter \(o.filters)")
            return 1
        }
        // One updating line: runs done of all, the one in progress, the time left.
        let line = ProgressLine(label: "bench", total: benchmarks.reduce(0) { $0 + $1.scales.count })
        let runner = BenchmarkRunner(
            configuration: o.configuration,
            progress: { p in
                line.update(p)
            })
        let results: [BenchmarkResult]
        do {
            defer { line.finish() }
            results = try runner.run(benchmarks)
        }
        let report = BenchmarkReport.current(toolchain: toolchain, results: results)
        let written = try ReportDirectoryWriter.write(report, to: o.out, targets: targets)
        print(summary(report))
        if o.memoryCheck { print(try memoryCheck()) }
        print("reports:")
        for url in written { print("  \(url.path)") }
        if let baseline = o.baseline {
            var outcome = BaselineComparison.compare(current: report, baseline: baseline)
            if outcome.verdict == .fail {
                // A failure must repeat: each failing result is measured once more, and the
                // better of its two measurements decides (the report above keeps the first).
                runner.progress = nil
                let again = try remeasure(outcome.failingKeys, of: benchmarks, with: runner)
                outcome = BaselineComparison.confirm(outcome, baseline: baseline, remeasured: again)
            }
            print(outcome.table())
            if outcome.verdict == .fail { return 1 }
        }
        return 0
    }

    /// Measures each of `keys` again: the benchmark with its name, store and strategy, at its
    /// row count.
    static func remeasure(_ keys: [ResultKey], of benchmarks: [Benchmark], with runner: BenchmarkRunner) throws
        -> [BenchmarkResult]
    {
        try keys.compactMap { key in
            guard
                let benchmark = benchmarks.first(where: {
                    $0.name == key.name && $0.store == key.store && $0.strategy == key.strategy
                })
            else { return nil }
            print("measuring again: \(key)")
            return try runner.run(benchmark, scale: key.rows)
        }
    }

    /// Splits one `--strategy` value at the commas outside parentheses:
    /// `none,custom:BenchItem(code,price)` → `none`, `custom:BenchItem(code,price)`.
    static func splitStrategies(_ text: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var depth = 0
        for character in text {
            switch character {
            case "(": depth += 1
            case ")": depth -= 1
            case "," where depth == 0:
                parts.append(current)
                current = ""
                continue
            default: break
            }
            current.append(character)
        }
        parts.append(current)
        return parts.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `none`, `declared` or `custom:Entity(a,b);Entity(c)`, where every entity is `BenchItem`
    /// (the raw-SQLite twin indexes only that table) and every property one of its attributes.
    ///
    /// ```swift
    /// let strategy = try BenchCommand.parseStrategy("custom:BenchItem(code,price)")
    /// ```
    /// - Throws: ``ArgumentError`` `.invalidValue` naming `--strategy`.
    package static func parseStrategy(_ text: String) throws -> IndexStrategy {
        switch text {
        case "none": return .none
        case "declared": return .declared
        default:
            guard text.hasPrefix("custom:") else {
                throw ArgumentError(
                    code: .invalidValue, argument: text,
                    message: "--strategy takes none, declared or custom:Entity(a,b), not '\(text)'",
                    suggestion: ArgumentParser.closest(to: text, in: ["none", "declared"]))
            }
            var sets: [String: [[String]]] = [:]
            let attributes =
                Schema([BenchItem.self, BenchGroup.self]).entitiesByName["BenchItem"]?.attributes.map(\.name) ?? []
            for part in text.dropFirst("custom:".count).split(separator: ";") {
                guard let open = part.firstIndex(of: "("), part.last == ")" else {
                    throw ArgumentError(
                        code: .invalidValue, argument: String(part),
                        message: "--strategy: write a custom index as Entity(property,property), not '\(part)'")
                }
                let entity = String(part[..<open])
                guard entity == "BenchItem" else {
                    throw ArgumentError(
                        code: .invalidValue, argument: entity,
                        message:
                            "--strategy: custom indexes go on BenchItem (the table both sides of the benchmark share), not '\(entity)'",
                        suggestion: ArgumentParser.closest(to: entity, in: ["BenchItem"]))
                }
                let props = part[part.index(after: open)..<part.index(before: part.endIndex)]
                    .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                guard !props.isEmpty else {
                    throw ArgumentError(
                        code: .invalidValue, argument: String(part),
                        message: "--strategy: '\(part)' names no property; write BenchItem(property,property)")
                }
                for property in props where !attributes.contains(property) {
                    throw ArgumentError(
                        code: .invalidValue, argument: property,
                        message:
                            "--strategy: BenchItem has no attribute '\(property)' (attributes: \(attributes.joined(separator: ", ")))",
                        suggestion: ArgumentParser.closest(to: property, in: attributes))
                }
                sets[entity, default: []].append(props)
            }
            guard !sets.isEmpty else {
                throw ArgumentError(
                    code: .invalidValue, argument: text,
                    message: "--strategy: '\(text)' names no index; write custom:BenchItem(property,property)")
            }
            return .custom(sets)
        }
    }

    /// The ratio table at the largest scale, for the terminal.
    static func summary(_ report: BenchmarkReport) -> String {
        guard let top = report.results.map(\.rows).max() else { return "no results" }
        var lines = [
            "ratio to raw SQLite at \(top) rows (median ÷ raw median; lower is better);",
            "index speed-up = none median ÷ declared median (higher is better; ours should be near raw's):",
            "  workload                                   store   strategy   ratio   ours/op      mallocs/op   index speed-up",
        ]
        let speedups = IndexSpeedup.all(in: report.results)
        for r in report.results where r.rows == top {
            let ratio = r.ratioToRaw.map { String(format: "%.2f×", $0) } ?? "—"
            let perOp =
                r.metrics[MetricName.wallNanosecondsMedianPerOperation].map { MarkdownReportWriter.duration($0) } ?? "—"
            let mallocs = r.metrics[MetricName.mallocCountPerOperation].map { String(format: "%.1f", $0) } ?? "—"
            var line =
                "  "
                + [
                    r.name.padding(toLength: 42, withPad: " ", startingAt: 0),
                    r.store.padding(toLength: 7, withPad: " ", startingAt: 0),
                    r.strategy.padding(toLength: 10, withPad: " ", startingAt: 0),
                    ratio.padding(toLength: 7, withPad: " ", startingAt: 0),
                    perOp.padding(toLength: 12, withPad: " ", startingAt: 0),
                    mallocs.padding(toLength: 12, withPad: " ", startingAt: 0),
                    speedups[r.key]?.description ?? "",
                ].joined(separator: " ")
            while line.hasSuffix(" ") { line.removeLast() }
            lines.append(line)
        }
        lines += historyOverhead(report)
        let targets = TargetCheck.all(in: report)
        if !targets.isEmpty {
            let missed = targets.filter { !$0.isMet }
            lines.append(
                "ratio targets, every scale: \(targets.count - missed.count) of \(targets.count) results met"
                    + (missed.isEmpty ? "" : "; missed:"))
            for m in missed { lines.append("  \(m)") }
        }
        return lines.joined(separator: "\n")
    }

    /// What recording history costs each save workload that ran with and without it (`… (no
    /// history)`), per store and scale: the result's ratio to raw SQLite ÷ the `(no history)`
    /// result's, minus one. The two variants run one after the other, each interleaved with its
    /// own raw twin doing the same work, so the machine's drift between the two runs cancels out
    /// of the ratio; the plain quotient of the two wall-time medians, which it does not, follows
    /// in parentheses.
    ///
    /// ```text
    /// history recording overhead (with ÷ without, each as its ratio to raw SQLite, − 1; target ≤ 15 %):
    ///   batch insert                      disk    1000 rows    +12.3 %  (wall medians +15.1 %)
    /// ```
    static func historyOverhead(_ report: BenchmarkReport) -> [String] {
        let suffix = " (no history)"
        var lines: [String] = []
        for without in report.results where without.name.hasSuffix(suffix) {
            let name = String(without.name.dropLast(suffix.count))
            guard
                let with = report.results.first(where: {
                    $0.name == name && $0.store == without.store && $0.rows == without.rows
                        && $0.strategy == without.strategy
                }),
                let ratioWith = with.ratioToRaw, let ratioWithout = without.ratioToRaw, ratioWithout > 0,
                let a = with.metrics[MetricName.wallNanosecondsMedian],
                let b = without.metrics[MetricName.wallNanosecondsMedian], b > 0
            else { continue }
            lines.append(
                "  " + name.padding(toLength: 34, withPad: " ", startingAt: 0) + " "
                    + without.store.padding(toLength: 7, withPad: " ", startingAt: 0) + " "
                    + "\(without.rows) rows".padding(toLength: 13, withPad: " ", startingAt: 0)
                    + String(
                        format: "%+.1f %%  (wall medians %+.1f %%)", (ratioWith / ratioWithout - 1) * 100,
                        (a / b - 1) * 100))
        }
        guard !lines.isEmpty else { return [] }
        return ["history recording overhead (with ÷ without, each as its ratio to raw SQLite, − 1; target ≤ 15 %):"]
            + lines
    }

    /// A streaming-read memory probe: the store file and the API that reads it.
    package struct ReadProbe: Equatable, Sendable {
        /// The benchmark store to read (written by ``memoryCheck()``).
        package var file: URL
        /// `fetch(_:batchSize:)` when true, `enumerate(_:batchSize:)` otherwise.
        package var batched: Bool
    }

    /// Compares peak RSS at 1M and 100k rows, each measured in its own child process (peak RSS
    /// never falls within one process): inserting in 10k-row saves, and reading every row of a
    /// stored table through `enumerate` and `fetch(_:batchSize:)` in 5,000-row batches (the
    /// tables are written here, by this process, so the children only read). One line each.
    static func memoryCheck() throws -> String {
        func probe(_ arguments: [String]) throws -> Int {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            p.arguments = ["bench"] + arguments + ["--allow-debug"]
            let pipe = Pipe()
            p.standardOutput = pipe
            try p.run()
            let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
        func line(_ what: String, _ small: Int, _ large: Int) -> String {
            let ratio = Double(large) / Double(max(small, 1))
            return String(
                format: "peak RSS %@: 100k rows %d KiB, 1M rows %d KiB, ratio %.2f (target ≤ 1.2: %@)",
                what, small, large, ratio, small > 0 && large > 0 && ratio <= 1.2 ? "met" : "missed")
        }
        var lines = [
            line(
                "inserting in 10k-row saves", try probe(["--rss-probe", "100000"]),
                try probe(["--rss-probe", "1000000"]))
        ]
        let cache = FixtureCache()
        defer { cache.removeAll() }
        let small = try PersistenceWorkloads.storeFile(in: cache, rows: 100_000)
        let large = try PersistenceWorkloads.storeFile(in: cache, rows: 1_000_000)
        for (option, what) in [
            ("--rss-probe-enumerate", "reading through enumerate(_:batchSize: 5000)"),
            ("--rss-probe-batched", "reading through fetch(_:batchSize: 5000)"),
        ] {
            lines.append(line(what, try probe([option, small.path]), try probe([option, large.path])))
        }
        return lines.joined(separator: "\n")
    }
}

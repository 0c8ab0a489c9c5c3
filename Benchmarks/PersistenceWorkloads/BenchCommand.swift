import BenchmarkKit
import Foundation
import OpenSwiftData

/// `harness bench`: runs the persistence workloads against raw SQLite and writes the reports.
public enum BenchCommand {
    /// The subcommand's options, for the harness's argument parser.
    public static let subcommand = Subcommand(
        "bench",
        abstract: "Measure every core operation against raw SQLite in the same process and write reports.",
        options: [
            .flag("quick", help: "Fewer iterations, scales 1k/10k/100k: the set `make bench` runs (under 5 minutes)."),
            .option("scale", placeholder: "rows", repeatable: true, help: "Row counts to run at (comma-separated or repeated); default 1000,10000,100000."),
            .flag("million", help: "Also run at 1,000,000 rows."),
            .option("filter", placeholder: "text", repeatable: true, help: "Only workloads whose name or group contains this text."),
            .option("store", placeholder: "memory|disk|all", help: "Which stores to run on; default all."),
            .option("strategy", placeholder: "strategies", repeatable: true,
                    help: "Index strategies for the query workloads: none, declared, custom:Entity(a,b);Entity(c). Default none,declared."),
            .option("compare", placeholder: "FILE", help: "Compare with a baseline report; exit 1 when a ratio to raw or malloc count regresses."),
            .option("out", placeholder: "DIR", help: "Where the report files go; default Reports."),
            .flag("allow-debug", help: "Run even in a debug build (numbers are then meaningless)."),
            .flag("memory-check", help: "Also compare peak RSS of inserting 1M vs 100k rows in 10k-row saves (two child processes)."),
            .option("rss-probe", placeholder: "rows", help: "Internal: insert this many rows in 10k-row saves and print the peak RSS."),
        ])

    /// The ratio targets of issue #3, drawn on the ratio chart.
    public static let targets: [RatioBarChart.Target] = [
        .init(label: "insert, fetch all ≤ 2×", ratio: 2),
        .init(label: "indexed equality, upsert ≤ 3×", ratio: 3),
        .init(label: "fetchCount, unindexed scans ≤ 1.2×", ratio: 1.2),
    ]

    /// Runs the command; returns the process exit code.
    public static func run(_ args: ParsedArguments, toolchain: String?) throws -> Int32 {
        if let probe = args.value("rss-probe"), let rows = Int(probe) {
            print(try rssProbe(rows: rows))
            return 0
        }
        // Quick: one warm-up, then about a quarter second per result (at least 5 runs), so cheap
        // operations still get enough runs for a stable median (at least 5, so a 25 % gate is not tripped by noise).
        var config = args.flag("quick")
            ? RunnerConfiguration(warmUpIterations: 1, mode: .timeBudget(seconds: 0.25, minIterations: 5, maxIterations: 200))
            : RunnerConfiguration(warmUpIterations: 1, mode: .timeBudget(seconds: 2, minIterations: 5, maxIterations: 500))
        config.allowDebug = args.flag("allow-debug")
        var scales = args.list("scale").compactMap { Int($0.replacingOccurrences(of: "_", with: "")) }
        if scales.isEmpty { scales = [1_000, 10_000, 100_000] }
        if args.flag("million") { scales.append(1_000_000) }
        let stores: [BenchStore] = switch args.value("store") ?? "all" {
        case "memory": [.memory]
        case "disk": [.disk]
        case "all": [.disk, .memory]
        case let other: throw ArgumentError(code: .unexpectedValue, argument: other, message: "--store takes memory, disk or all, not '\(other)'")
        }
        let strategyArgs = args.values("strategy").flatMap { $0.split(separator: ",", omittingEmptySubsequences: true).map(String.init) }
        let strategies = try (strategyArgs.isEmpty ? ["none", "declared"] : strategyArgs).map(parseStrategy)
        let filters = args.list("filter").map { $0.lowercased() }

        let cache = FixtureCache()
        defer { cache.removeAll() }
        let benchmarks = makeBenchmarks(cache: cache, stores: stores, strategies: strategies, scales: scales, filters: filters)
        guard !benchmarks.isEmpty else {
            print("no workload matches the filter \(filters)")
            return 1
        }
        var last = ""
        let runner = BenchmarkRunner(configuration: config, progress: { p in
            let line = "\(p.benchmark) [\(p.store)\(p.strategy.isEmpty ? "" : ", \(p.strategy)")] \(p.scale) rows: \(p.phase.rawValue)"
            if line != last { last = line; FileHandle.standardError.write(Data((line + "\n").utf8)) }
        })
        try runner.validate()
        let results = try runner.run(benchmarks)
        let report = BenchmarkReport.current(toolchain: toolchain, results: results)
        let out = URL(fileURLWithPath: args.value("out") ?? "Reports")
        let written = try ReportDirectoryWriter.write(report, to: out, targets: targets)
        print(summary(report))
        if args.flag("memory-check") { print(try memoryCheck()) }
        print("reports:")
        for url in written { print("  \(url.path)") }
        if let baselinePath = args.value("compare") {
            let baseline = try JSONReportCoder.read(from: URL(fileURLWithPath: baselinePath))
            let outcome = BaselineComparison.compare(current: report, baseline: baseline)
            print(outcome.table())
            if outcome.verdict == .fail { return 1 }
        }
        return 0
    }

    /// `none`, `declared` or `custom:Entity(a,b);Entity(c)`.
    public static func parseStrategy(_ text: String) throws -> IndexStrategy {
        switch text {
        case "none": return .none
        case "declared": return .declared
        default:
            guard text.hasPrefix("custom:") else {
                throw ArgumentError(code: .unexpectedValue, argument: text,
                                    message: "unknown index strategy '\(text)'; use none, declared or custom:Entity(a,b)")
            }
            var sets: [String: [[String]]] = [:]
            for part in text.dropFirst("custom:".count).split(separator: ";") {
                guard let open = part.firstIndex(of: "("), part.last == ")" else {
                    throw ArgumentError(code: .unexpectedValue, argument: String(part),
                                        message: "write a custom index as Entity(property,property)")
                }
                let entity = String(part[..<open])
                let props = part[part.index(after: open)..<part.index(before: part.endIndex)].split(separator: ",").map(String.init)
                sets[entity, default: []].append(props)
            }
            return .custom(sets)
        }
    }

    /// Builds one benchmark per workload × store × strategy.
    public static func makeBenchmarks(cache: FixtureCache, stores: [BenchStore], strategies: [IndexStrategy],
                                      scales: [Int], filters: [String]) -> [Benchmark] {
        var out: [Benchmark] = []
        for w in PersistenceWorkloads.all {
            if !filters.isEmpty, !filters.contains(where: { w.name.lowercased().contains($0) || w.group.lowercased().contains($0) }) { continue }
            for store in stores {
                for strategy in (w.isQuery ? strategies : [.declared]) {
                    let b = Benchmark(
                        w.name, group: w.group, store: store.rawValue, strategy: strategy.description,
                        scales: scales, operationsPerRun: w.operations,
                        setUp: { rows in try w.oursSetUp(cache, store, rows, strategy) },
                        body: { run in _ = try run.body() },
                        counters: { run in SQLiteCounters(run.container.statementCounters(reset: true)) },
                        queryPlan: w.plan.map { plan in { run in try plan(run.container, 1_000) } })
                        .withRawBaseline(
                            setUp: { rows in
                                let r = try w.rawSetUp(cache, store, rows, strategy)
                                _ = r.store.db.cachedStatementCounters(reset: true)
                                return r
                            },
                            body: { run in _ = try run.body() },
                            counters: { run in SQLiteCounters(run.store.db.cachedStatementCounters(reset: true)) })
                    out.append(b)
                }
            }
        }
        return out
    }

    /// The ratio table at the largest scale, for the terminal.
    static func summary(_ report: BenchmarkReport) -> String {
        guard let top = report.results.map(\.rows).max() else { return "no results" }
        var lines = ["ratio to raw SQLite at \(top) rows (median ÷ raw median; lower is better):",
                     "  workload                                   store   strategy   ratio   ours/op      mallocs/op"]
        for r in report.results where r.rows == top {
            let ratio = r.ratioToRaw.map { String(format: "%.2f×", $0) } ?? "—"
            let perOp = r.metrics[MetricName.wallNanosecondsMedianPerOperation].map { MarkdownReportWriter.duration($0) } ?? "—"
            let mallocs = r.metrics[MetricName.mallocCountPerOperation].map { String(format: "%.1f", $0) } ?? "—"
            lines.append("  " + [r.name.padding(toLength: 42, withPad: " ", startingAt: 0),
                                 r.store.padding(toLength: 7, withPad: " ", startingAt: 0),
                                 r.strategy.padding(toLength: 10, withPad: " ", startingAt: 0),
                                 ratio.padding(toLength: 7, withPad: " ", startingAt: 0),
                                 perOp.padding(toLength: 12, withPad: " ", startingAt: 0), mallocs].joined(separator: " "))
        }
        return lines.joined(separator: "\n")
    }

    /// Inserts `rows` items in 10k-row saves on disk and returns the peak RSS in KiB.
    static func rssProbe(rows: Int) throws -> Int {
        let cache = FixtureCache()
        defer { cache.removeAll() }
        let container = try cache.emptyContainer(.disk)
        for start in stride(from: 0, to: rows, by: 10_000) {
            let context = ModelContext(container)
            for i in start..<min(start + 10_000, rows) { context.insert(BenchItem(row: i)) }
            try context.save()
        }
        return ProcessMemory.peakResidentKiB() ?? -1
    }

    /// Runs two probes in child processes (peak RSS never falls within one process).
    static func memoryCheck() throws -> String {
        func probe(_ rows: Int) throws -> Int {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            p.arguments = ["bench", "--rss-probe", "\(rows)", "--allow-debug"]
            let pipe = Pipe()
            p.standardOutput = pipe
            try p.run()
            let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
        let small = try probe(100_000), large = try probe(1_000_000)
        let ratio = Double(large) / Double(max(small, 1))
        return String(format: "peak RSS inserting in 10k-row saves: 100k rows %d KiB, 1M rows %d KiB, ratio %.2f (target ≤ 1.5)", small, large, ratio)
    }
}

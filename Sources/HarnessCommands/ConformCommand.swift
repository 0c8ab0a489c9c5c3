import ArgumentParsing
import BenchmarkKit
import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

/// `harness conform`: the conformance suites on each store, then the differential checks.
enum ConformCommand {
    static let subcommand = Subcommand(
        "conform",
        abstract: "Run the conformance suites on each store and the differential checks; print a suite × store table.",
        options: [
            .option(
                "store", placeholder: "memory|disk|all",
                help: "Which stores to check against the reference; default all (change scripts always compare both)."),
            .option(
                "suite", placeholder: "name", repeatable: true,
                help:
                    "Only these suites (comma-separated or repeated): \(ConformanceSuite.all.map(\.name).joined(separator: ", ")), differential."
            ),
            .option(
                "seed", placeholder: "S", range: .seed, help: "Seed for generated data and random cases; default 1."),
            .option(
                "differential", placeholder: "N", range: .integers(caseCounts),
                help: "Number of differential cases; default 10000 (0 skips them)."),
            .option(
                "case", placeholder: "I", repeatable: true, range: .integers(caseNumbers),
                help: "Replay only these differential case numbers (from a failure's replay line)."),
            .option(
                "jobs", placeholder: "N", range: .integers(jobCounts),
                help: "Parallel differential shards; default the number of CPUs."),
            .option("junit", placeholder: "FILE", help: "Write JUnit XML here."),
            .option("markdown", placeholder: "FILE", help: "Write a Markdown report here."),
            .option(
                "json", placeholder: "FILE", help: "Write the report as JSON here (what 'harness report merge' reads)."),
            .option(
                "shard", placeholder: "I/N",
                help:
                    "Run only shard I of N: every N-th conformance case and differential case; merge the N reports with 'harness report merge'. (1 ≤ I ≤ N ≤ \(maximumShards))"
            ),
            .option(
                "regressions", placeholder: "FILE",
                help: "Append the seed and case of every differential mismatch to this file (the tests replay it)."),
            .flag(
                "mutants",
                help:
                    "Run the checks against each semantic mutant of the library instead (debug builds only), one child process each; print which check killed each, then 'mutants: K of N killed'. --differential sets the cases per mutant (default \(defaultMutantCases)), --jobs the processes at once."
            ),
            .option(
                "mutant", placeholder: "name", repeatable: true,
                help: "With --mutants, only these mutants (comma-separated or repeated); default all."),
            .flag(
                "no-shrink",
                help:
                    "Report differential mismatches as found, without shrinking the predicate, the rows or the script steps."
            ),
        ],
        positionalPlaceholder: nil)

    /// How many differential cases `--differential` runs at most: 1,000,000, a hundred times the
    /// default (under an hour at the pace of `make run`, 10,000 cases in about 30 s); the case
    /// numbers are held in one array.
    static let caseCounts = 0...1_000_000
    /// The case numbers `--case` replays: those a run of at most ``caseCounts`` cases reports.
    static let caseNumbers = 0...(caseCounts.upperBound - 1)
    /// How many differential shards `--jobs` runs at once: at most 256, far more than a machine's
    /// cores, so a typo cannot start thousands of parallel runs.
    static let jobCounts = 1...256
    /// The largest N of `--shard I/N`: 1,000 machines, far beyond a CI matrix, while a shard
    /// still runs some cases of the default 10,000.
    static let maximumShards = 1_000

    /// Differential cases each mutant runs by default with `--mutants`: 400 (40 of them change
    /// scripts), a few seconds per mutant in a debug build.
    static let defaultMutantCases = 400

    /// The validated options; ``options(_:)`` builds them without running anything.
    struct Options {
        /// `--mutants`: run the mutation score instead of the checks once.
        var runMutants = false
        /// The mutants `--mutant` names; every one by default.
        var mutants: [InjectedFault] = InjectedFault.mutants
        /// Differential cases per mutant.
        var mutantCases = defaultMutantCases
        /// Mutant processes at once.
        var mutantJobs = max(1, ProcessInfo.processInfo.activeProcessorCount)
        var stores: [StoreKind] = StoreKind.allCases
        var suites: [ConformanceSuite] = ConformanceSuite.all
        var differential = true
        var seed: UInt64 = 1
        var cases = 10_000
        var only: [Int] = []
        var jobs = max(1, ProcessInfo.processInfo.activeProcessorCount)
        var junit: String?
        var markdown: String?
        var json: String?
        var shard = Shard.all
        var regressions: String?
        var shrink = true
    }

    /// Parses and validates every option (numbers in range, known names, writable report files,
    /// a `--regressions` file that parses when it exists); runs nothing.
    ///
    /// - Throws: ``ArgumentError`` `.invalidValue` naming the option.
    static func options(_ args: ParsedArguments) throws -> Options {
        var o = Options()
        switch try args.choice("store", from: ["memory", "disk", "all"]) ?? "all" {
        case "memory": o.stores = [.memory]
        case "disk": o.stores = [.disk]
        default: o.stores = StoreKind.allCases
        }
        let names = try args.choices("suite", from: ConformanceSuite.all.map(\.name) + ["differential"])
        if !names.isEmpty {
            o.suites = names.filter { $0 != "differential" }.compactMap(ConformanceSuite.named)  // names are checked
            o.differential = names.contains("differential")
        }
        o.seed = try args.integer("seed", as: UInt64.self) ?? 1
        o.cases = try args.integer("differential", in: caseCounts) ?? 10_000
        if o.cases == 0 { o.differential = false }
        o.jobs = try args.integer("jobs", in: jobCounts) ?? min(o.jobs, jobCounts.upperBound)
        o.only = try args.integers("case", in: caseNumbers)
        if !o.only.isEmpty {
            o.differential = true
            if names.isEmpty { o.suites = [] }
        }
        o.junit = try args.writableFile("junit")?.path
        o.markdown = try args.writableFile("markdown")?.path
        o.json = try args.writableFile("json")?.path
        if let text = args.value("shard") {
            guard let shard = Shard(text), shard.count <= maximumShards else {
                throw ArgumentError(
                    code: .invalidValue, argument: text,
                    message: "--shard takes I/N with 1 ≤ I ≤ N ≤ \(maximumShards), e.g. 2/4, not '\(text)'")
            }
            o.shard = shard
        }
        if let url = try args.writableFile("regressions"), FileManager.default.fileExists(atPath: url.path) {
            _ = try args.existingFile("regressions", holding: "a regression file") { try RegressionFile.read($0) }
        }
        o.regressions = args.value("regressions")
        o.shrink = !args.flag("no-shrink")
        o.runMutants = args.flag("mutants")
        let mutantNames = try args.choices("mutant", from: InjectedFault.mutants.map(\.rawValue))
        // The names are checked: each is a mutant's raw value.
        if !mutantNames.isEmpty { o.mutants = mutantNames.compactMap(InjectedFault.init(rawValue:)) }
        o.mutantCases = try args.integer("differential", in: caseCounts) ?? defaultMutantCases
        o.mutantJobs = try args.integer("jobs", in: jobCounts) ?? min(o.mutantJobs, jobCounts.upperBound)
        if !o.runMutants, let name = args.values("mutant").first {
            throw ArgumentError(code: .invalidValue, argument: name, message: "--mutant needs --mutants")
        }
        // A mutant's worker runs every check and stops at the first failure: no subset, no slice.
        for option in ["suite", "case", "shard", "junit", "regressions"] where o.runMutants {
            if let value = args.value(option) {
                throw ArgumentError(
                    code: .invalidValue, argument: value, message: "--\(option) does not go with --mutants")
            }
        }
        return o
    }

    static func run(_ args: ParsedArguments) throws -> Int32 {
        let o = try options(args)
        if o.runMutants { return try MutantsCommand.run(o) }
        let report = try conform(o)
        return report.passed ? 0 : 1
    }

    /// Runs the suites and the differential cases, prints the table and failures, writes the reports.
    static func conform(_ o: Options) throws -> ConformanceReport {
        var report = ConformanceReport.run(
            suites: o.suites, stores: o.stores, seed: o.seed,
            differentialCases: o.differential ? (o.only.isEmpty ? Array(0..<o.cases) : o.only) : [],
            shard: o.shard, jobs: o.jobs, shrink: o.shrink, progress: { progress($0) })
        if o.shard != .all { print("shard \(o.shard): every \(o.shard.count)th case from case \(o.shard.index)\n") }
        print(report.table())
        for failure in report.failures {
            print("\n" + failure.description)
        }
        let reportDirectories = [o.markdown, o.json].compactMap { $0 }.map {
            URL(fileURLWithPath: $0).deletingLastPathComponent()
        }
        report.mutationScore = MutationScore.latest(in: reportDirectories)
        if let path = o.junit { try write(report.junitXML(), to: path) }
        if let path = o.markdown { try write(report.markdown(), to: path) }
        if let path = o.json { try write(String(decoding: report.json(), as: UTF8.self), to: path) }
        if let path = o.regressions, let d = report.differential, !d.mismatches.isEmpty {
            try RegressionFile.append(d.mismatches, to: URL(fileURLWithPath: path))
            print("\nadded \(d.mismatches.count) case(s) to \(path)")
        }
        print(report.passed ? "\nPASS" : "\nFAIL: \(report.failures.count) failure(s)")
        return report
    }

    static func write(_ text: String, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    static func progress(_ line: String) {
        fflush(nil)  // what was printed to stdout first stays first when both are piped
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

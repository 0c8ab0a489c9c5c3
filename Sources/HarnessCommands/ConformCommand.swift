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
                "schema", placeholder: "name",
                help:
                    "Check your own schema, registered with Harness.main(schemas:) in your executable, instead of the project's suites: its derived rules (suite schema), its queries (suite queries) and differential cases over its entities."
            ),
            .option(
                "suite", placeholder: "name", repeatable: true,
                help:
                    "Only these suites (comma-separated or repeated): \(ConformanceSuite.all.map(\.name).joined(separator: ", ")), differential; with --schema: schema, queries, differential."
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
                    "Run only shard I of N: every N-th conformance case (on every store) and an even share of each kind of differential case; merge the N reports with 'harness report merge'. (1 ≤ I ≤ N ≤ \(maximumShards))"
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
        /// The registered schema `--schema` names, with its name.
        var schema: (name: String, schema: HarnessSchema)?
        /// With `--schema`: the suites `--suite` names (`nil`: all).
        var schemaSuites: Set<String>?
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
    static func options(_ args: ParsedArguments, schemas: [String: HarnessSchema] = [:]) throws -> Options {
        var o = Options()
        if let name = args.value("schema") {
            guard let schema = schemas[name] else {
                throw ArgumentError(
                    code: .invalidValue, argument: name,
                    message: schemas.isEmpty
                        ? "--schema checks a schema your executable registers with Harness.main(schemas:); this harness has none"
                        : "--schema takes one of: \(schemas.keys.sorted().joined(separator: ", ")); not '\(name)'")
            }
            o.schema = (name, schema)
        }
        switch try args.choice("store", from: ["memory", "disk", "all"]) ?? "all" {
        case "memory": o.stores = [.memory]
        case "disk": o.stores = [.disk]
        default: o.stores = StoreKind.allCases
        }
        let suiteNames = o.schema == nil ? ConformanceSuite.all.map(\.name) : ["schema", "queries"]
        let names = try args.choices("suite", from: suiteNames + ["differential"])
        if o.schema != nil, !names.isEmpty {
            o.schemaSuites = Set(names.filter { $0 != "differential" })
            o.differential = names.contains("differential")
        } else if !names.isEmpty {
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
        for option in ["schema", "suite", "case", "shard", "junit", "regressions"] where o.runMutants {
            if let value = args.value(option) {
                throw ArgumentError(
                    code: .invalidValue, argument: value, message: "--\(option) does not go with --mutants")
            }
        }
        return o
    }

    static func run(_ args: ParsedArguments, schemas: [String: HarnessSchema] = [:]) throws -> Int32 {
        let o = try options(args, schemas: schemas)
        if o.runMutants { return try MutantsCommand.run(o) }
        let report = try conform(o)
        return report.passed ? 0 : 1
    }

    /// Runs the suites and the differential cases, prints the table and failures, writes the reports.
    static func conform(_ o: Options) throws -> ConformanceReport {
        let cases = o.differential ? (o.only.isEmpty ? Array(0..<o.cases) : o.only) : []
        var report: ConformanceReport
        if let (name, schema) = o.schema {
            progress("schema \(name)")
            report = ConformanceReport.run(
                schema: schema, suites: o.schemaSuites ?? (o.suites.isEmpty ? [] : nil), stores: o.stores,
                seed: o.seed, differentialCases: cases, shard: o.shard, jobs: o.jobs, shrink: o.shrink,
                progress: { progress($0) })
        } else {
            report = ConformanceReport.run(
                suites: o.suites, stores: o.stores, seed: o.seed, differentialCases: cases,
                shard: o.shard, jobs: o.jobs, shrink: o.shrink, progress: { progress($0) })
        }
        if o.shard != .all {
            print(
                "shard \(o.shard): conformance cases \(o.shard.index), \(o.shard.index + o.shard.count), \(o.shard.index + 2 * o.shard.count), … (each on every store) and 1/\(o.shard.count) of the differential cases, change scripts dealt evenly\n"
            )
        }
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

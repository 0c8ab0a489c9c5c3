import ArgumentParsing
import BenchmarkKit
import Foundation
import HarnessSupport
import OpenSwiftDataTesting

/// `harness reliability`: the reliability probes (crash loop, readers during writes, writers
/// in several processes, concurrent creation, disk full, bad files, hostile values, hostile
/// metadata, several stores under kills, killed migrations, history under kills, threads and
/// actors), each in child processes of this executable; a table, then `reliability.md` and
/// `reliability.json`. Without `--seed` a run draws a random seed and prints it first and
/// last, so any run can be replayed.
///
/// ```sh
/// harness reliability                      # the full configuration (what `make reliability` runs), a random seed
/// harness reliability --quick --probe crash-loop --seed 7
/// ```
enum ReliabilityCommand {
    /// The subcommand's options, for the harness's argument parser.
    static let subcommand = Subcommand(
        "reliability",
        abstract:
            "Run the reliability probes in child processes (SIGKILL loop, readers, multi-process writers, concurrent creation, disk full, bad files, hostile values, hostile metadata, several stores under kills, killed migrations, history under kills, threads and actors); exit 1 on a failure.",
        options: [
            .flag(
                "quick",
                help: "The quick configuration (what the tests run, well under a minute) instead of the full one."),
            .option(
                "probe", placeholder: "name", repeatable: true,
                help:
                    "Only these probes (comma-separated or repeated): \(ReliabilityProbe.all.map(\.name).joined(separator: ", "))."
            ),
            .option(
                "seed", placeholder: "S", range: .seed,
                help:
                    "Seed of every random choice (kill moments, batch sizes, garbage bytes, hostile files); default a random seed, printed at the start and in the report to replay the run."
            ),
            .option(
                "kills", placeholder: "N", range: .integers(bounds.kills),
                help: "Crash loop: SIGKILLs of the writer (full 200, quick 20)."),
            .option(
                "saves", placeholder: "N", range: .integers(bounds.saves),
                help: "Readers during writes: saves of the writer (full 2000, quick 200)."),
            .option(
                "writers", placeholder: "N", range: .integers(bounds.writers),
                help: "Concurrent writers: processes (full 4, quick 2)."),
            .option(
                "increments", placeholder: "N", range: .integers(bounds.increments),
                help: "Concurrent writers: increments per process (full 1000, quick 100)."),
            .option(
                "trials", placeholder: "N", range: .integers(bounds.trials),
                help: "Concurrent creation: new stores opened at once by 4 processes (full 30, quick 5)."),
            .option(
                "store-kills", placeholder: "N", range: .integers(bounds.kills),
                help: "Several stores: SIGKILLs of a writer saving into two stores at once (full 400, quick 40)."),
            .option(
                "migration-rows", placeholder: "N", range: .integers(bounds.rows),
                help:
                    "Migrations: rows of the old-schema store each killed migration rewrites (full 50000, quick 1000)."),
            .option(
                "migration-kills", placeholder: "N", range: .integers(bounds.kills),
                help: "Migrations: migrations SIGKILLed (full 60, quick 6)."),
            .option(
                "history-kills", placeholder: "N", range: .integers(bounds.kills),
                help: "History: SIGKILLs of the writer recording history (full 100, quick 12)."),
            .option(
                "hostile-files", placeholder: "N", range: .integers(bounds.kills),
                help: "Hostile metadata: seeded hostile store files opened (full 120, quick 30)."),
            .option(
                "actor-seconds", placeholder: "seconds", range: .reals(bounds.actorSeconds),
                help: "Actors: seconds 8 threads and 8 model actors write one store (full 10, quick 2)."),
            .option(
                "timeout", placeholder: "seconds", range: .reals(bounds.timeout),
                help: "Seconds a child process may run before it is killed and its probe fails (full 300, quick 60)."),
            .option(
                "out", placeholder: "DIR", help: "Directory for reliability.md and reliability.json; default Reports."),
            .flag(
                "keep",
                help: "Keep each probe's scratch directory (stores, workers' standard error) and print where it is."),
        ],
        positionalPlaceholder: nil)

    /// The ranges of the numeric options: several hundred times the full configuration's counts
    /// (kills, saves, increments, trials) and 16 times its writer processes, so a long soak still
    /// fits; a child process may run up to a day; a migrated store up to ten million rows (written
    /// to the store, not held). Each count is work done in turn, not memory held, so the bounds
    /// keep a typo from running for weeks or starting thousands of processes.
    static let bounds = (
        kills: 1...100_000, saves: 1...1_000_000, writers: 1...64, increments: 1...1_000_000, trials: 1...10_000,
        rows: 1...10_000_000, actorSeconds: 1.0...3_600.0, timeout: 1.0...86_400.0
    )

    /// The validated options.
    struct Options {
        var configuration = ReliabilityConfiguration.full
        var probes = ReliabilityProbe.all
        var out = "Reports"
        var keep = false
    }

    /// Validates every option before any work; a bad value is an ``ArgumentError`` (exit 2).
    static func options(_ args: ParsedArguments) throws -> Options {
        var o = Options()
        o.configuration = args.flag("quick") ? .quick : .full
        let names = args.list("probe")
        if !names.isEmpty {
            o.probes = try names.map { name in
                guard let probe = ReliabilityProbe.named(name) else {
                    let all = ReliabilityProbe.all.map(\.name)
                    throw ArgumentError(
                        code: .unexpectedValue, argument: name,
                        message: "no probe named '\(name)' (probes: \(all.joined(separator: ", ")))",
                        suggestion: ArgumentParser.closest(to: name, in: all))
                }
                return probe
            }
        }
        var c = o.configuration
        if let seed = try args.integer("seed", as: UInt64.self) {
            c.seed = seed
        } else {
            c.seed = ReliabilityConfiguration.randomSeed()
        }
        if let n = try args.integer("kills", in: bounds.kills) { c.kills = n }
        if let n = try args.integer("saves", in: bounds.saves) { c.readerSaves = n }
        if let n = try args.integer("writers", in: bounds.writers) { c.writerProcesses = n }
        if let n = try args.integer("increments", in: bounds.increments) { c.increments = n }
        if let n = try args.integer("trials", in: bounds.trials) { c.creationTrials = n }
        if let n = try args.integer("store-kills", in: bounds.kills) { c.storeKills = n }
        if let n = try args.integer("migration-rows", in: bounds.rows) { c.migrationRows = n }
        if let n = try args.integer("migration-kills", in: bounds.kills) { c.migrationKills = n }
        if let n = try args.integer("history-kills", in: bounds.kills) { c.historyKills = n }
        if let n = try args.integer("hostile-files", in: bounds.kills) { c.hostileFiles = n }
        if let seconds = try args.number("actor-seconds", in: bounds.actorSeconds) { c.actorSeconds = seconds }
        if let seconds = try args.number("timeout", in: bounds.timeout) { c.childTimeout = seconds }
        // The seed alone does not make a configuration customised.
        var sizes = c
        sizes.seed = o.configuration.seed
        if sizes != o.configuration { c.name = "\(o.configuration.name), customised" }
        o.configuration = c
        if let out = args.value("out") {
            guard !out.isEmpty else {
                throw ArgumentError(code: .missingValue, argument: "--out", message: "--out needs a directory")
            }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: out, isDirectory: &isDirectory), !isDirectory.boolValue {
                throw ArgumentError(
                    code: .unexpectedValue, argument: out, message: "--out '\(out)' is a file, not a directory")
            }
            o.out = out
        }
        o.keep = args.flag("keep")
        return o
    }

    /// Runs the command; returns the process exit code (0 all passed, 1 a probe failed).
    static func run(_ args: ParsedArguments) throws -> Int32 {
        let o = try options(args)
        let executable = ReliabilityWorker.currentExecutable
        let c = o.configuration
        print(
            "Reliability probes (\(c.name), \(c.replayLine)), each in child processes of \(executable.lastPathComponent):\n"
        )
        var results: [ReliabilityResult] = []
        for probe in o.probes {
            ConformCommand.progress("\(probe.name): \(probe.title)")
            let result = probe.run(c, executable: executable, keepFiles: o.keep)
            ConformCommand.progress(
                "\(probe.name): \(result.passed ? "PASS" : "FAIL") in \(String(format: "%.1f", result.seconds)) s — \(result.reason)"
            )
            results.append(result)
        }
        let report = ReliabilityReport(configuration: c, results: results)
        print(report.table())
        for r in results where !r.passed && r.failures.count > 1 {
            print("\n\(r.probe) failures:")
            for f in r.failures.prefix(8) { print("  - \(f.count > 300 ? f.prefix(300) + "…" : f)") }
            if r.failures.count > 8 { print("  … \(r.failures.count - 8) more in reliability.md") }
        }
        let dir = URL(fileURLWithPath: o.out, isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try report.markdown().write(to: dir.appendingPathComponent("reliability.md"), atomically: true, encoding: .utf8)
        try report.json().write(to: dir.appendingPathComponent("reliability.json"), options: .atomic)
        print("\nreports: \(dir.path)/reliability.md, \(dir.path)/reliability.json")
        print(
            report.passed
                ? "\nPASS" : "\nFAIL: \(results.filter { !$0.passed }.count) of \(results.count) probes failed")
        return report.passed ? 0 : 1
    }
}

import ArgumentParsing
import BenchmarkKit
import Foundation
import OpenSwiftDataTesting
import PersistenceWorkloads

/// `harness` with no arguments (what `make run` runs): the conformance suites on both stores,
/// 10,000 differential cases, the quick benchmarks, and every report under `Reports/`.
enum MainJob {
    /// Validates both parts' options (report paths writable, a benchmarkable build) before the
    /// conformance run, so nothing fails minutes in; then runs both.
    static func run(parser: ArgumentParser, toolchain: String?) throws -> Int32 {
        let out = "Reports"
        let conformOptions = try ConformCommand.options(
            parser.parse(
                ["conform", "--junit", "\(out)/conformance-junit.xml", "--markdown", "\(out)/conformance.md"]))
        let benchOptions = try BenchCommand.options(parser.parse(["bench", "--quick", "--out", out]))
        do {
            try BenchCommand.checkRunnable(benchOptions)
        } catch let error as BenchmarkError where error.code == .debugBuild {
            throw BenchmarkError(
                .debugBuild,
                message:
                    "the main job ends with benchmarks, which refuse a debug build; run `swift run -c release harness` (`make run`), or `harness conform` for the checks alone"
            )
        }

        print(
            "OpenSwiftData harness: conformance suites on both stores, 10,000 differential cases, quick benchmarks.\n")
        let report = try ConformCommand.conform(conformOptions)

        print("\nBenchmarks (quick set, ratios to raw SQLite measured in the same run):\n")
        fflush(nil)
        let bench = try BenchCommand.run(benchOptions, toolchain: toolchain)

        print("\nSummary")
        print("  conformance:  \(report.results.count) case runs, \(report.results.filter { !$0.passed }.count) failed")
        if let d = report.differential {
            print(
                "  differential: \(d.cases) cases, \(d.checks) checks, \(d.mismatches.count) mismatches (seed \(d.seed))"
            )
        }
        print("  benchmarks:   \(bench == 0 ? "done" : "failed (exit \(bench))")")
        print(
            "  reports:      \(out)/conformance.md, \(out)/conformance-junit.xml, and the benchmark files listed above")
        return report.passed && bench == 0 ? 0 : 1
    }
}

import BenchmarkKit
import Foundation
import OpenSwiftDataTesting
import PersistenceWorkloads

/// `harness` with no arguments (what `make run` runs): the conformance suites on both stores,
/// 10,000 differential cases, the quick benchmarks, and every report under `Reports/`.
enum MainJob {
    static func run(parser: ArgumentParser, toolchain: String?) throws -> Int32 {
        let out = "Reports"
        print("OpenSwiftData harness: conformance suites on both stores, 10,000 differential cases, quick benchmarks.\n")
        var options = ConformCommand.Options()
        options.junit = "\(out)/conformance-junit.xml"
        options.markdown = "\(out)/conformance.md"
        let report = try ConformCommand.conform(options)

        print("\nBenchmarks (quick set, ratios to raw SQLite measured in the same run):\n")
        fflush(nil)
        let bench = try BenchCommand.run(try parser.parse(["bench", "--quick", "--out", out]), toolchain: toolchain)

        print("\nSummary")
        print("  conformance:  \(report.results.count) case runs, \(report.results.filter { !$0.passed }.count) failed")
        if let d = report.differential {
            print("  differential: \(d.cases) cases, \(d.checks) checks, \(d.mismatches.count) mismatches (seed \(d.seed))")
        }
        print("  benchmarks:   \(bench == 0 ? "done" : "failed (exit \(bench))")")
        print("  reports:      \(out)/conformance.md, \(out)/conformance-junit.xml, and the benchmark files listed above")
        return report.passed && bench == 0 ? 0 : 1
    }
}

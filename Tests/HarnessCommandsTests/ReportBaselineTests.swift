import ArgumentParsing
import BenchmarkKit
import Foundation
import OpenSwiftDataTesting
import Testing

@testable import HarnessCommands

/// `harness report baseline FILE…` writes the median baseline of several `harness bench` runs.
@Suite("ReportBaseline")
struct ReportBaselineTests {
    let parser = ArgumentParser(program: "harness", abstract: "", subcommands: [ReportCommand.subcommand])

    private func report(_ ratio: Double) -> BenchmarkReport {
        var result = BenchmarkResult(
            name: "delete with cascade", group: "delete", store: "disk", rows: 1_000, strategy: "declared",
            iterations: 5, metrics: [MetricName.mallocCountPerRun: ratio * 100], ratioToRaw: ratio, queryPlan: [])
        result.ratioTarget = 2
        return BenchmarkReport(
            timestamp: Date(timeIntervalSince1970: 1_760_000_000), machine: .current(), toolchain: "swift",
            sqliteVersion: "3", buildConfiguration: "release", results: [result])
    }

    @Test("three runs' reports make one baseline, each result from its median run")
    func writesTheMedianBaseline() throws {
        let scratch = try ScratchDirectory(prefix: "baseline")
        var paths: [String] = []
        for (i, ratio) in [1.34, 1.75, 1.62].enumerated() {
            let url = scratch.url.appendingPathComponent("run\(i).json")
            try JSONReportCoder.encode(report(ratio)).write(to: url)
            paths.append(url.path)
        }
        let out = scratch.url.appendingPathComponent("Reports/baseline.json")
        let status = try ReportCommand.run(parser.parse(["report", "baseline"] + paths + ["--out", out.path]))
        #expect(status == 0)
        let written = try JSONReportCoder.read(from: out)
        #expect(written.results.map(\.ratioToRaw) == [1.62])
        #expect(written.results.first?.metrics[MetricName.mallocCountPerRun] == 162)
    }

    @Test("a file that is no benchmark report, or no file at all, is an ArgumentError naming it")
    func rejectsBadInput() throws {
        let scratch = try ScratchDirectory(prefix: "baseline")
        let bad = scratch.url.appendingPathComponent("notes.txt")
        try Data("not json".utf8).write(to: bad)
        #expect(throws: ArgumentError.self) {
            _ = try ReportCommand.run(parser.parse(["report", "baseline", bad.path]))
        }
        #expect(throws: ArgumentError.self) { _ = try ReportCommand.run(parser.parse(["report", "baseline"])) }
        #expect(throws: ArgumentError.self) {
            _ = try ReportCommand.run(
                parser.parse(["report", "baseline", scratch.url.appendingPathComponent("missing.json").path]))
        }
    }
}

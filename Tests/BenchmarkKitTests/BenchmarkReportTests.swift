import Foundation
import Testing

@testable import BenchmarkKit

@Suite("BenchmarkKit Report")
struct BenchmarkReportTests {
    @Test func jsonRoundTripPreservesEverything() throws {
        var report = Fixtures.scaledReport()
        report.results.append(Fixtures.result("no ratio", ratio: nil, metrics: ["vmSteps": 42]))
        let data = try JSONReportCoder.encode(report)
        #expect(try JSONReportCoder.decode(data) == report)
        let text = try #require(String(data: data, encoding: .utf8))
        #expect(text.contains("\"schemaVersion\" : 1"))
        #expect(text.contains("\"timestamp\" : \"2025-10-09T08:53:20Z\""))
        // Sorted keys: a stable order for diffs.
        let machine = try #require(text.range(of: "\"machine\""))
        let results = try #require(text.range(of: "\"results\""))
        #expect(machine.lowerBound < results.lowerBound)
        // A result without a raw baseline has no ratioToRaw at all (not 0, not null).
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let last = try #require((object["results"] as? [[String: Any]])?.last)
        #expect(last["ratioToRaw"] == nil)
    }

    @Test func currentReportDescribesThisProcess() {
        let report = BenchmarkReport.current(toolchain: nil, results: [])
        #expect(report.schemaVersion == BenchmarkReport.currentSchemaVersion)
        #expect(report.sqliteVersion.hasPrefix("3."))
        #expect(report.machine.coreCount >= 1)
        #expect(!report.machine.hostname.isEmpty)
        #expect(report.toolchain.contains("Swift"))
        #expect(report.buildConfiguration == BuildConfiguration.name)
    }

    @Test func cpuModelIsReadFromCpuinfo() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cpuinfo-\(UUID().uuidString)")
        try "processor\t: 0\nvendor_id\t: X\nmodel name\t: Fancy CPU 9000\n".write(
            to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(MachineInfo.cpuModel(cpuinfo: url.path) == "Fancy CPU 9000")
        #expect(MachineInfo.cpuModel(cpuinfo: "/nonexistent/cpuinfo") == nil)
    }

    @Test func directoryWriterWritesJsonMarkdownAndCharts() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bk-reports-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let written = try ReportDirectoryWriter.write(
            Fixtures.scaledReport(), to: dir,
            targets: [.init(label: "fetch ≤ 3×", ratio: 3)])
        #expect(
            written.map(\.lastPathComponent) == [
                "bench-20251009-085320.json", "latest.md",
                "batch-insert-wall.svg", "equality-fetch-wall.svg", "ratio-to-raw.svg",
            ])
        #expect(ReportDirectoryWriter.fileName("Fetch / Count") == "fetch-count")
    }
}

@Suite("BenchmarkKit Markdown")
struct MarkdownReportWriterTests {
    @Test func oneTablePerGroupWithTheRequiredColumns() {
        let report = Fixtures.report([
            Fixtures.result(
                "batch insert", group: "insert", rows: 1_000, ratio: 1.25,
                metrics: [
                    MetricName.wallNanosecondsMedian: 1_500_000, MetricName.wallNanosecondsP90: 2_000_000,
                    MetricName.mallocCountPerOperation: 3,
                ]),
            Fixtures.result(
                "point | fetch", group: "fetch", store: "memory", rows: 100_000, strategy: "declared",
                ratio: nil, metrics: [MetricName.wallNanosecondsMedian: 812, MetricName.mallocCountPerRun: 7],
                plan: ["SEARCH t USING INDEX t_a (a=?)", "USE TEMP B-TREE"]),
        ])
        let md = MarkdownReportWriter.render(report)
        #expect(md.contains("## insert\n"))
        #expect(md.contains("## fetch\n"))
        #expect(
            md.contains(
                "| name | store | rows | strategy | median per run | p90 per run | ratio to raw | index speed-up | mallocs/op | plan |"
            ))
        #expect(md.contains("| batch insert | disk | 1000 | none | 1.50 ms | 2.00 ms | 1.25× | — | 3.00 | — |"))
        #expect(
            md.contains(
                "| point \\| fetch | memory | 100000 | declared | 812 ns | — | — | — | 7/run | "
                    + "SEARCH t USING INDEX t_a (a=?); USE TEMP B-TREE |"))
        #expect(md.contains("- SQLite: 3.40.1; build: release"))
        #expect(md.contains("- Toolchain: Swift version 6.3.1 (swift-6.3.1-RELEASE)\n"))
        // Groups appear in first-appearance order.
        #expect(md.range(of: "## insert")!.lowerBound < md.range(of: "## fetch")!.lowerBound)
    }

    @Test func durationsPickAReadableUnit() {
        #expect(MarkdownReportWriter.duration(999) == "999 ns")
        #expect(MarkdownReportWriter.duration(3_400) == "3.40 µs")
        #expect(MarkdownReportWriter.duration(12_500_000) == "12.50 ms")
        #expect(MarkdownReportWriter.duration(1_200_000_000) == "1.20 s")
        #expect(MarkdownReportWriter.duration(nil) == "—")
    }
}

@Suite("BenchmarkKit IndexSpeedup")
struct IndexSpeedupTests {
    @Test func noneMedianOverDeclaredMedianForOursAndRaw() {
        func r(_ strategy: String, _ ours: Double, _ raw: Double, rows: Int = 1_000) -> BenchmarkResult {
            Fixtures.result(
                "count (indexed)", group: "count", rows: rows, strategy: strategy,
                metrics: [MetricName.wallNanosecondsMedian: ours, MetricName.rawWallNanosecondsMedian: raw])
        }
        let results = [
            r("none", 5_000_000, 4_000_000), r("declared", 50_000, 20_000),
            r("declared", 1_000, 1_000, rows: 10_000),
        ]  // no `none` twin at 10k
        let speedups = IndexSpeedup.all(in: results)
        #expect(speedups.count == 1)
        let s = speedups[results[1].key]
        #expect(s == IndexSpeedup(ours: 100, raw: 200))
        #expect(s?.description == "ours 100× · raw 200×")
        #expect(IndexSpeedup.format(3.74) == "3.7×")
        #expect(IndexSpeedup.format(0.98) == "1.0×")
        let md = MarkdownReportWriter.table(results).joined(separator: "\n")
        #expect(md.contains("| 1000 | declared | 50.00 µs | — | 1.25× | ours 100× · raw 200× |"))
    }
}

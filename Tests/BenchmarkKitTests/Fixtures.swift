import Foundation

@testable import BenchmarkKit

/// Hand-made reports and results shared by the report, chart and comparison suites.
enum Fixtures {
    static let machine = MachineInfo(
        hostname: "bench-host", cpuModel: "Test CPU @ 3.0GHz", coreCount: 8,
        memoryBytes: 16 << 30, operatingSystem: "Linux test")

    static func result(
        _ name: String = "batch insert", group: String = "insert", store: String = "disk",
        rows: Int = 1_000, strategy: String = "none", ratio: Double? = 1.25,
        metrics: [String: Double] = [:], plan: [String] = []
    ) -> BenchmarkResult {
        BenchmarkResult(
            name: name, group: group, store: store, rows: rows, strategy: strategy, iterations: 5,
            metrics: metrics, ratioToRaw: ratio, queryPlan: plan)
    }

    static func report(_ results: [BenchmarkResult]) -> BenchmarkReport {
        BenchmarkReport(
            timestamp: Date(timeIntervalSince1970: 1_760_000_000), machine: machine,
            toolchain: "Swift version 6.3.1 (swift-6.3.1-RELEASE)\nTarget: x86_64-unknown-linux-gnu",
            sqliteVersion: "3.40.1", buildConfiguration: "release",
            allocator: "jemalloc 5.3.0 is the process allocator", results: results)
    }

    /// A two-group report over three scales, with raw baselines and an indexed/unindexed pair.
    static func scaledReport() -> BenchmarkReport {
        var results: [BenchmarkResult] = []
        for rows in [1_000, 10_000, 100_000] {
            let n = Double(rows)
            results.append(
                result(
                    "batch insert", group: "insert", rows: rows, strategy: "", ratio: 1.6,
                    metrics: [
                        MetricName.wallNanosecondsMedian: 900 * n,
                        MetricName.rawWallNanosecondsMedian: 560 * n,
                        MetricName.wallNanosecondsP90: 1000 * n,
                        MetricName.mallocCountPerOperation: 3,
                    ]))
            results.append(
                result(
                    "equality fetch", group: "fetch", rows: rows, strategy: "declared", ratio: 2.4,
                    metrics: [
                        MetricName.wallNanosecondsMedian: 4_000 + 300 * log10(n),
                        MetricName.rawWallNanosecondsMedian: 1_700 + 100 * log10(n),
                    ],
                    plan: ["SEARCH item USING INDEX item_name (name=?)"]))
            results.append(
                result(
                    "equality fetch", group: "fetch", rows: rows, strategy: "none", ratio: 1.05,
                    metrics: [
                        MetricName.wallNanosecondsMedian: 120 * n,
                        MetricName.rawWallNanosecondsMedian: 114 * n,
                    ],
                    plan: ["SCAN item"]))
        }
        return report(results)
    }
}

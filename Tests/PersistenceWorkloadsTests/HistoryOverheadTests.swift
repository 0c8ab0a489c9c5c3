import BenchmarkKit
import Foundation
import Testing

@testable import PersistenceWorkloads

/// The summary's history overhead pairs each save workload with its `(no history)` variant and
/// compares their ratios to raw SQLite, which cancels the machine's drift between the two runs;
/// the plain wall-time quotient follows for reference.
@Suite("HistoryOverhead")
struct HistoryOverheadTests {
    /// A result of `name` at 1k rows on `store` with this ratio to raw and wall-time median.
    static func result(_ name: String, store: String = "disk", ratio: Double?, wall: Double) -> BenchmarkResult {
        BenchmarkResult(
            name: name, group: "insert", store: store, rows: 1_000, strategy: "declared", iterations: 3,
            metrics: [MetricName.wallNanosecondsMedian: wall], ratioToRaw: ratio)
    }

    static func report(_ results: [BenchmarkResult]) -> BenchmarkReport {
        BenchmarkReport(
            timestamp: Date(timeIntervalSince1970: 0),
            machine: MachineInfo(hostname: "h", cpuModel: nil, coreCount: 2, memoryBytes: 1, operatingSystem: "Linux"),
            toolchain: "t", sqliteVersion: "3", buildConfiguration: "release", results: results)
    }

    @Test("the overhead is the with-history ratio to raw over the no-history one, wall medians beside it")
    func ratioOverRatio() {
        // Raw ran faster during the no-history run (0.9 against 1.0 a unit of work): the wall
        // quotient says +33 %, the ratios +20 %.
        let lines = BenchCommand.historyOverhead(
            Self.report([
                Self.result("batch insert", ratio: 1.2, wall: 120),
                Self.result("batch insert (no history)", ratio: 1.0, wall: 90),
                Self.result("batch insert", store: "memory", ratio: 1.1, wall: 50),
            ]))
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first?.hasPrefix("history recording overhead (with ÷ without") == true)
        let line = lines.last ?? ""
        #expect(line.contains("batch insert") && line.contains("disk") && line.contains("1000 rows"), "\(line)")
        #expect(line.contains("+20.0 %") && line.contains("(wall medians +33.3 %)"), "\(line)")
    }

    @Test("a workload without its no-history variant, or a result without a ratio, adds no line")
    func unpaired() {
        #expect(BenchCommand.historyOverhead(Self.report([Self.result("batch insert", ratio: 1.2, wall: 120)])).isEmpty)
        #expect(
            BenchCommand.historyOverhead(
                Self.report([
                    Self.result("upsert (half colliding)", ratio: nil, wall: 120),
                    Self.result("upsert (half colliding) (no history)", ratio: 1.0, wall: 100),
                ])
            ).isEmpty)
    }
}

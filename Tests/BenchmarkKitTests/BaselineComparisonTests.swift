import Foundation
import Testing

@testable import BenchmarkKit

@Suite("BenchmarkKit Comparison")
struct BaselineComparisonTests {
    private let baseline = Fixtures.report([
        Fixtures.result(
            "fetch all", rows: 100_000, ratio: 1.5,
            metrics: [MetricName.mallocCountPerRun: 1_000, MetricName.wallNanosecondsMedian: 1_000_000]),
        Fixtures.result("only in baseline", rows: 10, ratio: 1),
    ])

    private func current(ratio: Double?, mallocs: Double?, wall: Double) -> BenchmarkReport {
        var metrics = [MetricName.wallNanosecondsMedian: wall]
        metrics[MetricName.mallocCountPerRun] = mallocs
        return Fixtures.report([
            Fixtures.result("fetch all", rows: 100_000, ratio: ratio, metrics: metrics),
            Fixtures.result("brand new", rows: 1, ratio: 9),
        ])
    }

    @Test func ratioRegressionFails() throws {
        let outcome = BaselineComparison.compare(
            current: current(ratio: 2.1, mallocs: 1_000, wall: 1_000_000),
            baseline: baseline)
        #expect(outcome.verdict == .fail)
        let row = try #require(outcome.regressions.first)
        #expect(outcome.regressions.count == 1)
        #expect(row.metric == "ratioToRaw" && row.baseline == 1.5 && row.current == 2.1)
        #expect(abs(row.deltaPercent - 40) < 1e-9)
        #expect(row.key == ResultKey(name: "fetch all", store: "disk", rows: 100_000, strategy: "none"))
        let table = outcome.table()
        #expect(table.contains("FAIL"))
        #expect(table.contains("+40.0%"))
        #expect(table.contains("missing from this run: only in baseline [disk, 10 rows, none]"))
        #expect(table.contains("not in baseline: brand new [disk, 1 rows, none]"))
    }

    @Test func wallTimeAloneNeverFails() {
        let outcome = BaselineComparison.compare(
            current: current(ratio: 1.5, mallocs: 1_000, wall: 9_000_000),
            baseline: baseline)
        #expect(outcome.verdict == .pass)
        let wall = outcome.rows.first { $0.metric == MetricName.wallNanosecondsMedian }
        #expect(wall?.deltaPercent == 800 && wall?.isGated == false && wall?.isRegression == false)
        #expect(outcome.table().contains("PASS"))
    }

    @Test func mallocRegressionFailsPastTenPercent() {
        let over = BaselineComparison.compare(current: current(ratio: 1.5, mallocs: 1_150, wall: 1), baseline: baseline)
        #expect(over.verdict == .fail)
        #expect(over.regressions.map(\.metric) == [MetricName.mallocCountPerRun])
        let within = BaselineComparison.compare(
            current: current(ratio: 1.5, mallocs: 1_100, wall: 1), baseline: baseline)
        #expect(within.verdict == .pass)  // exactly +10 % is allowed
    }

    @Test func thresholdsAndImprovements() {
        let ratioWithin = BaselineComparison.compare(
            current: current(ratio: 1.875, mallocs: 900, wall: 1),
            baseline: baseline)
        #expect(ratioWithin.verdict == .pass)  // exactly +25 %, and fewer mallocs
        let strict = BaselineComparison.compare(
            current: current(ratio: 1.6, mallocs: 1_000, wall: 1), baseline: baseline,
            thresholds: ComparisonThresholds(ratioToRawIncrease: 0.05))
        #expect(strict.verdict == .fail)
    }

    @Test func unsupportedMetricsAreNotCompared() {
        // This run could not count mallocs (e.g. jemalloc not the allocator): nothing to gate on, not a failure.
        let outcome = BaselineComparison.compare(
            current: current(ratio: 1.5, mallocs: nil, wall: 1), baseline: baseline)
        #expect(!outcome.rows.contains { $0.metric == MetricName.mallocCountPerRun })
        #expect(outcome.verdict == .pass)
    }

    @Test func growthFromZeroIsInfinite() {
        let zero = Fixtures.report([
            Fixtures.result("fetch all", rows: 100_000, metrics: [MetricName.mallocCountPerRun: 0])
        ])
        let some = Fixtures.report([
            Fixtures.result("fetch all", rows: 100_000, metrics: [MetricName.mallocCountPerRun: 3])
        ])
        let outcome = BaselineComparison.compare(current: some, baseline: zero)
        #expect(outcome.verdict == .fail)
        #expect(outcome.table().contains("+inf"))
    }

    /// A result above its ratio target fails the comparison even when nothing regressed against
    /// the baseline (issue #18: `make bench-compare` gates on the targets).
    @Test func resultAboveItsRatioTargetFails() throws {
        func run(_ ratio: Double) -> BenchmarkReport {
            var r = Fixtures.result("fetch all", rows: 100_000, ratio: ratio)
            r.ratioTarget = 2.0
            return Fixtures.report([r, Fixtures.result("no target", rows: 10, ratio: 9)])
        }
        let base = Fixtures.report([Fixtures.result("fetch all", rows: 100_000, ratio: 2.1)])
        let over = BaselineComparison.compare(current: run(2.1), baseline: base)
        #expect(over.regressions.isEmpty)
        #expect(over.verdict == .fail)
        let miss = try #require(over.missedTargets.first)
        #expect(over.missedTargets.count == 1 && miss.ratio == 2.1 && miss.target == 2.0)
        #expect(over.targets.count == 1)  // a result without a target is not checked
        let table = over.table()
        #expect(table.contains("MISSED fetch all [disk, 100000 rows, none]: 2.10× > 2.00×"))
        #expect(table.contains("targets: 0 of 1 met"))
        #expect(table.contains("FAIL: 1 result(s) above their ratio target"))

        let exactly = BaselineComparison.compare(current: run(2.0), baseline: base)
        #expect(exactly.verdict == .pass)  // a target is inclusive
        #expect(exactly.table().contains("met    fetch all [disk, 100000 rows, none]: 2.00× ≤ 2.00×"))
        #expect(exactly.table().contains("and every result meets its ratio target"))
    }

    /// A baseline written before results carried targets still decodes, and a target survives
    /// the JSON round trip.
    @Test func ratioTargetIsOptionalInJSON() throws {
        var r = Fixtures.result("fetch all", rows: 1_000, ratio: 1.5)
        r.ratioTarget = 1.3
        let data = try JSONReportCoder.encode(Fixtures.report([r]))
        #expect(try JSONReportCoder.decode(data).results.first?.ratioTarget == 1.3)
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var results = try #require(object["results"] as? [[String: Any]])
        results[0].removeValue(forKey: "ratioTarget")
        object["results"] = results
        let old = try JSONSerialization.data(withJSONObject: object)
        let decoded = try JSONReportCoder.decode(old)
        #expect(decoded.results.first?.ratioTarget == nil)
        #expect(decoded.results.first?.missesRatioTarget == nil)
    }
}

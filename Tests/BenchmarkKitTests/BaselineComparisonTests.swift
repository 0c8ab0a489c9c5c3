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
    /// the baseline (`make bench-compare` gates on the targets, not only on regressions).
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

    /// A failure must repeat (`make bench-compare` runs on a shared, noisy machine): a result
    /// that failed is measured again, and the better of its two measurements decides.
    @Test func aFailureStandsOnlyWhenItsSecondMeasurementFailsToo() throws {
        func result(_ name: String, ratio: Double, mallocs: Double = 1_000) -> BenchmarkResult {
            var r = Fixtures.result(name, rows: 1_000, ratio: ratio, metrics: [MetricName.mallocCountPerRun: mallocs])
            r.ratioTarget = 2.0
            return r
        }
        let base = Fixtures.report([
            result("cascade", ratio: 1.3), result("count", ratio: 1.2), result("insert", ratio: 1.8),
            result("fine", ratio: 1.4),
        ])
        let first = BaselineComparison.compare(
            current: Fixtures.report([
                result("cascade", ratio: 1.8),  // +38 %: a busy moment
                result("count", ratio: 1.7),  // +42 %: a real regression
                result("insert", ratio: 2.1),  // above its target
                result("fine", ratio: 1.45),
            ]),
            baseline: base)
        #expect(first.verdict == .fail)
        #expect(first.failingKeys.map(\.name) == ["cascade", "count", "insert"])

        // Measured again: the cascade and the insert come back within bounds, the count does not.
        let confirmed = BaselineComparison.confirm(
            first, baseline: base,
            remeasured: [result("cascade", ratio: 1.35), result("count", ratio: 1.75), result("insert", ratio: 1.9)])
        #expect(confirmed.remeasured.map(\.name) == ["cascade", "count", "insert"])
        #expect(confirmed.regressions.map(\.key.name) == ["count"])
        // The count's row keeps its better measurement, 1.70, still a regression.
        let count = try #require(confirmed.rows.first { $0.key.name == "count" && $0.metric == MetricName.ratioToRaw })
        #expect(count.current == 1.7 && count.isRegression)
        let cascade = try #require(
            confirmed.rows.first { $0.key.name == "cascade" && $0.metric == MetricName.ratioToRaw })
        #expect(cascade.current == 1.35 && !cascade.isRegression)
        #expect(confirmed.missedTargets.isEmpty)
        #expect(confirmed.verdict == .fail)
        let table = confirmed.table()
        #expect(table.contains("measured twice (the first measurement failed): cascade [disk, 1000 rows, none]"))
        #expect(table.contains("FAIL: 1 gated metric(s) regressed"))

        // Both measurements above the target: the miss stands, with the lower ratio.
        let missed = BaselineComparison.confirm(
            first, baseline: base,
            remeasured: [result("cascade", ratio: 1.3), result("count", ratio: 1.2), result("insert", ratio: 2.3)])
        #expect(missed.regressions.isEmpty)
        #expect(missed.missedTargets.map(\.ratio) == [2.1])
        #expect(missed.verdict == .fail)

        // Every failure gone on the second measurement: the comparison passes.
        let passed = BaselineComparison.confirm(
            first, baseline: base,
            remeasured: [result("cascade", ratio: 1.3), result("count", ratio: 1.25), result("insert", ratio: 1.6)])
        #expect(passed.verdict == .pass)
        // A malloc count that grew on both measurements still fails.
        let mallocs = BaselineComparison.confirm(
            BaselineComparison.compare(
                current: Fixtures.report([result("fine", ratio: 1.4, mallocs: 1_200)]), baseline: base),
            baseline: base, remeasured: [result("fine", ratio: 1.4, mallocs: 1_150)])
        #expect(mallocs.regressions.map(\.metric) == [MetricName.mallocCountPerRun])
        // A result that did not fail keeps its one measurement, even when another is passed.
        let extra = BaselineComparison.confirm(
            first, baseline: base, remeasured: [result("cascade", ratio: 1.35), result("fine", ratio: 1.0)])
        #expect(extra.remeasured.map(\.name) == ["cascade"])
        #expect(extra.rows.first { $0.key.name == "fine" && $0.metric == MetricName.ratioToRaw }?.current == 1.45)
    }

    /// `harness report baseline`: a baseline from several runs takes each result
    /// from the run with its median ratio, so one lucky run does not become the bar.
    @Test func medianBaselineTakesEachResultFromItsMedianRun() throws {
        func run(_ tag: Double, _ ratios: [String: Double?], wall: Double = 1) -> BenchmarkReport {
            Fixtures.report(
                ratios.keys.sorted().map { name in
                    Fixtures.result(
                        name, rows: 1_000, ratio: ratios[name]!,
                        metrics: [MetricName.mallocCountPerRun: tag, MetricName.wallNanosecondsMedian: wall * tag])
                })
        }
        let runs = [
            run(1, ["cascade": 1.34, "insert": 1.8, "count": nil]),
            run(2, ["cascade": 1.75, "insert": 1.6, "count": nil]),
            run(3, ["cascade": 1.62, "insert": 2.1, "count": nil, "new": 1.1]),
        ]
        let baseline = try #require(BaselineComparison.medianBaseline(of: runs))
        func pick(_ name: String) throws -> BenchmarkResult {
            try #require(baseline.results.first { $0.key.name == name })
        }
        // The median ratio, with its own run's metrics.
        #expect(try pick("cascade").ratioToRaw == 1.62)
        #expect(try pick("cascade").metrics[MetricName.mallocCountPerRun] == 3)
        #expect(try pick("insert").ratioToRaw == 1.8)
        #expect(try pick("insert").metrics[MetricName.mallocCountPerRun] == 1)
        // No ratio: the median wall time (runs 1, 2, 3 → run 2).
        #expect(try pick("count").metrics[MetricName.mallocCountPerRun] == 2)
        #expect(try pick("new").ratioToRaw == 1.1)
        #expect(baseline.results.count == 4)
        #expect(baseline.results.map(\.key.name) == ["cascade", "count", "insert", "new"])
        // Two runs: the higher of the two.
        let two = try #require(BaselineComparison.medianBaseline(of: Array(runs.prefix(2))))
        #expect(two.results.first { $0.key.name == "cascade" }?.ratioToRaw == 1.75)
        #expect(BaselineComparison.medianBaseline(of: []) == nil)
        // A typical later run passes against it where it failed against the lucky one.
        let later = Fixtures.report([Fixtures.result("cascade", rows: 1_000, ratio: 1.72)])
        #expect(BaselineComparison.compare(current: later, baseline: runs[0]).verdict == .fail)
        #expect(BaselineComparison.compare(current: later, baseline: baseline).verdict == .pass)
    }
}

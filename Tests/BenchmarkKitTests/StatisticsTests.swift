import Testing

@testable import BenchmarkKit

@Suite("BenchmarkKit Statistics")
struct StatisticsTests {
    /// 1…10: h = 9p; values hand-computed with linear interpolation.
    @Test func percentilesOfOneToTen() throws {
        let s = try #require(Statistics([10, 3, 1, 2, 4, 5, 6, 7, 8, 9]))  // order must not matter
        #expect(s.percentile(0) == 1)
        #expect(s.percentile(0.25) == 3.25)  // h = 2.25 → 3 + 0.25
        #expect(s.median == 5.5)  // h = 4.5  → 5 + 0.5
        #expect(s.percentile(0.75) == 7.75)  // h = 6.75 → 7 + 0.75
        #expect(abs(s.percentile(0.9) - 9.1) < 1e-12)  // h = 8.1
        #expect(abs(s.percentile(0.99) - 9.91) < 1e-12)  // h = 8.91
        #expect(s.percentile(1) == 10)
        #expect(s.mean == 5.5)
        // Σ(x - 5.5)² = 82.5; sample variance 82.5 / 9 = 9.1666…; sd = 3.0276503540974917
        #expect(abs(s.standardDeviation - 3.0276503540974917) < 1e-12)
        // |x - 5.5| sorted: .5 .5 1.5 1.5 2.5 2.5 3.5 3.5 4.5 4.5 → median 2.5
        #expect(s.medianAbsoluteDeviation == 2.5)
    }

    @Test func evenAndSingleSamples() throws {
        let four = try #require(Statistics([4, 1, 3, 2]))
        #expect(four.median == 2.5)
        #expect(abs(four.percentile(0.9) - 3.7) < 1e-12)  // h = 2.7 → 3 + 0.7
        #expect(four.medianAbsoluteDeviation == 1)  // |x-2.5| = 1.5 .5 .5 1.5 → 1
        let one = try #require(Statistics([7]))
        #expect(one.percentile(0) == 7 && one.median == 7 && one.percentile(1) == 7)
        #expect(one.standardDeviation == 0)
        #expect(one.medianAbsoluteDeviation == 0)
    }

    @Test func emptySampleIsOmittedNotZero() {
        #expect(Statistics([]) == nil)
        #expect(Statistics.ratioOfMedians([], [1]) == nil)
        #expect(Statistics.ratioOfMedians([1], [0, 0, 1]) == nil)  // median 0 denominator
    }

    @Test func ratioOfMedians() {
        #expect(Statistics.ratioOfMedians([2, 4, 6], [1, 2, 3]) == 2)
        #expect(Statistics.ratioOfMedians([10, 1000, 30, 20], [10]) == 2.5)  // median 25 ÷ 10
    }

    @Test func metricNamesCarryTheSummary() throws {
        let m = try #require(Statistics([1, 2, 3])).metrics(named: "wallNanoseconds")
        #expect(
            Set(m.keys) == [
                "wallNanosecondsP0", "wallNanosecondsP25", "wallNanosecondsMedian",
                "wallNanosecondsP75", "wallNanosecondsP90", "wallNanosecondsP99",
                "wallNanosecondsP100", "wallNanosecondsMean", "wallNanosecondsStandardDeviation",
                "wallNanosecondsMedianAbsoluteDeviation",
            ])
        #expect(m["wallNanosecondsMedian"] == 2)
        #expect(m["wallNanosecondsP25"] == 1.5)
    }
}

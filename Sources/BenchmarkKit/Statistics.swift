/// Summary statistics of a sample of measurements (wall times, CPU times, counts).
///
/// Percentiles use **linear interpolation between closest ranks** (Hyndman & Fan type 7, the
/// default of NumPy and R): for a sorted sample `x[0] … x[n-1]` and a fraction `p` in `0…1`,
/// `h = (n - 1) · p`, and the percentile is `x[⌊h⌋] + (h - ⌊h⌋) · (x[⌊h⌋ + 1] - x[⌊h⌋])`.
/// So p0 is the minimum, p100 the maximum, and p50 the usual median.
///
/// ```swift
/// let s = Statistics([4, 1, 3, 2])!
/// s.median            // 2.5
/// s.percentile(0.9)   // 3.7  (h = 2.7: 3 + 0.7 · (4 - 3))
/// ```
public struct Statistics: Sendable, Equatable {
    /// The sample, sorted ascending.
    public let sorted: [Double]

    /// Summarizes `values`; `nil` when `values` is empty (a statistic of nothing is omitted, not 0).
    public init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        sorted = values.sorted()
    }

    /// The number of values in the sample.
    public var count: Int { sorted.count }

    /// The percentile at fraction `p` (`0…1`, clamped), by linear interpolation (see the type).
    public func percentile(_ p: Double) -> Double {
        Statistics.percentile(p, ofSorted: sorted)
    }

    /// The minimum (p0).
    public var minimum: Double { sorted[0] }
    /// The maximum (p100).
    public var maximum: Double { sorted[sorted.count - 1] }
    /// The median (p50).
    public var median: Double { percentile(0.5) }

    /// The arithmetic mean.
    public var mean: Double { sorted.reduce(0, +) / Double(sorted.count) }

    /// The sample standard deviation (divisor `n - 1`); 0 for a single value.
    public var standardDeviation: Double {
        guard sorted.count > 1 else { return 0 }
        let m = mean
        let sumOfSquares = sorted.reduce(0) { $0 + ($1 - m) * ($1 - m) }
        return (sumOfSquares / Double(sorted.count - 1)).squareRoot()
    }

    /// The median absolute deviation: the median of `|x - median|`, unscaled (no 1.4826 factor).
    public var medianAbsoluteDeviation: Double {
        let m = median
        return Statistics.percentile(0.5, ofSorted: sorted.map { abs($0 - m) }.sorted())
    }

    /// The percentile fractions every distribution metric reports, with their name suffixes.
    ///
    /// `("P0", 0), ("P25", 0.25), ("Median", 0.5), ("P75", 0.75), ("P90", 0.9), ("P99", 0.99), ("P100", 1)`.
    public static let reportedPercentiles: [(suffix: String, fraction: Double)] = [
        ("P0", 0), ("P25", 0.25), ("Median", 0.5), ("P75", 0.75),
        ("P90", 0.9), ("P99", 0.99), ("P100", 1),
    ]

    /// The full summary as metric entries named `<base><Suffix>`, e.g. `wallNanosecondsMedian`.
    ///
    /// Suffixes: the ``reportedPercentiles`` plus `Mean`, `StandardDeviation` and
    /// `MedianAbsoluteDeviation`.
    public func metrics(named base: String) -> [String: Double] {
        var out: [String: Double] = [:]
        for (suffix, fraction) in Statistics.reportedPercentiles {
            out[base + suffix] = percentile(fraction)
        }
        out[base + "Mean"] = mean
        out[base + "StandardDeviation"] = standardDeviation
        out[base + "MedianAbsoluteDeviation"] = medianAbsoluteDeviation
        return out
    }

    /// The ratio of the medians of two samples, `median(numerator) / median(denominator)`.
    ///
    /// `nil` when either sample is empty or the denominator's median is 0.
    /// ```swift
    /// Statistics.ratioOfMedians([2, 4, 6], [1, 2, 3])  // 2.0
    /// ```
    public static func ratioOfMedians(_ numerator: [Double], _ denominator: [Double]) -> Double? {
        guard let n = Statistics(numerator), let d = Statistics(denominator), d.median != 0 else {
            return nil
        }
        return n.median / d.median
    }

    /// The linear-interpolation percentile of an already sorted, non-empty array.
    static func percentile(_ p: Double, ofSorted values: [Double]) -> Double {
        precondition(!values.isEmpty, "percentile of an empty sample")
        let clamped = min(max(p, 0), 1)
        let h = Double(values.count - 1) * clamped
        let lower = Int(h.rounded(.down))
        let upper = min(lower + 1, values.count - 1)
        return values[lower] + (h - Double(lower)) * (values[upper] - values[lower])
    }
}

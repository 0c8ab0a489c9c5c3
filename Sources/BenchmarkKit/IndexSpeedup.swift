import Foundation

/// What an index buys a query workload: its median under the `none` strategy ÷ its median under
/// `declared`, for ours and for the raw-SQLite twin, at the same store and scale.
///
/// `20×` means the declared index made the query twenty times faster; about `1×` means the index
/// is not used or does not pay off (the query reads most rows anyway). Ours close to raw means
/// the translated SQL lets SQLite use the index as a hand-written query does.
/// ```swift
/// let speedups = IndexSpeedup.all(in: report.results)
/// speedups[result.key]?.description   // "ours 181× · raw 204×"
/// ```
public struct IndexSpeedup: Equatable, Sendable, CustomStringConvertible {
    /// Our `none` median ÷ our `declared` median.
    public var ours: Double
    /// The raw twin's `none` median ÷ its `declared` median; `nil` without a raw baseline.
    public var raw: Double?

    /// The strategy labels compared: the unindexed run and the indexed one.
    public static let unindexedStrategy = "none", indexedStrategy = "declared"

    /// The speed-up of every `declared` result whose `none` twin (same name, store and rows) is
    /// in `results`, keyed by the `declared` result's key.
    public static func all(in results: [BenchmarkResult]) -> [ResultKey: IndexSpeedup] {
        var unindexed: [ResultKey: BenchmarkResult] = [:]
        for r in results where r.strategy == unindexedStrategy {
            unindexed[ResultKey(name: r.name, store: r.store, rows: r.rows, strategy: indexedStrategy)] = r
        }
        var out: [ResultKey: IndexSpeedup] = [:]
        for r in results where r.strategy == indexedStrategy {
            guard let u = unindexed[r.key], let s = speedup(unindexed: u, indexed: r) else { continue }
            out[r.key] = s
        }
        return out
    }

    /// The speed-up from two results of one workload, or `nil` when a median is missing.
    static func speedup(unindexed u: BenchmarkResult, indexed d: BenchmarkResult) -> IndexSpeedup? {
        func ratio(_ metric: String) -> Double? {
            guard let a = u.metrics[metric], let b = d.metrics[metric], b > 0 else { return nil }
            return a / b
        }
        guard let ours = ratio(MetricName.wallNanosecondsMedian) else { return nil }
        return IndexSpeedup(ours: ours, raw: ratio(MetricName.rawWallNanosecondsMedian))
    }

    /// `"ours 181× · raw 204×"`; raw shows `—` when it was not measured.
    public var description: String {
        "ours \(Self.format(ours)) · raw \(raw.map(Self.format) ?? "—")"
    }

    /// `1.0×`, `3.7×`, `181×`: one decimal below 10, whole numbers from 10 on.
    public static func format(_ x: Double) -> String {
        String(format: x < 9.95 ? "%.1f×" : "%.0f×", x)
    }
}

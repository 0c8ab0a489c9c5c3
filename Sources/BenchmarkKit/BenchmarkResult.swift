/// The measurements of one benchmark at one scale, on one store, under one index strategy.
///
/// Metric names carry their unit and summary, e.g. `wallNanosecondsMedian`, `cpuNanosecondsP90`,
/// `mallocCountPerRun`, `allocatedBytesPerRun`, `mallocCountPerOperation`, `operationsPerSecond`,
/// `peakResidentKiB`, `residentKiB`, `vmSteps`, `fullScanSteps`, `sorts`, `autoIndexRows`, and the
/// raw baseline's with a `raw` prefix (`rawWallNanosecondsMedian`, `rawMallocCountPerRun`). A
/// metric this process could not measure is absent, never 0.
/// ```swift
/// let median = result.metrics[MetricName.wallNanosecondsMedian]
/// if let ratio = result.ratioToRaw { print("\(result.key): \(ratio)×") }
/// ```
public struct BenchmarkResult: Codable, Equatable, Sendable {
    /// The benchmark's name.
    public var name: String
    /// The benchmark's group (one Markdown table and one chart per group).
    public var group: String
    /// The store label (`"disk"`, `"memory"`), empty when not applicable.
    public var store: String
    /// The scale, usually a row count.
    public var rows: Int
    /// The index strategy label, empty when not applicable.
    public var strategy: String
    /// Measured iterations (warm-up excluded).
    public var iterations: Int
    /// Metric values keyed by name (see the type's documentation).
    public var metrics: [String: Double]
    /// `median(ours wall time) / median(raw wall time)`, from interleaved runs; `nil` without a raw baseline.
    public var ratioToRaw: Double?
    /// Free-form query plan lines, e.g. `EXPLAIN QUERY PLAN` rows.
    public var queryPlan: [String]
    /// The largest ``ratioToRaw`` this result is meant to reach (its benchmark's
    /// ``Benchmark/ratioTarget``); `nil` when it has none. A baseline comparison fails a result
    /// above its target (``BaselineComparison/compare(current:baseline:thresholds:)``).
    public var ratioTarget: Double?

    /// Creates a result.
    public init(
        name: String, group: String, store: String = "", rows: Int, strategy: String = "",
        iterations: Int, metrics: [String: Double], ratioToRaw: Double? = nil, queryPlan: [String] = [],
        ratioTarget: Double? = nil
    ) {
        self.name = name
        self.group = group
        self.store = store
        self.rows = rows
        self.strategy = strategy
        self.iterations = iterations
        self.metrics = metrics
        self.ratioToRaw = ratioToRaw
        self.queryPlan = queryPlan
        self.ratioTarget = ratioTarget
    }

    /// Whether ``ratioToRaw`` is above ``ratioTarget``: `nil` without a target or a ratio.
    public var missesRatioTarget: Bool? {
        guard let target = ratioTarget, let ratio = ratioToRaw else { return nil }
        return ratio > target
    }

    /// The identity used to match a result against a baseline: name, store, rows, strategy.
    public var key: ResultKey { ResultKey(name: name, store: store, rows: rows, strategy: strategy) }
}

/// Identifies a result across runs: name + store + rows + strategy.
///
/// ```swift
/// ResultKey(name: "fetch all", store: "disk", rows: 100_000, strategy: "none").description
/// // "fetch all [disk, 100000 rows, none]"
/// ```
public struct ResultKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The benchmark's name.
    public var name: String
    /// The store label.
    public var store: String
    /// The scale.
    public var rows: Int
    /// The strategy label.
    public var strategy: String

    /// Creates a key.
    public init(name: String, store: String, rows: Int, strategy: String) {
        self.name = name
        self.store = store
        self.rows = rows
        self.strategy = strategy
    }

    /// `"<name> [<store>, <rows> rows, <strategy>]"`, omitting empty labels.
    public var description: String {
        let labels = [store, "\(rows) rows", strategy].filter { !$0.isEmpty }
        return "\(name) [\(labels.joined(separator: ", "))]"
    }

    /// Orders by name, store, strategy, then rows.
    public static func < (lhs: ResultKey, rhs: ResultKey) -> Bool {
        (lhs.name, lhs.store, lhs.strategy, lhs.rows) < (rhs.name, rhs.store, rhs.strategy, rhs.rows)
    }
}

/// The names of the metrics BenchmarkKit itself produces, for lookups without string typos.
///
/// ```swift
/// result.metrics[MetricName.mallocCountPerRun]
/// ```
public enum MetricName {
    /// Median wall time of a run, in nanoseconds.
    public static let wallNanosecondsMedian = "wallNanosecondsMedian"
    /// 90th percentile wall time of a run, in nanoseconds.
    public static let wallNanosecondsP90 = "wallNanosecondsP90"
    /// Median wall time of a raw-baseline run, in nanoseconds.
    public static let rawWallNanosecondsMedian = "rawWallNanosecondsMedian"
    /// Median CPU time of a run on the running thread, in nanoseconds.
    public static let cpuNanosecondsMedian = "cpuNanosecondsMedian"
    /// Median allocation requests per run (jemalloc).
    public static let mallocCountPerRun = "mallocCountPerRun"
    /// Median bytes allocated per run (jemalloc).
    public static let allocatedBytesPerRun = "allocatedBytesPerRun"
    /// `mallocCountPerRun / operationsPerRun`.
    public static let mallocCountPerOperation = "mallocCountPerOperation"
    /// `allocatedBytesPerRun / operationsPerRun`.
    public static let allocatedBytesPerOperation = "allocatedBytesPerOperation"
    /// Operations one run performs (from ``Benchmark/operationsPerRun``).
    public static let operationsPerRun = "operationsPerRun"
    /// `operationsPerRun / median wall seconds`.
    public static let operationsPerSecond = "operationsPerSecond"
    /// Median wall time divided by operations per run, in nanoseconds.
    public static let wallNanosecondsMedianPerOperation = "wallNanosecondsMedianPerOperation"
    /// Peak resident set size of the process after the runs, in KiB.
    public static let peakResidentKiB = "peakResidentKiB"
    /// Resident set size after the runs, in KiB.
    public static let residentKiB = "residentKiB"
    /// Median SQLite VM steps per run.
    public static let vmSteps = "vmSteps"
    /// Median SQLite full-scan steps per run.
    public static let fullScanSteps = "fullScanSteps"
    /// Median SQLite sorts per run.
    public static let sorts = "sorts"
    /// Median SQLite automatic-index rows per run.
    public static let autoIndexRows = "autoIndexRows"
    /// The `ratioToRaw` field, as ``BaselineComparison`` names it in its rows.
    public static let ratioToRaw = "ratioToRaw"

    /// The raw-baseline name of a metric: `raw` + the name with its first letter capitalized.
    public static func raw(_ name: String) -> String {
        "raw" + name.prefix(1).uppercased() + name.dropFirst()
    }
}

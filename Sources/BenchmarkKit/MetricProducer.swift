/// How the runner summarizes one metric's per-run samples into report entries.
public enum MetricAggregation: Sendable, Equatable {
    /// Full distribution: `<name>P0` … `<name>P100`, `Mean`, `StandardDeviation`,
    /// `MedianAbsoluteDeviation` (for noisy quantities such as times).
    case distribution
    /// One entry, `<name>PerRun`: the median of the per-run samples (for counts such as mallocs,
    /// which are deterministic and should not be averaged with outliers).
    case medianPerRun
}

/// A metric a producer can measure around each timed run, e.g. `wallNanoseconds`.
public struct MetricDescriptor: Sendable, Equatable, Hashable {
    /// The base name, with its unit in it (`wallNanoseconds`, `mallocCount`, `allocatedBytes`).
    public var name: String
    /// How per-run samples become report entries.
    public var aggregation: MetricAggregation

    /// Describes a metric named `name` summarized by `aggregation`.
    public init(_ name: String, aggregation: MetricAggregation) {
        self.name = name
        self.aggregation = aggregation
    }

    /// Hashes the metric's name.
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// Measures metrics around each timed run; says which of its metrics this process supports.
///
/// Modeled on package-benchmark's `OperatingSystemStatsProducer` (`metricSupported(_:)`): an
/// unsupported metric is left out of the results, never reported as 0.
///
/// The runner calls ``startRun()`` for every producer (in array order), runs the body, calls
/// ``stopRun()`` in reverse order, so the first producer's window encloses the others', and only
/// then asks each for its ``samples()``. `startRun` and `stopRun` must not allocate (they run
/// inside the allocation counter's window): they store plain numbers; `samples` builds the dictionary.
/// ```swift
/// final class CountingProducer: MetricProducer {
///     let metrics = [MetricDescriptor("widgets", aggregation: .medianPerRun)]
///     func isSupported(_ metric: MetricDescriptor) -> Bool { true }
///     func startRun() { … }
///     func stopRun() { … }
///     func samples() -> [String: Double] { ["widgets": 3] }
/// }
/// ```
public protocol MetricProducer: AnyObject {
    /// Every metric this producer can emit when supported.
    var metrics: [MetricDescriptor] { get }
    /// Whether `metric` can be measured in this process (decided once, at run time).
    func isSupported(_ metric: MetricDescriptor) -> Bool
    /// Captures the state at the start of a timed run.
    func startRun()
    /// Captures the state at the end of a timed run, without allocating.
    func stopRun()
    /// The last run's samples keyed by ``MetricDescriptor/name``, only for supported metrics.
    func samples() -> [String: Double]
}

extension MetricProducer {
    /// The metrics this producer will actually emit here.
    public var supportedMetrics: [MetricDescriptor] { metrics.filter(isSupported) }
}

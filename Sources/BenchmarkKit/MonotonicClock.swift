#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads POSIX clocks in nanoseconds (`clock_gettime`).
///
/// ```swift
/// let start = MonotonicClock.wallNanoseconds()
/// work()
/// let elapsed = MonotonicClock.wallNanoseconds() - start
/// ```
public enum MonotonicClock {
    /// Nanoseconds of `CLOCK_MONOTONIC`: wall time that never jumps back; only differences mean anything.
    public static func wallNanoseconds() -> UInt64 {
        read(CLOCK_MONOTONIC) ?? 0
    }

    /// Nanoseconds of CPU time the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`), or `nil`.
    public static func threadCPUNanoseconds() -> UInt64? {
        read(CLOCK_THREAD_CPUTIME_ID)
    }

    private static func read(_ clock: clockid_t) -> UInt64? {
        var ts = timespec()
        guard clock_gettime(clock, &ts) == 0 else { return nil }
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}

/// Wall time of each run, `wallNanoseconds`, from `CLOCK_MONOTONIC`; always supported.
public final class WallClockProducer: MetricProducer {
    /// The metric's descriptor: `wallNanoseconds`, summarized as a distribution.
    public static let wallNanoseconds = MetricDescriptor("wallNanoseconds", aggregation: .distribution)
    /// `[wallNanoseconds]`.
    public let metrics: [MetricDescriptor] = [WallClockProducer.wallNanoseconds]
    private var start: UInt64 = 0
    private var end: UInt64 = 0

    /// Creates the producer.
    public init() {}

    /// Always `true` for ``wallNanoseconds``.
    public func isSupported(_ metric: MetricDescriptor) -> Bool { metric == Self.wallNanoseconds }

    /// Reads the clock.
    public func startRun() { start = MonotonicClock.wallNanoseconds() }

    /// Reads the clock again.
    public func stopRun() { end = MonotonicClock.wallNanoseconds() }

    /// The elapsed nanoseconds of the last run.
    public func samples() -> [String: Double] { [Self.wallNanoseconds.name: Double(end &- start)] }
}

/// CPU time of the calling thread during each run, `cpuNanoseconds` (`CLOCK_THREAD_CPUTIME_ID`).
///
/// Work the body hands to other threads is not counted; SQLite does its work on the caller's thread.
public final class CPUTimeProducer: MetricProducer {
    /// The metric's descriptor: `cpuNanoseconds`, summarized as a distribution.
    public static let cpuNanoseconds = MetricDescriptor("cpuNanoseconds", aggregation: .distribution)
    /// `[cpuNanoseconds]`.
    public let metrics: [MetricDescriptor] = [CPUTimeProducer.cpuNanoseconds]
    private let supported: Bool = MonotonicClock.threadCPUNanoseconds() != nil
    private var start: UInt64 = 0
    private var end: UInt64?

    /// Creates the producer.
    public init() {}

    /// Whether the thread CPU clock can be read here.
    public func isSupported(_ metric: MetricDescriptor) -> Bool {
        supported && metric == Self.cpuNanoseconds
    }

    /// Reads the thread's CPU clock.
    public func startRun() { start = MonotonicClock.threadCPUNanoseconds() ?? 0 }

    /// Reads the thread's CPU clock again.
    public func stopRun() { end = MonotonicClock.threadCPUNanoseconds() }

    /// The CPU nanoseconds the last run used; empty when unsupported.
    public func samples() -> [String: Double] {
        guard supported, let end else { return [:] }
        return [Self.cpuNanoseconds.name: Double(end &- start)]
    }
}

/// How many times the runner runs each benchmark at each scale, and whether debug builds may run.
///
/// ```swift
/// var configuration = RunnerConfiguration(warmUpIterations: 1,
///                                         mode: .timeBudget(seconds: 2, minIterations: 5, maxIterations: 200))
/// configuration.allowDebug = arguments.flag("allow-debug")
/// ```
public struct RunnerConfiguration: Sendable, Equatable {
    /// When to stop measuring.
    public enum Mode: Sendable, Equatable {
        /// Exactly this many measured iterations.
        case iterations(Int)
        /// Iterate until `seconds` of wall time (set-up included) have passed and at least
        /// `minIterations` ran, but never more than `maxIterations`.
        case timeBudget(seconds: Double, minIterations: Int, maxIterations: Int)
    }

    /// Unmeasured iterations run first (ours and raw, interleaved), to warm caches and the page cache.
    public var warmUpIterations: Int
    /// When to stop measuring.
    public var mode: Mode
    /// Run even in a debug build (results are then labelled `debug` in the report).
    public var allowDebug: Bool

    /// Creates a configuration; the defaults suit a full run: 1 warm-up, 1 s budget, 5…1000 iterations.
    public init(
        warmUpIterations: Int = 1,
        mode: Mode = .timeBudget(seconds: 1, minIterations: 5, maxIterations: 1000),
        allowDebug: Bool = false
    ) {
        self.warmUpIterations = warmUpIterations
        self.mode = mode
        self.allowDebug = allowDebug
    }

    /// A fast configuration for smoke runs and `--quick`: no warm-up, 3 iterations.
    public static let quick = RunnerConfiguration(warmUpIterations: 0, mode: .iterations(3))
}

/// Where a long run is, for a progress line on the terminal.
///
/// ```swift
/// let runner = BenchmarkRunner(progress: { p in
///     print("\r\(p.benchmark) @ \(p.scale): \(p.phase) \(p.iteration)", terminator: "")
/// })
/// ```
public struct BenchmarkProgress: Sendable, Equatable {
    /// The phase of a benchmark at one scale.
    public enum Phase: String, Sendable, Equatable {
        /// Before any run at this scale.
        case started
        /// Unmeasured warm-up iterations.
        case warmUp
        /// Measured iterations.
        case measuring
        /// All runs at this scale are done.
        case finished
    }

    /// The benchmark's name.
    public var benchmark: String
    /// The benchmark's group.
    public var group: String
    /// The benchmark's store label.
    public var store: String
    /// The benchmark's strategy label.
    public var strategy: String
    /// The scale being run.
    public var scale: Int
    /// The phase.
    public var phase: Phase
    /// Iterations completed in this phase.
    public var iteration: Int
    /// Iterations planned in this phase, when fixed (`nil` under a time budget while measuring).
    public var plannedIterations: Int?
}

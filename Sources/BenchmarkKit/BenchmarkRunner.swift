/// Runs benchmarks: warm-up, then iterations or a time budget, with an untimed set-up before every run.
///
/// With a raw baseline, each iteration runs ours then raw (ours, raw, ours, raw, …) so both see
/// the same machine state, and the result carries `ratioToRaw = median(ours) / median(raw)`.
/// The runner refuses a debug build unless ``RunnerConfiguration/allowDebug`` is set.
/// ```swift
/// let runner = BenchmarkRunner(configuration: .init(mode: .iterations(10)),
///                              progress: { p in print(p.benchmark, p.scale, p.phase) })
/// let results = try runner.run(benchmarks)
/// ```
public final class BenchmarkRunner {
    /// Iteration counts and the debug policy.
    public var configuration: RunnerConfiguration
    /// The metric producers measured around every run, outermost first.
    public let producers: [any MetricProducer]
    /// Called at each phase change and after every iteration; keep it cheap.
    public var progress: ((BenchmarkProgress) -> Void)?
    let buildIsOptimized: Bool

    /// The default producers: jemalloc counts (outermost), thread CPU time, wall time (innermost).
    public static func defaultProducers() -> [any MetricProducer] {
        [JemallocProducer(), CPUTimeProducer(), WallClockProducer()]
    }

    /// Creates a runner.
    public convenience init(
        configuration: RunnerConfiguration = RunnerConfiguration(),
        producers: [any MetricProducer] = BenchmarkRunner.defaultProducers(),
        progress: ((BenchmarkProgress) -> Void)? = nil
    ) {
        self.init(
            configuration: configuration, producers: producers, progress: progress,
            buildIsOptimized: BenchmarkRunner.isOptimizedBuild)
    }

    init(
        configuration: RunnerConfiguration, producers: [any MetricProducer],
        progress: ((BenchmarkProgress) -> Void)?, buildIsOptimized: Bool
    ) {
        self.configuration = configuration
        self.producers = producers
        self.progress = progress
        self.buildIsOptimized = buildIsOptimized
    }

    /// Throws ``BenchmarkError/Code/debugBuild`` in a debug build unless debug runs are allowed,
    /// and ``BenchmarkError/Code/invalidConfiguration`` for a configuration that cannot run.
    public func validate() throws {
        if !buildIsOptimized && !configuration.allowDebug {
            throw BenchmarkError(
                .debugBuild,
                message:
                    "refusing to benchmark a debug build (its timings say nothing about release code): build with `-c release`, or allow it with `RunnerConfiguration(allowDebug: true)` in code or `--allow-debug` on the harness command line"
            )
        }
        switch configuration.mode {
        case .iterations(let n) where n < 1:
            throw BenchmarkError(.invalidConfiguration, message: "iterations must be at least 1, got \(n)")
        case .timeBudget(let seconds, let lo, let hi) where seconds < 0 || lo < 1 || hi < lo:
            throw BenchmarkError(
                .invalidConfiguration,
                message: "time budget needs seconds ≥ 0 and 1 ≤ min ≤ max, got \(seconds)s \(lo)…\(hi)")
        default:
            break
        }
    }

    /// Runs every benchmark at every one of its scales, in order.
    public func run(_ benchmarks: [Benchmark]) throws -> [BenchmarkResult] {
        try validate()
        var results: [BenchmarkResult] = []
        for benchmark in benchmarks {
            for scale in benchmark.scales { results.append(try run(benchmark, scale: scale)) }
        }
        return results
    }

    /// Runs one benchmark at all its scales.
    public func run(_ benchmark: Benchmark) throws -> [BenchmarkResult] {
        try run([benchmark])
    }

    /// Runs one benchmark at one scale and summarizes it.
    public func run(_ benchmark: Benchmark, scale: Int) throws -> BenchmarkResult {
        try validate()
        let report = Progress(benchmark: benchmark, scale: scale, sink: progress)
        report.emit(.started, 0, nil)

        let warmUps = configuration.warmUpIterations
        for i in 0..<max(0, warmUps) {
            _ = try runOnce(benchmark, benchmark.prepareOurs, scale: scale, wantPlan: false)
            if let raw = benchmark.prepareRaw { _ = try runOnce(benchmark, raw, scale: scale, wantPlan: false) }
            report.emit(.warmUp, i + 1, warmUps)
        }

        var ours = Samples()
        var raw = Samples()
        var queryPlan: [String] = []
        let planned: Int? = if case .iterations(let n) = configuration.mode { n } else { nil }
        let start = MonotonicClock.wallNanoseconds()
        var iteration = 0
        while shouldContinue(iteration: iteration, since: start) {
            let sample = try runOnce(benchmark, benchmark.prepareOurs, scale: scale, wantPlan: iteration == 0)
            ours.append(sample)
            if let plan = sample.queryPlan { queryPlan = plan }
            if let prepareRaw = benchmark.prepareRaw {
                raw.append(try runOnce(benchmark, prepareRaw, scale: scale, wantPlan: false))
            }
            iteration += 1
            report.emit(.measuring, iteration, planned)
        }
        let result = summarize(
            benchmark, scale: scale, iterations: iteration,
            ours: ours, raw: benchmark.prepareRaw == nil ? nil : raw, queryPlan: queryPlan)
        report.emit(.finished, iteration, planned)
        return result
    }

    private func shouldContinue(iteration: Int, since start: UInt64) -> Bool {
        switch configuration.mode {
        case .iterations(let n):
            return iteration < n
        case .timeBudget(let seconds, let minIterations, let maxIterations):
            if iteration >= maxIterations { return false }
            if iteration < minIterations { return true }
            let elapsed = Double(MonotonicClock.wallNanoseconds() &- start) / 1e9
            return elapsed < seconds
        }
    }

    /// Sets up (untimed), runs the body inside every producer's window, then reads the probes (untimed).
    private func runOnce(
        _ benchmark: Benchmark, _ prepare: (Int) throws -> PreparedRun,
        scale: Int, wantPlan: Bool
    ) throws -> RunSample {
        let prepared: PreparedRun
        do { prepared = try prepare(scale) } catch {
            throw BenchmarkError(.setUpFailed, benchmark: benchmark.name, scale: scale, message: "\(error)")
        }
        defer { withExtendedLifetime(prepared) {} }  // the context is released after the clocks stop
        let failure = measure(prepared.body)
        var metrics: [String: Double] = [:]
        for producer in producers { metrics.merge(producer.samples()) { _, new in new } }
        if let failure {
            throw BenchmarkError(.bodyFailed, benchmark: benchmark.name, scale: scale, message: "\(failure)")
        }
        do {
            return RunSample(
                metrics: metrics, counters: try prepared.counters?(),
                queryPlan: wantPlan ? try prepared.queryPlan?() : nil)
        } catch {
            throw BenchmarkError(
                .bodyFailed, benchmark: benchmark.name, scale: scale,
                message: "counters or query plan: \(error)")
        }
    }

    /// The timed window: starts every producer, runs `body`, stops them in reverse order.
    /// Nothing here allocates, so allocation counts are the body's own.
    private func measure(_ body: () throws -> Void) -> (any Error)? {
        var failure: (any Error)?
        var index = 0
        while index < producers.count {
            producers[index].startRun()
            index += 1
        }
        do { try body() } catch { failure = error }
        while index > 0 {
            index -= 1
            producers[index].stopRun()
        }
        return failure
    }
}

/// One run's measurements.
struct RunSample {
    var metrics: [String: Double]
    var counters: SQLiteCounters?
    var queryPlan: [String]?
}

/// All runs' measurements of one side (ours or raw), by metric.
struct Samples {
    var byMetric: [String: [Double]] = [:]
    var counters: [SQLiteCounters] = []

    mutating func append(_ sample: RunSample) {
        for (name, value) in sample.metrics { byMetric[name, default: []].append(value) }
        if let c = sample.counters { counters.append(c) }
    }
}

/// Emits progress events for one benchmark at one scale.
private struct Progress {
    let benchmark: Benchmark
    let scale: Int
    let sink: ((BenchmarkProgress) -> Void)?

    func emit(_ phase: BenchmarkProgress.Phase, _ iteration: Int, _ planned: Int?) {
        sink?(
            BenchmarkProgress(
                benchmark: benchmark.name, group: benchmark.group, store: benchmark.store,
                strategy: benchmark.strategy, scale: scale, phase: phase,
                iteration: iteration, plannedIterations: planned))
    }
}

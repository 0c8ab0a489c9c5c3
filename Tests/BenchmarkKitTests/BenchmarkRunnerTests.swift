import Testing

@testable import BenchmarkKit

/// Records the order of set-ups, bodies, producer windows and context releases.
final class CallLog {
    var events: [String] = []
}

/// A context that logs its own release, to show tear-down happens after the clocks stop.
final class LoggedContext {
    let log: CallLog
    let label: String
    init(_ label: String, log: CallLog) {
        self.label = label
        self.log = log
    }
    deinit { log.events.append("\(label).release") }
}

/// A producer that logs its window and returns scripted per-run values.
final class ScriptedProducer: MetricProducer {
    let metrics: [MetricDescriptor]
    let log: CallLog?
    let supported: Bool
    var script: [Double]
    init(_ descriptor: MetricDescriptor, values: [Double], log: CallLog? = nil, supported: Bool = true) {
        metrics = [descriptor]
        script = values
        self.log = log
        self.supported = supported
    }
    func isSupported(_ metric: MetricDescriptor) -> Bool { supported && metrics.contains(metric) }
    func startRun() { log?.events.append("start") }
    func stopRun() { log?.events.append("stop") }
    func samples() -> [String: Double] {
        guard supported, !script.isEmpty else { return [:] }
        return [metrics[0].name: script.removeFirst()]
    }
}

@Suite("BenchmarkKit Runner")
struct BenchmarkRunnerTests {
    private func runner(
        _ mode: RunnerConfiguration.Mode, warmUps: Int = 0, producers: [any MetricProducer],
        optimized: Bool = true, allowDebug: Bool = false,
        progress: ((BenchmarkProgress) -> Void)? = nil
    ) -> BenchmarkRunner {
        BenchmarkRunner(
            configuration: RunnerConfiguration(warmUpIterations: warmUps, mode: mode, allowDebug: allowDebug),
            producers: producers, progress: progress, buildIsOptimized: optimized)
    }

    @Test func oursAndRawAreInterleavedWithUntimedSetUpAndTearDown() throws {
        let log = CallLog()
        var scales: [Int] = []
        let benchmark = Benchmark(
            "b", group: "g", scales: [7],
            setUp: { scale in
                scales.append(scale)
                log.events.append("ours.setUp")
                return LoggedContext("ours", log: log)
            },
            body: { _ in log.events.append("ours.body") },
            counters: { _ in
                log.events.append("ours.counters")
                return SQLiteCounters(vmSteps: 5)
            },
            queryPlan: { _ in
                log.events.append("ours.plan")
                return ["SCAN t"]
            }
        )
        .withRawBaseline(
            setUp: { _ in
                log.events.append("raw.setUp")
                return LoggedContext("raw", log: log)
            },
            body: { _ in log.events.append("raw.body") })
        let producer = ScriptedProducer(WallClockProducer.wallNanoseconds, values: [], log: log)
        let results = try runner(.iterations(2), warmUps: 1, producers: [producer]).run(benchmark)

        let ours = ["ours.setUp", "start", "ours.body", "stop", "ours.counters"]
        let raw = ["raw.setUp", "start", "raw.body", "stop", "raw.release"]
        let warmUp = ours + ["ours.release"] + raw
        let first = ours + ["ours.plan", "ours.release"] + raw  // the plan is read once, untimed
        let second = ours + ["ours.release"] + raw
        #expect(log.events == warmUp + first + second)
        #expect(scales == [7, 7, 7])
        let result = try #require(results.first)
        #expect(results.count == 1 && result.rows == 7 && result.iterations == 2)
        #expect(result.queryPlan == ["SCAN t"])
        #expect(result.metrics[MetricName.vmSteps] == 5)
    }

    @Test func ratioToRawIsTheRatioOfMedians() throws {
        // Interleaved: ours, raw, ours, raw, ours, raw.
        let wall = ScriptedProducer(WallClockProducer.wallNanoseconds, values: [100, 50, 300, 60, 90, 40])
        let benchmark = Benchmark("b", group: "g", scales: [1], setUp: { _ in () }, body: { _ in })
            .withRawBaseline(setUp: { _ in () }, body: { _ in })
        let result = try #require(try runner(.iterations(3), producers: [wall]).run(benchmark).first)
        #expect(result.metrics[MetricName.wallNanosecondsMedian] == 100)
        #expect(result.metrics[MetricName.rawWallNanosecondsMedian] == 50)
        #expect(result.ratioToRaw == 2)
    }

    @Test func unsupportedMetricsAreOmittedNotZero() throws {
        let counted = ScriptedProducer(
            MetricDescriptor("mallocCount", aggregation: .medianPerRun), values: [10, 30, 20])
        let missing = ScriptedProducer(
            MetricDescriptor("cpuNanoseconds", aggregation: .distribution),
            values: [1, 2, 3], supported: false)
        let benchmark = Benchmark(
            "b", group: "g", scales: [4], operationsPerRun: { $0 * 2 },
            setUp: { _ in () }, body: { _ in })
        let result = try #require(try runner(.iterations(3), producers: [counted, missing]).run(benchmark).first)
        #expect(result.metrics[MetricName.mallocCountPerRun] == 20)
        #expect(result.metrics[MetricName.mallocCountPerOperation] == 2.5)  // 20 / (4 × 2)
        #expect(result.metrics[MetricName.operationsPerRun] == 8)
        #expect(result.metrics.keys.allSatisfy { !$0.hasPrefix("cpu") })
        #expect(result.metrics[MetricName.wallNanosecondsMedian] == nil)  // no wall producer given
        #expect(result.metrics[MetricName.vmSteps] == nil)  // no counters provider
        #expect(result.ratioToRaw == nil)  // no raw baseline
    }

    @Test func debugBuildIsRefusedUnlessAllowed() throws {
        let benchmark = Benchmark("b", group: "g", scales: [1], setUp: { _ in () }, body: { _ in })
        let error = #expect(throws: BenchmarkError.self) {
            try runner(.iterations(1), producers: [], optimized: false).run(benchmark)
        }
        #expect(error?.code == .debugBuild)
        #expect(try runner(.iterations(1), producers: [], optimized: false, allowDebug: true).run(benchmark).count == 1)
        #expect(try runner(.iterations(1), producers: [], optimized: true).run(benchmark).count == 1)
        #if DEBUG
            #expect(BenchmarkRunner.isOptimizedBuild == false)
            #expect(BuildConfiguration.name == "debug")
        #else
            #expect(BenchmarkRunner.isOptimizedBuild == true)
        #endif
    }

    @Test func timeBudgetRespectsMinimumAndMaximumIterations() throws {
        let benchmark = Benchmark("b", group: "g", scales: [1], setUp: { _ in () }, body: { _ in })
        let atLeast = try runner(.timeBudget(seconds: 0, minIterations: 3, maxIterations: 10), producers: [])
            .run(benchmark)
        #expect(atLeast.first?.iterations == 3)
        let atMost = try runner(.timeBudget(seconds: 3600, minIterations: 1, maxIterations: 4), producers: [])
            .run(benchmark)
        #expect(atMost.first?.iterations == 4)
        #expect(throws: BenchmarkError.self) {
            try runner(.iterations(0), producers: []).run(benchmark)
        }
    }

    @Test func failuresCarryTheBenchmarkAndScale() {
        struct Boom: Error {}
        let failing = Benchmark("explodes", group: "g", scales: [3], setUp: { _ in () }, body: { _ in throw Boom() })
        let error = #expect(throws: BenchmarkError.self) { try runner(.iterations(1), producers: []).run(failing) }
        #expect(error?.code == .bodyFailed && error?.benchmark == "explodes" && error?.scale == 3)
        let badSetUp = Benchmark(
            "no set-up", group: "g", scales: [1], setUp: { _ -> Int in throw Boom() }, body: { _ in })
        let setUpError = #expect(throws: BenchmarkError.self) {
            try runner(.iterations(1), producers: []).run(badSetUp)
        }
        #expect(setUpError?.code == .setUpFailed)
    }

    @Test func progressReportsEveryPhase() throws {
        var phases: [BenchmarkProgress.Phase] = []
        let benchmark = Benchmark("b", group: "g", scales: [1, 2], setUp: { _ in () }, body: { _ in })
        _ = try runner(.iterations(2), warmUps: 1, producers: [], progress: { phases.append($0.phase) }).run(benchmark)
        let perScale: [BenchmarkProgress.Phase] = [.started, .warmUp, .measuring, .measuring, .finished]
        #expect(phases == perScale + perScale)
    }

    @Test func heterogeneousBenchmarksShareOneArray() throws {
        let benchmarks = [
            Benchmark("ints", group: "g", scales: [1, 2], setUp: { $0 }, body: { _ in }),
            Benchmark(
                "strings", group: "g", store: "memory", strategy: "none", scales: [3],
                setUp: { String($0) }, body: { _ in }),
        ]
        let results = try runner(.iterations(1), producers: [WallClockProducer()]).run(benchmarks)
        #expect(
            results.map(\.key) == [
                ResultKey(name: "ints", store: "", rows: 1, strategy: ""),
                ResultKey(name: "ints", store: "", rows: 2, strategy: ""),
                ResultKey(name: "strings", store: "memory", rows: 3, strategy: "none"),
            ])
        #expect(results.allSatisfy { $0.metrics[MetricName.wallNanosecondsMedian] != nil })
    }
}

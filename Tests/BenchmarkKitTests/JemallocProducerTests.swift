import Foundation
import Testing

@testable import BenchmarkKit

/// An object the body allocates, one heap allocation each.
final class Payload {
    var value: Int
    init(_ value: Int) { self.value = value }
}

@Suite("BenchmarkKit Jemalloc")
struct JemallocProducerTests {
    private func allocate1000Benchmark() -> Benchmark {
        Benchmark(
            "allocate 1000", group: "alloc", scales: [1_000], operationsPerRun: { $0 },
            setUp: { n in n },
            body: { n in
                var kept: [Payload] = []
                kept.reserveCapacity(n)
                for i in 0..<n { kept.append(Payload(i)) }
                precondition(kept.count == n)
            })
    }

    @Test func countsAreUnsupportedOrPlausible() throws {
        let status = JemallocStatus.current
        let producer = JemallocProducer()
        let runner = BenchmarkRunner(
            configuration: .init(warmUpIterations: 0, mode: .iterations(3), allowDebug: true),
            producers: [producer])
        let result = try #require(try runner.run(allocate1000Benchmark()).first)
        if status.isUsable {
            let count = try #require(result.metrics[MetricName.mallocCountPerRun])
            let bytes = try #require(result.metrics[MetricName.allocatedBytesPerRun])
            #expect(
                count >= 1_000,
                "\(status.explanation): \(count) mallocs for 1000 objects (\(producer.requestsOverhead) subtracted for measuring)"
            )
            #expect(bytes >= 1_000 * 16, "\(bytes) bytes for 1000 objects")
            #expect(try #require(result.metrics[MetricName.mallocCountPerOperation]) >= 1)
        } else {
            #expect(result.metrics[MetricName.mallocCountPerRun] == nil, "\(status.explanation)")
            #expect(result.metrics[MetricName.allocatedBytesPerRun] == nil)
        }
    }

    @Test func anEmptyBodyCountsAlmostNothing() throws {
        guard JemallocStatus.current.isUsable else { return }
        let runner = BenchmarkRunner(
            configuration: .init(warmUpIterations: 1, mode: .iterations(5), allowDebug: true),
            producers: [JemallocProducer()])
        let empty = Benchmark("empty", group: "alloc", scales: [1], setUp: { _ in () }, body: { _ in })
        let result = try #require(try runner.run(empty).first)
        // Other tests run in parallel threads and may flush into the shared arena counters: allow slack.
        let bytes = try #require(result.metrics[MetricName.allocatedBytesPerRun])
        let count = try #require(result.metrics[MetricName.mallocCountPerRun])
        #expect(bytes == 0, "\(bytes) bytes, \(count) mallocs for an empty body")
        #expect(count < 1_000)
    }

    /// The executables' `malloc_conf` reaches jemalloc: memory a run frees is reused by the next
    /// run (CJemallocConfig explains the setting).
    @Test func theExecutableConfiguresExtentReuse() throws {
        #expect(JemallocStatus.options == "lg_extent_max_active_fit:20")
        let status = JemallocStatus.current
        guard status.isUsable else { return }
        // MALLOC_CONF, when it names the option, overrides the executable's setting.
        if ProcessInfo.processInfo.environment["MALLOC_CONF"]?.contains("lg_extent_max_active_fit") == true { return }
        #expect(status.lgExtentMaxActiveFit == 20, "\(status.explanation)")
        #expect(status.explanation.hasSuffix("(lg_extent_max_active_fit 20)"))
    }

    @Test func anUnusableAllocatorReportsNothing() throws {
        let foreign = JemallocStatus(version: "5.3.0", statsEnabled: true, isProcessAllocator: false)
        #expect(!foreign.isUsable)
        #expect(foreign.explanation.contains("another allocator"))
        let producer = JemallocProducer(status: foreign)
        #expect(producer.supportedMetrics.isEmpty)
        let runner = BenchmarkRunner(
            configuration: .init(warmUpIterations: 0, mode: .iterations(1), allowDebug: true),
            producers: [producer])
        let result = try #require(try runner.run(allocate1000Benchmark()).first)
        #expect(result.metrics.keys.allSatisfy { !$0.contains("malloc") && !$0.contains("allocated") })
    }
}

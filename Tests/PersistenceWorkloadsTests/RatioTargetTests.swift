import BenchmarkKit
import OpenSwiftData
import Testing

@testable import PersistenceWorkloads

/// The workloads carry their ratio targets (our cost ÷ raw SQLite's), and only under the
/// `declared` strategy, so `harness bench --compare` (`make bench-compare`) gates on them.
@Suite("WorkloadRatioTargets")
struct RatioTargetTests {
    /// The performance targets: workload → the largest ratio to raw SQLite.
    static let expected: [String: Double] = [
        "fetch all": 1.5,
        "batch insert": 1.5,
        "delete with cascade": 1.5,
        "upsert (half colliding)": 1.5,
        "equality fetch (indexed)": 1.5,
        "sorted fetch, limit 20 (indexed)": 1.2,
        "fetch(batchSize:) all": 2.0,
        "enumerate all": 2.0,
    ]

    @Test("each listed workload has its target, and no other has one")
    func targets() {
        let actual = Dictionary(
            uniqueKeysWithValues: PersistenceWorkloads.all.compactMap { w in w.ratioTarget.map { (w.name, $0) } })
        #expect(actual == Self.expected)
    }

    @Test("the benchmarks carry a workload's target under declared only")
    func benchmarksCarryTargets() {
        let benchmarks = PersistenceWorkloads.makeBenchmarks(
            cache: FixtureCache(), stores: BenchStore.allCases, strategies: [.none, .declared],
            scales: [1_000], filters: ["equality fetch (indexed)", "batch insert"])
        #expect(!benchmarks.isEmpty)
        for b in benchmarks {
            let want = b.strategy == IndexStrategy.declared.description ? Self.expected[b.name] : nil
            #expect(b.ratioTarget == want, "\(b.name) \(b.store) \(b.strategy)")
        }
        #expect(benchmarks.contains { $0.ratioTarget == 1.5 && $0.name == "equality fetch (indexed)" })
        #expect(benchmarks.contains { $0.ratioTarget == 1.5 && $0.name == "batch insert" })
        #expect(benchmarks.contains { $0.ratioTarget == nil && $0.strategy == IndexStrategy.none.description })
    }
}

extension RatioTargetTests {
    @Test("the ratio chart draws each target once, named by the workloads that have it")
    func chartTargets() {
        let drawn = BenchCommand.targets.map { [$0.label: $0.ratio] }
        #expect(
            drawn == [
                ["fetch(batchSize:) all, enumerate all ≤ 2×": 2.0],
                [
                    "batch insert, fetch all, equality fetch (indexed), upsert (half colliding), delete with cascade ≤ 1.5×":
                        1.5
                ],
                ["sorted fetch, limit 20 (indexed) ≤ 1.2×": 1.2],
            ])
    }
}

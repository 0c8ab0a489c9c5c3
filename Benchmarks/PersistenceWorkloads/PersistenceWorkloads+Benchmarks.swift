import BenchmarkKit
import Foundation
import OpenSwiftData

/// The workloads as ``BenchmarkKit`` benchmarks, for `harness bench` and `PersistenceBenchmarks`.
extension PersistenceWorkloads {
    /// Whether `filters` (lowercased) select workload `w`: none given, or one is in its name or group.
    public static func matches(_ w: Workload, _ filters: [String]) -> Bool {
        filters.isEmpty || filters.contains { w.name.lowercased().contains($0) || w.group.lowercased().contains($0) }
    }

    /// Builds one benchmark per workload × store × strategy.
    public static func makeBenchmarks(
        cache: FixtureCache, stores: [BenchStore], strategies: [IndexStrategy],
        scales: [Int], filters: [String]
    ) -> [Benchmark] {
        var out: [Benchmark] = []
        for w in PersistenceWorkloads.all {
            if !matches(w, filters) { continue }
            for store in stores {
                for strategy in (w.isQuery ? strategies : [.declared]) {
                    let b = Benchmark(
                        w.name, group: w.group, store: store.rawValue, strategy: strategy.description,
                        scales: scales, operationsPerRun: w.operations,
                        setUp: { rows in try w.oursSetUp(cache, store, rows, strategy) },
                        body: { run in _ = try run.body() },
                        counters: { run in SQLiteCounters(statementsOf: run.container) },
                        queryPlan: w.plan.map { plan in { run in try plan(run.container, 1_000) } }
                    )
                    .withRawBaseline(
                        setUp: { rows in
                            let r = try w.rawSetUp(cache, store, rows, strategy)
                            _ = r.store.db.cachedStatementCounters(reset: true)
                            return r
                        },
                        body: { run in _ = try run.body() },
                        counters: { run in SQLiteCounters(run.store.db.cachedStatementCounters(reset: true)) }
                    )
                    .withRatioTarget(strategy == .declared ? w.ratioTarget : nil)
                    out.append(b)
                }
            }
        }
        return out
    }

    /// Inserts `rows` items in 10k-row saves on disk and returns the peak RSS in KiB.
    public static func rssProbe(rows: Int) throws -> Int {
        let cache = FixtureCache()
        defer { cache.removeAll() }
        let container = try cache.emptyContainer(.disk)
        for start in stride(from: 0, to: rows, by: 10_000) {
            let context = ModelContext(container)
            for i in start..<min(start + 10_000, rows) { context.insert(BenchItem(row: i)) }
            try context.save()
        }
        return ProcessMemory.peakResidentKiB() ?? -1
    }
}

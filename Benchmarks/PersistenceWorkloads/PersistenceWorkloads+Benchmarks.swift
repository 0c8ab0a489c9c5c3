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

    /// Writes a benchmark store of `rows` items on disk in 10k-row saves, closes it and returns
    /// its URL (for the read probes, which open it in another process).
    static func storeFile(in cache: FixtureCache, rows: Int) throws -> URL {
        let url = cache.freshURL("rss-read")
        let container = try ModelContainer(
            for: Schema([BenchItem.self, BenchGroup.self]), configurations: [ModelConfiguration(url: url)])
        for start in stride(from: 0, to: rows, by: 10_000) {
            let context = ModelContext(container)
            for i in start..<min(start + 10_000, rows) { context.insert(BenchItem(row: i)) }
            try context.save()
        }
        return url
    }

    /// Reads every item of the benchmark store at `file` in 5,000-row batches, through
    /// `fetch(_:batchSize:)` when `batched`, else `enumerate(_:batchSize:)`, reading one attribute
    /// of each, and returns the peak RSS in KiB. Throws when the store does not hold the
    /// benchmark schema or a row is missing from the read.
    public static func rssProbe(reading file: URL, batched: Bool) throws -> Int {
        let container = try ModelContainer(
            for: Schema([BenchItem.self, BenchGroup.self]), configurations: [ModelConfiguration(url: file)])
        let context = ModelContext(container)
        let expected = try context.fetchCount(FetchDescriptor<BenchItem>())
        var seen = 0
        var codes = 0
        if batched {
            for item in try context.fetch(FetchDescriptor<BenchItem>(), batchSize: 5_000) {
                codes &+= item.code
                seen += 1
            }
        } else {
            try context.enumerate(FetchDescriptor<BenchItem>(), batchSize: 5_000) {
                codes &+= $0.code
                seen += 1
            }
        }
        guard seen == expected, expected > 0 else {
            throw BenchmarkError(
                .bodyFailed, benchmark: batched ? "fetch(batchSize:) read probe" : "enumerate read probe",
                scale: expected, message: "read \(seen) of \(expected) rows from \(file.path)")
        }
        return ProcessMemory.peakResidentKiB() ?? -1
    }
}

import BenchmarkKit
import Foundation
import OpenSwiftData

/// `sorted fetch, limit 20`: the 20 most expensive items.
/// Ours and its raw-SQLite twin, side by side.
extension PersistenceWorkloads {
    static func sortedLimit(indexed: Bool) -> Workload {
        let column = indexed ? "price" : "priceUnindexed"
        var descriptor: FetchDescriptor<BenchItem> =
            indexed
            ? FetchDescriptor(sortBy: [SortDescriptor(\.price, order: .reverse)])
            : FetchDescriptor(sortBy: [SortDescriptor(\.priceUnindexed, order: .reverse)])
        descriptor.fetchLimit = 20
        let queries = indexed ? sortedQueries : scanQueries
        let sql = RawStore.select + " ORDER BY \(RawStore.column(column)) DESC, \"Z_PK\" ASC LIMIT 20"
        return Workload(
            name: "sorted fetch, limit 20 (\(indexed ? "indexed" : "unindexed"))", group: "fetch", isQuery: true,
            operations: { _ in queries },
            oursSetUp: { cache, store, rows, strategy in
                let container = try cache.populated(store, rows: rows, strategy: strategy)
                let context = ModelContext(container)
                return OursRun(container) {
                    var n = 0
                    for _ in 0..<queries { n += try context.fetch(descriptor).count }
                    return n
                }
            },
            rawSetUp: { cache, store, rows, strategy in
                let db = try cache.populatedRaw(store, rows: rows, strategy: strategy)
                return RawRun(db) {
                    var n = 0
                    for _ in 0..<queries { n += try db.rows(sql).count }
                    return n
                }
            },
            plan: { container, _ in try container.queryPlan(for: descriptor) },
            rawPlan: { db, _ in try db.db.queryPlan(sql) },
            ratioTarget: indexed ? sortedLimitRatioTarget : nil)
    }
}

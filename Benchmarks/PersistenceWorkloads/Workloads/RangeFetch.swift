import BenchmarkKit
import Foundation
import OpenSwiftData

/// `1% range fetch`: a price range holding about 1 % of the rows.
/// Ours and its raw-SQLite twin, side by side.
extension PersistenceWorkloads {
    static func range(indexed: Bool) -> Workload {
        let column = indexed ? "price" : "priceUnindexed"
        let (lo, hi) = BenchData.priceRange(percent: 1)
        let descriptor: FetchDescriptor<BenchItem> =
            indexed
            ? FetchDescriptor(predicate: #Predicate { $0.price >= lo && $0.price < hi })
            : FetchDescriptor(predicate: #Predicate { $0.priceUnindexed >= lo && $0.priceUnindexed < hi })
        let sql =
            RawStore.select
            + " WHERE (\(RawStore.column(column)) >= ? AND \(RawStore.column(column)) < ?) ORDER BY \"Z_PK\""
        return Workload(
            name: "1% range fetch (\(indexed ? "indexed" : "unindexed"))", group: "fetch", isQuery: true,
            operations: { _ in 1 },
            oursSetUp: { cache, store, rows, strategy in
                let container = try cache.populated(store, rows: rows, strategy: strategy)
                let context = ModelContext(container)
                return OursRun(container) { try context.fetch(descriptor).count }
            },
            rawSetUp: { cache, store, rows, strategy in
                let db = try cache.populatedRaw(store, rows: rows, strategy: strategy)
                return RawRun(db) { try db.rows(sql, [.real(lo), .real(hi)]).count }
            },
            plan: { container, _ in try container.queryPlan(for: descriptor) },
            rawPlan: { db, _ in try db.db.queryPlan(sql, [.real(lo), .real(hi)]) })
    }
}

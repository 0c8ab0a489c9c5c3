import BenchmarkKit
import Foundation
import OpenSwiftData

/// `batch update`: every item read, one attribute of each changed, one save. Its raw twin reads
/// the same rows and updates each in one transaction (its price and its version, `Z_OPT`, as
/// Core Data does). Ours and its raw-SQLite twin, side by side.
extension PersistenceWorkloads {
    static var batchUpdate: Workload {
        Workload(
            name: "batch update", group: "update", isQuery: false, operations: { $0 },
            oursSetUp: { cache, store, rows, _ in
                let container = try cache.filledContainer(store, rows: rows)
                return OursRun(container) {
                    let context = ModelContext(container)
                    let items = try context.fetch(FetchDescriptor<BenchItem>())
                    for item in items { item.priceUnindexed += 1 }
                    try context.save()
                    return items.count
                }
            },
            rawSetUp: { cache, store, rows, _ in
                let db = try cache.filledRaw(store, rows: rows)
                let sql =
                    "UPDATE \(RawStore.items) SET \(RawStore.column("priceUnindexed")) = ?, \"Z_OPT\" = \"Z_OPT\" + 1 WHERE \"Z_PK\" = ?"
                return RawRun(db) {
                    let items = try db.rows(RawStore.select + " ORDER BY \"Z_PK\"")
                    let update = try db.db.cachedStatement(sql)
                    try db.db.immediateTransaction {
                        for item in items {
                            try update.bind(item.priceUnindexed + 1, at: 1)
                            try update.bind(item.pk, at: 2)
                            try update.execute()
                        }
                    }
                    return items.count
                }
            },
            plan: nil)
    }
}

import BenchmarkKit
import Foundation
import OpenSwiftData

/// `delete with cascade`: every group deleted, its items with it.
/// Ours and its raw-SQLite twin, side by side.
extension PersistenceWorkloads {
    static let cascadeGroupSize = 10

    static var cascadeDelete: Workload {
        Workload(
            name: "delete with cascade", group: "delete", isQuery: false, operations: { $0 },
            oursSetUp: { cache, store, rows, _ in
                let container = try cache.grouped(store, rows: rows, groupSize: cascadeGroupSize)
                return OursRun(container) {
                    let context = ModelContext(container)
                    let groups = try context.fetch(FetchDescriptor<BenchGroup>())
                    for g in groups { context.delete(g) }
                    try context.save()
                    return try context.fetchCount(FetchDescriptor<BenchItem>()) + groups.count * cascadeGroupSize
                }
            },
            rawSetUp: { cache, store, rows, _ in
                let db = try cache.emptyRaw(store)
                try db.insertRows(rows, groupSize: cascadeGroupSize)
                // The statements are written once, as a hand-written app would: the loop binds
                // and steps them, with no SQL text built or looked up per group.
                let deleteItems = "DELETE FROM \(RawStore.items) WHERE \(RawStore.column("group")) = ?"
                let deleteGroup = "DELETE FROM \(RawStore.groups) WHERE \"Z_PK\" = ?"
                return RawRun(db) {
                    let groups = try db.db.rows("SELECT \"Z_PK\" FROM \(RawStore.groups)")
                    try db.db.immediateTransaction {
                        let items = try db.db.cachedStatement(deleteItems)
                        let group = try db.db.cachedStatement(deleteGroup)
                        for g in groups {
                            try items.bind(g[0], at: 1)
                            try items.execute()
                            try group.bind(g[0], at: 1)
                            try group.execute()
                        }
                    }
                    return try db.count("SELECT count(*) FROM \(RawStore.items)") + groups.count * cascadeGroupSize
                }
            },
            plan: nil, ratioTarget: coreRatioTarget)
    }
}

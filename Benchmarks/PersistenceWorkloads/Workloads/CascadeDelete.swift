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
                return RawRun(db) {
                    let groups = try db.db.rows("SELECT \"Z_PK\" FROM \(RawStore.groups)")
                    try db.db.immediateTransaction {
                        // Written once, as a hand-written app would: the loop binds and steps
                        // them, with no SQL text built or looked up per group.
                        let delete = try db.groupDelete()
                        for g in groups { try delete(g[0]) }
                    }
                    return try db.count("SELECT count(*) FROM \(RawStore.items)") + groups.count * cascadeGroupSize
                }
            },
            plan: nil, ratioTarget: coreRatioTarget)
    }
}

import BenchmarkKit
import Foundation
import OpenSwiftData

/// `delete one per save (cascade)`: ``deletesPerRun`` groups, each deleted and saved on its
/// own (its ``cascadeGroupSize`` items go with it), as an app that deletes one object at a
/// time does, from a store of `rows` items. Its raw twin runs one transaction per group.
/// Ours and its raw-SQLite twin, side by side.
extension PersistenceWorkloads {
    /// The saves of one run of ``deletePerSave``, at every scale (the scale is the table's size).
    static let deletesPerRun = 100

    static var deletePerSave: Workload {
        Workload(
            name: "delete one per save (cascade)", group: "delete", isQuery: false,
            operations: { min(deletesPerRun, $0 / cascadeGroupSize) },
            oursSetUp: { cache, store, rows, _ in
                let container = try cache.grouped(store, rows: rows, groupSize: cascadeGroupSize)
                return OursRun(container) {
                    let context = ModelContext(container)
                    // The first groups in key order (a fetch without a sort reads in key order).
                    var descriptor = FetchDescriptor<BenchGroup>()
                    descriptor.fetchLimit = deletesPerRun
                    let groups = try context.fetch(descriptor)
                    for g in groups {
                        context.delete(g)
                        try context.save()
                    }
                    return try context.fetchCount(FetchDescriptor<BenchItem>()) + groups.count * cascadeGroupSize
                }
            },
            rawSetUp: { cache, store, rows, _ in
                let db = try cache.emptyRaw(store)
                try db.insertRows(rows, groupSize: cascadeGroupSize)
                let select = "SELECT \"Z_PK\" FROM \(RawStore.groups) ORDER BY \"Z_PK\" LIMIT \(deletesPerRun)"
                return RawRun(db) {
                    let groups = try db.db.rows(select)
                    let delete = try db.groupDelete()
                    for g in groups {
                        try db.db.immediateTransaction { try delete(g[0]) }
                    }
                    return try db.count("SELECT count(*) FROM \(RawStore.items)") + groups.count * cascadeGroupSize
                }
            },
            plan: nil)
    }
}

import BenchmarkKit
import Foundation
import OpenSwiftData

/// `save after each insert`: ``savesPerRun`` new items, each inserted and saved on its own, as an
/// app that saves after every edit does, into a store that holds `rows` items. Its raw twin runs
/// one transaction per row. Ours and its raw-SQLite twin, side by side.
extension PersistenceWorkloads {
    /// The saves of one run of ``savePerInsert``, at every scale (the scale is the table's size).
    static let savesPerRun = 1_000

    static var savePerInsert: Workload {
        Workload(
            name: "save after each insert", group: "insert", isQuery: false, operations: { _ in savesPerRun },
            oursSetUp: { cache, store, rows, _ in
                let container = try cache.filledContainer(store, rows: rows)
                return OursRun(container) {
                    let context = ModelContext(container)
                    for i in rows..<(rows + savesPerRun) {
                        context.insert(BenchItem(row: i))
                        try context.save()
                    }
                    return try context.fetchCount(FetchDescriptor<BenchItem>())
                }
            },
            rawSetUp: { cache, store, rows, _ in
                let db = try cache.filledRaw(store, rows: rows)
                // SQLite gives each row its key (`NULL` into `INTEGER PRIMARY KEY`), as an app
                // writing its own table would; the SQL is written once, the loop binds and steps.
                let sql =
                    "INSERT INTO \(RawStore.items) (\(RawStore.columns), \"Z_OPT\") VALUES (NULL, \(RawStore.names.entityNumber("BenchItem")!), ?, ?, ?, ?, ?, ?, NULL, 1)"
                return RawRun(db) {
                    let insert = try db.db.cachedStatement(sql)
                    for i in rows..<(rows + savesPerRun) {
                        try db.db.immediateTransaction {
                            try RawStore.bindValues(ofRow: i, to: insert, from: 1)
                            try insert.execute()
                        }
                    }
                    return try db.count("SELECT count(*) FROM \(RawStore.items)")
                }
            },
            plan: nil)
    }
}

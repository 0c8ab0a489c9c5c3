import BenchmarkKit
import Foundation
import OpenSwiftData

/// `upsert (half colliding)`: one save whose items half update, half insert.
/// Ours and its raw-SQLite twin, side by side.
extension PersistenceWorkloads {
    /// One save of `rows` new items whose unique keys are 0..<rows, into a store that already
    /// holds keys 0..<rows/2: half the items update a stored row, half insert.
    static var upsert: Workload {
        Workload(
            name: "upsert (half colliding)", group: "upsert", isQuery: false, operations: { $0 },
            oursSetUp: { cache, store, rows, _ in
                let container = try cache.emptyContainer(store)
                let seed = ModelContext(container)
                for i in 0..<rows / 2 { seed.insert(BenchItem(row: i)) }
                try seed.save()
                return OursRun(container) {
                    let context = ModelContext(container)
                    for i in 0..<rows {
                        let item = BenchItem(row: i)
                        item.name = "updated-\(i)"
                        context.insert(item)
                    }
                    try context.save()
                    return try context.fetchCount(FetchDescriptor<BenchItem>())
                }
            },
            rawSetUp: { cache, store, rows, _ in
                let db = try cache.emptyRaw(store)
                try db.insertRows(rows / 2)
                return RawRun(db) {
                    try db.db.immediateTransaction {
                        let c = RawStore.column
                        let updates = ["code", "codeUnindexed", "price", "priceUnindexed", "name", "group"]
                            .map { "\(c($0)) = excluded.\(c($0))" }.joined(separator: ", ")
                        let stmt = try db.db.cachedStatement(
                            """
                            INSERT INTO \(RawStore.items) (\(RawStore.columns), "Z_OPT") VALUES (NULL, \(RawStore.names.entityNumber("BenchItem")!), ?, ?, ?, ?, ?, ?, NULL, 1)
                            ON CONFLICT (\(c("key"))) DO UPDATE SET \(updates), "Z_OPT" = "Z_OPT" + 1
                            """)
                        for i in 0..<rows {
                            let v = BenchData.values(row: i)
                            try stmt.bind(Int64(i), at: 1)
                            try stmt.bind(Int64(v.code), at: 2)
                            try stmt.bind(Int64(v.code), at: 3)
                            try stmt.bind(v.price, at: 4)
                            try stmt.bind(v.price, at: 5)
                            try stmt.bindText("updated-\(i)", at: 6)
                            try stmt.execute()
                        }
                    }
                    return try db.count("SELECT count(*) FROM \(RawStore.items)")
                }
            },
            plan: nil, ratioTarget: coreRatioTarget)
    }
}

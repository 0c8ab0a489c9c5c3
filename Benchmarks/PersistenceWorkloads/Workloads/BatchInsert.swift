import BenchmarkKit
import Foundation
import OpenSwiftData

/// `batch insert`: one save of `rows` new items.
/// Ours and its raw-SQLite twin, side by side.
extension PersistenceWorkloads {
    static var batchInsert: Workload {
        Workload(
            name: "batch insert", group: "insert", isQuery: false, operations: { $0 },
            oursSetUp: { cache, store, rows, _ in
                let container = try cache.emptyContainer(store)
                return OursRun(container) {
                    let context = ModelContext(container)
                    for i in 0..<rows { context.insert(BenchItem(row: i)) }
                    try context.save()
                    return rows
                }
            },
            rawSetUp: { cache, store, rows, _ in
                let db = try cache.emptyRaw(store)
                return RawRun(db) {
                    try db.insertRows(rows)
                    return rows
                }
            },
            plan: nil, ratioTarget: coreRatioTarget)
    }
}

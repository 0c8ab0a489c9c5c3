import BenchmarkKit
import Foundation
import OpenSwiftData

/// `fetch all`: every item, in key order.
/// Ours and its raw-SQLite twin, side by side.
extension PersistenceWorkloads {
    static var fetchAll: Workload {
        Workload(
            name: "fetch all", group: "fetch", isQuery: false, operations: { $0 },
            oursSetUp: { cache, store, rows, strategy in
                let container = try cache.populated(store, rows: rows, strategy: strategy)
                let context = ModelContext(container)
                return OursRun(container) { try context.fetch(FetchDescriptor<BenchItem>()).count }
            },
            rawSetUp: { cache, store, rows, strategy in
                let db = try cache.populatedRaw(store, rows: rows, strategy: strategy)
                return RawRun(db) { try db.rows(RawStore.select + " ORDER BY \"Z_PK\"").count }
            },
            plan: { container, _ in try container.queryPlan(for: FetchDescriptor<BenchItem>()) },
            ratioTarget: coreRatioTarget)
    }
}

import BenchmarkKit
import Foundation
import OpenSwiftData

/// `fetchCount (all)`: every row counted.
/// Ours and its raw-SQLite twin, side by side.
extension PersistenceWorkloads {
    static var countAll: Workload {
        Workload(
            name: "fetchCount (all)", group: "count", isQuery: true, operations: { _ in 1 },
            oursSetUp: { cache, store, rows, strategy in
                let container = try cache.populated(store, rows: rows, strategy: strategy)
                let context = ModelContext(container)
                return OursRun(container) { try context.fetchCount(FetchDescriptor<BenchItem>()) }
            },
            rawSetUp: { cache, store, rows, strategy in
                let db = try cache.populatedRaw(store, rows: rows, strategy: strategy)
                return RawRun(db) { try db.count("SELECT count(*) FROM \(RawStore.items)") }
            },
            plan: nil)
    }
}

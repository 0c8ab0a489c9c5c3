import BenchmarkKit
import Foundation
import OpenSwiftData

/// `fetchCount (string contains)`: Swift's substring semantics against a bare `instr`.
/// Ours and its raw-SQLite twin, side by side.
extension PersistenceWorkloads {
    /// `fetchCount` of a substring test that about 11% of the rows pass (`item-1…`): the cost of
    /// Swift's `Character` semantics (`instr`, then `osd_contains` on the rows whose bytes match)
    /// next to a bare `instr` in raw SQLite.
    static var countContains: Workload {
        let needle = "item-1"
        let descriptor = FetchDescriptor<BenchItem>(predicate: #Predicate { $0.name.contains(needle) })
        return Workload(
            name: "fetchCount (string contains)", group: "count", isQuery: true, operations: { _ in 1 },
            oursSetUp: { cache, store, rows, strategy in
                let container = try cache.populated(store, rows: rows, strategy: strategy)
                let context = ModelContext(container)
                return OursRun(container) { try context.fetchCount(descriptor) }
            },
            rawSetUp: { cache, store, rows, strategy in
                let db = try cache.populatedRaw(store, rows: rows, strategy: strategy)
                return RawRun(db) {
                    try db.count(
                        "SELECT count(*) FROM \(RawStore.items) WHERE instr(\(RawStore.column("name")), ?) > 0",
                        [.text(needle)])
                }
            },
            plan: { container, _ in try container.queryPlan(for: descriptor) })
    }
}

import BenchmarkKit
import Foundation
import OpenSwiftData

/// `fetchCount (indexed/unindexed predicate)`: about 1 % of the rows.
/// Ours and its raw-SQLite twin, side by side.
extension PersistenceWorkloads {
    /// The `code` bound of the count workloads: codes spread evenly over 0..<2^31, so about 1 %
    /// of the rows pass `code < countLimit` (selective enough for an index to pay off).
    static let countLimit = (1 << 31) / 100

    /// `fetchCount` of `code < countLimit`, about 1 % of the rows; with the index SQLite counts
    /// the matching index entries only (`SEARCH … USING COVERING INDEX`).
    static func count(indexed: Bool) -> Workload {
        let column = indexed ? "code" : "codeUnindexed"
        let limit = countLimit
        let descriptor: FetchDescriptor<BenchItem> =
            indexed
            ? FetchDescriptor(predicate: #Predicate { $0.code < limit })
            : FetchDescriptor(predicate: #Predicate { $0.codeUnindexed < limit })
        let sql = "SELECT count(*) FROM \(RawStore.items) WHERE (\(RawStore.column(column)) < ?)"
        return Workload(
            name: "fetchCount (\(indexed ? "indexed" : "unindexed") predicate)", group: "count", isQuery: true,
            operations: { _ in 1 },
            oursSetUp: { cache, store, rows, strategy in
                let container = try cache.populated(store, rows: rows, strategy: strategy)
                let context = ModelContext(container)
                return OursRun(container) { try context.fetchCount(descriptor) }
            },
            rawSetUp: { cache, store, rows, strategy in
                let db = try cache.populatedRaw(store, rows: rows, strategy: strategy)
                return RawRun(db) { try db.count(sql, [.integer(Int64(limit))]) }
            },
            plan: { container, _ in try container.countQueryPlan(for: descriptor) },
            rawPlan: { db, _ in try db.db.queryPlan(sql, [.integer(Int64(limit))]) })
    }
}

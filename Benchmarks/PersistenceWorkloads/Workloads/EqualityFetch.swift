import BenchmarkKit
import Foundation
import OpenSwiftData

/// `equality fetch`: lookups of one `code`, on the indexed or the never-indexed copy.
/// Ours and its raw-SQLite twin, side by side.
extension PersistenceWorkloads {
    static func equality(indexed: Bool) -> Workload {
        let column = indexed ? "code" : "codeUnindexed"
        let queries = indexed ? equalityQueries : scanQueries
        let sql = RawStore.select + " WHERE \(RawStore.column(column)) = ? ORDER BY \"Z_PK\""
        func descriptor(_ code: Int) -> FetchDescriptor<BenchItem> {
            indexed
                ? FetchDescriptor(predicate: #Predicate { $0.code == code })
                : FetchDescriptor(predicate: #Predicate { $0.codeUnindexed == code })
        }
        return Workload(
            name: "equality fetch (\(indexed ? "indexed" : "unindexed"))", group: "fetch", isQuery: true,
            operations: { min(queries, $0) },
            oursSetUp: { cache, store, rows, strategy in
                let container = try cache.populated(store, rows: rows, strategy: strategy)
                let context = ModelContext(container)
                let codes = probeRows(rows, queries).map { BenchData.values(row: $0).code }
                return OursRun(container) {
                    var found = 0
                    for code in codes { found += try context.fetch(descriptor(code)).count }
                    return found
                }
            },
            rawSetUp: { cache, store, rows, strategy in
                let db = try cache.populatedRaw(store, rows: rows, strategy: strategy)
                let codes = probeRows(rows, queries).map { BenchData.values(row: $0).code }
                return RawRun(db) {
                    var found = 0
                    for code in codes { found += try db.rows(sql, [.integer(Int64(code))]).count }
                    return found
                }
            },
            plan: { container, rows in try container.queryPlan(for: descriptor(BenchData.values(row: rows / 2).code)) },
            rawPlan: { db, rows in
                try db.db.queryPlan(sql, [.integer(Int64(BenchData.values(row: rows / 2).code))])
            },
            ratioTarget: indexed ? coreRatioTarget : nil)
    }
}

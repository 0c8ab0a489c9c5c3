import BenchmarkKit
import Foundation
import OpenSwiftData

/// The composite-attribute workloads: ``BenchRecord``, whose ``BenchDetails`` (a `Codable`
/// struct) is stored as one column per element, inserted and fetched. Their raw twins write and
/// read the same columns into the same struct. Ours and the raw-SQLite twins, side by side.
///
/// Both are meant to come within the 2× ratio target of their twins but are not there yet
/// (about 2.7× on insert and 2.8× on fetch in instructions at 10k rows in memory, of which
/// composite coding is about 2,700 instructions an inserted row, besides SQLite's binds, and
/// 2,000 a fetched one: the standard library's keyed container per element — its box, a
/// runtime metadata lookup of the container type per value, and a boxed `Any` per decoded
/// struct — on top of a model's own cost, itself about 2× raw's row), so neither sets a
/// target that `harness bench --compare` would fail.
extension PersistenceWorkloads {
    /// `insert (Codable struct attribute)`: one save of `rows` new records.
    static var compositeInsert: Workload {
        Workload(
            name: "insert (Codable struct attribute)", group: "insert", isQuery: false, operations: { $0 },
            oursSetUp: { cache, store, rows, _ in
                let container = try cache.emptyRecordContainer(store)
                return OursRun(container) {
                    let context = ModelContext(container)
                    for i in 0..<rows { context.insert(BenchRecord(row: i)) }
                    try context.save()
                    return rows
                }
            },
            rawSetUp: { cache, store, rows, _ in
                let db = try cache.emptyRawRecords(store)
                return RawRun(db) {
                    try db.insertRecords(rows)
                    return rows
                }
            },
            plan: nil)
    }

    /// `fetch all (Codable struct attribute)`: every record, in key order; the result is the
    /// records' `quantity` checksum.
    static var compositeFetchAll: Workload {
        Workload(
            name: "fetch all (Codable struct attribute)", group: "fetch", isQuery: false, operations: { $0 },
            oursSetUp: { cache, store, rows, _ in
                let container = try cache.populatedRecords(store, rows: rows)
                let context = ModelContext(container)
                return OursRun(container) {
                    try context.fetch(FetchDescriptor<BenchRecord>()).reduce(0) { $0 &+ $1.details.quantity }
                }
            },
            rawSetUp: { cache, store, rows, _ in
                let db = try cache.populatedRawRecords(store, rows: rows)
                return RawRun(db) { try db.recordRows().quantityChecksum }
            },
            plan: { container, _ in try container.queryPlan(for: FetchDescriptor<BenchRecord>()) })
    }
}

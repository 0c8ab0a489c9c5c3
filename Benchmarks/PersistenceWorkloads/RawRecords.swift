import Foundation
import OpenSwiftData

/// The raw-SQLite baseline of the composite-attribute workloads: ``BenchRecord``'s table, its
/// ``BenchDetails`` in one column per element, read and written with prepared statements.
extension RawStore {
    /// The store's names for ``BenchRecord`` (Apple's layout, from the schema the store uses).
    static let recordNames: StoreNames = {
        do { return try StoreNames(Schema([BenchRecord.self])) } catch {
            preconditionFailure("the record schema has no store layout: \(error)")
        }
    }()

    /// `BenchRecord`'s table.
    static let records = quote(recordNames.table("BenchRecord")!)

    /// `"Z_PK", "ZSERIAL"` and the detail columns in ``BenchDetails``' element order.
    static let recordColumns: String = {
        let elements = recordNames.elementColumns("BenchRecord", "details")
        let details = ["quantity", "amount", "label", "active"].map { quote(elements[$0]!) }
        return (["\"Z_PK\"", quote(recordNames.column("BenchRecord", "serial")!)] + details)
            .joined(separator: ", ")
    }()

    /// A record as a hand-written app would read it.
    public struct RecordRow {
        /// The row's primary key and serial number.
        public var pk: Int64, serial: Int
        /// The composite's values.
        public var details: BenchDetails
    }

    /// A fresh database of the record schema, in memory (`url == nil`) or at `url` (the schema
    /// declares no index: no strategy applies).
    static func records(url: URL?) throws -> RawStore {
        try RawStore(url: url, strategy: .none, names: recordNames)
    }

    /// Inserts records `0..<count` in one transaction.
    public func insertRecords(_ count: Int) throws {
        try db.immediateTransaction {
            let entity = RawStore.recordNames.entityNumber("BenchRecord")!
            let insert = try db.cachedStatement(
                "INSERT INTO \(RawStore.records) (\(RawStore.recordColumns), \"Z_ENT\", \"Z_OPT\") "
                    + "VALUES (?, ?, ?, ?, ?, ?, \(entity), 1)")
            var base: Int64 = 1
            if case .integer(let n)? = try db.scalar(
                "SELECT coalesce(max(\"Z_PK\"), 0) + 1 FROM \(RawStore.records)")
            {
                base = n
            }
            for i in 0..<count {
                let d = BenchDetails(row: i)
                try insert.bind(base + Int64(i), at: 1)
                try insert.bind(Int64(i), at: 2)
                try insert.bind(Int64(d.quantity), at: 3)
                try insert.bind(d.amount, at: 4)
                try insert.bindText(d.label, at: 5)
                try insert.bind(Int64(d.active ? 1 : 0), at: 6)
                try insert.execute()
            }
        }
    }

    /// Every record in key order, read into ``RecordRow`` values.
    package func recordRows() throws -> [RecordRow] {
        let stmt = try db.cachedStatement("SELECT \(RawStore.recordColumns) FROM \(RawStore.records) ORDER BY \"Z_PK\"")
        defer { stmt.reset() }
        var out: [RecordRow] = []
        while try stmt.step() {
            out.append(
                RecordRow(
                    pk: stmt.rawInt64(at: 0), serial: Int(stmt.rawInt64(at: 1)),
                    details: BenchDetails(
                        quantity: Int(stmt.rawInt64(at: 2)), amount: stmt.rawDouble(at: 3),
                        label: stmt.rawText(at: 4) ?? "", active: stmt.rawInt64(at: 5) != 0)))
        }
        return out
    }
}

extension [RawStore.RecordRow] {
    /// The records' `quantity` summed (wrapping): what both sides of the record workloads return.
    var quantityChecksum: Int { reduce(0) { $0 &+ $1.details.quantity } }
}

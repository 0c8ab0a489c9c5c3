import CSQLite
import Foundation

/// The columns of one table that an index of the store covers, as of one schema version, and
/// the uniqueness lookups that read them.
///
/// An upsert (UNQ-10) rewrites the stored row it matched. SQLite rewrites an index's entry for
/// every indexed column an `UPDATE` sets, even to the value it already holds, and that is most
/// of an update's cost (measured on the benchmark's table with three indexed columns: 3.3 µs a
/// row setting them all, 1.1 µs leaving them out). So a save's uniqueness lookup also reads the
/// indexed columns of the row it finds (``StoredColumn``), and the upsert's `UPDATE` leaves out
/// each one whose stored value is exactly the one it would write: the row ends up the same.
///
/// Which columns are indexed is read from the store (`pragma_index_list`, `pragma_index_info`),
/// not from the schema, so indexes a store file brings or an index strategy adds count too. It
/// is kept on the table until `PRAGMA schema_version` changes.
final class IndexedColumns: Sendable {
    /// The `PRAGMA schema_version` the columns were read at.
    let schemaVersion: Int64
    /// The indexed columns, as indexes into the table's ``StoreMapping/Table/selectList``
    /// (ascending; only single columns the mapping writes, not `Z_PK`, `Z_ENT` or `Z_OPT`).
    let columns: [Int32]
    /// Per uniqueness group id: the group's lookups reading ``columns`` after `Z_OPT`, except
    /// the group's own columns, which it matched on.
    private let lookups: [Int: StoreMapping.Table.UniqueGroup.Lookup]

    init(schemaVersion: Int64, columns: [Int32], table: StoreMapping.Table) {
        self.schemaVersion = schemaVersion
        self.columns = columns
        var lookups: [Int: StoreMapping.Table.UniqueGroup.Lookup] = [:]
        for groups in table.uniqueGroups.values {
            for group in groups where lookups[group.id] == nil {
                let own = Set(group.reads.map(\.column))
                lookups[group.id] = group.lookup(reading: columns.filter { !own.contains($0) }, in: table)
            }
        }
        self.lookups = lookups
    }

    /// `group`'s lookups reading the indexed columns (its plain ones for a group of another table).
    func lookup(_ group: StoreMapping.Table.UniqueGroup) -> StoreMapping.Table.UniqueGroup.Lookup {
        lookups[group.id] ?? group.plain
    }
}

/// The indexed columns a uniqueness lookup read from the row it found (``IndexedColumns``).
struct StoredRow {
    /// Indexes into the table's ``StoreMapping/Table/selectList``.
    let columns: [Int32]
    /// Their values, in that order.
    let values: [StoredColumn]
}

/// A column's value exactly as SQLite stores it, to tell whether writing a value would change
/// it: a `REAL` compares by its bits (`0.0` is not `-0.0`), text by its bytes (not by Unicode
/// equivalence, as `String`'s `==` does), and a storage class never equals another (`1` is not
/// `1.0`, nor `'1'`).
enum StoredColumn: Equatable {
    case null
    case integer(Int64)
    case real(bits: UInt64)
    case text(Data)
    case blob(Data)

    /// Column `index` of `stmt`'s current row.
    init(_ stmt: SQLiteStatement, at index: Int32) {
        switch stmt.storageClass(at: index) {
        case SQLITE_INTEGER: self = .integer(stmt.int64(at: index))
        case SQLITE_FLOAT: self = .real(bits: stmt.double(at: index).bitPattern)
        case SQLITE_TEXT: self = .text(stmt.textBytes(at: index))
        case SQLITE_BLOB: self = .blob(stmt.data(at: index))
        default: self = .null
        }
    }

    /// Whether binding `value` writes exactly this (a value SQLite converts on the way in, such
    /// as text into an integer column, never counts as the same: the column is then written).
    func isWritten(by value: SQLValue) -> Bool {
        switch (self, value) {
        case (.null, .null): true
        case (.integer(let a), .integer(let b)): a == b
        case (.real(let a), .real(let b)): a == b.bitPattern
        case (.text(let a), .text(let b)): a.elementsEqual(b.utf8)
        case (.blob(let a), .blob(let b)): a == b
        default: false
        }
    }
}

extension StoreWriter {
    /// `table`'s indexed columns (``IndexedColumns``): kept on the table, read again from the
    /// store when its schema version changed.
    func indexedColumns(_ table: StoreMapping.Table) throws -> IndexedColumns {
        let versionQuery = try db.cachedStatement("PRAGMA schema_version")
        defer { versionQuery.reset() }
        let version = try versionQuery.step() ? versionQuery.int64(at: 0) : 0
        if let known = table.indexedColumns, known.schemaVersion == version { return known }
        let names = try db.rows(
            "SELECT DISTINCT ii.name FROM pragma_index_list(?) il, pragma_index_info(il.name) ii WHERE ii.name IS NOT NULL",
            [.text(table.name)])
        let indexed = Set(names.compactMap { row -> String? in if case .text(let s)? = row.first { s } else { nil } })
        // Single columns a model's value is written to (a composite's elements are written together).
        let single = Set(table.entities.flatMap { table.plan($0).filter { $0.width == 1 }.map(\.column) })
        let columns = table.columns.indices.map { Int32($0 + 2) }
            .filter { single.contains($0) && indexed.contains(table.columns[Int($0) - 2]) }
        let found = IndexedColumns(schemaVersion: version, columns: columns, table: table)
        table.indexedColumns = found
        return found
    }
}

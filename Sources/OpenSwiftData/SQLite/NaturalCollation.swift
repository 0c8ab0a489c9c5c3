import CSQLite
import Foundation

/// The `osd_natural` collation, registered on every connection: orders two stored strings as
/// ``NaturalStringComparator`` orders them ("User 2" before "User 10").
///
/// A fetch whose ``StringSortStyle`` is ``StringSortStyle/natural`` names it on each `String`
/// sort key (``orderByClause(_:_:stringSortStyle:)``):
/// ```sql
/// ORDER BY (t."name") COLLATE osd_natural ASC, t."Z_PK" ASC   -- SortDescriptor(\.name), natural
/// ```
/// NULLs keep SQLite's order (first ascending, last descending), as Swift orders `nil`. The
/// callback runs the same Swift function the in-memory sort uses, so both always agree. A sort
/// with the collation cannot use an index on the column (indexes use BINARY).
/// [SQLite: collating sequences](https://sqlite.org/datatype3.html#collation)
enum NaturalCollation {
    /// The collation's name, as written after `COLLATE`.
    static let name = "osd_natural"

    /// Registers ``name`` on `db`.
    static func register(on db: OpaquePointer) {
        sqlite3_create_collation_v2(
            db, name, SQLITE_UTF8, nil,
            { _, na, a, nb, b in
                let x = String(decoding: UnsafeRawBufferPointer(start: a, count: a == nil ? 0 : Int(na)), as: UTF8.self)
                let y = String(decoding: UnsafeRawBufferPointer(start: b, count: b == nil ? 0 : Int(nb)), as: UTF8.self)
                switch NaturalStringComparator.compareForward(x, y) {
                case .orderedAscending: return -1
                case .orderedSame: return 0
                case .orderedDescending: return 1
                }
            }, nil)
    }
}

/// `(sql) COLLATE osd_natural`: the operand ordered through ``NaturalCollation``.
func naturalCollated(_ sql: String) -> String {
    "(\(sql)) COLLATE \(NaturalCollation.name)"
}

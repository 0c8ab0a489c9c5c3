import CSQLite
import Foundation

/// The `osd_decimal` collation, registered on every connection: orders two `Decimal` texts as
/// Swift's `Decimal` `<` and `==` order them.
///
/// `Decimal` is stored as a number in a `DECIMAL` column (``StorableValue``), which SQLite
/// compares numerically; a collation never applies to numbers. It matters only for `Decimal`
/// text that earlier versions of this library (or another writer) stored, which SQLite would
/// compare byte-wise (`"99.5" > "100"`). Every translation that compares or sorts a `Decimal`
/// names this collation on its left operand, so such text compares by value too:
/// ```sql
/// ((t."ZBALANCE") COLLATE osd_decimal > ?)                       -- $0.balance > 100
/// ORDER BY (t."ZBALANCE") COLLATE osd_decimal ASC, t."Z_PK" ASC  -- SortDescriptor(\.balance)
/// ```
/// A comparison with the collation cannot search an index on the column (indexes use BINARY).
/// [SQLite: collating sequences](https://sqlite.org/datatype3.html#collation)
enum DecimalCollation {
    /// The collation's name, as written after `COLLATE`.
    static let name = "osd_decimal"

    /// Registers ``name`` on `db`.
    static func register(on db: OpaquePointer) {
        sqlite3_create_collation_v2(
            db, name, SQLITE_UTF8, nil,
            { _, na, a, nb, b in
                let bytesA = UnsafeRawBufferPointer(start: a, count: a == nil ? 0 : Int(na))
                let bytesB = UnsafeRawBufferPointer(start: b, count: b == nil ? 0 : Int(nb))
                return DecimalCollation.compare(bytesA, bytesB)
            }, nil)
    }

    /// -1, 0 or 1 as `a` is less than, equal to or greater than `b` by Swift's `Decimal`
    /// comparison. Texts that do not parse (never written by this library) sort after every
    /// number, byte-wise among themselves, so the order stays total.
    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int32 {
        if a.elementsEqual(b) { return 0 }
        let da = parse(a)
        let db = parse(b)
        switch (da, db) {
        case (let x?, let y?): return x < y ? -1 : (x == y ? 0 : 1)
        case (_?, nil): return -1
        case (nil, _?): return 1
        case (nil, nil): return a.lexicographicallyPrecedes(b) ? -1 : 1
        }
    }

    private static let posix = Locale(identifier: "en_US_POSIX")

    /// The `Decimal` a stored text reads as (``StorableValue``'s reading), `nil` if none.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> Decimal? {
        guard let d = Decimal(string: String(decoding: bytes, as: UTF8.self), locale: posix), !d.isNaN else {
            return nil
        }
        return d
    }
}

/// Whether values of `type` are compared through ``DecimalCollation``: `Decimal`, optional
/// `Decimal` (any depth), and raw-value enums whose raw value is `Decimal`.
func comparesAsDecimal(_ type: Any.Type) -> Bool {
    if type == Decimal.self { return true }
    if let opt = type as? any _OptionalProtocol.Type { return comparesAsDecimal(opt._wrappedType) }
    if let raw = type as? any RawRepresentable.Type { return rawValueType(raw) == Decimal.self }
    return false
}

/// `(sql) COLLATE osd_decimal`: the operand compared through ``DecimalCollation``. The
/// parentheses keep `COLLATE`, a postfix operator binding tighter than any other, on the whole operand.
func decimalCollated(_ sql: String) -> String {
    "(\(sql)) COLLATE \(DecimalCollation.name)"
}

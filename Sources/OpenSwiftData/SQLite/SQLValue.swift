import Foundation

/// A value as SQLite stores it: one of its five storage classes.
///
/// Every value our SQL carries is bound as a parameter of this type; no SQL is built from data.
package enum SQLValue: Hashable, Sendable, CustomStringConvertible {
    /// `NULL`.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An IEEE 754 double. NaN is never bound: SQLite would store it as `NULL`.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes.
    case blob(Data)

    /// A short rendering for messages; text and blobs are summarised, never dumped in full.
    package var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let v): "\(v)"
        case .real(let v): "\(v)"
        case .text(let s): "text(\(s.utf8.count) bytes)"
        case .blob(let d): "blob(\(d.count) bytes)"
        }
    }
}

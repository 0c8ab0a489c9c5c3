import CSQLite
import Foundation

/// The row a statement stands on, read through the statement's handle without holding the
/// statement: a reader that keeps it from row to row retains and releases nothing per column.
///
/// It is only valid while the statement lives and stands on the same row; whoever makes one
/// (``SQLiteStatement/currentRow``) drops it before either changes. Column indexes start at 0.
package struct SQLiteRow {
    /// The statement's `sqlite3_stmt*`.
    private let handle: OpaquePointer

    /// A view of the row `handle` stands on.
    fileprivate init(_ handle: OpaquePointer) { self.handle = handle }

    /// Column `index`'s storage class (`SQLITE_INTEGER`, `SQLITE_NULL` …).
    @inline(__always) package func storageClass(at index: Int32) -> Int32 {
        sqlite3_column_type(handle, index)
    }

    /// Column `index`'s storage class and its value as an integer, from one lookup of the
    /// column: the row reader's check that an `Int` column holds an integer costs no second
    /// call into SQLite.
    ///
    /// The value `sqlite3_column_value` gives is SQLite's unprotected kind, which SQLite only
    /// asks to be read by one thread at a time: a connection is used under its store's lock.
    @inline(__always) package func integerColumn(at index: Int32) -> (storageClass: Int32, value: Int64) {
        let value = sqlite3_column_value(handle, index)
        return (sqlite3_value_type(value), sqlite3_value_int64(value))
    }

    /// Column `index`'s storage class and its value as a `Double`, from one lookup of the
    /// column (see ``integerColumn(at:)``).
    @inline(__always) package func realColumn(at index: Int32) -> (storageClass: Int32, value: Double) {
        let value = sqlite3_column_value(handle, index)
        return (sqlite3_value_type(value), sqlite3_value_double(value))
    }

    /// Column `index` as UTF-8 text (SQLite converts a number to its text), from one lookup of
    /// the column: its bytes and their count, valid until the statement steps or resets; `nil`
    /// for `NULL`. (`sqlite3_column_text` and `sqlite3_column_bytes` would each look the column
    /// up and check the connection for an allocation failure, which the first already reports
    /// as `nil`.) See ``integerColumn(at:)`` for the unprotected value.
    @inline(__always) package func text(at index: Int32) -> (bytes: UnsafePointer<UInt8>, count: Int)? {
        let value = sqlite3_column_value(handle, index)
        guard let p = sqlite3_value_text(value) else { return nil }
        return (p, Int(sqlite3_value_bytes(value)))
    }

    /// Column `index` as text when it holds TEXT; `nil` for any other storage class.
    @inline(__always) package func textIfText(at index: Int32) -> String? {
        let value = sqlite3_column_value(handle, index)
        guard sqlite3_value_type(value) == SQLITE_TEXT, let p = sqlite3_value_text(value) else { return nil }
        let n = Int(sqlite3_value_bytes(value))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    /// Column `index` as an ``SQLValue`` of its storage class.
    package func value(at index: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT: return .text(textIfText(at: index) ?? "")
        case SQLITE_BLOB:
            guard let p = sqlite3_column_blob(handle, index) else { return .blob(Data()) }
            return .blob(Data(bytes: p, count: Int(sqlite3_column_bytes(handle, index))))
        default: return .null
        }
    }
}

extension SQLiteStatement {
    /// The row the statement stands on, read without holding the statement (``SQLiteRow``):
    /// valid until the statement steps, resets or is released.
    package var currentRow: SQLiteRow { SQLiteRow(handle) }
}

import CSQLite
import OpenSwiftData

/// Column reads as a hand-written app makes them: SQLite's column functions, one call a value
/// (`sqlite3_column_int64`; `sqlite3_column_text`, then `sqlite3_column_bytes`). The raw twins
/// read their rows through these, not through the store's row view, which finds each column's
/// value in place (`Unsafe/ABIAssumptions.swift`, item 7): the baseline is what SQLite's API
/// costs an app.
extension SQLiteStatement {
    /// Column `index` as an integer.
    @inline(__always) func rawInt64(at index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// Column `index` as a `Double`.
    @inline(__always) func rawDouble(at index: Int32) -> Double { sqlite3_column_double(handle, index) }

    /// Whether column `index` is `NULL`.
    @inline(__always) func rawIsNull(at index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    /// Column `index` as text, `nil` for `NULL`.
    @inline(__always) func rawText(at index: Int32) -> String? {
        guard let p = sqlite3_column_text(handle, index) else { return nil }
        let n = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }
}

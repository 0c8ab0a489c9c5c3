import CSQLite
import Foundation

/// The row a statement stands on, read through the statement's handle without holding the
/// statement: a reader that keeps it from row to row retains and releases nothing per column.
///
/// It is only valid while the statement lives and stands on the same row; whoever makes one
/// (``SQLiteStatement/currentRow``) drops it before either changes. Column indexes start at 0.
///
/// Each column is read from its value cell in SQLite's result row: found from column 0's cell
/// when ``ResultCells`` measured where the cells lie (`Unsafe/ABIAssumptions.swift`, item 7),
/// else asked of SQLite (`sqlite3_column_value`), whose every column call also looks the
/// column up, checks its range and checks the connection for an allocation failure.
package struct SQLiteRow {
    /// The statement's `sqlite3_stmt*`.
    private let handle: OpaquePointer
    /// Column 0's value cell, the others following it at `stride` bytes; `nil` to ask SQLite.
    private let cells: UnsafeMutableRawPointer?
    /// ``ResultCells/stride``.
    private let stride: Int
    /// The number of cells at `cells`.
    private let count: Int32

    /// A view of the row `handle` stands on, whose `count` columns are in `cells` (`nil`: ask
    /// SQLite).
    fileprivate init(_ handle: OpaquePointer, cells: UnsafeMutableRawPointer?, stride: Int, count: Int32) {
        self.handle = handle
        self.cells = cells
        self.stride = stride
        self.count = count
    }

    /// Column `index`'s value, SQLite's unprotected kind, which SQLite only asks to be read by
    /// one thread at a time: a connection is used under its store's lock. An index outside the
    /// row is SQLite's to answer (a `NULL`).
    @inline(__always) private func cell(_ index: Int32) -> OpaquePointer? {
        guard let cells, index >= 0, index < count else { return sqlite3_column_value(handle, index) }
        let cell = OpaquePointer(cells + Int(index) &* stride)
        assert(cell == sqlite3_column_value(handle, index), "SQLite's result row is not where ResultCells found it")
        return cell
    }

    /// Column `index`'s storage class (`SQLITE_INTEGER`, `SQLITE_NULL` …).
    @inline(__always) package func storageClass(at index: Int32) -> Int32 {
        sqlite3_value_type(cell(index))
    }

    /// Whether column `index` is `NULL`.
    @inline(__always) package func isNull(at index: Int32) -> Bool {
        storageClass(at: index) == SQLITE_NULL
    }

    /// Column `index` as an integer (SQLite's conversion of other storage classes).
    @inline(__always) package func int64(at index: Int32) -> Int64 {
        sqlite3_value_int64(cell(index))
    }

    /// Column `index` as a `Double` (SQLite's conversion of other storage classes).
    @inline(__always) package func double(at index: Int32) -> Double {
        sqlite3_value_double(cell(index))
    }

    /// Column `index`'s storage class and its value as an integer, from one lookup of the
    /// column: the row reader's check that an `Int` column holds an integer costs no second
    /// lookup.
    @inline(__always) package func integerColumn(at index: Int32) -> (storageClass: Int32, value: Int64) {
        let value = cell(index)
        return (sqlite3_value_type(value), sqlite3_value_int64(value))
    }

    /// Column `index`'s storage class and its value as a `Double`, from one lookup of the
    /// column (see ``integerColumn(at:)``).
    @inline(__always) package func realColumn(at index: Int32) -> (storageClass: Int32, value: Double) {
        let value = cell(index)
        return (sqlite3_value_type(value), sqlite3_value_double(value))
    }

    /// Column `index` as UTF-8 text (SQLite converts a number to its text), from one lookup of
    /// the column: its bytes and their count, valid until the statement steps or resets; `nil`
    /// for `NULL`, and for a conversion SQLite could not allocate.
    @inline(__always) package func text(at index: Int32) -> (bytes: UnsafePointer<UInt8>, count: Int)? {
        let value = cell(index)
        guard let p = sqlite3_value_text(value) else { return nil }
        return (p, Int(sqlite3_value_bytes(value)))
    }

    /// Column `index` as bytes, and their count, valid until the statement steps or resets
    /// (SQLite's conversion of text); `nil` for `NULL` and an empty blob.
    @inline(__always) package func blob(at index: Int32) -> (bytes: UnsafeRawPointer, count: Int)? {
        let value = cell(index)
        guard let p = sqlite3_value_blob(value) else { return nil }
        return (p, Int(sqlite3_value_bytes(value)))
    }

    /// Column `index` as text when it holds TEXT; `nil` for any other storage class.
    @inline(__always) package func textIfText(at index: Int32) -> String? {
        let value = cell(index)
        guard sqlite3_value_type(value) == SQLITE_TEXT, let p = sqlite3_value_text(value) else { return nil }
        let n = Int(sqlite3_value_bytes(value))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    /// Column `index` as an ``SQLValue`` of its storage class.
    package func value(at index: Int32) -> SQLValue {
        switch storageClass(at: index) {
        case SQLITE_INTEGER: return .integer(int64(at: index))
        case SQLITE_FLOAT: return .real(double(at: index))
        case SQLITE_TEXT: return .text(textIfText(at: index) ?? "")
        case SQLITE_BLOB:
            guard let (p, n) = blob(at: index) else { return .blob(Data()) }
            return .blob(Data(bytes: p, count: n))
        default: return .null
        }
    }
}

/// Where SQLite keeps the values of the row a statement stands on: an array of equal-size value
/// cells, column after column (the virtual machine's registers `ResultRow` names). Measured once
/// a process on a statement of its own, and checked there cell by cell and value by value; when
/// anything differs, ``stride`` is 0 and every read asks SQLite.
package enum ResultCells {
    /// The distance in bytes from one column's value cell to the next (SQLite's `sizeof(Mem)`),
    /// or 0 when the cells are not where this measured them.
    package static let stride: Int = measure()

    /// The stride the columns of `SELECT`s from a table and of constants show, when every
    /// cell is where it says and holds its column's value; else 0.
    private static func measure() -> Int {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(":memory:", &db, flags, nil) == SQLITE_OK, let db else {
            sqlite3_close(db)
            return 0
        }
        defer { sqlite3_close(db) }
        let setUp =
            "CREATE TABLE t(a INTEGER, b REAL, c TEXT, d, e BLOB); INSERT INTO t VALUES (7, 2.5, 'seven', NULL, x'07')"
        guard sqlite3_exec(db, setUp, nil, nil, nil) == SQLITE_OK else { return 0 }
        let fromTable = stride(db, "SELECT a, b, c, d, e FROM t")
        let constants = stride(db, "SELECT 7, 2.5, 'seven', NULL, x'07'")
        return fromTable == constants ? fromTable : 0
    }

    /// The stride of `sql`'s first row (five columns: 7, 2.5, `'seven'`, `NULL`, `x'07'`), or 0.
    private static func stride(_ db: OpaquePointer, _ sql: String) -> Int {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else { return 0 }
        defer { sqlite3_finalize(stmt) }
        guard sqlite3_step(stmt) == SQLITE_ROW, sqlite3_column_count(stmt) == 5,
            let first = sqlite3_column_value(stmt, 0), let second = sqlite3_column_value(stmt, 1)
        else { return 0 }
        let base = UnsafeMutableRawPointer(first)
        let stride = UnsafeMutableRawPointer(second) - base
        guard stride >= 16, stride <= 1_024 else { return 0 }
        for i in Int32(0)..<5 where sqlite3_column_value(stmt, i) != OpaquePointer(base + Int(i) * stride) {
            return 0
        }
        let row = SQLiteRow(stmt, cells: base, stride: stride, count: 5)
        let text = row.text(at: 2).map { String(decoding: UnsafeBufferPointer(start: $0, count: $1), as: UTF8.self) }
        let blob = row.blob(at: 4).map { Array(UnsafeRawBufferPointer(start: $0, count: $1)) }
        guard row.integerColumn(at: 0) == (SQLITE_INTEGER, 7), row.realColumn(at: 1) == (SQLITE_FLOAT, 2.5),
            row.storageClass(at: 2) == SQLITE_TEXT, text == "seven", row.isNull(at: 3),
            row.storageClass(at: 4) == SQLITE_BLOB, blob == [7]
        else { return 0 }
        return stride
    }
}

extension SQLiteStatement {
    /// The row the statement stands on, read without holding the statement (``SQLiteRow``):
    /// valid until the statement steps, resets or is released.
    package var currentRow: SQLiteRow {
        SQLiteRow(handle, cells: resultCells, stride: cellStride, count: resultColumns)
    }
}

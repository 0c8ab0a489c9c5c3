import CSQLite
import Foundation

/// A prepared statement: bind parameters, step through rows, read columns.
///
/// Parameter and column indexes are as SQLite numbers them: parameters from 1, columns from 0.
package final class SQLiteStatement {
    /// The raw `sqlite3_stmt*`.
    package let handle: OpaquePointer
    /// The statement's SQL text.
    package let sql: String
    /// The connection that prepared the statement.
    unowned let connection: SQLiteConnection
    /// Objects a layer above keeps with the statement for as long as the statement lives (the
    /// store keeps its composite coders' state here, from row to row); the wrapper never reads
    /// them and SQLite never sees them. Read for every row a composite is read from or written
    /// to, appended to once per composite: like ``resultCells``, touched only by the thread
    /// using the statement, one access at a time, so not checked for exclusivity at run time.
    @exclusivity(unchecked) package var attachments: [AnyObject] = []
    /// How many rows the last run of the statement returned, as its reader counted them (the
    /// reader sets it; SQLite does not count): what a run that binds nothing will about
    /// return again, for sizing what it fills. A hint, never a promise.
    package var rowsLastRun = 0
    /// Column 0's value cell while the statement stands on a row, set by each step (one SQLite
    /// call, where each column read would make one); `nil` between runs, and always when
    /// ``ResultCells`` found no stride. Read and written only by the thread stepping the
    /// statement, one access at a time (`Unsafe/ABIAssumptions.swift`, item 7).
    @exclusivity(unchecked) private(set) var resultCells: UnsafeMutableRawPointer?
    /// The number of cells at ``resultCells`` (the row's columns), set with it.
    @exclusivity(unchecked) private(set) var resultColumns: Int32 = 0
    /// ``ResultCells/stride``, kept where each row's view reads it.
    let cellStride = ResultCells.stride

    init(_ handle: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Resets the statement to run again and clears its bindings.
    package func reset() {
        resultCells = nil
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// The number of parameters the SQL declares.
    package var parameterCount: Int32 { sqlite3_bind_parameter_count(handle) }
    /// The number of result columns.
    package var columnCount: Int32 { sqlite3_column_count(handle) }

    /// Binds `values` to parameters 1…n: exactly one value per parameter of the SQL.
    ///
    /// - Throws: ``SQLiteError`` with code ``SQLiteError/Code/range`` when the count differs from
    ///   ``parameterCount`` (SQLite would silently bind `NULL` to the parameters left over), and
    ///   SQLite's error for a value it refuses.
    package func bind(_ values: [SQLValue]) throws {
        let expected = parameterCount
        if values.count != Int(expected) {
            throw SQLiteError(
                code: SQLITE_RANGE,
                message:
                    "\(values.count) value\(values.count == 1 ? "" : "s") bound to a statement with \(expected) parameter\(expected == 1 ? "" : "s")",
                sql: sql)
        }
        for (i, v) in values.enumerated() { try bind(v, at: Int32(i + 1)) }
    }

    /// Binds one value to the 1-based parameter `index`.
    package func bind(_ value: SQLValue, at index: Int32) throws {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, index)
        case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
        case .real(let v): rc = sqlite3_bind_double(handle, index, v)
        case .text(let s): rc = bindTextCode(s, at: index)
        case .blob(let d):
            rc = d.withUnsafeBytes { raw in
                sqlite3_bind_blob64(
                    handle, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                    sqlite3_uint64(raw.count), openswiftdata_sqlite_transient())
            }
        }
        try check(rc)
    }

    /// Binds an integer.
    ///
    /// - Throws: ``SQLiteError`` when SQLite refuses (an index out of range: ``SQLiteError/Code/range``;
    ///   a statement that is running: `SQLITE_MISUSE`). Every `bind` checks SQLite's result.
    @inline(__always) package func bind(_ value: Int64, at index: Int32) throws {
        let rc = sqlite3_bind_int64(handle, index, value)
        if rc != SQLITE_OK { try check(rc) }
    }
    /// Binds a double.
    ///
    /// - Throws: ``SQLiteError`` when SQLite refuses, as the integer `bind(_:at:)`.
    @inline(__always) package func bind(_ value: Double, at index: Int32) throws {
        let rc = sqlite3_bind_double(handle, index, value)
        if rc != SQLITE_OK { try check(rc) }
    }
    /// Binds text (copied by SQLite).
    ///
    /// - Throws: ``SQLiteError`` when SQLite refuses (also `SQLITE_TOOBIG` for text over its limit).
    package func bindText(_ value: String, at index: Int32) throws {
        try check(bindTextCode(value, at: index))
    }
    /// Binds text and returns SQLite's result code.
    private func bindTextCode(_ value: String, at index: Int32) -> Int32 {
        var s = value
        return s.withUTF8 { buf in
            buf.withMemoryRebound(to: CChar.self) { chars in
                sqlite3_bind_text64(
                    handle, index, chars.baseAddress ?? UnsafePointer<CChar>(bitPattern: 1),
                    sqlite3_uint64(chars.count), openswiftdata_sqlite_transient(), UInt8(SQLITE_UTF8))
            }
        }
    }
    /// Binds `NULL`.
    ///
    /// - Throws: ``SQLiteError`` when SQLite refuses, as the integer `bind(_:at:)`.
    @inline(__always) package func bindNull(at index: Int32) throws {
        let rc = sqlite3_bind_null(handle, index)
        if rc != SQLITE_OK { try check(rc) }
    }

    /// Advances to the next row: `true` when a row is ready, `false` when done.
    ///
    /// - Throws: ``SQLiteError`` carrying this statement's SQL.
    @inline(__always) package func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW {
            if cellStride != 0 {
                resultCells = UnsafeMutableRawPointer(sqlite3_column_value(handle, 0))
                resultColumns = sqlite3_data_count(handle)
            }
            return true
        }
        resultCells = nil
        if rc == SQLITE_DONE { return false }
        let ext = sqlite3_extended_errcode(sqlite3_db_handle(handle))
        let message = String(cString: sqlite3_errmsg(sqlite3_db_handle(handle)))
        sqlite3_reset(handle)
        throw SQLiteError(code: rc, extendedCode: ext, message: message, sql: sql)
    }

    /// Steps to completion, ignoring rows; for `INSERT`, `UPDATE`, `DELETE`. The statement is
    /// reset afterwards, also when a step throws, and keeps its bindings.
    package func execute() throws {
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Whether column `index` of the current row is `NULL`.
    @inline(__always) package func isNull(at index: Int32) -> Bool {
        currentRow.isNull(at: index)
    }
    /// Column `index` as an integer.
    @inline(__always) package func int64(at index: Int32) -> Int64 {
        currentRow.int64(at: index)
    }
    /// Column `index` as a double.
    @inline(__always) package func double(at index: Int32) -> Double {
        currentRow.double(at: index)
    }
    /// Column `index` as text (empty for `NULL`).
    @inline(__always) package func text(at index: Int32) -> String {
        textIfPresent(at: index) ?? ""
    }
    /// Column `index` as text, or `nil` for `NULL` (one lookup of the column).
    @inline(__always) package func textIfPresent(at index: Int32) -> String? {
        guard let (p, n) = currentRow.text(at: index) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    /// Column `index`'s storage class: `SQLITE_INTEGER`, `SQLITE_FLOAT`, `SQLITE_TEXT`,
    /// `SQLITE_BLOB` or `SQLITE_NULL`.
    @inline(__always) package func storageClass(at index: Int32) -> Int32 {
        currentRow.storageClass(at: index)
    }

    /// Column `index`'s storage class (`SQLITE_INTEGER`, `SQLITE_NULL` …) and its value as an
    /// integer, from one lookup of the column (``SQLiteRow/integerColumn(at:)``).
    @inline(__always) package func integerColumn(at index: Int32) -> (storageClass: Int32, value: Int64) {
        currentRow.integerColumn(at: index)
    }

    /// Column `index`'s value when it is an `INTEGER`; `nil` for `NULL`, a real, text or a blob.
    @inline(__always) package func integerIfPresent(at index: Int32) -> Int64? {
        let (storageClass, value) = currentRow.integerColumn(at: index)
        return storageClass == SQLITE_INTEGER ? value : nil
    }

    /// Column `index`'s storage class and its value as a `Double`, from one lookup of the
    /// column (``SQLiteRow/realColumn(at:)``).
    @inline(__always) package func realColumn(at index: Int32) -> (storageClass: Int32, value: Double) {
        currentRow.realColumn(at: index)
    }

    /// What ``validTextIfPresent(at:)`` read.
    package enum TextRead {
        /// The column's text.
        case text(String)
        /// The column is `NULL`.
        case null
        /// The column's bytes are not valid UTF-8 (another tool wrote them).
        case invalidUTF8
    }

    /// Column `index` as text, `NULL`, or bytes that are not UTF-8 — where ``textIfPresent(at:)``
    /// would put U+FFFD in their place. The column is looked up once (``SQLiteRow/text(at:)``);
    /// the validation is the one building the `String` does in any case.
    ///
    /// ```swift
    /// if case .text(let name) = stmt.validTextIfPresent(at: 2) { print(name) }
    /// ```
    @inline(__always) package func validTextIfPresent(at index: Int32) -> TextRead {
        guard let (p, n) = currentRow.text(at: index) else { return .null }
        // `String(decoding:)` replaces ill-formed bytes with U+FFFD, so the string holds
        // exactly the column's bytes only when they were valid UTF-8; comparing them costs a
        // few nanoseconds where `String(validating:)` takes twice as long as the decoding.
        let bytes = UnsafeBufferPointer(start: p, count: n)
        var s = String(decoding: bytes, as: UTF8.self)
        let unchanged = s.withUTF8 { utf8 in
            utf8.count == n && (n == 0 || memcmp(utf8.baseAddress!, p, n) == 0)
        }
        return unchanged ? .text(s) : .invalidUTF8
    }

    /// Column `index`'s text as its bytes, exactly as stored: not decoded, so not checked as
    /// UTF-8 (empty for `NULL`).
    package func textBytes(at index: Int32) -> Data {
        guard let (p, n) = currentRow.text(at: index) else { return Data() }
        return Data(bytes: p, count: n)
    }

    /// Column `index` as bytes (empty for `NULL`).
    package func data(at index: Int32) -> Data {
        guard let (p, n) = currentRow.blob(at: index) else { return Data() }
        return Data(bytes: p, count: n)
    }
    /// Column `index` as an ``SQLValue`` of its storage class.
    package func value(at index: Int32) -> SQLValue { currentRow.value(at: index) }

    /// SQLite's run-time counters for this statement (`sqlite3_stmt_status`).
    package struct Counters: Sendable, Equatable {
        /// Virtual-machine steps (`SQLITE_STMTSTATUS_VM_STEP`).
        package var vmSteps: Int
        /// Steps of full table scans (`SQLITE_STMTSTATUS_FULLSCAN_STEP`).
        package var fullScanSteps: Int
        /// Sort operations (`SQLITE_STMTSTATUS_SORT`).
        package var sorts: Int
        /// Rows inserted into automatic indexes (`SQLITE_STMTSTATUS_AUTOINDEX`).
        package var autoIndexRows: Int
    }

    /// Reads the statement's counters; `reset` zeroes them afterwards.
    package func counters(reset: Bool = false) -> Counters {
        let r: Int32 = reset ? 1 : 0
        return Counters(
            vmSteps: Int(sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_VM_STEP, r)),
            fullScanSteps: Int(sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_FULLSCAN_STEP, r)),
            sorts: Int(sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_SORT, r)),
            autoIndexRows: Int(sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_AUTOINDEX, r)))
    }

    private func check(_ rc: Int32) throws {
        guard rc == SQLITE_OK else {
            let db = sqlite3_db_handle(handle)
            throw SQLiteError(
                code: rc, extendedCode: sqlite3_extended_errcode(db),
                message: String(cString: sqlite3_errmsg(db)), sql: sql)
        }
    }
}

import CSQLite
import Foundation

/// One SQLite database connection: open, execute, prepare (with a statement cache), transactions.
///
/// Not thread-safe by itself; the store serialises access with its own lock.
///
/// ```swift
/// let db = try SQLiteConnection(path: "/tmp/x.sqlite")
/// try db.execute("CREATE TABLE t(a INTEGER)")
/// let insert = try db.cachedStatement("INSERT INTO t(a) VALUES (?)")
/// ```
package final class SQLiteConnection {
    /// How to open the file.
    package enum OpenMode: Sendable {
        /// Read-write; create the file when missing.
        case readWriteCreate
        /// Read-write; the file must exist.
        case readWrite
        /// Read-only; SQLite refuses every write.
        case readOnly
        /// A private in-memory database, gone when the connection closes.
        case inMemory
    }

    /// The raw `sqlite3*` handle. Read by every call, written only by opening and closing the
    /// connection.
    package private(set) var handle: OpaquePointer?
    /// The path the connection was opened with (`:memory:` for in-memory databases).
    package let path: String
    /// Prepared statements by SQL, read on every statement use (under the store's lock).
    private var cache: [StatementSQL: SQLiteStatement] = [:]
    /// The handler ``setTrace(_:)`` installed, kept alive while SQLite may call it.
    var traceBox: SQLTraceBox?

    /// The version of the SQLite library linked in (`sqlite3_libversion()`), e.g. `"3.40.1"`.
    package static var libraryVersion: String { String(cString: sqlite3_libversion()) }

    /// Opens a connection.
    ///
    /// - Throws: ``SQLiteError`` when SQLite cannot open the file.
    package init(path: String, mode: OpenMode = .readWriteCreate, busyTimeoutMilliseconds: Int32 = 5000) throws {
        self.path = mode == .inMemory ? ":memory:" : path
        var flags: Int32 = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        switch mode {
        case .readWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        case .inMemory: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY
        }
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(self.path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: message + " (\(path))")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        SwiftStringFunctions.register(on: db)
        CheckedArithmeticFunctions.register(on: db)
        DecimalCollation.register(on: db)
        NaturalCollation.register(on: db)
    }

    deinit { close() }

    /// Finalises every cached statement and closes the connection. Safe to call twice.
    package func close() {
        cache.removeAll()
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// Makes closing this connection skip the checkpoint SQLite runs when the last connection to
    /// a WAL database closes, so a connection that only looked at a file leaves it byte for byte
    /// as it was (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`).
    package func disableCheckpointOnClose() {
        var applied: Int32 = 0
        _ = openswiftdata_db_config_int(handle, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, &applied)
    }

    /// Replaces this connection's `main` database with a copy of `source`'s, page by page, with
    /// SQLite's online backup API (the source is read through SQLite, its WAL included).
    ///
    /// ```c
    /// sqlite3_backup_init(self, "main", source, "main"); sqlite3_backup_step(-1); sqlite3_backup_finish
    /// ```
    /// - Throws: ``SQLiteError`` when the backup cannot start or a step fails.
    package func copyContents(of source: SQLiteConnection) throws {
        guard let backup = sqlite3_backup_init(handle, "main", source.handle, "main") else {
            throw SQLiteError(
                code: sqlite3_errcode(handle), extendedCode: sqlite3_extended_errcode(handle),
                message: "the backup cannot start: " + lastErrorMessage)
        }
        let step = sqlite3_backup_step(backup, -1)
        let finish = sqlite3_backup_finish(backup)
        guard step == SQLITE_DONE, finish == SQLITE_OK else {
            let code = step != SQLITE_DONE ? step : finish
            throw SQLiteError(
                code: code, message: "the backup failed (step \(step), finish \(finish)): " + lastErrorMessage)
        }
    }

    /// Runs one or more `;`-separated statements that take no parameters.
    package func execute(_ sql: String) throws {
        var errmsg: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errmsg)
        if rc != SQLITE_OK {
            let message = errmsg.map { String(cString: $0) } ?? lastErrorMessage
            sqlite3_free(errmsg)
            throw SQLiteError(code: rc, extendedCode: sqlite3_extended_errcode(handle), message: message, sql: sql)
        }
    }

    /// Compiles a new statement (not cached).
    package func prepare(_ sql: String) throws -> SQLiteStatement {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            throw SQLiteError(
                code: rc, extendedCode: sqlite3_extended_errcode(handle), message: lastErrorMessage, sql: sql)
        }
        return SQLiteStatement(stmt, connection: self, sql: sql)
    }

    /// Returns a prepared statement for `sql`, compiling it once and reusing it afterwards.
    /// The statement comes back reset with its bindings cleared.
    package func cachedStatement(_ sql: String) throws -> SQLiteStatement {
        try cachedStatement(StatementSQL(sql))
    }

    /// The statement for SQL whose hash was computed once: a statement run on every call (a
    /// cached query's) skips hashing its text each time.
    package func cachedStatement(_ sql: StatementSQL) throws -> SQLiteStatement {
        if let stmt = cache[sql] {
            stmt.reset()
            return stmt
        }
        let stmt = try prepare(sql.text)
        cache[sql] = stmt
        return stmt
    }

    /// SQLite's counters summed over every cached statement; `reset` zeroes them afterwards.
    package func cachedStatementCounters(reset: Bool = false) -> SQLiteStatement.Counters {
        var total = SQLiteStatement.Counters(vmSteps: 0, fullScanSteps: 0, sorts: 0, autoIndexRows: 0)
        for stmt in cache.values {
            let c = stmt.counters(reset: reset)
            total.vmSteps += c.vmSteps
            total.fullScanSteps += c.fullScanSteps
            total.sorts += c.sorts
            total.autoIndexRows += c.autoIndexRows
        }
        return total
    }

    /// The number of statements in the cache.
    package var cachedStatementCount: Int { cache.count }

    /// The rowid of the last successful `INSERT`.
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    /// The main database's data version (`SQLITE_FCNTL_DATA_VERSION`): it changes whenever the
    /// file's content changes, through this connection or a commit by any other connection or
    /// process. Unlike `PRAGMA data_version` it runs no statement and also counts this
    /// connection's own commits. Read it inside a read transaction (e.g. while a statement is
    /// stepping) to see other connections' latest commits.
    ///
    /// - Throws: ``SQLiteError`` when SQLite cannot answer.
    package func dataVersion() throws -> UInt32 {
        var version: UInt32 = 0
        let rc = sqlite3_file_control(handle, "main", SQLITE_FCNTL_DATA_VERSION, &version)
        guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: "the data version could not be read") }
        return version
    }

    /// Rows changed by the last `INSERT`, `UPDATE` or `DELETE`.
    package var changes: Int { Int(sqlite3_changes64(handle)) }
    /// Whether a transaction is open.
    package var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }
    /// SQLite's message for the last error on this connection.
    package var lastErrorMessage: String { String(cString: sqlite3_errmsg(handle)) }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`; any thrown error rolls the whole
    /// transaction back and is rethrown. `BEGIN IMMEDIATE` and `COMMIT` are prepared once and
    /// kept with the connection's statements: through `sqlite3_exec` each would be parsed,
    /// prepared and finalized on every call, about 2,000 instructions more apiece, which a save
    /// of one model pays twice.
    package func immediateTransaction<T>(_ body: () throws -> T) throws -> T {
        try cachedStatement(Self.beginImmediateSQL).execute()
        do {
            let result = try body()
            try cachedStatement(Self.commitSQL).execute()
            return result
        } catch {
            // try?: the body's error is rethrown; a ROLLBACK that fails leaves SQLite to roll back (nothing commits).
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    private static let beginImmediateSQL = StatementSQL("BEGIN IMMEDIATE")
    private static let commitSQL = StatementSQL("COMMIT")

    /// Runs a query and returns the first column of the first row, or `nil` when there is none.
    package func scalar(_ sql: String, _ arguments: [SQLValue] = []) throws -> SQLValue? {
        try scalar(StatementSQL(sql), arguments)
    }

    /// The first column of the first row, for SQL hashed once (``StatementSQL``): a statement run on every call.
    package func scalar(_ sql: StatementSQL, _ arguments: [SQLValue] = []) throws -> SQLValue? {
        let stmt = try cachedStatement(sql)
        defer { stmt.reset() }
        try stmt.bind(arguments)
        return try stmt.step() ? stmt.value(at: 0) : nil
    }

    /// Runs a query and returns every row as an array of values.
    package func rows(_ sql: String, _ arguments: [SQLValue] = []) throws -> [[SQLValue]] {
        let stmt = try cachedStatement(sql)
        defer { stmt.reset() }
        try stmt.bind(arguments)
        var result: [[SQLValue]] = []
        let n = stmt.columnCount
        while try stmt.step() {
            result.append((0..<n).map { stmt.value(at: $0) })
        }
        return result
    }

    /// Runs a statement with arguments, discarding any rows.
    package func run(_ sql: String, _ arguments: [SQLValue] = []) throws {
        try run(StatementSQL(sql), arguments)
    }

    /// Runs a statement with arguments, discarding any rows, for SQL hashed once (``StatementSQL``).
    package func run(_ sql: StatementSQL, _ arguments: [SQLValue] = []) throws {
        let stmt = try cachedStatement(sql)
        defer { stmt.reset() }
        try stmt.bind(arguments)
        while try stmt.step() {}
    }

    /// The `EXPLAIN QUERY PLAN` of `sql`, one line per plan row, indented by depth.
    package func queryPlan(_ sql: String, _ arguments: [SQLValue] = []) throws -> [String] {
        let stmt = try prepare("EXPLAIN QUERY PLAN " + sql)
        try stmt.bind(arguments)
        var depth: [Int64: Int] = [:]
        var lines: [String] = []
        while try stmt.step() {
            let id = stmt.int64(at: 0)
            let parent = stmt.int64(at: 1)
            let d = (depth[parent] ?? -1) + 1
            depth[id] = d
            lines.append(String(repeating: "  ", count: d) + stmt.text(at: 3))
        }
        return lines
    }
}

/// SQL text with its hash computed once, for statements that run again and again (the
/// statement cache's key): looking one up hashes an integer, not the whole text.
package struct StatementSQL: Hashable, Sendable, CustomStringConvertible {
    /// The SQL.
    package let text: String
    private let textHash: Int

    /// Wraps `text`, hashing it now.
    package init(_ text: String) {
        self.text = text
        textHash = text.hashValue
    }

    /// Hashes the precomputed hash only.
    package func hash(into hasher: inout Hasher) { hasher.combine(textHash) }

    /// Equal texts (the hashes are compared first).
    package static func == (a: StatementSQL, b: StatementSQL) -> Bool { a.textHash == b.textHash && a.text == b.text }

    /// The SQL.
    package var description: String { text }
}

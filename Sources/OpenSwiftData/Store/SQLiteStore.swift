import CSQLite
import Foundation

/// The SQLite store behind a container: one connection (a file in WAL mode, or a private
/// in-memory database), the schema's table mapping, and a lock that serialises every use of
/// the connection, so contexts on one container never see `SQLITE_BUSY`.
final class SQLiteStore: @unchecked Sendable {
    let connection: SQLiteConnection
    let mapping: StoreMapping
    let url: URL?
    /// Identifies this store in persistent identifiers.
    var identifier: String { identity.identifier }
    /// ``identifier`` in the object every model read from or saved to this store refers to.
    private(set) var identity = StoreIdentity("")
    private let lock = NSRecursiveLock()

    /// Opens (or creates) the store. A file that is not a database, is truncated or corrupt, or
    /// holds a different schema throws a typed error and is left exactly as it was.
    ///
    /// The file is only ever touched through SQLite: closing any other descriptor on it would
    /// drop the POSIX locks SQLite holds for this process's other connections, and another
    /// process could then checkpoint and delete a WAL this process still uses (lost writes).
    /// An existing file is first checked through a read-only connection (readable, `quick_check`,
    /// schema), which can neither write the main file nor checkpoint its WAL; only then is the
    /// read-write connection opened. Creating the schema of a new store happens inside
    /// `BEGIN IMMEDIATE`, re-checking under the lock, so processes opening one new file at the
    /// same moment agree on one schema.
    init(url: URL?, mapping: StoreMapping, readOnly: Bool) throws {
        self.url = url
        self.mapping = mapping
        guard let url else {
            connection = try SQLiteConnection(path: ":memory:", mode: .inMemory)
            for pragma in StoreLayout.filePragmas { try connection.execute(pragma) }
            try connection.immediateTransaction { try createOrValidate(connection) }
            readIndexedColumns()
            return
        }
        let kind = try SQLiteStore.checkPath(url)
        if kind == .missing {
            if readOnly {
                throw SwiftDataError(
                    SwiftDataError.loadIssueModelContainer.code,
                    "there is no store file to open read-only (allowsSave: false); create it with a configuration that allows saving first",
                    url: url)
            }
            do {
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(),
                    withIntermediateDirectories: true)
            } catch {
                throw SwiftDataError(
                    SwiftDataError.loadIssueModelContainer.code,
                    "the store's directory cannot be created", url: url, underlying: error)
            }
        }
        if kind == .nonEmpty || readOnly {
            // Validate without any possibility of writing the file.
            let probe = try SQLiteStore.openConnection(url, mode: .readOnly)
            do {
                let identifier = try SQLiteStore.validate(
                    probe, mapping: mapping, url: url,
                    checkIntegrity: true, emptyIsError: readOnly)
                if readOnly {
                    connection = probe
                    self.identity = StoreIdentity(identifier ?? "")
                    return
                }
                probe.close()
            } catch {
                probe.close()
                throw error
            }
        }
        connection = try SQLiteStore.openConnection(url, mode: kind == .missing ? .readWriteCreate : .readWrite)
        do {
            if kind != .nonEmpty {
                // Page size and auto-vacuum are fixed when the first table is created (and page
                // size before WAL); on a file another process filled meanwhile they do nothing.
                try withStoreErrors(url) { for pragma in StoreLayout.filePragmas { try connection.execute(pragma) } }
            }
            try configureOnDisk()
            try withStoreErrors(url) {
                try connection.immediateTransaction { try createOrValidate(connection) }
            }
            readIndexedColumns()
        } catch {
            // Nothing of ours was committed; do not let closing checkpoint someone's WAL.
            connection.disableCheckpointOnClose()
            connection.close()
            throw error
        }
    }

    /// Reads the indexed columns of every table with a uniqueness group (``IndexedColumns``)
    /// while the store opens, so that a save's first upsert does not. Failing here costs
    /// nothing but that: the save reads them itself.
    private func readIndexedColumns() {
        let writer = StoreWriter(db: connection, mapping: mapping)
        for table in mapping.tables where table.uniqueGroups.values.contains(where: { !$0.isEmpty }) {
            _ = try? writer.indexedColumns(table)
        }
    }

    /// What is at a store's path before it is opened.
    enum PathKind { case missing, empty, nonEmpty }

    /// Classifies the store path with `stat` only (no descriptor is opened on the file), and
    /// rejects paths that can never hold a store: a directory, or a path below a regular file.
    static func checkPath(_ url: URL) throws -> PathKind {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            if isDirectory.boolValue {
                throw SwiftDataError(
                    SwiftDataError.loadIssueModelContainer.code,
                    "the store path is a directory, not a file; point the configuration at a file inside it",
                    url: url)
            }
            let attributes: [FileAttributeKey: Any]
            do {
                attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            } catch {
                // A size that cannot be read must not classify the file as empty (it would be created over).
                throw SwiftDataError(
                    SwiftDataError.loadIssueModelContainer.code,
                    "the store file's size cannot be read; check its permissions", url: url, underlying: error)
            }
            let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
            return size == 0 ? .empty : .nonEmpty
        }
        var parent = url.deletingLastPathComponent()
        while parent.path != "/" && !parent.path.isEmpty {
            if FileManager.default.fileExists(atPath: parent.path, isDirectory: &isDirectory) {
                if !isDirectory.boolValue {
                    throw SwiftDataError(
                        SwiftDataError.loadIssueModelContainer.code,
                        "the store cannot be created: \(parent.path) is a file, not a directory",
                        url: url)
                }
                break
            }
            parent = parent.deletingLastPathComponent()
        }
        return .missing
    }

    /// Opens a connection, turning SQLite's refusal into a typed error.
    static func openConnection(_ url: URL, mode: SQLiteConnection.OpenMode) throws -> SQLiteConnection {
        do {
            return try SQLiteConnection(path: url.path, mode: mode)
        } catch let e as SQLiteError {
            throw openError(e, url: url, modified: false)
        }
    }

    /// Runs `body`, turning an escaping ``SQLiteError`` into a typed ``SwiftDataError``.
    private func withStoreErrors<T>(_ url: URL?, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let e as SQLiteError {
            throw SQLiteStore.openError(e, url: url, modified: false)
        }
    }

    /// Reads the store's tables and metadata through `db` and checks them against `mapping`.
    /// Returns the stored identifier, or `nil` when the database has no tables yet.
    ///
    /// - Throws: `.notADatabase`, `.corruptStore` (only when SQLite itself says so),
    ///   `.incompatibleSchema`, `.loadIssueModelContainer`; every message says the file was
    ///   not modified, which holds because callers validate before writing anything.
    static func validate(
        _ db: SQLiteConnection, mapping: StoreMapping, url: URL?, checkIntegrity: Bool,
        emptyIsError: Bool
    ) throws -> String? {
        let names: Set<String>
        do {
            names = try tableNames(db)
        } catch let e as SQLiteError {
            throw openError(e, url: url, modified: false)
        }
        if names.isEmpty {
            if emptyIsError {
                throw SwiftDataError(
                    SwiftDataError.loadIssueModelContainer.code,
                    "the store is empty and cannot be created read-only (allowsSave: false); it was not modified",
                    url: url)
            }
            return nil
        }
        guard names.contains("Z_METADATA") else {
            throw SwiftDataError(
                SwiftDataError.incompatibleSchema.code,
                "the database is not a SwiftData or Core Data store (no Z_METADATA table); it was not modified",
                url: url)
        }
        do {
            if checkIntegrity, let url,
                // try?: an unreadable size only skips the optional quick_check; SQLite opening the file reports real errors.
                let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue,
                size <= 64 << 20
            {
                let check = try db.rows("PRAGMA quick_check(5)").compactMap { row -> String? in
                    if case .text(let t)? = row.first { t } else { nil }
                }
                if check != ["ok"] {
                    throw SwiftDataError(
                        SwiftDataError.corruptStore.code,
                        "SQLite's integrity check failed (\(check.joined(separator: "; "))); the file was not modified. Restore it from a backup",
                        url: url)
                }
            }
            let stored = try storedMetadata(db, url: url)
            try mapping.checkCompatible(stored, db: db, url: url)
            return stored.uuid
        } catch let e as SQLiteError {
            throw openError(e, url: url, modified: false)
        }
    }

    /// Reads `Z_METADATA` of a database that has the table.
    ///
    /// - Throws: `.incompatibleSchema` when the table is not Core Data's, `.corruptStore` when
    ///   its row or property list is missing or unreadable; ``SQLiteError`` from SQLite.
    static func storedMetadata(_ db: SQLiteConnection, url: URL?) throws -> StoreMetadata {
        let metadataColumns = Set(
            try db.rows("SELECT name FROM pragma_table_info('Z_METADATA')").compactMap { row -> String? in
                if case .text(let name)? = row.first { return name }
                return nil
            })
        guard metadataColumns.isSuperset(of: ["Z_VERSION", "Z_UUID", "Z_PLIST"]) else {
            let earlier =
                metadataColumns.contains("key")
                ? " It was written by OpenSwiftData 0.x, whose own layout predates Apple's format: regenerate it (fixtures: harness fixtures generate)."
                : ""
            throw SwiftDataError(
                SwiftDataError.incompatibleSchema.code,
                "the store's Z_METADATA table is not Core Data's (Z_VERSION, Z_UUID, Z_PLIST); it was not modified.\(earlier)",
                url: url)
        }
        let rows = try db.rows("SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1")
        guard let row = rows.first, case .blob(let plist) = row[1] else {
            throw SwiftDataError(
                SwiftDataError.corruptStore.code,
                "the store has no Z_METADATA row with a property list; it was not modified",
                url: url)
        }
        let uuid: String = if case .text(let t) = row[0] { t } else { "" }
        do {
            return try StoreMetadata(propertyList: plist, uuid: uuid)
        } catch var e as SwiftDataError {
            e.url = url
            throw e
        }
    }

    /// The names of the database's tables.
    static func tableNames(_ db: SQLiteConnection) throws -> Set<String> {
        let rows = try db.rows("SELECT name FROM sqlite_master WHERE type = 'table'")
        return Set(rows.compactMap { if case .text(let s) = $0.first { s } else { nil } })
    }

    /// Under the write lock: creates the schema when the database has no tables (another
    /// process may have created it since the file was checked), else validates it.
    private func createOrValidate(_ db: SQLiteConnection) throws {
        if let existing = try SQLiteStore.validate(
            db, mapping: mapping, url: url, checkIntegrity: false,
            emptyIsError: false)
        {
            identity = StoreIdentity(existing)
            return
        }
        let uuid = UUID()
        identity = StoreIdentity(uuid.uuidString)
        try mapping.layout.createContents(
            on: db, metadata: StoreMetadata(model: mapping.model, uuid: uuid), skipping: [])
    }

    /// Whether saves record history, and how many tombstone columns `ACHANGE` has; read from
    /// the file on first use (call with the connection held).
    var historyState: (records: Bool, tombstones: Int)?
    /// Whether the store has the history tables and `ACHANGE`'s tombstone column count, as
    /// history reads found them (read once: the layout of an open store does not change).
    var historyLayout: (tables: Bool, tombstones: Int)?

    /// Saves committed through this store's connection (every context of the container).
    private var localCommits: UInt64 = 0

    /// Counts a committed save (called with the connection held).
    func noteCommit() { localCommits &+= 1 }

    /// A value that changes whenever the store's content may have changed: a save through this
    /// connection, or a commit by another connection or process (the pager's data version,
    /// ``SQLiteConnection/dataVersion()``: no statement runs, so a fetch that meets registered
    /// models pays nothing for the check). Rows loaded under an unchanged generation need no
    /// refresh. Call with the connection held, inside the read that loads the rows.
    ///
    /// - Throws: ``SQLiteError`` when SQLite cannot answer (a guessed generation could keep
    ///   stale values).
    func generation(_ db: SQLiteConnection) throws -> StoreGeneration {
        StoreGeneration(local: localCommits, external: Int64(try db.dataVersion()))
    }

    /// Runs a save: `body` writes through a ``StoreWriter`` inside one `BEGIN IMMEDIATE`
    /// transaction, committed when it returns and rolled back when it throws (SQLite errors
    /// become ``SwiftDataError/storeError``).
    func write<T>(_ body: (StoreWriter) throws -> T) throws -> T {
        try withConnection { db in
            let result = try db.immediateTransactionMapped { try body(StoreWriter(db: db, mapping: mapping)) }
            noteCommit()
            return result
        }
    }

    /// Reads row `pk` of `table` and calls `body` with the row (columns as in
    /// ``StoreMapping/Table/selectList``) and the store's generation; returns whether the row exists.
    ///
    /// ```sql
    /// SELECT t."Z_PK", t."Z_ENT", …, t."Z_OPT" FROM "Trip" t WHERE t."Z_PK" = ?
    /// ```
    @discardableResult
    func readRow(
        _ table: StoreMapping.Table, pk: Int64,
        _ body: (SQLiteStatement, StoreGeneration) throws -> Void
    ) throws -> Bool {
        do {
            return try withConnection { db in
                let stmt = try db.cachedStatement(table.selectByKeySQL)
                defer { stmt.reset() }
                try stmt.bind(.integer(pk), at: 1)
                guard try stmt.step() else { return false }
                try body(stmt, try generation(db))
                return true
            }
        } catch let e as SQLiteError {
            throw SwiftDataError(
                SwiftDataError.storeError.code, "the store could not be read",
                sql: table.selectByKeySQL, underlying: e)
        }
    }

    /// The keys of `table`'s rows whose relationship, stored as `storage`, points at row `pk` of
    /// its target (to find who holds a model through a one-way relationship).
    ///
    /// ```sql
    /// SELECT "Z_PK" FROM "Memo" WHERE "label" = ?                      -- a key column
    /// SELECT "Z_1MEMO" FROM "Z_Memo_markers" WHERE "Z_2MARKER" = ?     -- a join table
    /// SELECT "memo" FROM "Marker" WHERE "Z_PK" = ?                     -- the target holds the key
    /// ```
    func keys(
        holding storage: StoreMapping.RelationshipStorage, of table: StoreMapping.Table,
        pointingAt pk: Int64
    ) throws -> [Int64] {
        let sql: String
        switch storage {
        case .foreignKey(let column):
            sql = "SELECT \"Z_PK\" FROM \(quoteIdentifier(table.name)) WHERE \(quoteIdentifier(column)) = ?"
        case .joinTable(let name, let own, let other):
            sql = "SELECT \(quoteIdentifier(own)) FROM \(quoteIdentifier(name)) WHERE \(quoteIdentifier(other)) = ?"
        case .inverseForeignKey(let targetTable, let column):
            sql = "SELECT \(quoteIdentifier(column)) FROM \(quoteIdentifier(targetTable.name)) WHERE \"Z_PK\" = ?"
        }
        do {
            return try withConnection { db in
                try db.rows(sql, [.integer(pk)]).compactMap { row in
                    if case .integer(let n)? = row.first { return n }
                    return nil
                }
            }
        } catch {
            throw SwiftDataError(
                SwiftDataError.storeError.code, "the store could not be read", sql: sql, underlying: error)
        }
    }

    /// Runs `body` with exclusive use of the connection.
    ///
    /// - Throws: ``SwiftDataError/storeError`` once ``erase()`` has closed the connection, and
    ///   whatever `body` throws.
    func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        if FaultInjection.isActive(.unserializedConnection) { return try body(connection) }
        lock.lock()
        defer { lock.unlock() }
        if isErased {
            throw SwiftDataError(
                SwiftDataError.storeError.code,
                "the container's store was erased (ModelContainer.erase()); create a new container to use the file again",
                url: url)
        }
        return try body(connection)
    }

    /// Runs `body` with exclusive use of the connection, even after ``erase()`` closed it (for
    /// calls that only read the connection's own counters).
    func withOpenOrClosedConnection<T>(_ body: (SQLiteConnection) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(connection)
    }

    /// Set once ``erase()`` closed an on-disk store's connection and deleted its files.
    private var isErased = false

    /// Erases the store: an in-memory store is emptied and stays usable; an on-disk store's
    /// connection is closed (no checkpoint) and then its files are deleted.
    ///
    /// ```
    /// <store>, <store>-wal, <store>-shm   -- removed, in that order
    /// ```
    /// Afterwards every read or save through this store throws ``SwiftDataError/storeError``.
    /// Erasing twice is a no-op.
    func erase() throws {
        guard let url else {
            try deleteAllData()
            return
        }
        lock.lock()
        defer { lock.unlock() }
        if isErased { return }
        // The files are about to go: no point checkpointing the WAL into the main file.
        connection.disableCheckpointOnClose()
        connection.close()
        isErased = true
        let fm = FileManager.default
        for path in [url.path, url.path + "-wal", url.path + "-shm"] where fm.fileExists(atPath: path) {
            do {
                try fm.removeItem(atPath: path)
            } catch {
                throw SwiftDataError(
                    SwiftDataError.storeError.code,
                    "the store was closed but \(path) could not be deleted",
                    url: url, underlying: error)
            }
        }
    }

    // MARK: Opening

    /// A typed error for an SQLite failure while opening; `modified` says whether the file may
    /// have been written (only then may the message not promise it was left alone).
    static func openError(_ e: SQLiteError, url: URL?, modified: Bool) -> SwiftDataError {
        let untouched = modified ? "" : "; it was not modified"
        switch e.code {
        case .notADatabase:
            return SwiftDataError(
                SwiftDataError.notADatabase.code,
                "the file is not an SQLite database\(untouched). Point the configuration at a new file or at a store this library wrote",
                url: url, underlying: e)
        case .corrupt:
            return SwiftDataError(
                SwiftDataError.corruptStore.code,
                "SQLite reports the store file as corrupt\(untouched). Restore it from a backup",
                url: url, underlying: e)
        case .full:
            return SwiftDataError(
                SwiftDataError.storeError.code,
                "the disk is full\(untouched). Free some space and try again", url: url, underlying: e)
        case .cantOpen:
            return SwiftDataError(
                SwiftDataError.loadIssueModelContainer.code,
                "the store file cannot be opened (a missing directory, no permission, or not a regular file)\(untouched)",
                url: url, underlying: e)
        case .busy, .locked:
            return SwiftDataError(
                SwiftDataError.storeError.code,
                "another connection held the store locked past the busy timeout\(untouched). Try again",
                url: url, underlying: e)
        default:
            return SwiftDataError(
                SwiftDataError.loadIssueModelContainer.code, "the store cannot be read\(untouched)",
                url: url, underlying: e)
        }
    }

    /// WAL and `synchronous = NORMAL`. Switching a new file to WAL needs a moment of exclusive
    /// access; when another process holds the file (it is creating the same store) that
    /// attempt can report busy without waiting, so it is retried within the busy timeout.
    private func configureOnDisk() throws {
        let deadline = Date().addingTimeInterval(5)
        while true {
            do {
                let mode = try connection.scalar("PRAGMA journal_mode = WAL")
                if mode == .text("wal") { break }
                throw SwiftDataError(
                    SwiftDataError.loadIssueModelContainer.code,
                    "SQLite would not switch the store to WAL mode (journal mode \(mode.map { "\($0)" } ?? "none"))",
                    url: url)
            } catch let e as SQLiteError where (e.code == .busy || e.code == .locked) && Date() < deadline {
                usleep(2_000)
            } catch let e as SQLiteError {
                throw SQLiteStore.openError(e, url: url, modified: false)
            }
        }
        try withStoreErrors(url) { try connection.execute("PRAGMA synchronous = NORMAL") }
    }

    /// Deletes every row of every table, keeping the schema.
    func deleteAllData() throws {
        try withConnection { db in
            try db.immediateTransaction {
                // Every entity, join and history table; Z_PRIMARYKEY keeps Z_MAX, so keys of
                // deleted rows are still never reused.
                for statement in mapping.ddl where statement.hasPrefix("CREATE TABLE ") {
                    let name = statement.dropFirst("CREATE TABLE ".count).prefix { $0 != " " }
                    guard name != "Z_PRIMARYKEY", name != "Z_METADATA", name != "Z_MODELCACHE" else { continue }
                    try db.execute("DELETE FROM \(quoteIdentifier(String(name)))")
                }
            }
        }
    }
}

extension SQLiteConnection {
    /// ``SQLiteConnection/immediateTransaction(_:)``, with SQLite errors turned into
    /// ``SwiftDataError/storeError`` (a constraint's into the error
    /// ``SQLiteError/saveError(entityName:sql:)`` gives).
    func immediateTransactionMapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try immediateTransaction(body)
        } catch let e as SwiftDataError {
            throw e
        } catch let e as SQLiteError where e.code == .constraint {
            throw e.saveError(entityName: nil, sql: e.sql)
        } catch let e as SQLiteError {
            throw SwiftDataError(
                SwiftDataError.storeError.code, "the save failed and was rolled back; nothing was written",
                sql: e.sql, underlying: e)
        }
    }
}

/// A store's identifier, held by reference: every model's storage names its store, and a
/// reference takes eight bytes there where a `String` takes sixteen (which put the storage in
/// the allocator's next size class up).
final class StoreIdentity: Sendable {
    /// The store's identifier (its `Z_METADATA` UUID).
    let identifier: String

    init(_ identifier: String) { self.identifier = identifier }
}

import Foundation

/// The store-file side of a migration (``SchemaMigrator`` decides what runs): the store's write
/// lock, held from before the working copy is made until the migrated content commits, and the
/// copies in and out.
///
/// ```sql
/// BEGIN IMMEDIATE;                      -- on the store: no other writer until COMMIT
/// -- the working copy gets every table, row, index and trigger (a new file, Apple's pragmas)
/// -- … the stages run on the copy …
/// DROP TABLE …; CREATE TABLE …; INSERT INTO … VALUES (?, …);   -- the copy's content, back
/// COMMIT
/// ```
/// Nothing is committed to the store before ``commit(from:)``; ``release()`` rolls back.
///
/// The working copy is a hidden file beside the store, `.<store name>.migrating-<UUID>` (with
/// its `-wal`, `-shm`, `-journal`). It exists only while its migration holds this lock (it is
/// made after the lock is taken, and no longer read once the content is committed), so whoever
/// holds the lock knows every such file it finds is stale: the copy of a migration that was
/// killed, or one that finished but had not yet removed it. ``removeStaleScratch()`` removes
/// them (MIG-26: a killed migration leaves no scratch files behind once the store is opened again).
final class MigrationLock {
    let url: URL
    private let connection: SQLiteConnection
    private var released = false

    /// Opens the store and takes its write lock.
    ///
    /// - Throws: ``SwiftDataError/storeError`` when another connection keeps it locked past the
    ///   busy timeout (the migration does not start); the open errors of ``SQLiteStore``.
    init(url: URL) throws {
        self.url = url
        connection = try SQLiteStore.openConnection(url, mode: .readWrite)
        do {
            try connection.execute("BEGIN IMMEDIATE")
        } catch let e as SQLiteError {
            release()  // deinit runs for an init that throws after every property is set
            throw SwiftDataError(
                SwiftDataError.storeError.code,
                "the store needs migrating but another connection kept it locked past the busy timeout; the migration did not start and the store was not modified. Try again",
                url: url, underlying: e)
        }
    }

    deinit { release() }

    /// The store's metadata, read under the lock.
    func storedMetadata() throws -> StoreMetadata {
        try SQLiteStore.storedMetadata(connection, url: url)
    }

    /// Writes the store's content to a new file at `work` (Apple's file pragmas, one transaction).
    func copyContents(to work: URL) throws {
        let copy = try SQLiteConnection(path: work.path, mode: .readWriteCreate)
        defer { copy.close() }
        for pragma in StoreLayout.filePragmas { try copy.execute(pragma) }
        try copy.immediateTransaction { try MigrationLock.copyDatabase(from: connection, to: copy) }
    }

    /// Runs `migration` on the working copy at `work`, in one transaction.
    static func run(_ migration: StoreMigration, at work: URL) throws {
        let db = try SQLiteConnection(path: work.path, mode: .readWrite)
        defer { db.close() }
        try db.immediateTransaction { try migration.run(on: db) }
    }

    /// Replaces the store's content with the working copy's and commits, releasing the lock.
    func commit(from work: URL) throws {
        let source = try SQLiteConnection(path: work.path, mode: .readOnly)
        defer { source.close() }
        for row in try connection.rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        {
            if case .text(let name)? = row.first { try connection.execute("DROP TABLE \(quoteIdentifier(name))") }
        }
        try MigrationLock.copyDatabase(from: source, to: connection)
        try connection.execute("COMMIT")
    }

    /// The name prefix of the working copies (and their `-wal`, `-shm`, `-journal`) that
    /// migrations of the store at `url` make beside it.
    static func scratchPrefix(of url: URL) -> String { ".\(url.lastPathComponent).migrating-" }

    /// A new working-copy location for a migration of the store at `url`.
    static func newScratch(for url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(scratchPrefix(of: url) + UUID().uuidString)
    }

    /// The working copies (and their companion files) beside the store at `url`, whoever made
    /// them; empty when the directory cannot be listed.
    static func scratchFiles(of url: URL) -> [URL] {
        let directory = url.deletingLastPathComponent()
        let prefix = scratchPrefix(of: url)
        // try?: an unlistable directory has no scratch this process could remove either.
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix(prefix) }.map { directory.appendingPathComponent($0) }
    }

    /// Removes every working copy beside the store: while this lock is held no other migration
    /// of the store is using one, so each is stale. Returns how many files were removed.
    @discardableResult
    func removeStaleScratch() -> Int {
        guard !released, !FaultInjection.isActive(.migrationLeavesScratch) else { return 0 }
        var removed = 0
        for file in MigrationLock.scratchFiles(of: url) {
            // try?: a file already gone (its migration removed it after committing) or one this
            // process may not remove stays; the store itself is not affected.
            if (try? FileManager.default.removeItem(at: file)) != nil { removed += 1 }
        }
        return removed
    }

    /// Rolls back whatever is uncommitted and closes the connection; safe to call twice.
    func release() {
        guard !released else { return }
        released = true
        // try?: the rollback of a transaction whose error (if any) was already thrown, or of one
        // with nothing written; its own failure changes nothing on disk.
        if connection.isInTransaction { try? connection.execute("ROLLBACK") }
        connection.close()
    }

    /// Copies every table (with its rows), index and trigger of `source` into `destination`,
    /// which has none of them, inside the caller's transaction. Values keep their storage
    /// classes (bound as read).
    static func copyDatabase(from source: SQLiteConnection, to destination: SQLiteConnection) throws {
        let objects = try source.rows(
            """
            SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'
            ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 ELSE 2 END, rowid
            """)
        for object in objects {
            guard case .text(let type)? = object.first, case .text(let name) = object[1],
                case .text(let sql) = object[2]
            else { continue }
            try destination.execute(sql)
            guard type == "table" else { continue }
            let select = try source.prepare("SELECT * FROM \(quoteIdentifier(name))")
            let columns = select.columnCount
            guard columns > 0 else { continue }
            let insert = try destination.prepare(
                "INSERT INTO \(quoteIdentifier(name)) VALUES ("
                    + Array(repeating: "?", count: Int(columns)).joined(separator: ", ") + ")")
            while try select.step() {
                for i in 0..<columns { try insert.bind(select.value(at: i), at: i + 1) }
                try insert.execute()
            }
        }
    }
}

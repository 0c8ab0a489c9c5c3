import Foundation

extension ModelContainer {
    /// Replaces the store's content with a copy of a store file's, through SQLite's backup API.
    ///
    /// The file must have been written by this library with the same schema (its `Z_METADATA`
    /// `schema` text must equal this container's); it is opened read-only and never modified.
    /// Works for in-memory and on-disk containers. Call it before creating contexts: models
    /// already registered in a context are not refreshed. The store keeps its own identifier.
    /// ```swift
    /// let container = try ModelContainer(for: Word.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    /// try container.restore(from: URL(fileURLWithPath: "Fixtures/dictionary.sqlite"))
    /// // sqlite3_backup_init(dest, "main", source, "main"); sqlite3_backup_step(-1); sqlite3_backup_finish
    /// ```
    /// - Throws: `SwiftDataError.incompatibleSchema` for another schema or a database this
    ///   library did not write; `.notADatabase` / `.corruptStore` for a bad file;
    ///   `.storeError` when the copy fails (the store is then unchanged or rolled back by SQLite).
    public func restore(from url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw SwiftDataError(SwiftDataError.loadIssueModelContainer.code, "no store file to restore from", url: url)
        }
        let source = try SQLiteStore.openConnection(url, mode: .readOnly)
        defer { source.close() }
        let stored: SQLValue?
        do {
            _ = try source.scalar("SELECT count(*) FROM sqlite_master")
        } catch let e as SQLiteError {
            throw SQLiteStore.openError(e, url: url, modified: false)
        }
        do {
            stored = try source.scalar("SELECT value FROM \"Z_METADATA\" WHERE key = 'schema'")
        } catch {
            throw SwiftDataError(SwiftDataError.incompatibleSchema.code,
                                 "the file was not written by OpenSwiftData (no Z_METADATA schema); nothing was restored",
                                 url: url, underlying: error)
        }
        guard case .text(let schemaText)? = stored, schemaText == mapping.ddl.joined(separator: ";\n") else {
            throw SwiftDataError(SwiftDataError.incompatibleSchema.code,
                                 "the file was written with a different schema than this container's; nothing was restored",
                                 url: url)
        }
        try store.withConnection { db in
            do {
                try db.copyContents(of: source)
            } catch {
                throw SwiftDataError(SwiftDataError.storeError.code, "SQLite's backup failed; nothing was restored",
                                     url: url, underlying: error)
            }
            try db.run("UPDATE \"Z_METADATA\" SET value = ? WHERE key = 'storeIdentifier'", [.text(store.identifier)])
            store.noteCommit()   // registered rows of existing contexts refresh on their next fetch
        }
    }

    /// Writes a copy of the store's saved content to a new SQLite file at `url`, for either store
    /// kind, with SQLite's backup API; ``restore(from:)`` and `ModelContainer(url:)` open it.
    ///
    /// An in-memory store cannot be copied with `VACUUM INTO` (its connection would write the
    /// copy in memory too); this works for both. Pending changes of contexts are not included.
    /// ```swift
    /// try memoryContainer.backup(to: URL(fileURLWithPath: "/tmp/snapshot.sqlite"))
    /// // sqlite3_backup_init(file, "main", store, "main"); sqlite3_backup_step(-1); sqlite3_backup_finish
    /// ```
    /// - Throws: `SwiftDataError.storeError` when `url` already exists or cannot be created, or
    ///   when the copy fails (a partial file is removed).
    public func backup(to url: URL) throws {
        guard !FileManager.default.fileExists(atPath: url.path) else {
            throw SwiftDataError(SwiftDataError.storeError.code, "the backup file already exists; choose a new path", url: url)
        }
        let target: SQLiteConnection
        do {
            target = try SQLiteConnection(path: url.path, mode: .readWriteCreate)
        } catch {
            throw SwiftDataError(SwiftDataError.storeError.code, "the backup file cannot be created", url: url, underlying: error)
        }
        defer { target.close() }
        do {
            try store.withConnection { db in
                do {
                    try target.copyContents(of: db)
                } catch {
                    throw SwiftDataError(SwiftDataError.storeError.code, "SQLite's backup failed", url: url, underlying: error)
                }
            }
            _ = try target.scalar("PRAGMA journal_mode = DELETE")
        } catch {
            target.close()
            for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
            throw error
        }
    }
}

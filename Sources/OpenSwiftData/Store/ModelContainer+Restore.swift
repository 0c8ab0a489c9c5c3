import Foundation

extension ModelContainer {
    /// Replaces the store's content with a copy of a store file's, through SQLite's backup API.
    ///
    /// The file must be a SwiftData store (Apple's format, written by this library or by
    /// SwiftData on an Apple platform) whose entity version hashes equal this container's
    /// schema's; it is opened read-only and never modified.
    /// Works for in-memory and on-disk containers. Call it before creating contexts: models
    /// already registered in a context are not refreshed. The store keeps its own identifier.
    /// ```swift
    /// let container = try ModelContainer(for: Word.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    /// try container.restore(from: URL(fileURLWithPath: "Fixtures/dictionary.sqlite"))
    /// // sqlite3_backup_init(dest, "main", source, "main"); sqlite3_backup_step(-1); sqlite3_backup_finish
    /// ```
    /// - Throws: `SwiftDataError.incompatibleSchema` for another schema (naming the entities
    ///   whose hashes differ) or a database that is not a SwiftData store; `.notADatabase` / `.corruptStore` for a bad file;
    ///   `.storeError` when the copy fails (the store is then unchanged or rolled back by SQLite).
    public func restore(from url: URL) throws {
        try requireOneStore("restore(from:)")
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw SwiftDataError(SwiftDataError.loadIssueModelContainer.code, "no store file to restore from", url: url)
        }
        let source = try SQLiteStore.openConnection(url, mode: .readOnly)
        defer { source.close() }
        // The same checks as opening the file: a Core Data store whose entity hashes equal
        // this container's schema's.
        _ = try SQLiteStore.validate(source, mapping: mapping, url: url, checkIntegrity: false, emptyIsError: true)
        try store.withConnection { db in
            do {
                try db.copyContents(of: source)
            } catch {
                throw SwiftDataError(
                    SwiftDataError.storeError.code, "SQLite's backup failed; nothing was restored",
                    url: url, underlying: error)
            }
            try db.run("UPDATE Z_METADATA SET Z_UUID = ? WHERE Z_VERSION = 1", [.text(store.identifier)])
            store.noteCommit()  // registered rows of existing contexts refresh on their next fetch
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
        try requireOneStore("backup(to:)")
        guard !FileManager.default.fileExists(atPath: url.path) else {
            throw SwiftDataError(
                SwiftDataError.storeError.code, "the backup file already exists; choose a new path", url: url)
        }
        let target: SQLiteConnection
        do {
            target = try SQLiteConnection(path: url.path, mode: .readWriteCreate)
        } catch {
            throw SwiftDataError(
                SwiftDataError.storeError.code, "the backup file cannot be created", url: url, underlying: error)
        }
        defer { target.close() }
        do {
            try store.withConnection { db in
                do {
                    try target.copyContents(of: db)
                } catch {
                    throw SwiftDataError(
                        SwiftDataError.storeError.code, "SQLite's backup failed", url: url, underlying: error)
                }
            }
            _ = try target.scalar("PRAGMA journal_mode = DELETE")
        } catch {
            target.close()
            // try?: removes a half-written copy; the backup's own error is what is rethrown.
            for suffix in ["", "-journal", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: url.path + suffix)
            }
            throw error
        }
    }
}

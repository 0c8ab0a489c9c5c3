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
    private(set) var identifier: String = ""
    private let lock = NSRecursiveLock()

    static let formatVersion = "1"

    /// Opens (or creates) the store. A file that is not a database, is truncated or corrupt, or
    /// holds a different schema throws a typed error and is left exactly as it was.
    init(url: URL?, mapping: StoreMapping, readOnly: Bool) throws {
        self.url = url
        self.mapping = mapping
        if let url {
            try SQLiteStore.checkFileHeader(url)
            let exists = FileManager.default.fileExists(atPath: url.path)
            if !exists {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(),
                                                        withIntermediateDirectories: true)
            }
            do {
                connection = try SQLiteConnection(path: url.path,
                                                  mode: readOnly ? .readOnly : (exists ? .readWrite : .readWriteCreate))
            } catch {
                throw SwiftDataError(SwiftDataError.loadIssueModelContainer.code,
                                     "the store file cannot be opened", url: url, underlying: error)
            }
        } else {
            connection = try SQLiteConnection(path: ":memory:", mode: .inMemory)
        }
        try open(readOnly: readOnly)
    }

    /// Saves committed through this store's connection (every context of the container).
    private var localCommits: UInt64 = 0

    /// Counts a committed save (called with the connection held).
    func noteCommit() { localCommits &+= 1 }

    /// A value that changes whenever the store's content may have changed: a save through this
    /// connection, or a commit by another connection or process (`PRAGMA data_version`). Rows
    /// loaded under an unchanged generation need no refresh. Call with the connection held.
    func generation(_ db: SQLiteConnection) -> StoreGeneration {
        var external: Int64 = 0
        if case .integer(let v)? = try? db.scalar("PRAGMA data_version") { external = v }
        return StoreGeneration(local: localCommits, external: external)
    }

    /// Runs `body` with exclusive use of the connection.
    func withConnection<T>(_ body: (SQLiteConnection) throws -> T) rethrows -> T {
        lock.lock(); defer { lock.unlock() }
        return try body(connection)
    }

    // MARK: Opening

    /// Rejects files that are not SQLite databases or are shorter than their header says,
    /// without opening them through SQLite (which could write to them).
    static func checkFileHeader(_ url: URL) throws {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 100)) ?? Data()
        if header.isEmpty { return }
        let magic = Data("SQLite format 3\u{0}".utf8)
        guard header.count >= 100, header.prefix(16) == magic else {
            throw SwiftDataError(SwiftDataError.notADatabase.code,
                                 "the file is not an SQLite database; it was not modified. Point the configuration at a new file or at a store this library wrote",
                                 url: url)
        }
        func be(_ offset: Int, _ count: Int) -> UInt64 {
            header[offset..<(offset + count)].reduce(0) { $0 << 8 | UInt64($1) }
        }
        var pageSize = be(16, 2)
        if pageSize == 1 { pageSize = 65536 }
        let pageCount = be(28, 4)
        let changeCounter = be(24, 4), validFor = be(92, 4)
        let fileSize = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)??.uint64Value ?? 0
        if pageSize < 512 || pageSize & (pageSize - 1) != 0 || fileSize % pageSize != 0
            || (changeCounter == validFor && pageCount > 0 && pageCount * pageSize > fileSize) {
            throw SwiftDataError(SwiftDataError.corruptStore.code,
                                 "the store file is truncated or corrupt (\(fileSize) bytes; its header promises \(pageCount) pages of \(pageSize)); it was not modified. Restore it from a backup or delete it",
                                 url: url)
        }
    }

    private func open(readOnly: Bool) throws {
        let tables: [[SQLValue]]
        do {
            tables = try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table'")
        } catch let e as SQLiteError {
            throw openError(e)
        }
        let names = Set(tables.compactMap { if case .text(let s) = $0.first { s } else { nil } })
        if names.isEmpty {
            if readOnly {
                throw SwiftDataError(SwiftDataError.loadIssueModelContainer.code,
                                     "the read-only store is empty", url: url)
            }
            try create()
            return
        }
        guard names.contains("Z_METADATA") else {
            throw SwiftDataError(SwiftDataError.incompatibleSchema.code,
                                 "the database was not written by OpenSwiftData (no Z_METADATA table); it was not modified",
                                 url: url)
        }
        let meta = Dictionary(try connection.rows("SELECT key, value FROM Z_METADATA").compactMap { row -> (String, String)? in
            guard case .text(let k) = row[0], case .text(let v) = row[1] else { return nil }
            return (k, v)
        }, uniquingKeysWith: { a, _ in a })
        if let size = try? FileManager.default.attributesOfItem(atPath: url?.path ?? "")[.size] as? NSNumber,
           size.intValue <= 64 << 20 {
            let check = try connection.scalar("PRAGMA quick_check(1)")
            if check != .text("ok") {
                throw SwiftDataError(SwiftDataError.corruptStore.code,
                                     "SQLite's integrity check failed (\(check.map { "\($0)" } ?? "no answer")); the file was not modified",
                                     url: url)
            }
        }
        let stored = meta["schema"] ?? ""
        let expected = mapping.ddl.joined(separator: ";\n")
        if stored != expected {
            let have = Set(stored.components(separatedBy: ";\n")), want = Set(mapping.ddl)
            let missing = want.subtracting(have).sorted().prefix(5).joined(separator: "\n  ")
            let extra = have.subtracting(want).sorted().prefix(5).joined(separator: "\n  ")
            throw SwiftDataError(SwiftDataError.incompatibleSchema.code,
                                 "the store was written with a different schema and no migration plan covers it; the file was not modified.\n the models need:\n  \(missing)\n the store has:\n  \(extra)",
                                 url: url)
        }
        identifier = meta["storeIdentifier"] ?? ""
        if !readOnly, url != nil { try configureOnDisk() }
    }

    private func openError(_ e: SQLiteError) -> SwiftDataError {
        if e.code == .notADatabase {
            return SwiftDataError(SwiftDataError.notADatabase.code,
                                  "the file is not an SQLite database; it was not modified", url: url, underlying: e)
        }
        if e.code == .corrupt {
            return SwiftDataError(SwiftDataError.corruptStore.code,
                                  "the store file is corrupt; it was not modified", url: url, underlying: e)
        }
        return SwiftDataError(SwiftDataError.loadIssueModelContainer.code, "the store cannot be read",
                              url: url, underlying: e)
    }

    private func configureOnDisk() throws {
        _ = try connection.scalar("PRAGMA journal_mode = WAL")
        try connection.execute("PRAGMA synchronous = NORMAL")
    }

    private func create() throws {
        if url != nil { try configureOnDisk() }
        identifier = UUID().uuidString
        try connection.immediateTransaction {
            for statement in mapping.ddl + mapping.declaredIndexDDL where !statement.hasPrefix("--") {
                try connection.execute(statement)
            }
            try connection.execute("CREATE TABLE \"Z_METADATA\" (\"key\" TEXT PRIMARY KEY, \"value\" TEXT NOT NULL)")
            let insert = "INSERT INTO \"Z_METADATA\" (key, value) VALUES (?, ?)"
            try connection.run(insert, [.text("schema"), .text(mapping.ddl.joined(separator: ";\n"))])
            try connection.run(insert, [.text("storeIdentifier"), .text(identifier)])
            try connection.run(insert, [.text("formatVersion"), .text(SQLiteStore.formatVersion)])
        }
    }

    /// Deletes every row of every table, keeping the schema.
    func deleteAllData() throws {
        try withConnection { db in
            try db.immediateTransaction {
                for t in mapping.tables { try db.execute("DELETE FROM \(quoteIdentifier(t.name))") }
                for statement in mapping.ddl where statement.hasPrefix("CREATE TABLE \"Z_") {
                    let name = statement.dropFirst("CREATE TABLE ".count).prefix { $0 != " " }
                    try db.execute("DELETE FROM \(name)")
                }
            }
        }
    }
}

import Foundation

extension StoreMetadata {
    /// Reads the metadata of the store file at `url` — one written by SwiftData or Core Data on
    /// an Apple platform, or by this library — without changing it.
    ///
    /// The file is opened through SQLite only, on a read-only connection (committed content in a
    /// `-wal` file beside it is seen; nothing is checkpointed), and closed before returning:
    /// ```sql
    /// SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1
    /// ```
    /// ```swift
    /// let metadata = try StoreMetadata.read(contentsOf: URL(fileURLWithPath: "default.store"))
    /// print(metadata.versionHashes.keys.sorted(), metadata.frameworkVersion ?? 0)
    /// ```
    /// - Throws: ``SwiftDataError`` — `.notADatabase` for a file SQLite cannot read,
    ///   `.corruptStore` for a damaged file or an unreadable property list,
    ///   `.loadIssueModelContainer` when the file is missing or has no `Z_METADATA` row (it is
    ///   not a Core Data store).
    public static func read(contentsOf url: URL) throws -> StoreMetadata {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw SwiftDataError(
                SwiftDataError.loadIssueModelContainer.code, "there is no store file to read", url: url)
        }
        let db = try SQLiteStore.openConnection(url, mode: .readOnly)
        defer { db.close() }
        do {
            let hasTable = try db.scalar(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'Z_METADATA'")
            let columns = try db.rows("SELECT name FROM pragma_table_info('Z_METADATA')").compactMap { row -> String? in
                if case .text(let name) = row.first { return name }
                return nil
            }
            guard hasTable == .integer(1), Set(columns).isSuperset(of: ["Z_VERSION", "Z_UUID", "Z_PLIST"]) else {
                throw SwiftDataError(
                    SwiftDataError.loadIssueModelContainer.code,
                    "the file has no Core Data Z_METADATA table; it is not a SwiftData or Core Data store",
                    url: url)
            }
            let rows = try db.rows("SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1")
            guard let row = rows.first else {
                throw SwiftDataError(
                    SwiftDataError.loadIssueModelContainer.code,
                    "Z_METADATA has no row with Z_VERSION = 1; the store was never initialised",
                    url: url)
            }
            guard case .blob(let plist) = row[1] else {
                throw SwiftDataError(SwiftDataError.corruptStore.code, "Z_METADATA.Z_PLIST is not a blob", url: url)
            }
            let uuid: String
            switch row[0] {
            case .text(let text): uuid = text
            case .null: uuid = ""
            default: throw SwiftDataError(SwiftDataError.corruptStore.code, "Z_METADATA.Z_UUID is not text", url: url)
            }
            do {
                return try StoreMetadata(propertyList: plist, uuid: uuid)
            } catch var e as SwiftDataError {
                e.url = url
                throw e
            }
        } catch let e as SQLiteError {
            throw SQLiteStore.openError(e, url: url, modified: false)
        }
    }
}

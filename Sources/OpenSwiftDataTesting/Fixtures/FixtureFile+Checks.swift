import Foundation
import OpenSwiftData

/// Opening a fixture file for reading, SQLite's integrity check, and the errors a file that is no
/// fixture gives: one ``SwiftDataError`` whose one-line message names the file and says what to do.
extension FixtureFile {
    /// The path as the caller wrote it (relative stays relative), for messages.
    static func displayPath(_ url: URL) -> String { url.relativePath }

    /// What to run to get a fixture at `url` again, for messages.
    static func regenerateHint(_ url: URL) -> String {
        "restore it, or write it again with 'harness fixtures --schema NAME --out \(displayPath(url))'"
    }

    /// Opens `url` read-only, after checking that it is a non-empty file and that SQLite can read
    /// its schema; the file is never modified.
    ///
    /// - Throws: ``SwiftDataError`` `.loadIssueModelContainer` when there is no file,
    ///   `.notADatabase` for a directory, an empty file or a file that is not SQLite's,
    ///   `.corruptStore` when SQLite finds it malformed.
    static func openReadOnly(_ url: URL) throws -> SQLiteConnection {
        let path = displayPath(url)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw SwiftDataError(SwiftDataError.loadIssueModelContainer.code,
                                 "\(path): no such file; check the path, or write the fixture with 'harness fixtures --schema NAME --out \(path)'",
                                 url: url)
        }
        if isDirectory.boolValue {
            throw SwiftDataError(SwiftDataError.notADatabase.code,
                                 "\(path): a directory, not an SQLite database; pass the fixture file itself", url: url)
        }
        let size: NSNumber?
        do {
            size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber
        } catch {
            throw SwiftDataError(SwiftDataError.loadIssueModelContainer.code,
                                 "\(path): cannot be read (\((error as NSError).localizedDescription))",
                                 url: url, underlying: error)
        }
        if size?.intValue == 0 {
            throw SwiftDataError(SwiftDataError.notADatabase.code,
                                 "\(path): an empty file, not an SQLite database; \(regenerateHint(url))", url: url)
        }
        return try reading(url) {
            let db = try SQLiteConnection(path: url.path, mode: .readOnly)
            // The first read makes SQLite check the header and parse the schema.
            _ = try db.scalar("SELECT count(*) FROM sqlite_master")
            return db
        }
    }

    /// Runs `body`, turning an ``SQLiteError`` into a ``SwiftDataError`` that names `url`.
    static func reading<T>(_ url: URL, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            let path = displayPath(url)
            switch error.code {
            case .notADatabase:
                throw SwiftDataError(SwiftDataError.notADatabase.code,
                                     "\(path): not an SQLite database; pass a fixture file written by 'harness fixtures --out'",
                                     url: url, underlying: error)
            case .corrupt:
                throw SwiftDataError(SwiftDataError.corruptStore.code,
                                     "\(path): the SQLite file is malformed (\(error.message)); \(regenerateHint(url))",
                                     url: url, underlying: error)
            default:
                throw SwiftDataError(SwiftDataError.loadIssueModelContainer.code,
                                     "\(path): SQLite cannot read it (\(error.code): \(error.message))",
                                     url: url, underlying: error)
            }
        }
    }

    /// The problems `PRAGMA integrity_check` reports (at most SQLite's 100), one per line; empty
    /// when SQLite answers `ok`.
    ///
    /// ```sql
    /// PRAGMA integrity_check   -- "ok", or lines like "row 7 missing from index Z_AccountUser_UNIQUE_username"
    /// ```
    static func integrityProblems(of db: SQLiteConnection, url: URL) throws -> [String] {
        let lines = try reading(url) { try db.rows("PRAGMA integrity_check") }
            .flatMap { row -> [String] in
                guard case .text(let text)? = row.first else { return ["integrity_check answered \(row)"] }
                return text.split(separator: "\n").map(String.init)
            }
        return lines == ["ok"] ? [] : lines
    }
}

import Foundation
import OpenSwiftData

/// Opening a fixture file for reading, SQLite's integrity check, and the errors a file that is no
/// fixture gives: one `SwiftDataError` whose one-line message names the file and says what to do.
extension FixtureFile {
    /// The path as the caller wrote it (relative stays relative), for messages.
    static func displayPath(_ url: URL) -> String { url.relativePath }

    /// What to run to get a fixture at `url` again, for messages.
    static func regenerateHint(_ url: URL) -> String {
        "restore it, or write it again with 'harness fixtures --schema NAME --out \(displayPath(url))'"
    }

    /// What a file is read as, for the advice in error messages: a fixture written by the
    /// harness, or any SwiftData/Core Data store (one copied from a device, say).
    enum FilePurpose {
        /// A fixture file with its manifest (`harness fixtures --out`).
        case fixture
        /// Any store file in Apple's format.
        case store

        /// What to do about a missing file.
        func missingHint(_ path: String) -> String {
            switch self {
            case .fixture:
                "check the path, or write the fixture: FixtureFile.write(_:schema:name:scale:to:) for your models, 'harness fixtures --schema NAME --out \(path)' for a sample schema"
            case .store: "check the path (copy the .store file with its -wal and -shm from the app's container)"
            }
        }

        /// What to do about a file that is not a database.
        func notADatabaseHint(_ url: URL) -> String {
            switch self {
            case .fixture: "pass a fixture file written by 'harness fixtures --out'"
            case .store: "pass a SwiftData or Core Data store file (the .store or .sqlite file, not its -wal or -shm)"
            }
        }

        /// What to do about a damaged file.
        func damagedHint(_ url: URL) -> String {
            switch self {
            case .fixture: regenerateHint(url)
            case .store: "copy the store again from the app's container, with its -wal and -shm"
            }
        }
    }

    /// Opens `url` read-only, after checking that it is a non-empty file and that SQLite can read
    /// its schema; the file is never modified.
    ///
    /// - Throws: `SwiftDataError` `.loadIssueModelContainer` when there is no file,
    ///   `.notADatabase` for a directory, an empty file or a file that is not SQLite's,
    ///   `.corruptStore` when SQLite finds it malformed.
    static func openReadOnly(_ url: URL, purpose: FilePurpose = .fixture) throws -> SQLiteConnection {
        let path = displayPath(url)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw SwiftDataError(
                SwiftDataError.loadIssueModelContainer.code,
                "\(path): no such file; \(purpose.missingHint(path))",
                url: url)
        }
        if isDirectory.boolValue {
            throw SwiftDataError(
                SwiftDataError.notADatabase.code,
                "\(path): a directory, not an SQLite database; pass the \(purpose == .fixture ? "fixture" : "store") file itself",
                url: url)
        }
        let size: NSNumber?
        do {
            size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber
        } catch {
            throw SwiftDataError(
                SwiftDataError.loadIssueModelContainer.code,
                "\(path): cannot be read (\((error as NSError).localizedDescription))",
                url: url, underlying: error)
        }
        if size?.intValue == 0 {
            throw SwiftDataError(
                SwiftDataError.notADatabase.code,
                "\(path): an empty file, not an SQLite database; \(purpose.damagedHint(url))", url: url)
        }
        return try reading(url, purpose: purpose) {
            let db = try SQLiteConnection(path: url.path, mode: .readOnly)
            // A read-only connection never checkpoints; this says so for the file's sake too.
            db.disableCheckpointOnClose()
            // The first read makes SQLite check the header and parse the schema.
            _ = try db.scalar("SELECT count(*) FROM sqlite_master")
            return db
        }
    }

    /// Runs `body`, turning an `SQLiteError` into a `SwiftDataError` that names `url`.
    static func reading<T>(_ url: URL, purpose: FilePurpose = .fixture, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            let path = displayPath(url)
            switch error.code {
            case .notADatabase:
                throw SwiftDataError(
                    SwiftDataError.notADatabase.code,
                    "\(path): not an SQLite database; \(purpose.notADatabaseHint(url))",
                    url: url, underlying: error)
            case .corrupt:
                throw SwiftDataError(
                    SwiftDataError.corruptStore.code,
                    "\(path): the SQLite file is malformed (\(error.message)); \(purpose.damagedHint(url))",
                    url: url, underlying: error)
            default:
                throw SwiftDataError(
                    SwiftDataError.loadIssueModelContainer.code,
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
    static func integrityProblems(of db: SQLiteConnection, url: URL, purpose: FilePurpose = .fixture) throws -> [String]
    {
        let lines = try reading(url, purpose: purpose) { try db.rows("PRAGMA integrity_check") }
            .flatMap { row -> [String] in
                guard case .text(let text)? = row.first else { return ["integrity_check answered \(row)"] }
                return text.split(separator: "\n").map(String.init)
            }
        return lines == ["ok"] ? [] : lines
    }
}

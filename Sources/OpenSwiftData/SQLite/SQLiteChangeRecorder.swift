import CSQLite
import Foundation

/// Records every row a connection changes from now on (SQLite's session extension), so that
/// the changes can be undone later, even after their transaction committed.
///
/// ```swift
/// try db.execute("BEGIN IMMEDIATE")
/// let recorder = try SQLiteChangeRecorder(db)
/// try db.run("INSERT INTO t (id, a) VALUES (1, 'x')")
/// let undo = try recorder.undoChangeset()   // a changeset that deletes row 1 again
/// try db.execute("COMMIT")
/// // … later, inside another transaction:
/// try db.applyUndo(undo)
/// ```
/// Only tables with a primary key are recorded, which is every table a save writes: entity
/// tables and history tables (`Z_PK`), join tables (their two key columns) and
/// `Z_PRIMARYKEY` (`Z_ENT`). Changes made by triggers are recorded too.
final class SQLiteChangeRecorder {
    private var session: OpaquePointer?

    /// Whether the linked SQLite library has the session extension (the system libraries of
    /// Debian, Ubuntu and Fedora do).
    static var isAvailable: Bool { openswiftdata_session_available() != 0 }

    /// Starts recording the changes `db` makes to any table of its main database.
    ///
    /// - Throws: ``SQLiteError`` when SQLite has no session extension or cannot start one.
    init(_ db: SQLiteConnection) throws {
        guard SQLiteChangeRecorder.isAvailable else {
            throw SQLiteError(
                code: SQLITE_MISUSE,
                message: "the SQLite library has no session extension (built without SQLITE_ENABLE_SESSION)")
        }
        var session: OpaquePointer?
        var rc = sqlite3session_create(db.handle, "main", &session)
        guard rc == SQLITE_OK, let session else {
            throw SQLiteError(code: rc, message: "the change recorder could not start")
        }
        rc = sqlite3session_attach(session, nil)
        guard rc == SQLITE_OK else {
            sqlite3session_delete(session)
            throw SQLiteError(code: rc, message: "the change recorder could not attach to the tables")
        }
        self.session = session
    }

    deinit { if let session { sqlite3session_delete(session) } }

    /// A changeset that undoes every change recorded so far: inserted rows are deleted,
    /// deleted rows inserted again, updated columns set back to their earlier values.
    ///
    /// - Throws: ``SQLiteError`` when SQLite cannot build or invert the changeset (out of memory).
    func undoChangeset() throws -> Data {
        var size: Int32 = 0
        var bytes: UnsafeMutableRawPointer?
        var rc = sqlite3session_changeset(session, &size, &bytes)
        defer { sqlite3_free(bytes) }
        guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: "the recorded changes could not be read") }
        guard size > 0, let bytes else { return Data() }
        var invertedSize: Int32 = 0
        var inverted: UnsafeMutableRawPointer?
        rc = sqlite3changeset_invert(size, bytes, &invertedSize, &inverted)
        defer { sqlite3_free(inverted) }
        guard rc == SQLITE_OK, let inverted else {
            throw SQLiteError(code: rc, message: "the recorded changes could not be inverted")
        }
        return Data(bytes: inverted, count: Int(invertedSize))
    }
}

extension SQLiteConnection {
    /// Applies a changeset from ``SQLiteChangeRecorder/undoChangeset()`` inside the open
    /// transaction. A change that no longer fits the table — the row it restores exists, the
    /// row it removes or rewrites is gone or holds other values — stops it: nothing of the
    /// changeset is applied and the error says what conflicted.
    ///
    /// - Throws: ``SQLiteError`` (`SQLITE_ABORT` for a conflict, naming its kind).
    func applyUndo(_ changeset: Data) throws {
        guard !changeset.isEmpty else { return }
        var conflict: Int32 = 0
        let rc = changeset.withUnsafeBytes { raw -> Int32 in
            withUnsafeMutablePointer(to: &conflict) { conflictPointer in
                sqlite3changeset_apply(
                    handle, Int32(raw.count), UnsafeMutableRawPointer(mutating: raw.baseAddress), nil,
                    { context, kind, _ in
                        context?.assumingMemoryBound(to: Int32.self).pointee = kind
                        return SQLITE_CHANGESET_ABORT
                    }, conflictPointer)
            }
        }
        guard rc == SQLITE_OK else {
            let what: String =
                switch conflict {
                case SQLITE_CHANGESET_DATA: "a row it rewrites holds other values than the change left"
                case SQLITE_CHANGESET_NOTFOUND: "a row it rewrites or removes is gone"
                case SQLITE_CHANGESET_CONFLICT: "a row it restores exists again"
                case SQLITE_CHANGESET_CONSTRAINT: "restoring a row breaks a constraint"
                case SQLITE_CHANGESET_FOREIGN_KEY: "restoring the rows breaks a foreign key"
                default: String(cString: sqlite3_errstr(rc))
                }
            throw SQLiteError(code: rc, message: "the changes could not be undone: \(what)")
        }
    }
}

import CSQLite
import Foundation

/// An error reported by SQLite, with the result code, SQLite's message and the statement's SQL.
///
/// Match on the primary result code:
/// ```swift
/// catch let error as SQLiteError where error.code == .constraint { ... }
/// ```
/// Bound values never appear in the description.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// A primary SQLite result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT` …).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The raw primary code.
        public let rawValue: Int32
        /// Wraps a raw primary code.
        public init(_ rawValue: Int32) { self.rawValue = rawValue & 0xff }
        /// `SQLITE_ERROR`: a generic error, usually bad SQL.
        public static let error = Code(SQLITE_ERROR)
        /// `SQLITE_BUSY`: another connection holds the lock past the busy timeout.
        public static let busy = Code(SQLITE_BUSY)
        /// `SQLITE_LOCKED`: a table is locked by this connection.
        public static let locked = Code(SQLITE_LOCKED)
        /// `SQLITE_READONLY`: the database was opened read-only.
        public static let readOnly = Code(SQLITE_READONLY)
        /// `SQLITE_IOERR`: an I/O error.
        public static let ioError = Code(SQLITE_IOERR)
        /// `SQLITE_CORRUPT`: the file is malformed.
        public static let corrupt = Code(SQLITE_CORRUPT)
        /// `SQLITE_FULL`: the disk is full.
        public static let full = Code(SQLITE_FULL)
        /// `SQLITE_CANTOPEN`: the file cannot be opened.
        public static let cantOpen = Code(SQLITE_CANTOPEN)
        /// `SQLITE_CONSTRAINT`: a UNIQUE, NOT NULL, CHECK or foreign key constraint failed.
        public static let constraint = Code(SQLITE_CONSTRAINT)
        /// `SQLITE_MISMATCH`: a datatype mismatch.
        public static let mismatch = Code(SQLITE_MISMATCH)
        /// `SQLITE_RANGE`: a parameter index out of range, or a value count that does not match
        /// the statement's parameters.
        public static let range = Code(SQLITE_RANGE)
        /// `SQLITE_NOTADB`: the file is not a database.
        public static let notADatabase = Code(SQLITE_NOTADB)
        /// SQLite's own name for the code, e.g. `SQLITE_BUSY`.
        public var description: String { String(cString: sqlite3_errstr(rawValue)) }
    }

    /// The primary result code.
    public let code: Code
    /// The extended result code (e.g. `SQLITE_CONSTRAINT_UNIQUE`).
    public let extendedCode: Int32
    /// SQLite's message (`sqlite3_errmsg`).
    public let message: String
    /// The SQL of the statement that failed, if any.
    public let sql: String?

    /// Creates an error; `sql` is the failing statement's text.
    public init(code: Int32, extendedCode: Int32? = nil, message: String, sql: String? = nil) {
        self.code = Code(code)
        self.extendedCode = extendedCode ?? code
        self.message = message
        self.sql = sql
    }

    /// `SQLite error 19 (constraint failed): UNIQUE constraint failed: Person.email — in: INSERT …`
    public var description: String {
        var s = "SQLite error \(extendedCode) (\(code)): \(message)"
        if let sql { s += " — in: \(sql)" }
        return s
    }
}

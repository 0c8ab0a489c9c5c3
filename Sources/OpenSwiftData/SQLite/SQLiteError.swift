import CSQLite
import Foundation

/// An error reported by SQLite, with the result code, SQLite's message and the statement's SQL.
///
/// Match on the primary result code:
/// ```swift
/// catch let error as SQLiteError where error.code == .constraint { ... }
/// ```
/// Bound values never appear in the description.
package struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// A primary SQLite result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT` …).
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The raw primary code.
        package let rawValue: Int32
        /// Wraps a raw primary code.
        package init(_ rawValue: Int32) { self.rawValue = rawValue & 0xff }
        /// `SQLITE_ERROR`: a generic error, usually bad SQL.
        package static let error = Code(SQLITE_ERROR)
        /// `SQLITE_BUSY`: another connection holds the lock past the busy timeout.
        package static let busy = Code(SQLITE_BUSY)
        /// `SQLITE_LOCKED`: a table is locked by this connection.
        package static let locked = Code(SQLITE_LOCKED)
        /// `SQLITE_READONLY`: the database was opened read-only.
        package static let readOnly = Code(SQLITE_READONLY)
        /// `SQLITE_IOERR`: an I/O error.
        package static let ioError = Code(SQLITE_IOERR)
        /// `SQLITE_CORRUPT`: the file is malformed.
        package static let corrupt = Code(SQLITE_CORRUPT)
        /// `SQLITE_FULL`: the disk is full.
        package static let full = Code(SQLITE_FULL)
        /// `SQLITE_CANTOPEN`: the file cannot be opened.
        package static let cantOpen = Code(SQLITE_CANTOPEN)
        /// `SQLITE_CONSTRAINT`: a UNIQUE, NOT NULL, CHECK or foreign key constraint failed.
        package static let constraint = Code(SQLITE_CONSTRAINT)
        /// `SQLITE_MISMATCH`: a datatype mismatch.
        package static let mismatch = Code(SQLITE_MISMATCH)
        /// `SQLITE_RANGE`: a parameter index out of range, or a value count that does not match
        /// the statement's parameters.
        package static let range = Code(SQLITE_RANGE)
        /// `SQLITE_NOTADB`: the file is not a database.
        package static let notADatabase = Code(SQLITE_NOTADB)
        /// SQLite's own name for the code, e.g. `SQLITE_BUSY`.
        package var description: String { String(cString: sqlite3_errstr(rawValue)) }
    }

    /// The primary result code.
    package let code: Code
    /// The extended result code (e.g. `SQLITE_CONSTRAINT_UNIQUE`).
    package let extendedCode: Int32
    /// SQLite's message (`sqlite3_errmsg`).
    package let message: String
    /// The SQL of the statement that failed, if any.
    package let sql: String?

    /// Creates an error; `sql` is the failing statement's text.
    package init(code: Int32, extendedCode: Int32? = nil, message: String, sql: String? = nil) {
        self.code = Code(code)
        self.extendedCode = extendedCode ?? code
        self.message = message
        self.sql = sql
    }

    /// Which kind of constraint failed, from the extended result code of a
    /// `SQLITE_CONSTRAINT` error (`nil` for other errors).
    ///
    /// ```swift
    /// catch let error as SQLiteError where error.constraintKind == .trigger { print(error.message) }
    /// ```
    package enum ConstraintKind: Sendable, Equatable {
        /// `SQLITE_CONSTRAINT_UNIQUE`: a UNIQUE constraint or unique index.
        case unique
        /// `SQLITE_CONSTRAINT_PRIMARYKEY` (and `_ROWID`): a duplicate primary key.
        case primaryKey
        /// `SQLITE_CONSTRAINT_NOTNULL`: NULL in a `NOT NULL` column.
        case notNull
        /// `SQLITE_CONSTRAINT_CHECK`: a `CHECK` constraint.
        case check
        /// `SQLITE_CONSTRAINT_FOREIGNKEY`: a foreign key (with `PRAGMA foreign_keys = ON`).
        case foreignKey
        /// `SQLITE_CONSTRAINT_TRIGGER`: a trigger's `RAISE(ABORT | FAIL | ROLLBACK, …)`.
        case trigger
        /// Any other sub-code (`_FUNCTION`, `_VTAB`, `_DATATYPE` …, or none).
        case other
    }

    /// The kind of constraint that failed, or `nil` when this is not a `SQLITE_CONSTRAINT` error.
    package var constraintKind: ConstraintKind? {
        guard code == .constraint else { return nil }
        // The sub-code is the extended code's second byte (sqlite3.h: `SQLITE_CONSTRAINT | (n<<8)`;
        // those macros are not imported into Swift).
        switch extendedCode >> 8 {
        case 8: return .unique
        case 6, 10: return .primaryKey  // _PRIMARYKEY, _ROWID
        case 5: return .notNull
        case 1: return .check
        case 3: return .foreignKey
        case 7: return .trigger
        default: return .other
        }
    }

    /// `SQLite error 19 (constraint failed): UNIQUE constraint failed: Person.email — in: INSERT …`
    package var description: String {
        var s = "SQLite error \(extendedCode) (\(code)): \(message)"
        if let sql { s += " — in: \(sql)" }
        return s
    }
}

extension SQLiteError {
    /// The typed error of a save that SQLite refused with this `SQLITE_CONSTRAINT` error, by
    /// its sub-code: a UNIQUE or primary-key collision is
    /// ``SwiftDataError/uniqueConstraintViolation``; a trigger's `RAISE`, a `CHECK`, `NOT NULL` or
    /// foreign key (which only another tool adds to a store) is
    /// ``SwiftDataError/constraintViolation``. SQLite's message is kept in both.
    ///
    /// ```swift
    /// catch let e as SQLiteError where e.code == .constraint {
    ///     throw e.saveError(entityName: "Item", sql: statement.sql)
    /// }
    /// ```
    func saveError(entityName: String?, sql: String?) -> SwiftDataError {
        let subject = entityName.map { "a \($0)" } ?? "a model"
        let what: String
        switch constraintKind ?? .other {
        case .unique, .primaryKey:
            return SwiftDataError(
                SwiftDataError.uniqueConstraintViolation.code,
                "\(subject) collides with a stored one on a unique attribute (\(message)); nothing was saved",
                entityName: entityName, sql: sql, underlying: self)
        case .trigger: what = "a trigger in the store file"
        case .check: what = "a CHECK constraint in the store file"
        case .notNull: what = "a NOT NULL constraint in the store file"
        case .foreignKey: what = "a foreign key in the store file"
        case .other: what = "a constraint in the store file"
        }
        return SwiftDataError(
            SwiftDataError.constraintViolation.code,
            "\(what) refused the save of \(subject): \"\(message)\" (the store's schema was changed by another tool; "
                + "this library declares none); nothing was saved and the context keeps its pending changes",
            entityName: entityName, sql: sql, underlying: self)
    }
}

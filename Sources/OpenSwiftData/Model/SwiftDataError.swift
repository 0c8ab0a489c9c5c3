import Foundation

/// An error from OpenSwiftData, with a matchable code and the context a user needs to act on it.
///
/// Match on the code like SwiftData's error constants:
/// ```swift
/// do { try context.save() }
/// catch SwiftDataError.modelValidationFailure { ... }
/// catch let error as SwiftDataError where error.code == .deleteRuleDenied { print(error.relationshipName!) }
/// ```
/// Two errors are equal when their codes are equal. Bound values never appear in messages.
public struct SwiftDataError: Error, Equatable, CustomStringConvertible, @unchecked Sendable {
    /// What went wrong, as a stable, matchable value. New codes never break callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let name: String
        init(_ name: String) { self.name = name }
        /// The code's name.
        public var description: String { name }
    }

    /// The matchable code.
    public let code: Code
    /// A sentence saying what happened and what to do.
    public let message: String
    /// The model (entity) involved, if any.
    public var entityName: String?
    /// The property or relationship involved, if any.
    public var propertyName: String?
    /// The SQL statement involved, if any (values are bound, never inlined).
    public var sql: String?
    /// The file involved, if any.
    public var url: URL?
    /// The error that caused this one, if any.
    public var underlying: (any Error)?

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, entityName: String? = nil, propertyName: String? = nil,
        sql: String? = nil, url: URL? = nil, underlying: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.entityName = entityName
        self.propertyName = propertyName
        self.sql = sql
        self.url = url
        self.underlying = underlying
    }

    private init(code name: String) { self.init(Code(name), name) }

    /// The relationship involved (same as ``propertyName``).
    public var relationshipName: String? { propertyName }

    /// Errors are equal when their codes are.
    public static func == (lhs: SwiftDataError, rhs: SwiftDataError) -> Bool { lhs.code == rhs.code }

    /// Matches a thrown error against a code constant, so `catch SwiftDataError.mergeConflict { … }`
    /// works as it does with SwiftData.
    ///
    /// ```swift
    /// do { try context.save() } catch SwiftDataError.mergeConflict { context.rollback() }
    /// ```
    public static func ~= (pattern: SwiftDataError, error: any Error) -> Bool {
        (error as? SwiftDataError)?.code == pattern.code
    }

    /// `SwiftDataError.<code>: <message> [entity, property, url, sql, cause]`.
    public var description: String {
        var s = "SwiftDataError.\(code): \(message)"
        if let entityName { s += " [model: \(entityName)\(propertyName.map { ".\($0)" } ?? "")]" }
        if let url { s += " [file: \(url.path)]" }
        if let sql { s += " [SQL: \(sql)]" }
        if let underlying { s += " [cause: \(underlying)]" }
        return s
    }

    // MARK: Container and store

    /// The container could not be created or its store could not be loaded.
    public static let loadIssueModelContainer = SwiftDataError(code: "loadIssueModelContainer")
    /// The file is not an SQLite database (or not one written by OpenSwiftData).
    public static let notADatabase = SwiftDataError(code: "notADatabase")
    /// The file is an SQLite database but is truncated or malformed.
    public static let corruptStore = SwiftDataError(code: "corruptStore")
    /// The store was written with a schema that differs from the container's and no migration
    /// plan says how to get from one to the other. The file was not modified.
    public static let incompatibleSchema = SwiftDataError(code: "incompatibleSchema")
    /// The schema itself is invalid (an unknown type, a subclass not listed, a bad constraint).
    public static let unknownSchema = SwiftDataError(code: "unknownSchema")
    /// A configuration names a schema that is not part of the container's schema.
    public static let configurationSchemaNotFoundInContainerSchema =
        SwiftDataError(code: "configurationSchemaNotFoundInContainerSchema")
    /// The store's version is newer than the newest schema the app knows.
    public static let backwardMigration = SwiftDataError(code: "backwardMigration")
    /// The configuration was created with `allowsSave: false`.
    public static let saveNotAllowed = SwiftDataError(code: "saveNotAllowed")
    /// SQLite reported an error (I/O, disk full, busy past the timeout …); `underlying` has it.
    public static let storeError = SwiftDataError(code: "storeError")

    // MARK: Queries

    /// A predicate expression that cannot be translated to SQL; the message names it.
    public static let unsupportedPredicate = SwiftDataError(code: "unsupportedPredicate")
    /// A predicate's integer arithmetic (`+`, `-`, `*` or unary `-` on `Int` / `Int64`)
    /// overflows for a stored row or a pending model. Swift traps there, so no answer would be
    /// Swift's: the fetch throws this instead, from the store (where SQLite would silently
    /// continue in floating point) and from the pending models alike. The message names the
    /// operator; ``sql`` holds the statement when the store found the overflow. Operands that
    /// Swift's `&&`, `||`, `?:` or `??` skip for a model are not evaluated for it.
    public static let arithmeticOverflow = SwiftDataError(code: "arithmeticOverflow")
    /// A key path that does not name a stored attribute or relationship.
    public static let unsupportedKeyPath = SwiftDataError(code: "unsupportedKeyPath")
    /// A sort descriptor on something the store cannot order by.
    public static let unsupportedSortDescriptor = SwiftDataError(code: "unsupportedSortDescriptor")
    /// A batched fetch was asked to include pending changes while there are some.
    public static let includePendingChangesWithBatchSize =
        SwiftDataError(code: "includePendingChangesWithBatchSize")
    /// An identifier fetch was asked to sort pending changes.
    public static let sortingPendingChangesWithIdentifiers =
        SwiftDataError(code: "sortingPendingChangesWithIdentifiers")

    // MARK: Saving

    /// A model failed validation at save (a relationship count bound, a missing required value).
    public static let modelValidationFailure = SwiftDataError(code: "modelValidationFailure")
    /// A value cannot be stored faithfully (NaN, an unsigned integer beyond `Int64.max` …).
    public static let invalidValue = SwiftDataError(code: "invalidValue")
    /// A `.deny` delete rule refused a deletion; nothing was written.
    public static let deleteRuleDenied = SwiftDataError(code: "deleteRuleDenied")
    /// A uniqueness constraint could not be satisfied by an upsert.
    public static let uniqueConstraintViolation = SwiftDataError(code: "uniqueConstraintViolation")
    /// A constraint or trigger that the store file declares refused the save: a trigger's
    /// `RAISE(ABORT, …)`, a `CHECK`, `NOT NULL` or foreign key another tool added (stores this
    /// library creates declare none of them). The message keeps SQLite's and names the kind;
    /// nothing was written and the context keeps its pending changes.
    public static let constraintViolation = SwiftDataError(code: "constraintViolation")
    /// A save would overwrite or delete rows that another context or process changed since they
    /// were read, and the configuration's merge policy is ``ModelConfiguration/MergePolicy/error``.
    /// Nothing was written; the context keeps its pending changes.
    public static let mergeConflict = SwiftDataError(code: "mergeConflict")
    /// A model was used without a context where one is required.
    public static let missingModelContext = SwiftDataError(code: "missingModelContext")
    /// The model's row no longer exists in the store.
    public static let modelNotFound = SwiftDataError(code: "modelNotFound")
    /// A history fetch compared with a token whose transaction `deleteHistory(_:)` removed.
    public static let historyTokenExpired = SwiftDataError(code: "historyTokenExpired")
}

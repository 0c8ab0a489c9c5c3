import Foundation

/// The SQL a fetch, count or identifier fetch would run, with SQLite's plan for it: what
/// ``ModelContext/explain(_:as:)`` returns.
///
/// ```swift
/// let e = try context.explain(FetchDescriptor<Item>(predicate: #Predicate { $0.code < 10 }), as: .count)
/// print(e.sql)    // SELECT count(*) FROM "Item" t WHERE (t."code" < ?)
/// print(e.plan)   // ["SEARCH t USING COVERING INDEX Item_index_code (code<?)"]
/// ```
public struct QueryExplanation: Sendable, Equatable, CustomStringConvertible {
    /// Which call of ``ModelContext`` is explained.
    public enum Operation: String, Sendable, CaseIterable, Codable {
        /// ``ModelContext/fetch(_:)``.
        case fetch
        /// ``ModelContext/fetchCount(_:)``.
        case count
        /// ``ModelContext/fetchIdentifiers(_:)``.
        case identifiers
    }

    /// A value bound to one of the statement's placeholders, as SQLite stores it (one of its
    /// five storage classes).
    public enum Argument: Hashable, Sendable, CustomStringConvertible {
        /// `NULL`.
        case null
        /// A 64-bit signed integer.
        case integer(Int64)
        /// An IEEE 754 double.
        case real(Double)
        /// UTF-8 text.
        case text(String)
        /// Bytes.
        case blob(Data)

        /// A short rendering; text and blobs are summarised by their size, never shown.
        public var description: String { sqlValue.description }

        /// The value as the store binds it.
        init(_ value: SQLValue) {
            switch value {
            case .null: self = .null
            case .integer(let v): self = .integer(v)
            case .real(let v): self = .real(v)
            case .text(let v): self = .text(v)
            case .blob(let v): self = .blob(v)
            }
        }

        /// The value to bind to a statement of the package's SQLite layer.
        package var sqlValue: SQLValue {
            switch self {
            case .null: .null
            case .integer(let v): .integer(v)
            case .real(let v): .real(v)
            case .text(let v): .text(v)
            case .blob(let v): .blob(v)
            }
        }
    }

    /// The call explained.
    public var operation: Operation
    /// The statement exactly as the call prepares it, with `?` placeholders.
    public var sql: String
    /// The values bound to the placeholders, in order (limit and offset included where the
    /// statement pages). They are kept out of ``description``.
    public var arguments: [Argument]
    /// SQLite's `EXPLAIN QUERY PLAN` for ``sql`` with ``arguments``, one line per plan row,
    /// indented by depth (e.g. `SEARCH t USING INDEX … (code<?)`).
    public var plan: [String]
    /// Whether the call also merges the context's unsaved changes in memory (then ``sql``
    /// reads the store's part, and limit, offset and sort apply after the merge).
    public var mergesPendingChanges: Bool

    /// Creates an explanation.
    public init(operation: Operation, sql: String, arguments: [Argument], plan: [String], mergesPendingChanges: Bool) {
        self.operation = operation
        self.sql = sql
        self.arguments = arguments
        self.plan = plan
        self.mergesPendingChanges = mergesPendingChanges
    }

    /// The SQL, then the plan lines; no bound values.
    public var description: String {
        ([sql] + plan.map { "  " + $0 } + (mergesPendingChanges ? ["  (+ unsaved changes merged in memory)"] : []))
            .joined(separator: "\n")
    }
}

extension ModelContext {
    /// The SQL statement `fetch`, `fetchCount` or `fetchIdentifiers` would run for `descriptor`
    /// right now, its bound values, and SQLite's `EXPLAIN QUERY PLAN` for it.
    ///
    /// ```swift
    /// let e = try context.explain(FetchDescriptor<Item>(predicate: #Predicate { $0.code == 7 }), as: .fetch)
    /// // e.sql:  SELECT t."Z_PK", … FROM "Item" t WHERE (t."code" = ?) ORDER BY t."Z_PK"
    /// // e.plan: ["SEARCH t USING INDEX Item_index_code (code=?)"]
    /// ```
    /// The choice follows the call's own: a fetch with `fetchLimit`/`fetchOffset` pages in SQL
    /// (`… LIMIT ? OFFSET ?`); a count without pending changes of the model's kind is a
    /// `SELECT count(*)`; with such pending changes (and `includePendingChanges`) every call
    /// reads the store's rows in key order and merges in memory (``QueryExplanation/mergesPendingChanges``).
    /// Nothing is fetched, and no delete rule runs; a pending delete whose rules would reach
    /// this model kind makes the real call merge even where this says it does not.
    /// - Throws: what the call would throw for the descriptor (``SwiftDataError/unsupportedPredicate``
    ///   and friends), or ``SwiftDataError/storeError`` when SQLite cannot plan the statement.
    public func explain<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>,
        as operation: QueryExplanation.Operation = .fetch
    ) throws -> QueryExplanation {
        let q = try query(descriptor)
        let merges = descriptor.includePendingChanges && !(pendingModels(kindOf: q.layout)?.isEmpty ?? true)
        let paging = FetchPaging(limit: descriptor.fetchLimit, offset: descriptor.fetchOffset)
        let sql: String
        let arguments: [SQLValue]
        if merges {
            (sql, arguments) = (q.compiled.storeOrderSQL, q.arguments)
        } else {
            switch operation {
            case .fetch where paging.isPaged: (sql, arguments) = (q.compiled.pagedSQL, q.arguments + paging.arguments)
            case .fetch: (sql, arguments) = (q.compiled.selectSQL, q.arguments)
            case .count: (sql, arguments) = (q.compiled.countSQL, q.arguments)
            case .identifiers: (sql, arguments) = (q.compiled.keysSQL, q.arguments + paging.arguments)
            }
        }
        let plan = try withFetchConnection(sql: sql, table: q.table) { db in try db.queryPlan(sql, arguments) }
        return QueryExplanation(
            operation: operation, sql: sql, arguments: arguments.map(QueryExplanation.Argument.init), plan: plan,
            mergesPendingChanges: merges)
    }
}

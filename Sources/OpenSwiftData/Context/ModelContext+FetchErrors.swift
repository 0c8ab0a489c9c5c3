import Foundation

extension ModelContext {
    /// What a fetch throws for an error from SQLite: never the raw `SQLiteError`.
    ///
    /// - The checked integer arithmetic overflowed (``CheckedArithmeticFunctions``):
    ///   ``SwiftDataError/arithmeticOverflow``, as for a pending model.
    /// - The statement exceeds one of SQLite's compile-time limits — the SQL is too deep for the
    ///   parser stack or the expression depth limit (1000), has too many bound values, function
    ///   arguments, compound terms or joined tables — which says nothing about the user's data:
    ///   ``SwiftDataError/unsupportedPredicate`` with SQLite's message, naming the limit.
    /// - Anything else (I/O, a full disk, a busy store): ``SwiftDataError/storeError``.
    ///
    /// The statement's SQL travels in ``SwiftDataError/sql`` (values are bound, never inlined).
    func fetchError(_ error: any Error, sql: String?) -> SwiftDataError {
        if let e = error as? SwiftDataError { return e }
        guard let e = error as? SQLiteError else { return storeError(error, sql: sql) }
        if e.message.hasPrefix(CheckedArithmeticFunctions.overflowMessage) {
            let symbol = String(e.message.dropFirst(CheckedArithmeticFunctions.overflowMessage.count))
            var overflow = arithmeticOverflowError(symbol, entityName: nil, sql: sql ?? e.sql)
            overflow.underlying = e
            return overflow
        }
        if let limit = Self.sqliteLimits.first(where: { e.message.contains($0.phrase) }) {
            return SwiftDataError(
                SwiftDataError.unsupportedPredicate.code,
                "the predicate's SQL exceeds \(limit.name) (SQLite: \"\(e.message)\"); this limit is SQLite's, not the data's: nest fewer operators, split long chains or captured collections, or split the fetch",
                sql: sql ?? e.sql, underlying: e)
        }
        return storeError(error, sql: sql)
    }

    /// SQLite's messages for statements beyond its limits, and the limit each names.
    static let sqliteLimits: [(phrase: String, name: String)] = [
        ("parser stack overflow", "SQLite's parser stack (YYSTACKDEPTH, 100 entries: about 30 nested groups)"),
        ("Expression tree is too large", "SQLite's expression depth limit (SQLITE_MAX_EXPR_DEPTH)"),
        ("too many SQL variables", "SQLite's limit on bound values (SQLITE_MAX_VARIABLE_NUMBER)"),
        ("too many arguments on function", "SQLite's limit on function arguments (SQLITE_MAX_FUNCTION_ARG)"),
        ("too many terms in compound SELECT", "SQLite's limit on compound SELECT terms (SQLITE_MAX_COMPOUND_SELECT)"),
        ("tables in a join", "SQLite's limit on joined tables (64)"),
        ("too many FROM clause terms", "SQLite's limit on FROM clause terms"),
    ]

    /// Runs `body` on the connection of `table`'s store, turning its errors into
    /// ``fetchError(_:sql:)``'s.
    func withFetchConnection<R>(sql: String, table: StoreMapping.Table, _ body: (SQLiteConnection) throws -> R) throws
        -> R
    {
        try withFetchConnection(sql: sql, store: stack.store(of: table), body)
    }

    /// Runs `body` on `store`'s connection, turning its errors into ``fetchError(_:sql:)``'s.
    func withFetchConnection<R>(sql: String, store: SQLiteStore, _ body: (SQLiteConnection) throws -> R) throws -> R {
        do {
            return try store.withConnection(body)
        } catch {
            throw fetchError(error, sql: sql)
        }
    }

    /// Any other SQLite failure: ``SwiftDataError/storeError`` with the cause.
    func storeError(_ error: any Error, sql: String?) -> SwiftDataError {
        if let e = error as? SwiftDataError { return e }
        return SwiftDataError(
            SwiftDataError.storeError.code, "the store reported an error", sql: sql, underlying: error)
    }
}

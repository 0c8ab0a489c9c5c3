import Foundation

extension ModelContainer {
    /// The SQL `SELECT` a fetch of `descriptor` runs (without `LIMIT`/`OFFSET`), with `?` for
    /// bound values; for diagnostics such as the differential harness's mismatch reports.
    ///
    /// ```swift
    /// try container.sql(for: FetchDescriptor<Item>(predicate: #Predicate { $0.n > 3 }))
    /// // SELECT … FROM "Item" WHERE ("n" > ?) ORDER BY …
    /// ```
    /// - Throws: ``SwiftDataError/unsupportedPredicate`` and friends, as a fetch would.
    public func sql<T: PersistentModel>(for descriptor: FetchDescriptor<T>) throws -> String {
        let context = ModelContext(self)
        return try context.query(descriptor).compiled.selectSQL
    }

    /// Runs `body` with the store's SQLite connection, serialised with every other use of it
    /// (the first configuration's store, when the container has several).
    ///
    /// For reading only — canonical dumps, `EXPLAIN`, integrity checks: a write through this
    /// connection bypasses the contexts and their identity maps.
    /// ```swift
    /// let tables = try container.withStoreConnection { try $0.rows("SELECT name FROM sqlite_master") }
    /// ```
    /// - Throws: what `body` throws, and ``SwiftDataError/storeError`` after ``erase()``.
    package func withStoreConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try store.withConnection(body)
    }
}

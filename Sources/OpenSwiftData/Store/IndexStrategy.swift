import Foundation

/// Which secondary indexes a store has: none, the ones `#Index` declares, or a custom set.
/// The relationship indexes are layout, never dropped; unique indexes (`.unique`, `#Unique`)
/// stay unless ``ModelContainer/UniqueIndexPolicy/drop`` asks otherwise. Benchmarks compare
/// strategies on one schema with this.
///
/// ```swift
/// try container.applyIndexStrategy(.none)
/// try container.applyIndexStrategy(.custom(["Product": [["name"], ["price", "name"]]]))
/// ```
public enum IndexStrategy: Sendable, Equatable, CustomStringConvertible {
    /// No secondary indexes.
    case none
    /// The indexes `#Index` declares (what a new store gets).
    case declared
    /// Exactly these indexes: entity name → index groups of property names.
    case custom([String: [[String]]])

    /// `none`, `declared`, or `custom(Entity(a,b);…)`.
    public var description: String {
        switch self {
        case .none: "none"
        case .declared: "declared"
        case .custom(let sets):
            "custom("
                + sets.keys.sorted().flatMap { e in sets[e]!.map { "\(e)(\($0.joined(separator: ",")))" } }
                .joined(separator: ";") + ")"
        }
    }
}

extension ModelContainer {
    /// Replaces the store's secondary indexes with `strategy`'s, in one transaction; unique
    /// indexes stay (see ``applyIndexStrategy(_:uniqueIndexes:)`` to drop them as well).
    ///
    /// ```sql
    /// DROP INDEX "Z_Product_SwiftDataIndexOnBinary…"; CREATE INDEX IF NOT EXISTS "ZPRODUCT_custom_ZPRICE" ON "ZPRODUCT" ("ZPRICE")
    /// ```
    /// Which indexes are secondary is derived from the schema's layout (``StoreIndex/Role``),
    /// never from index names.
    /// - Throws: ``SwiftDataError/unknownSchema`` naming an unknown entity or property.
    public func applyIndexStrategy(_ strategy: IndexStrategy) throws {
        try applyIndexStrategy(strategy, uniqueIndexes: .keep)
    }

    /// SQLite's statement counters (VM steps, full-scan steps, sorts, auto-index rows) summed
    /// over the store's prepared statements since the last reset; for benchmarks.
    package func statementCounters(reset: Bool = false) -> SQLiteStatement.Counters {
        store.withOpenOrClosedConnection { $0.cachedStatementCounters(reset: reset) }
    }

    /// The `EXPLAIN QUERY PLAN` rows SQLite would use for `descriptor`'s fetch: the plan of the
    /// statement ``ModelContext/explain(_:as:)`` reports (paged with `LIMIT ? OFFSET ?` when the
    /// descriptor has a limit or offset), through a new context.
    public func queryPlan<T: PersistentModel>(for descriptor: FetchDescriptor<T>) throws -> [String] {
        try ModelContext(self).explain(descriptor, as: .fetch).plan
    }

    /// The `EXPLAIN QUERY PLAN` rows SQLite would use for `fetchCount(descriptor)` (a new
    /// context, so without pending changes): a count on an indexed range reads only the index.
    ///
    /// ```swift
    /// try container.countQueryPlan(for: FetchDescriptor<Item>(predicate: #Predicate { $0.code < 10 }))
    /// // ["SEARCH t USING COVERING INDEX Z_Item_SwiftDataIndexOnBinary… (ZCODE<?)"]
    /// ```
    public func countQueryPlan<T: PersistentModel>(for descriptor: FetchDescriptor<T>) throws -> [String] {
        try ModelContext(self).explain(descriptor, as: .count).plan
    }
}

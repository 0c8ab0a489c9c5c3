import Foundation
import OpenSwiftData

/// Measures a team's own queries and writes under several index strategies, on their own
/// models and data, and recommends an index per query.
///
/// Each query is measured as `fetch`, `fetchCount` and `fetchIdentifiers` (with its
/// `fetchLimit`/`fetchOffset`), next to a raw-SQLite twin that runs the very statement
/// `ModelContext.explain(_:as:)` reports (so every query gets an ORM-overhead ratio, with no
/// table name written by hand); each write workload is measured per operation. Every strategy
/// runs on its own copy of the data.
/// ```swift
/// var bench = IndexBenchmark("orders", schema: Schema([Customer.self, Order.self]),
///                            data: .generated(rows: 20_000) { context, i in context.insert(Order.sample(i)) })
/// bench.query("open orders", FetchDescriptor<Order>(predicate: #Predicate { $0.status == "open" }))
/// bench.writes("new orders", operations: 200) { context, i in context.insert(Order.sample(1_000_000 + i)) }
/// let report = try bench.run()
/// try report.write(to: URL(fileURLWithPath: "Reports/orders"))
/// ```
public struct IndexBenchmark {
    /// Where the rows come from.
    public enum DataSource {
        /// `rows` rows made by `make(context, i)` for `i` in `0..<rows` (insert one or more
        /// models per call), saved every `batchSize` calls.
        case generated(rows: Int, batchSize: Int = 5_000, make: (ModelContext, Int) throws -> Void)
        /// A copy of a store file written with this schema (a fixture, or a store copied from a
        /// device); the file itself is opened read-only and never changed. `rows` labels the
        /// report's scale.
        case storeFile(URL, rows: Int)

        /// The scale shown in the report.
        var rows: Int {
            switch self {
            case .generated(let rows, _, _), .storeFile(_, let rows): rows
            }
        }
    }

    /// An index configuration to measure.
    public enum Strategy: Hashable, Sendable, CustomStringConvertible {
        /// Every secondary index dropped; unique indexes too when the benchmark has no write
        /// workload, otherwise kept (every save looks unique values up through them: an insert
        /// to upsert, an update to reject a duplicate) and reported as kept.
        case none
        /// The indexes the models declare (`#Index`, unique attributes).
        case declared
        /// The indexes `ModelContainer.suggestedIndexes(for:)` derives from the queries:
        /// equality columns first, then a range column, else the sort's columns.
        case suggested
        /// A named set of indexes: entity name → index groups of property names.
        case custom(String, [String: [[String]]])

        /// `none`, `declared`, `suggested`, or the custom set's name.
        public var description: String {
            switch self {
            case .none: "none"
            case .declared: "declared"
            case .suggested: "suggested"
            case .custom(let name, _): name
            }
        }
    }

    /// What a write workload does to stored rows.
    public enum WriteKind: String, Sendable, Codable {
        /// Inserts (or upserts) new models.
        case inserts
        /// Changes stored models (only a unique index rejects an update that duplicates a unique
        /// value).
        case updates
    }

    /// Which store the copies live in.
    public enum Store: String, Sendable, Codable {
        /// An SQLite file in ``IndexBenchmark/directory`` (WAL, as apps use).
        case disk
        /// An in-memory store.
        case memory
    }

    struct Query {
        let name: String
        let operations: [QueryExplanation.Operation]
        let explain: (ModelContext, QueryExplanation.Operation) throws -> QueryExplanation
        let run: (ModelContext, QueryExplanation.Operation) throws -> Void
        let suggest: (ModelContainer) throws -> [String: [[String]]]
    }

    struct Writes {
        let name: String
        let operations: Int
        let kind: WriteKind
        let body: (ModelContext, Int) throws -> Void
    }

    /// The benchmark's name (the report's title and group).
    public var name: String
    /// The schema of the models.
    public var schema: Schema
    /// Where the rows come from.
    public var data: DataSource
    /// The strategies to compare, in report order.
    public var strategies: [Strategy]
    /// The store kind the measurements run on.
    public var store: Store = .disk
    /// Where the store copies go (removed after the run); a fresh temporary directory by default.
    public var directory: URL
    var queries: [Query] = []
    var writes: [Writes] = []

    /// Creates a benchmark with no queries yet.
    public init(
        _ name: String, schema: Schema, data: DataSource,
        strategies: [Strategy] = [.none, .declared, .suggested]
    ) {
        self.name = name
        self.schema = schema
        self.data = data
        self.strategies = strategies
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent(
                "openswiftdata-indexbench-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
    }

    /// Adds a query, measured as each of `operations` (fetch, count, identifiers by default).
    public mutating func query<T: PersistentModel>(
        _ name: String, _ descriptor: FetchDescriptor<T>,
        as operations: [QueryExplanation.Operation] = QueryExplanation.Operation.allCases
    ) {
        queries.append(
            Query(
                name: name, operations: operations,
                explain: { context, operation in try context.explain(descriptor, as: operation) },
                run: { context, operation in
                    switch operation {
                    case .fetch: _ = try context.fetch(descriptor)
                    case .count: _ = try context.fetchCount(descriptor)
                    case .identifiers: _ = try context.fetchIdentifiers(descriptor)
                    }
                },
                suggest: { container in try container.suggestedIndexes(for: descriptor) }))
    }

    /// Adds a write workload: one run calls `body(context, i)` `operations` times with an `i`
    /// never used before in this benchmark (from 1,000,000,000 up), then saves.
    public mutating func writes(
        _ name: String, operations: Int = 100, kind: WriteKind = .inserts,
        _ body: @escaping (ModelContext, Int) throws -> Void
    ) {
        writes.append(Writes(name: name, operations: max(1, operations), kind: kind, body: body))
    }

    /// The suggested indexes of every query, merged: duplicates, groups that are a leading part
    /// of another group of the same entity, and groups a unique index already leads with (the
    /// store keeps those under `suggested`) are left out.
    public func suggestedIndexes(_ container: ModelContainer) throws -> [String: [[String]]] {
        var groups: [String: [[String]]] = [:]
        for q in queries {
            for (entity, list) in try q.suggest(container) { groups[entity, default: []] += list }
        }
        let unique = try container.storeIndexes().filter { $0.role == .unique }
        var result: [String: [[String]]] = [:]
        for (entity, list) in groups {
            let existing = unique.filter { $0.entity == entity }.map(\.properties)
            var kept: [[String]] = []
            for g in list.sorted(by: { $0.count > $1.count })
            where !(kept + existing).contains(where: { Array($0.prefix(g.count)) == g }) { kept.append(g) }
            if !kept.isEmpty { result[entity] = kept }
        }
        return result
    }

    /// Whether `none` drops unique indexes: only when no write workload runs, since every
    /// save looks unique values up through them.
    var dropsUniqueIndexesUnderNone: Bool { writes.isEmpty }
}

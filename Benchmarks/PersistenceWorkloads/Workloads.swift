import BenchmarkKit
import Foundation
import OpenSwiftData

/// One workload: what we do through OpenSwiftData and the same work through raw SQLite. Both
/// bodies return a result (a row count or checksum) so the smoke test can check they agree.
public struct Workload {
    /// The workload's name, e.g. `"equality fetch (indexed)"`.
    public let name: String
    /// The report group: `insert`, `fetch`, `count`, `delete`.
    public let group: String
    /// Whether the workload is a query measured under every index strategy.
    public let isQuery: Bool
    /// Operations per run at a scale (queries or rows).
    public let operations: (Int) -> Int
    /// Our set-up (untimed) and body (timed).
    let oursSetUp: (FixtureCache, BenchStore, Int, IndexStrategy) throws -> OursRun
    /// Raw set-up (untimed) and body (timed).
    let rawSetUp: (FixtureCache, BenchStore, Int, IndexStrategy) throws -> RawRun
    /// The query whose plan the report shows, if any.
    let plan: ((ModelContainer, Int) throws -> [String])?
    /// The raw twin's `EXPLAIN QUERY PLAN` for the same query, for workloads that exist in an
    /// indexed and an unindexed form (the index test checks both sides use the index).
    var rawPlan: ((RawStore, Int) throws -> [String])? = nil
}

/// A prepared run through OpenSwiftData.
final class OursRun {
    let container: ModelContainer
    let body: () throws -> Int
    init(_ container: ModelContainer, _ body: @escaping () throws -> Int) {
        self.container = container
        self.body = body
    }
}

/// A prepared run through raw SQLite.
final class RawRun {
    let store: RawStore
    let body: () throws -> Int
    init(_ store: RawStore, _ body: @escaping () throws -> Int) {
        self.store = store
        self.body = body
    }
}

/// The persistence workloads of issue #3, each with its raw-SQLite twin.
public enum PersistenceWorkloads {
    static let equalityQueries = 100
    static let scanQueries = 3
    static let sortedQueries = 20

    /// Rows whose `code` the equality workloads look up: spread evenly over the table.
    static func probeRows(_ rows: Int, _ count: Int) -> [Int] {
        (0..<min(count, rows)).map { $0 * rows / min(count, rows) }
    }

    /// Every workload.
    public static var all: [Workload] {
        [batchInsert, fetchAll,
         equality(indexed: true), equality(indexed: false),
         range(indexed: true), range(indexed: false),
         sortedLimit(indexed: true), sortedLimit(indexed: false),
         countAll, count(indexed: true), count(indexed: false), countContains,
         upsert, cascadeDelete]
    }

    static var batchInsert: Workload { Workload(
        name: "batch insert", group: "insert", isQuery: false, operations: { $0 },
        oursSetUp: { cache, store, rows, _ in
            let container = try cache.emptyContainer(store)
            return OursRun(container) {
                let context = ModelContext(container)
                for i in 0..<rows { context.insert(BenchItem(row: i)) }
                try context.save()
                return rows
            }
        },
        rawSetUp: { cache, store, rows, _ in
            let db = try cache.emptyRaw(store)
            return RawRun(db) { try db.insertRows(rows); return rows }
        },
        plan: nil) }

    static var fetchAll: Workload { Workload(
        name: "fetch all", group: "fetch", isQuery: false, operations: { $0 },
        oursSetUp: { cache, store, rows, strategy in
            let container = try cache.populated(store, rows: rows, strategy: strategy)
            let context = ModelContext(container)
            return OursRun(container) { try context.fetch(FetchDescriptor<BenchItem>()).count }
        },
        rawSetUp: { cache, store, rows, strategy in
            let db = try cache.populatedRaw(store, rows: rows, strategy: strategy)
            return RawRun(db) { try db.rows(RawStore.select + " ORDER BY \"Z_PK\"").count }
        },
        plan: { container, _ in try container.queryPlan(for: FetchDescriptor<BenchItem>()) }) }

    static func equality(indexed: Bool) -> Workload {
        let column = indexed ? "code" : "codeUnindexed"
        let queries = indexed ? equalityQueries : scanQueries
        let sql = RawStore.select + " WHERE \(RawStore.column(column)) = ? ORDER BY \"Z_PK\""
        func descriptor(_ code: Int) -> FetchDescriptor<BenchItem> {
            indexed ? FetchDescriptor(predicate: #Predicate { $0.code == code })
                : FetchDescriptor(predicate: #Predicate { $0.codeUnindexed == code })
        }
        return Workload(
            name: "equality fetch (\(indexed ? "indexed" : "unindexed"))", group: "fetch", isQuery: true,
            operations: { min(queries, $0) },
            oursSetUp: { cache, store, rows, strategy in
                let container = try cache.populated(store, rows: rows, strategy: strategy)
                let context = ModelContext(container)
                let codes = probeRows(rows, queries).map { BenchData.values(row: $0).code }
                return OursRun(container) {
                    var found = 0
                    for code in codes { found += try context.fetch(descriptor(code)).count }
                    return found
                }
            },
            rawSetUp: { cache, store, rows, strategy in
                let db = try cache.populatedRaw(store, rows: rows, strategy: strategy)
                let codes = probeRows(rows, queries).map { BenchData.values(row: $0).code }
                return RawRun(db) {
                    var found = 0
                    for code in codes { found += try db.rows(sql, [.integer(Int64(code))]).count }
                    return found
                }
            },
            plan: { container, rows in try container.queryPlan(for: descriptor(BenchData.values(row: rows / 2).code)) },
            rawPlan: { db, rows in
                try db.db.queryPlan(sql, [.integer(Int64(BenchData.values(row: rows / 2).code))])
            })
    }

    static func range(indexed: Bool) -> Workload {
        let column = indexed ? "price" : "priceUnindexed"
        let (lo, hi) = BenchData.priceRange(percent: 1)
        let descriptor: FetchDescriptor<BenchItem> = indexed
            ? FetchDescriptor(predicate: #Predicate { $0.price >= lo && $0.price < hi })
            : FetchDescriptor(predicate: #Predicate { $0.priceUnindexed >= lo && $0.priceUnindexed < hi })
        let sql = RawStore.select + " WHERE (\(RawStore.column(column)) >= ? AND \(RawStore.column(column)) < ?) ORDER BY \"Z_PK\""
        return Workload(
            name: "1% range fetch (\(indexed ? "indexed" : "unindexed"))", group: "fetch", isQuery: true,
            operations: { _ in 1 },
            oursSetUp: { cache, store, rows, strategy in
                let container = try cache.populated(store, rows: rows, strategy: strategy)
                let context = ModelContext(container)
                return OursRun(container) { try context.fetch(descriptor).count }
            },
            rawSetUp: { cache, store, rows, strategy in
                let db = try cache.populatedRaw(store, rows: rows, strategy: strategy)
                return RawRun(db) { try db.rows(sql, [.real(lo), .real(hi)]).count }
            },
            plan: { container, _ in try container.queryPlan(for: descriptor) },
            rawPlan: { db, _ in try db.db.queryPlan(sql, [.real(lo), .real(hi)]) })
    }

    static func sortedLimit(indexed: Bool) -> Workload {
        let column = indexed ? "price" : "priceUnindexed"
        var descriptor: FetchDescriptor<BenchItem> = indexed
            ? FetchDescriptor(sortBy: [SortDescriptor(\.price, order: .reverse)])
            : FetchDescriptor(sortBy: [SortDescriptor(\.priceUnindexed, order: .reverse)])
        descriptor.fetchLimit = 20
        let queries = indexed ? sortedQueries : scanQueries
        let sql = RawStore.select + " ORDER BY \(RawStore.column(column)) DESC, \"Z_PK\" ASC LIMIT 20"
        return Workload(
            name: "sorted fetch, limit 20 (\(indexed ? "indexed" : "unindexed"))", group: "fetch", isQuery: true,
            operations: { _ in queries },
            oursSetUp: { cache, store, rows, strategy in
                let container = try cache.populated(store, rows: rows, strategy: strategy)
                let context = ModelContext(container)
                return OursRun(container) {
                    var n = 0
                    for _ in 0..<queries { n += try context.fetch(descriptor).count }
                    return n
                }
            },
            rawSetUp: { cache, store, rows, strategy in
                let db = try cache.populatedRaw(store, rows: rows, strategy: strategy)
                return RawRun(db) {
                    var n = 0
                    for _ in 0..<queries { n += try db.rows(sql).count }
                    return n
                }
            },
            plan: { container, _ in try container.queryPlan(for: descriptor) },
            rawPlan: { db, _ in try db.db.queryPlan(sql) })
    }

    static var countAll: Workload { Workload(
        name: "fetchCount (all)", group: "count", isQuery: true, operations: { _ in 1 },
        oursSetUp: { cache, store, rows, strategy in
            let container = try cache.populated(store, rows: rows, strategy: strategy)
            let context = ModelContext(container)
            return OursRun(container) { try context.fetchCount(FetchDescriptor<BenchItem>()) }
        },
        rawSetUp: { cache, store, rows, strategy in
            let db = try cache.populatedRaw(store, rows: rows, strategy: strategy)
            return RawRun(db) { try db.count("SELECT count(*) FROM \(RawStore.items)") }
        },
        plan: nil) }

    /// The `code` bound of the count workloads: codes spread evenly over 0..<2^31, so about 1 %
    /// of the rows pass `code < countLimit` (selective enough for an index to pay off).
    static let countLimit = (1 << 31) / 100

    /// `fetchCount` of `code < countLimit`, about 1 % of the rows; with the index SQLite counts
    /// the matching index entries only (`SEARCH … USING COVERING INDEX`).
    static func count(indexed: Bool) -> Workload {
        let column = indexed ? "code" : "codeUnindexed"
        let limit = countLimit
        let descriptor: FetchDescriptor<BenchItem> = indexed
            ? FetchDescriptor(predicate: #Predicate { $0.code < limit })
            : FetchDescriptor(predicate: #Predicate { $0.codeUnindexed < limit })
        let sql = "SELECT count(*) FROM \(RawStore.items) WHERE (\(RawStore.column(column)) < ?)"
        return Workload(
            name: "fetchCount (\(indexed ? "indexed" : "unindexed") predicate)", group: "count", isQuery: true,
            operations: { _ in 1 },
            oursSetUp: { cache, store, rows, strategy in
                let container = try cache.populated(store, rows: rows, strategy: strategy)
                let context = ModelContext(container)
                return OursRun(container) { try context.fetchCount(descriptor) }
            },
            rawSetUp: { cache, store, rows, strategy in
                let db = try cache.populatedRaw(store, rows: rows, strategy: strategy)
                return RawRun(db) { try db.count(sql, [.integer(Int64(limit))]) }
            },
            plan: { container, _ in try container.countQueryPlan(for: descriptor) },
            rawPlan: { db, _ in try db.db.queryPlan(sql, [.integer(Int64(limit))]) })
    }

    /// `fetchCount` of a substring test that about 11% of the rows pass (`item-1…`): the cost of
    /// Swift's `Character` semantics (`instr`, then `osd_contains` on the rows whose bytes match)
    /// next to a bare `instr` in raw SQLite.
    static var countContains: Workload {
        let needle = "item-1"
        let descriptor = FetchDescriptor<BenchItem>(predicate: #Predicate { $0.name.contains(needle) })
        return Workload(
            name: "fetchCount (string contains)", group: "count", isQuery: true, operations: { _ in 1 },
            oursSetUp: { cache, store, rows, strategy in
                let container = try cache.populated(store, rows: rows, strategy: strategy)
                let context = ModelContext(container)
                return OursRun(container) { try context.fetchCount(descriptor) }
            },
            rawSetUp: { cache, store, rows, strategy in
                let db = try cache.populatedRaw(store, rows: rows, strategy: strategy)
                return RawRun(db) { try db.count("SELECT count(*) FROM \(RawStore.items) WHERE instr(\(RawStore.column("name")), ?) > 0", [.text(needle)]) }
            },
            plan: { container, _ in try container.queryPlan(for: descriptor) })
    }

    /// One save of `rows` new items whose unique keys are 0..<rows, into a store that already
    /// holds keys 0..<rows/2: half the items update a stored row, half insert.
    static var upsert: Workload { Workload(
        name: "upsert (half colliding)", group: "upsert", isQuery: false, operations: { $0 },
        oursSetUp: { cache, store, rows, _ in
            let container = try cache.emptyContainer(store)
            let seed = ModelContext(container)
            for i in 0..<rows / 2 { seed.insert(BenchItem(row: i)) }
            try seed.save()
            return OursRun(container) {
                let context = ModelContext(container)
                for i in 0..<rows {
                    let item = BenchItem(row: i)
                    item.name = "updated-\(i)"
                    context.insert(item)
                }
                try context.save()
                return try context.fetchCount(FetchDescriptor<BenchItem>())
            }
        },
        rawSetUp: { cache, store, rows, _ in
            let db = try cache.emptyRaw(store)
            try db.insertRows(rows / 2)
            return RawRun(db) {
                try db.db.immediateTransaction {
                    let c = RawStore.column
                    let updates = ["code", "codeUnindexed", "price", "priceUnindexed", "name", "group"]
                        .map { "\(c($0)) = excluded.\(c($0))" }.joined(separator: ", ")
                    let stmt = try db.db.cachedStatement("""
                        INSERT INTO \(RawStore.items) (\(RawStore.columns), "Z_OPT") VALUES (NULL, \(RawStore.names.entityNumber("BenchItem")!), ?, ?, ?, ?, ?, ?, NULL, 1)
                        ON CONFLICT (\(c("key"))) DO UPDATE SET \(updates), "Z_OPT" = "Z_OPT" + 1
                        """)
                    for i in 0..<rows {
                        let v = BenchData.values(row: i)
                        try stmt.bind(Int64(i), at: 1)
                        try stmt.bind(Int64(v.code), at: 2)
                        try stmt.bind(Int64(v.code), at: 3)
                        try stmt.bind(v.price, at: 4)
                        try stmt.bind(v.price, at: 5)
                        try stmt.bindText("updated-\(i)", at: 6)
                        try stmt.execute()
                    }
                }
                return try db.count("SELECT count(*) FROM \(RawStore.items)")
            }
        },
        plan: nil) }

    static let cascadeGroupSize = 10

    static var cascadeDelete: Workload { Workload(
        name: "delete with cascade", group: "delete", isQuery: false, operations: { $0 },
        oursSetUp: { cache, store, rows, _ in
            let container = try cache.grouped(store, rows: rows, groupSize: cascadeGroupSize)
            return OursRun(container) {
                let context = ModelContext(container)
                let groups = try context.fetch(FetchDescriptor<BenchGroup>())
                for g in groups { context.delete(g) }
                try context.save()
                return try context.fetchCount(FetchDescriptor<BenchItem>()) + groups.count * cascadeGroupSize
            }
        },
        rawSetUp: { cache, store, rows, _ in
            let db = try cache.emptyRaw(store)
            try db.insertRows(rows, groupSize: cascadeGroupSize)
            return RawRun(db) {
                let groups = try db.db.rows("SELECT \"Z_PK\" FROM \(RawStore.groups)")
                try db.db.immediateTransaction {
                    for g in groups {
                        try db.db.run("DELETE FROM \(RawStore.items) WHERE \(RawStore.column("group")) = ?", g)
                        try db.db.run("DELETE FROM \(RawStore.groups) WHERE \"Z_PK\" = ?", g)
                    }
                }
                return try db.count("SELECT count(*) FROM \(RawStore.items)") + groups.count * cascadeGroupSize
            }
        },
        plan: nil) }
}

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
    /// The largest ratio to the raw twin this workload is meant to reach, at every scale and
    /// on both stores, under the `declared` index strategy (the one non-query workloads run
    /// under); `nil` for none. `harness bench --compare` fails a result above it.
    public var ratioTarget: Double? = nil
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

/// The persistence workloads, each with its raw-SQLite twin: one file per workload in
/// `Workloads/`, ours and the twin side by side. A new workload is its file plus its line in ``all``.
public enum PersistenceWorkloads {
    static let equalityQueries = 100
    static let scanQueries = 3
    static let sortedQueries = 20

    /// The performance targets, as ratios to raw SQLite: the core operations within 1.5× at
    /// every scale on both stores (fetch all, batch insert, upsert, cascade delete, the indexed
    /// equality fetch)…
    static let coreRatioTarget = 1.5
    /// …a sorted, indexed `LIMIT 20` within 1.2×…
    static let sortedLimitRatioTarget = 1.2
    /// …and the streaming reads (`enumerate`, `fetch(_:batchSize:)`, each model read once)
    /// within 2× of raw SQLite's row-by-row read.
    static let streamingRatioTarget = 2.0

    /// Rows whose `code` the equality workloads look up: spread evenly over the table.
    static func probeRows(_ rows: Int, _ count: Int) -> [Int] {
        (0..<min(count, rows)).map { $0 * rows / min(count, rows) }
    }

    /// Every workload.
    public static var all: [Workload] {
        [
            batchInsert, savePerInsert, batchUpdate, fetchAll, batchedFetchAll, enumerateAll,
            equality(indexed: true), equality(indexed: false),
            range(indexed: true), range(indexed: false),
            sortedLimit(indexed: true), sortedLimit(indexed: false),
            countAll, count(indexed: true), count(indexed: false), countContains,
            upsert, cascadeDelete, deletePerSave, compositeInsert, compositeFetchAll,
            historyAfterToken, withoutHistory(batchInsert), withoutHistory(upsert), withoutHistory(cascadeDelete),
        ]
    }
}

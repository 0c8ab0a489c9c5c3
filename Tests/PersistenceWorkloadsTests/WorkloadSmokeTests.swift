import BenchmarkKit
import Foundation
import OpenSwiftData
import Testing

@testable import PersistenceWorkloads

/// Every benchmark workload once at a tiny scale: its result is correct and equals the raw-SQLite
/// twin's (correctness only; speed lives in the benchmark executables).
@Suite("WorkloadSmoke")
struct WorkloadSmokeTests {
    static let rows = 200

    /// What each workload must return at `rows` rows.
    static func expected(_ w: Workload, rows: Int) -> Int? {
        switch w.name {
        case "batch insert", "fetch all", "delete with cascade", "upsert (half colliding)": rows
        case "equality fetch (indexed)": min(PersistenceWorkloads.equalityQueries, rows)
        case "equality fetch (unindexed)": min(PersistenceWorkloads.scanQueries, rows)
        case "fetchCount (all)": rows
        case "batch insert (no history)", "delete with cascade (no history)", "upsert (half colliding) (no history)":
            rows
        case "history after token": PersistenceWorkloads.historyQueries * PersistenceWorkloads.newerTransactions
        case let n where n.hasPrefix("sorted fetch"):
            20 * (n.contains("unindexed") ? PersistenceWorkloads.scanQueries : PersistenceWorkloads.sortedQueries)
        default: nil
        }
    }

    @Test("each workload agrees with raw SQLite", arguments: PersistenceWorkloads.all.map(\.name))
    func workload(_ name: String) throws {
        let w = try #require(PersistenceWorkloads.all.first { $0.name == name })
        let cache = FixtureCache()
        defer { cache.removeAll() }
        for store in BenchStore.allCases {
            for strategy in [IndexStrategy.none, .declared] {
                let ours = try w.oursSetUp(cache, store, Self.rows, strategy).body()
                let raw = try w.rawSetUp(cache, store, Self.rows, strategy).body()
                #expect(ours == raw, "\(name) on \(store) with \(strategy): ours \(ours), raw \(raw)")
                if let e = Self.expected(w, rows: Self.rows) {
                    #expect(ours == e, "\(name) on \(store): \(ours) instead of \(e)")
                } else {
                    #expect(ours > 0, "\(name) found nothing")
                }
            }
        }
    }

    @Test("declared indexes are used and `none` drops them")
    func plans() throws {
        let cache = FixtureCache()
        defer { cache.removeAll() }
        let container = try cache.populated(.disk, rows: Self.rows, strategy: .declared)
        let code = BenchData.values(row: 7).code
        let d = FetchDescriptor<BenchItem>(predicate: #Predicate { $0.code == code })
        #expect(try container.queryPlan(for: d).joined().contains("Z_BenchItem_SwiftDataIndexOn"))
        try container.applyIndexStrategy(.none)
        #expect(try container.queryPlan(for: d).joined().contains("SCAN"))
        try container.applyIndexStrategy(.custom(["BenchItem": [["code"]]]))
        #expect(try container.queryPlan(for: d).joined().contains("ZBENCHITEM_custom_ZCODE"))
        #expect(throws: SwiftDataError.self) { try container.applyIndexStrategy(.custom(["BenchItem": [["nope"]]])) }
    }
}

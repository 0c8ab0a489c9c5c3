import Foundation
import OpenSwiftData
import Testing

@testable import PersistenceWorkloads

/// The indexed workloads' plans under the `declared` strategy: SQLite must answer them through
/// the declared index, both for OpenSwiftData's SQL and for the raw twin's; otherwise the
/// report's index speed-up measures nothing.
@Suite("WorkloadIndexPlans")
struct IndexPlanTests {
    static let rows = 2_000

    /// The workloads that exist in an indexed and an unindexed form, indexed side.
    static var indexedWorkloads: [String] {
        PersistenceWorkloads.all.filter { $0.isQuery && $0.name.contains("(indexed") }.map(\.name)
    }

    static func usesIndex(_ plan: [String]) -> Bool {
        plan.contains { $0.contains("USING INDEX") || $0.contains("USING COVERING INDEX") }
    }

    @Test("there are indexed workloads, each with both plans")
    func inventory() {
        #expect(Self.indexedWorkloads.count == 4, "\(Self.indexedWorkloads)")
        for w in PersistenceWorkloads.all where Self.indexedWorkloads.contains(w.name) {
            #expect(w.plan != nil && w.rawPlan != nil, "\(w.name) lacks a plan")
        }
    }

    @Test("under declared, ours and the raw twin use the index", arguments: indexedWorkloads)
    func declaredUsesTheIndex(_ name: String) throws {
        let w = try #require(PersistenceWorkloads.all.first { $0.name == name })
        let plan = try #require(w.plan)
        let rawPlan = try #require(w.rawPlan)
        let cache = FixtureCache()
        defer { cache.removeAll() }
        for store in BenchStore.allCases {
            let container = try cache.populated(store, rows: Self.rows, strategy: .declared)
            let ours = try plan(container, Self.rows)
            #expect(Self.usesIndex(ours), "\(name) on \(store), ours: \(ours)")
            let raw = try rawPlan(try cache.populatedRaw(store, rows: Self.rows, strategy: .declared), Self.rows)
            #expect(Self.usesIndex(raw), "\(name) on \(store), raw: \(raw)")
            // The same query without the index scans: the speed-up compares like with like.
            let unindexed = try plan(try cache.populated(store, rows: Self.rows, strategy: .none), Self.rows)
            #expect(!Self.usesIndex(unindexed), "\(name) on \(store) under none: \(unindexed)")
        }
    }
}

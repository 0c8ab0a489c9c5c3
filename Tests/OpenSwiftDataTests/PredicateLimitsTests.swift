import Foundation
import Testing
@testable import OpenSwiftData

// Predicates at the edges: integer arithmetic that overflows, paging at `Int.max`, identifiers
// from another container, and boolean structures far deeper than a hand-written `#Predicate`.
// Swift (`Predicate.evaluate` over the same objects) is the truth; where Swift traps, the
// fetch must throw a typed error instead.

/// A store of `CtxItem`s, a context without pending changes and one with pending inserts.
struct LimitsFixture {
    static let savedValues = [-3, 0, 1, 2, 5, 17, 150, 199, 200, 250]
    let dir: TemporaryDirectory
    let container: ModelContainer
    /// Sees only the saved rows.
    let saved: ModelContext
    /// Sees the saved rows and its own pending inserts (and is where pending models are evaluated).
    let pending: ModelContext

    init(_ kind: StoreKind, saved values: [Int] = LimitsFixture.savedValues, pending pendingValues: [Int] = [3, 201]) throws {
        dir = TemporaryDirectory("limits")
        container = try makeContainer(kind, contextSuiteModels, in: dir)
        let w = ModelContext(container)
        for (i, n) in values.enumerated() { w.insert(CtxItem(name: "s\(i)", n: n, flag: i % 3 == 0)) }
        try w.save()
        saved = ModelContext(container)
        pending = ModelContext(container)
        for (i, n) in pendingValues.enumerated() { pending.insert(CtxItem(name: "p\(i)", n: n, flag: i % 2 == 0)) }
    }

    /// Checks `p` on both contexts (fetch, fetchCount, fetchIdentifiers) against `Predicate.evaluate`.
    func expectSwiftAnswer(_ p: Predicate<CtxItem>, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for (name, context) in [("saved", saved), ("pending", pending)] {
            let all = try context.fetch(FetchDescriptor<CtxItem>())
            let truth = try all.filter { try p.evaluate($0) }.map(\.name).sorted()
            let d = FetchDescriptor(predicate: p)
            #expect(try context.fetch(d).map(\.name).sorted() == truth, "\(label) [\(name)]: fetch", sourceLocation: sourceLocation)
            #expect(try context.fetchCount(d) == truth.count, "\(label) [\(name)]: fetchCount", sourceLocation: sourceLocation)
            #expect(try context.fetchIdentifiers(d).count == truth.count, "\(label) [\(name)]: fetchIdentifiers", sourceLocation: sourceLocation)
        }
    }
}

@Suite("PredicateLimits")
struct PredicateLimitsTests {
    // MARK: Paging

    @Test("fetchLimit Int.max with fetchOffset 1 and a pending insert returns every row after the first", arguments: StoreKind.allCases)
    func fetchLimitMaxWithOffsetAndPendingInsert(_ kind: StoreKind) throws {
        let f = try LimitsFixture(kind)
        var all = FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.n)])
        let expected = try f.pending.fetch(all).dropFirst().map(\.name)
        all.fetchLimit = .max
        all.fetchOffset = 1
        #expect(try f.pending.fetch(all).map(\.name) == expected)
        #expect(try f.pending.fetchCount(all) == expected.count)
        #expect(try f.pending.fetchIdentifiers(all).count == expected.count)
        #expect(try f.saved.fetch(all).map(\.name) == f.saved.fetch(FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.n)])).dropFirst().map(\.name))
    }
}

import Foundation
import Testing

@testable import OpenSwiftData

// Expression trees nested far deeper than a hand-written `#Predicate` (built in a loop, as a
// generator or a query builder might): every walk of the tree (leaf collection, constant
// folding, translation, `Predicate.evaluate` on pending models) recurses once per level, so a
// tree deeper than `PredicateDepth.maximumDepth` is refused before any of them runs, with
// unsupportedPredicate naming the limit (PRD-17/18: untranslatable predicates throw, never trap).

@Suite("DeepPredicate")
struct DeepPredicateTests {
    /// `!` applied `count` times to `$0.flag`: `count + 2` levels (the key path and its variable).
    static func negations(_ count: Int) -> Predicate<CtxItem> { DeepPredicate.negations(count) }
    /// `$0.n + 1 + … > 0` with `count` additions: `count + 3` levels.
    static func additions(_ count: Int) -> Predicate<CtxItem> { DeepPredicate.additions(count) }

    /// Expects fetch, fetchCount and fetchIdentifiers of `p` on both contexts (saved rows only,
    /// and with pending inserts) to throw unsupportedPredicate naming the depth limit.
    func expectTooDeep(_ p: Predicate<CtxItem>, _ label: String, _ f: LimitsFixture) {
        let d = FetchDescriptor(predicate: p)
        for (name, context) in [("saved", f.saved), ("pending", f.pending)] {
            let errors = [
                expectSwiftDataError(.unsupportedPredicate, "\(label) [\(name)]: fetch") { _ = try context.fetch(d) },
                expectSwiftDataError(.unsupportedPredicate, "\(label) [\(name)]: fetchCount") {
                    _ = try context.fetchCount(d)
                },
                expectSwiftDataError(.unsupportedPredicate, "\(label) [\(name)]: fetchIdentifiers") {
                    _ = try context.fetchIdentifiers(d)
                },
            ]
            for e in errors {
                #expect(
                    e?.message.hasPrefix(
                        "the predicate nests more than \(PredicateDepth.maximumDepth) levels deep (the limit)") == true,
                    "\(label) [\(name)]: \(String(describing: e))")
                #expect(e?.entityName == "CtxItem")
            }
        }
    }

    @Test("! nested 10,000 deep throws unsupportedPredicate naming the depth limit", arguments: StoreKind.allCases)
    func negations10000(_ kind: StoreKind) throws {
        try expectTooDeep(Self.negations(10_000), "!×10000", LimitsFixture(kind))
    }

    @Test("+ nested 10,000 deep throws unsupportedPredicate naming the depth limit", arguments: StoreKind.allCases)
    func additions10000(_ kind: StoreKind) throws {
        try expectTooDeep(Self.additions(10_000), "+×10000", LimitsFixture(kind))
    }

    @Test(
        "! nested 1,000 to 5,000 deep names the depth, not a part that reads no model", arguments: StoreKind.allCases)
    func negationsNamedRightly(_ kind: StoreKind) throws {
        let f = try LimitsFixture(kind)
        for count in [400, 1_000, 3_000, 5_000] { expectTooDeep(Self.negations(count), "!×\(count)", f) }
    }

    @Test("one level past the limit throws; at the limit, ! matches Predicate.evaluate", arguments: StoreKind.allCases)
    func atTheLimit(_ kind: StoreKind) throws {
        let f = try LimitsFixture(kind)
        let limit = PredicateDepth.maximumDepth
        #expect(PredicateDepth.depth(of: Self.negations(limit - 2).expression) == limit)
        try f.expectSwiftAnswer(Self.negations(limit - 2), "!×\(limit - 2)")
        try f.expectSwiftAnswer(Self.negations(limit - 3), "!×\(limit - 3)")
        expectTooDeep(Self.negations(limit - 1), "!×\(limit - 1)", f)
        expectTooDeep(Self.additions(limit - 2), "+×\(limit - 2)", f)
    }

    @Test(
        "+ at the limit passes the depth check and Predicate.evaluate runs; SQLite's own limit is still a typed error",
        arguments: StoreKind.allCases)
    func additionsAtTheLimit(_ kind: StoreKind) throws {
        let f = try LimitsFixture(kind)
        let p = Self.additions(PredicateDepth.maximumDepth - 3)
        try PredicateDepth.check(p)
        let all = try f.saved.fetch(FetchDescriptor<CtxItem>())
        #expect(
            try all.filter { try p.evaluate($0) }.count
                == all.filter { $0.n > -(PredicateDepth.maximumDepth - 3) }.count)
        let e = expectSwiftDataError(.unsupportedPredicate, "+×\(PredicateDepth.maximumDepth - 3)") {
            _ = try f.saved.fetchCount(FetchDescriptor(predicate: p))
        }
        #expect(e?.message.contains("levels deep (the limit)") == false, "\(String(describing: e))")
    }

    @Test("the depth counts the deepest path, stopping one level past the limit")
    func depthCounting() {
        #expect(PredicateDepth.depth(of: Self.negations(0).expression) == 2)
        #expect(PredicateDepth.depth(of: Self.negations(5).expression) == 7)
        #expect(PredicateDepth.depth(of: Self.additions(5).expression) == 8)
        #expect(PredicateDepth.depth(of: Self.negations(10_000).expression) == PredicateDepth.maximumDepth + 1)
        #expect(PredicateDepth.depth(of: Self.negations(10_000).expression, limit: 20) == 21)
        let chain = DeepPredicate.chain(200, leftAssociative: true, .and, DeepPredicate.nIsNot)
        #expect(PredicateDepth.depth(of: chain.expression) == 202)
    }

    @Test("Predicate.evaluate's guard: PredicateDepth.check throws for a tree past the limit, and passes one at it")
    func checkBeforeEvaluate() throws {
        let e = #expect(throws: SwiftDataError.self) { try PredicateDepth.check(Self.additions(10_000)) }
        #expect(e == .unsupportedPredicate)
        try PredicateDepth.check(Self.negations(PredicateDepth.maximumDepth - 2))
    }
}

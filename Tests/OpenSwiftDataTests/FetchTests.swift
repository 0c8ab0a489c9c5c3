import Foundation
import OpenSwiftData
import Testing

@Suite("Fetch")
struct FetchTests {
    /// A container of `kind` holding `items` (saved), and a fresh context on it.
    func seeded(_ kind: StoreKind, _ dir: ScratchDirectory, _ items: [CtxItem]) throws -> (ModelContainer, ModelContext)
    {
        let container = try kind.makeContainer(for: contextSuiteModels, in: dir)
        let writer = ModelContext(container)
        for item in items { writer.insert(item) }
        try writer.save()
        return (container, ModelContext(container))
    }

    /// Ten items, `n = 1…10`, named `i1…i10`.
    func tenItems() -> [CtxItem] { (1...10).map { CtxItem(name: "i\($0)", n: $0) } }

    /// A mixed set for predicate tests: every optional is nil on at least one row.
    func mixedItems() -> [CtxItem] {
        [
            CtxItem(
                name: "alpha", n: 1, score: 0.5, flag: true, when: day(1), note: "x", rank: 3, due: day(10),
                ratio: 0.25, done: true),
            CtxItem(
                name: "beta", n: 2, score: 1.5, flag: false, when: day(2), note: nil, rank: nil, due: nil, ratio: nil,
                done: nil),
            CtxItem(
                name: "gamma", n: 3, score: -2.0, flag: true, when: day(3), note: "y", rank: 7, due: day(5), ratio: 1.0,
                done: false),
            CtxItem(
                name: "delta", n: 4, score: 10.0, flag: false, when: day(4), note: "x", rank: nil, due: day(20),
                ratio: nil, done: true),
            CtxItem(
                name: "Epsilon", n: 5, score: 2.5, flag: true, when: day(5), note: nil, rank: 1, due: nil, ratio: 0.5,
                done: nil),
        ]
    }

    /// Names of the models matching `predicate`, sorted, checked against Swift's own evaluation
    /// of the predicate over every stored model; `nil` (with an issue recorded) if the fetch throws.
    func names(
        _ ctx: ModelContext, _ predicate: Predicate<CtxItem>,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [String]? {
        do {
            let matched = try ctx.fetch(FetchDescriptor(predicate: predicate)).map(\.name).sorted()
            let all = try ctx.fetch(FetchDescriptor<CtxItem>())
            let reference = try all.filter { try predicate.evaluate($0) }.map(\.name).sorted()
            #expect(matched == reference, "store and Predicate.evaluate disagree", sourceLocation: sourceLocation)
            #expect(
                try ctx.fetchCount(FetchDescriptor(predicate: predicate)) == matched.count,
                sourceLocation: sourceLocation)
            return matched
        } catch {
            Issue.record(error, "the predicate could not be fetched", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// Expects exactly the models named `expected` to match `predicate` (and Swift to agree).
    func expectMatches(
        _ ctx: ModelContext, _ predicate: Predicate<CtxItem>, _ expected: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let got = names(ctx, predicate, sourceLocation: sourceLocation) else { return }
        #expect(got == expected.sorted(), sourceLocation: sourceLocation)
    }

    // MARK: Sorting

    @Test(
        "an optional Date and an optional Int sort nil first ascending and last descending, as sorted(using:) (Int and String: fetching suite, FET-05)",
        arguments: StoreKind.allCases)
    func nilOrdering(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (_, ctx) = try seeded(
            kind, dir,
            [
                CtxItem(name: "d2", n: 1, rank: 2, due: day(2)),
                CtxItem(name: "nil", n: 2, rank: nil, due: nil),
                CtxItem(name: "d1", n: 3, rank: 1, due: day(1)),
            ])
        let forward = try ctx.fetch(FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.due)]))
        #expect(forward.map(\.name) == ["nil", "d1", "d2"])
        let reverse = try ctx.fetch(FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.due, order: .reverse)]))
        #expect(reverse.map(\.name) == ["d2", "d1", "nil"])
        let byRank = try ctx.fetch(FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.rank)]))
        #expect(byRank.map(\.rank) == [nil, 1, 2])
        let byRankDesc = try ctx.fetch(FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.rank, order: .reverse)]))
        #expect(byRankDesc.map(\.rank) == [2, 1, nil])
        // Same order as Swift's own sort.
        let all = try ctx.fetch(FetchDescriptor<CtxItem>())
        #expect(forward.map(\.name) == all.sorted(using: [SortDescriptor(\CtxItem.due)]).map(\.name))
    }

    @Test(
        "canonically equivalent strings match and sort together (NFC) (plain string order: fetching suite, FET-06)",
        arguments: StoreKind.allCases)
    func unicodeEquivalence(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let decomposed = "e\u{301}"
        let composed = "\u{e9}"
        #expect(decomposed == composed)
        let (_, ctx) = try seeded(
            kind, dir,
            [
                CtxItem(name: "caf" + decomposed, n: 1, note: decomposed),
                CtxItem(name: "cafe", n: 2, note: "e"),
                CtxItem(name: "caf" + composed + "s", n: 3, note: nil),
            ])
        expectMatches(ctx, #Predicate { $0.name == "caf\u{e9}" }, ["caf\u{e9}"])
        let wanted = "caf" + decomposed
        #expect(names(ctx, #Predicate { $0.name == wanted })?.count == 1)
        #expect(names(ctx, #Predicate { $0.note == composed })?.count == 1)
        #expect(names(ctx, #Predicate { $0.name != wanted })?.count == 2)
        let sorted = try ctx.fetch(FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.name)])).map(\.n)
        let all = try ctx.fetch(FetchDescriptor<CtxItem>())
        #expect(sorted == all.sorted(using: [SortDescriptor(\CtxItem.name)]).map(\.n))
        #expect(sorted == [2, 1, 3])
    }

    // MARK: Predicates

    @Test("FET predicates: Int comparisons with &&, || and !", arguments: StoreKind.allCases)
    func intPredicates(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (_, ctx) = try seeded(kind, dir, mixedItems())
        expectMatches(ctx, #Predicate { $0.n == 3 }, ["gamma"])
        expectMatches(ctx, #Predicate { $0.n != 3 }, ["Epsilon", "alpha", "beta", "delta"])
        expectMatches(ctx, #Predicate { $0.n < 3 }, ["alpha", "beta"])
        expectMatches(ctx, #Predicate { $0.n <= 3 }, ["alpha", "beta", "gamma"])
        expectMatches(ctx, #Predicate { $0.n > 3 }, ["Epsilon", "delta"])
        expectMatches(ctx, #Predicate { $0.n >= 3 }, ["Epsilon", "delta", "gamma"])
        expectMatches(ctx, #Predicate { $0.n > 1 && $0.n < 4 }, ["beta", "gamma"])
        expectMatches(ctx, #Predicate { $0.n == 1 || $0.n == 5 }, ["Epsilon", "alpha"])
        expectMatches(ctx, #Predicate { !($0.n > 1 && $0.n < 4) }, ["Epsilon", "alpha", "delta"])
        let threshold = 4
        expectMatches(ctx, #Predicate { $0.n >= threshold || ($0.flag && $0.n < 2) }, ["Epsilon", "alpha", "delta"])
        expectMatches(ctx, #Predicate { 2 < $0.n }, ["Epsilon", "delta", "gamma"])
    }

    @Test("FET predicates: Double, String, Bool and Date", arguments: StoreKind.allCases)
    func scalarPredicates(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (_, ctx) = try seeded(kind, dir, mixedItems())
        expectMatches(ctx, #Predicate { $0.score > 1.0 }, ["Epsilon", "beta", "delta"])
        expectMatches(ctx, #Predicate { $0.score < 0 }, ["gamma"])
        expectMatches(ctx, #Predicate { $0.score == 2.5 }, ["Epsilon"])
        expectMatches(ctx, #Predicate { $0.name == "alpha" }, ["alpha"])
        expectMatches(ctx, #Predicate { $0.name == "Alpha" }, [])
        expectMatches(ctx, #Predicate { $0.name != "alpha" }, ["Epsilon", "beta", "delta", "gamma"])
        expectMatches(ctx, #Predicate { $0.name > "b" }, ["beta", "delta", "gamma"])
        expectMatches(ctx, #Predicate { $0.flag }, ["Epsilon", "alpha", "gamma"])
        expectMatches(ctx, #Predicate { !$0.flag }, ["beta", "delta"])
        expectMatches(ctx, #Predicate { $0.flag == false }, ["beta", "delta"])
        expectMatches(ctx, #Predicate { $0.flag && $0.score > 1 }, ["Epsilon"])
        expectMatches(ctx, #Predicate { $0.flag || $0.n == 2 }, ["Epsilon", "alpha", "beta", "gamma"])
        let cutoff = day(3)
        expectMatches(ctx, #Predicate { $0.when < cutoff }, ["alpha", "beta"])
        expectMatches(ctx, #Predicate { $0.when >= cutoff }, ["Epsilon", "delta", "gamma"])
        expectMatches(ctx, #Predicate { $0.when == cutoff }, ["gamma"])
        expectMatches(ctx, #Predicate { !($0.when == cutoff) && $0.flag }, ["Epsilon", "alpha"])
    }

    @Test("FET predicates: optionals compared with values follow Swift (nil != value)", arguments: StoreKind.allCases)
    func optionalValuePredicates(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (_, ctx) = try seeded(kind, dir, mixedItems())
        expectMatches(ctx, #Predicate { $0.note == "x" }, ["alpha", "delta"])
        expectMatches(ctx, #Predicate { $0.note != "x" }, ["Epsilon", "beta", "gamma"])
        expectMatches(ctx, #Predicate { !($0.note == "x") }, ["Epsilon", "beta", "gamma"])
        expectMatches(ctx, #Predicate { $0.rank == 3 }, ["alpha"])
        expectMatches(ctx, #Predicate { $0.rank != 3 }, ["Epsilon", "beta", "delta", "gamma"])
        let due = day(5)
        expectMatches(ctx, #Predicate { $0.due == due }, ["gamma"])
        expectMatches(ctx, #Predicate { $0.due != due }, ["Epsilon", "alpha", "beta", "delta"])
        expectMatches(ctx, #Predicate { $0.ratio == 0.5 }, ["Epsilon"])
        expectMatches(ctx, #Predicate { $0.done == true }, ["alpha", "delta"])
        expectMatches(ctx, #Predicate { $0.done == false }, ["gamma"])
        expectMatches(ctx, #Predicate { $0.done != true }, ["Epsilon", "beta", "gamma"])
        let missing: String? = nil
        expectMatches(ctx, #Predicate { $0.note == missing }, ["Epsilon", "beta"])
        let present: Int? = 7
        expectMatches(ctx, #Predicate { $0.rank == present }, ["gamma"])
        // Comparing two optional attributes: nil == nil holds.
        #expect(names(ctx, #Predicate { $0.note == $0.note })?.count == 5)
        #expect(names(ctx, #Predicate { $0.note != $0.note }) == [])
    }

    @Test("FET predicates: == nil and != nil on optionals (nil == nil is true)", arguments: StoreKind.allCases)
    func optionalNilPredicates(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (_, ctx) = try seeded(kind, dir, mixedItems())
        expectMatches(ctx, #Predicate { $0.note == nil }, ["Epsilon", "beta"])
        expectMatches(ctx, #Predicate { $0.note != nil }, ["alpha", "delta", "gamma"])
        expectMatches(ctx, #Predicate { $0.rank == nil }, ["beta", "delta"])
        expectMatches(ctx, #Predicate { $0.rank != nil && $0.note != nil }, ["alpha", "gamma"])
        expectMatches(ctx, #Predicate { $0.rank == nil || $0.note == nil }, ["Epsilon", "beta", "delta"])
        expectMatches(ctx, #Predicate { $0.due == nil }, ["Epsilon", "beta"])
        expectMatches(ctx, #Predicate { $0.ratio == nil }, ["beta", "delta"])
        expectMatches(ctx, #Predicate { $0.done == nil }, ["Epsilon", "beta"])
        expectMatches(ctx, #Predicate { !($0.due == nil && $0.flag) }, ["alpha", "beta", "delta", "gamma"])
        expectMatches(ctx, #Predicate { nil == $0.note }, ["Epsilon", "beta"])
    }

    @Test("FET predicates: p and !p partition every row", arguments: StoreKind.allCases)
    func negationPartitions(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (_, ctx) = try seeded(kind, dir, mixedItems())
        let total = try ctx.fetchCount(FetchDescriptor<CtxItem>())
        let due = day(5)
        let pairs: [(Predicate<CtxItem>, Predicate<CtxItem>)] = [
            (#Predicate { $0.note == "x" }, #Predicate { !($0.note == "x") }),
            (#Predicate { $0.rank != 3 }, #Predicate { !($0.rank != 3) }),
            (#Predicate { $0.done == true || $0.n > 3 }, #Predicate { !($0.done == true || $0.n > 3) }),
            (#Predicate { $0.due != due && $0.flag }, #Predicate { !($0.due != due && $0.flag) }),
        ]
        for (p, notP) in pairs {
            guard let a = names(ctx, p).map(Set.init), let b = names(ctx, notP).map(Set.init) else { continue }
            #expect(a.isDisjoint(with: b))
            #expect(a.count + b.count == total)
        }
    }

    @Test("FET fetchCount with and without predicates and with pending changes", arguments: StoreKind.allCases)
    func fetchCountPending(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (_, ctx) = try seeded(kind, dir, mixedItems())
        #expect(try ctx.fetchCount(FetchDescriptor<CtxItem>()) == 5)
        let flagged = FetchDescriptor<CtxItem>(predicate: #Predicate { $0.flag })
        #expect(try ctx.fetchCount(flagged) == 3)
        ctx.insert(CtxItem(name: "zeta", n: 6, flag: true))
        ctx.insert(CtxItem(name: "eta", n: 7, flag: false))
        #expect(try ctx.fetchCount(FetchDescriptor<CtxItem>()) == 7)
        #expect(try ctx.fetchCount(flagged) == 4)
        let alpha = try #require(
            try ctx.fetch(FetchDescriptor<CtxItem>(predicate: #Predicate { $0.name == "alpha" })).first)
        alpha.flag = false
        #expect(try ctx.fetchCount(flagged) == 3)
        let gamma = try #require(
            try ctx.fetch(FetchDescriptor<CtxItem>(predicate: #Predicate { $0.name == "gamma" })).first)
        ctx.delete(gamma)
        #expect(try ctx.fetchCount(flagged) == 2)
        #expect(try ctx.fetchCount(FetchDescriptor<CtxItem>()) == 6)
        var storeOnly = flagged
        storeOnly.includePendingChanges = false
        #expect(try ctx.fetchCount(storeOnly) == 3)
        // Another context sees only what is saved.
        #expect(try ModelContext(ctx.container).fetchCount(flagged) == 3)
        try ctx.save()
        #expect(try ModelContext(ctx.container).fetchCount(flagged) == 2)
    }

    @Test("FET an empty store gives an empty fetch and a zero count", arguments: StoreKind.allCases)
    func emptyStore(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (_, ctx) = try seeded(kind, dir, [])
        #expect(try ctx.fetch(FetchDescriptor<CtxItem>()).isEmpty)
        #expect(try ctx.fetchCount(FetchDescriptor<CtxItem>(predicate: #Predicate { $0.n > 0 })) == 0)
        #expect(try ctx.fetchIdentifiers(FetchDescriptor<CtxItem>()).isEmpty)
    }

    // MARK: Untranslatable predicates throw

    @Test("FET an untranslatable predicate throws SwiftDataError instead of crashing", arguments: StoreKind.allCases)
    func untranslatablePredicates(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (_, ctx) = try seeded(kind, dir, mixedItems())
        let accepted: Set<SwiftDataError.Code> = [
            SwiftDataError.unsupportedPredicate.code, SwiftDataError.unsupportedKeyPath.code,
        ]
        let predicates: [(String, Predicate<CtxItem>)] = [
            ("String.count", #Predicate { $0.name.count > 3 }),
            ("transient", #Predicate { $0.scratch > 0 }),
            ("computed", #Predicate { $0.doubled > 2 }),
            ("transient in a conjunction", #Predicate { $0.n > 0 && $0.scratch == 0 }),
        ]
        for (label, p) in predicates {
            let error = #expect(throws: SwiftDataError.self, "fetch: \(label)") {
                try ctx.fetch(FetchDescriptor(predicate: p))
            }
            #expect(error.map { accepted.contains($0.code) } == true, "fetch: \(label): \(String(describing: error))")
            let countError = #expect(throws: SwiftDataError.self, "fetchCount: \(label)") {
                try ctx.fetchCount(FetchDescriptor(predicate: p))
            }
            #expect(countError.map { accepted.contains($0.code) } == true, "fetchCount: \(label)")
        }
        // Also with pending changes in the context (a different code path).
        ctx.insert(CtxItem(name: "pending", n: 9))
        let error = #expect(throws: SwiftDataError.self) {
            try ctx.fetch(FetchDescriptor<CtxItem>(predicate: #Predicate { $0.doubled > 2 }))
        }
        #expect(error.map { accepted.contains($0.code) } == true)
    }

    @Test(
        "FET sorting by a transient or computed property throws unsupportedSortDescriptor",
        arguments: StoreKind.allCases)
    func untranslatableSort(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (_, ctx) = try seeded(kind, dir, mixedItems())
        for sort in [SortDescriptor(\CtxItem.scratch), SortDescriptor(\CtxItem.doubled)] {
            let error = #expect(throws: SwiftDataError.self) {
                try ctx.fetch(FetchDescriptor<CtxItem>(sortBy: [sort]))
            }
            #expect(error?.code == SwiftDataError.unsupportedSortDescriptor.code)
        }
    }
}

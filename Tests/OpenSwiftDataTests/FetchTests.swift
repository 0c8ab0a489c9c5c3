import Foundation
import Testing
import OpenSwiftData

@Suite("Fetch")
struct FetchTests {
    /// A container of `kind` holding `items` (saved), and a fresh context on it.
    func seeded(_ kind: StoreKind, _ dir: ScratchDirectory, _ items: [CtxItem]) throws -> (ModelContainer, ModelContext) {
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
            CtxItem(name: "alpha", n: 1, score: 0.5, flag: true, when: day(1), note: "x", rank: 3, due: day(10), ratio: 0.25, done: true),
            CtxItem(name: "beta", n: 2, score: 1.5, flag: false, when: day(2), note: nil, rank: nil, due: nil, ratio: nil, done: nil),
            CtxItem(name: "gamma", n: 3, score: -2.0, flag: true, when: day(3), note: "y", rank: 7, due: day(5), ratio: 1.0, done: false),
            CtxItem(name: "delta", n: 4, score: 10.0, flag: false, when: day(4), note: "x", rank: nil, due: day(20), ratio: nil, done: true),
            CtxItem(name: "Epsilon", n: 5, score: 2.5, flag: true, when: day(5), note: nil, rank: 1, due: nil, ratio: 0.5, done: nil),
        ]
    }

    /// Names of the models matching `predicate`, sorted, checked against Swift's own evaluation
    /// of the predicate over every stored model; `nil` (with an issue recorded) if the fetch throws.
    func names(_ ctx: ModelContext, _ predicate: Predicate<CtxItem>,
               sourceLocation: SourceLocation = #_sourceLocation) -> [String]? {
        do {
            let matched = try ctx.fetch(FetchDescriptor(predicate: predicate)).map(\.name).sorted()
            let all = try ctx.fetch(FetchDescriptor<CtxItem>())
            let reference = try all.filter { try predicate.evaluate($0) }.map(\.name).sorted()
            #expect(matched == reference, "store and Predicate.evaluate disagree", sourceLocation: sourceLocation)
            #expect(try ctx.fetchCount(FetchDescriptor(predicate: predicate)) == matched.count, sourceLocation: sourceLocation)
            return matched
        } catch {
            Issue.record(error, "the predicate could not be fetched", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// Expects exactly the models named `expected` to match `predicate` (and Swift to agree).
    func expectMatches(_ ctx: ModelContext, _ predicate: Predicate<CtxItem>, _ expected: [String],
                       sourceLocation: SourceLocation = #_sourceLocation) {
        guard let got = names(ctx, predicate, sourceLocation: sourceLocation) else { return }
        #expect(got == expected.sorted(), sourceLocation: sourceLocation)
    }

    // MARK: FET-01 … FET-03 paging

    @Test("FET-01 sort ascending, offset 3, limit 4 gives 4…7", arguments: StoreKind.allCases)
    func offsetAndLimit(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (_, ctx) = try seeded(kind, dir, tenItems().reversed())
        var d = FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.n)])
        d.fetchOffset = 3
        d.fetchLimit = 4
        #expect(try ctx.fetch(d).map(\.n) == [4, 5, 6, 7])
        d.fetchOffset = 8
        #expect(try ctx.fetch(d).map(\.n) == [9, 10])
        d.fetchOffset = nil
        d.fetchLimit = 2
        #expect(try ctx.fetch(d).map(\.n) == [1, 2])
    }

    @Test("FET-02 an offset at or past the end gives nothing; fetchLimit 0 means no limit", arguments: StoreKind.allCases)
    func offsetPastEndAndZeroLimit(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (_, ctx) = try seeded(kind, dir, tenItems())
        var d = FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.n)])
        d.fetchOffset = 10
        #expect(try ctx.fetch(d).isEmpty)
        d.fetchOffset = 50
        #expect(try ctx.fetch(d).isEmpty)
        d.fetchOffset = nil
        d.fetchLimit = 0
        #expect(try ctx.fetch(d).map(\.n) == Array(1...10))
        d.fetchOffset = 7
        #expect(try ctx.fetch(d).map(\.n) == [8, 9, 10])
        #expect(try ctx.fetchCount(d) == 3)
    }

    @Test("FET-03 fetchCount honours predicate, offset and limit", arguments: StoreKind.allCases)
    func countWithPaging(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (_, ctx) = try seeded(kind, dir, tenItems())
        #expect(try ctx.fetchCount(FetchDescriptor<CtxItem>()) == 10)
        var d = FetchDescriptor<CtxItem>(predicate: #Predicate { $0.n > 2 })
        #expect(try ctx.fetchCount(d) == 8)
        d.fetchOffset = 3
        #expect(try ctx.fetchCount(d) == 5)
        d.fetchLimit = 4
        #expect(try ctx.fetchCount(d) == 4)
        d.fetchOffset = 20
        #expect(try ctx.fetchCount(d) == 0)
        #expect(try ctx.fetchCount(FetchDescriptor<CtxItem>(predicate: #Predicate { $0.n > 100 })) == 0)
        // The count always equals the number of models a fetch returns.
        for offset in [0, 5, 9, 10] {
            for limit in [nil, 0, 1, 3] as [Int?] {
                var p = FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.n)])
                p.fetchOffset = offset
                p.fetchLimit = limit
                #expect(try ctx.fetchCount(p) == ctx.fetch(p).count, "offset \(offset) limit \(String(describing: limit))")
            }
        }
    }

    // MARK: FET-04 … FET-06 sorting

    @Test("FET-04 two sort keys: last name ascending, then first name descending", arguments: StoreKind.allCases)
    func twoKeySort(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let container = try kind.makeContainer(for: contextSuiteModels, in: dir)
        let writer = ModelContext(container)
        let people = [("Ann", "Smith", 30), ("Bob", "Jones", 40), ("Cid", "Smith", 20), ("Dee", "Adams", 50), ("Abe", "Jones", 60)]
        for (f, l, a) in people { writer.insert(CtxPerson(first: f, last: l, age: a)) }
        try writer.save()
        let ctx = ModelContext(container)
        let sorts = [SortDescriptor(\CtxPerson.last), SortDescriptor(\CtxPerson.first, order: .reverse)]
        let fetched = try ctx.fetch(FetchDescriptor<CtxPerson>(sortBy: sorts))
        #expect(fetched.map { "\($0.first) \($0.last)" } == ["Dee Adams", "Bob Jones", "Abe Jones", "Cid Smith", "Ann Smith"])
        #expect(fetched.map(\.first) == fetched.sorted(using: sorts).map(\.first))
        let byAgeDesc = try ctx.fetch(FetchDescriptor<CtxPerson>(sortBy: [SortDescriptor(\.age, order: .reverse)]))
        #expect(byAgeDesc.map(\.age) == [60, 50, 40, 30, 20])
    }

    @Test("FET-05 nil sorts first ascending and last descending", arguments: StoreKind.allCases)
    func nilOrdering(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (_, ctx) = try seeded(kind, dir, [
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

    @Test("FET-06 String sorts exactly as Swift < (\"B\" < \"a\", \"10\" < \"2\")", arguments: StoreKind.allCases)
    func stringOrder(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let raw = ["b", "B", "a", "10", "2", "é", "z", "Z", "😀", "\u{FFFD}", ""]
        let (_, ctx) = try seeded(kind, dir, raw.enumerated().map { CtxItem(name: $1, n: $0) })
        let expected = raw.sorted()
        #expect(Array(expected.prefix(7)) == ["", "10", "2", "B", "Z", "a", "b"])
        let fetched = try ctx.fetch(FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        #expect(fetched == expected)
        let lexical = try ctx.fetch(FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.name, comparator: .lexical)])).map(\.name)
        #expect(lexical == expected)
        let reverse = try ctx.fetch(FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.name, order: .reverse)])).map(\.name)
        #expect(reverse == expected.reversed())
        expectMatches(ctx, #Predicate { $0.name < "a" }, ["", "10", "2", "B", "Z"])
        expectMatches(ctx, #Predicate { $0.name >= "B" && $0.name <= "a" }, ["B", "Z", "a"])
    }

    @Test("FET-06 canonically equivalent strings match and sort together (NFC)", arguments: StoreKind.allCases)
    func unicodeEquivalence(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let decomposed = "e\u{301}"
        let composed = "\u{e9}"
        #expect(decomposed == composed)
        let (_, ctx) = try seeded(kind, dir, [
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

    // MARK: FET-07 pending changes

    @Test("FET-07 a pending insert participates in sort, offset and limit", arguments: StoreKind.allCases)
    func pendingInsertPaging(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (_, ctx) = try seeded(kind, dir, [1, 3, 5, 7].map { CtxItem(name: "s\($0)", n: $0) })
        let pending = CtxItem(name: "p2", n: 2)
        ctx.insert(pending)
        var d = FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.n)])
        #expect(try ctx.fetch(d).map(\.n) == [1, 2, 3, 5, 7])
        d.fetchOffset = 1
        d.fetchLimit = 2
        let page = try ctx.fetch(d)
        #expect(page.map(\.n) == [2, 3])
        #expect(page.first === pending)
        #expect(try ctx.fetchCount(d) == 2)
        d.sortBy = [SortDescriptor(\.n, order: .reverse)]
        d.fetchOffset = 3
        d.fetchLimit = 5
        #expect(try ctx.fetch(d).map(\.n) == [2, 1])
        // Predicates filter pending inserts too.
        d = FetchDescriptor<CtxItem>(predicate: #Predicate { $0.n < 3 }, sortBy: [SortDescriptor(\.n)])
        #expect(try ctx.fetch(d).map(\.n) == [1, 2])
        ctx.insert(CtxItem(name: "p9", n: 9))
        #expect(try ctx.fetch(d).map(\.n) == [1, 2])
        // Without pending changes only the store is read.
        d.includePendingChanges = false
        #expect(try ctx.fetch(d).map(\.n) == [1])
        #expect(try ctx.fetchCount(d) == 1)
    }

    @Test("FET-07 pending changes and deletes of saved rows are reflected in fetch and fetchCount", arguments: StoreKind.allCases)
    func pendingChangesAndDeletes(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (_, ctx) = try seeded(kind, dir, tenItems())
        let all = try ctx.fetch(FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.n)]))
        let small = FetchDescriptor<CtxItem>(predicate: #Predicate { $0.n <= 3 }, sortBy: [SortDescriptor(\.n)])
        #expect(try ctx.fetchCount(small) == 3)
        all[0].n = 50          // 1 → 50: leaves the set
        all[8].n = 0           // 9 → 0: joins the set, first in order
        ctx.delete(all[1])     // 2 deleted
        ctx.insert(CtxItem(name: "new", n: -1))
        #expect(try ctx.fetch(small).map(\.n) == [-1, 0, 3])
        #expect(try ctx.fetchCount(small) == 3)
        #expect(try ctx.fetchCount(FetchDescriptor<CtxItem>()) == 10)
        var paged = FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.n, order: .reverse)])
        paged.fetchLimit = 2
        #expect(try ctx.fetch(paged).map(\.n) == [50, 10])
        var storeOnly = small
        storeOnly.includePendingChanges = false
        #expect(try ctx.fetchCount(storeOnly) == 3)
        try ctx.save()
        #expect(try ModelContext(ctx.container).fetch(small).map(\.n) == [-1, 0, 3])
    }

    // MARK: FET-09, FET-10, FET-12

    @Test("FET-09 fetchIdentifiers matches fetch's identifiers in order", arguments: StoreKind.allCases)
    func fetchIdentifiers(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (_, ctx) = try seeded(kind, dir, tenItems())
        var d = FetchDescriptor<CtxItem>(predicate: #Predicate { $0.n > 2 }, sortBy: [SortDescriptor(\.n, order: .reverse)])
        d.fetchLimit = 5
        let ids = try ctx.fetchIdentifiers(d)
        #expect(ids.count == 5)
        #expect(ids == (try ctx.fetch(d).map(\.persistentModelID)))
        #expect(ids.allSatisfy { !$0.isTemporary && $0.entityName == "CtxItem" })
        // In a fresh context the identifiers resolve to the same rows.
        let other = ModelContext(ctx.container)
        let fromIDs = try other.fetchIdentifiers(d).compactMap { other.model(for: $0) as? CtxItem }.map(\.n)
        #expect(fromIDs == [10, 9, 8, 7, 6])
    }

    @Test("FET-10 enumerate visits every match once across batches and rejects escaping mutations", arguments: StoreKind.allCases)
    func enumerateBatches(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (_, ctx) = try seeded(kind, dir, (1...5).map { CtxItem(name: "e\($0)", n: $0) })
        var seen: [Int] = []
        try ctx.enumerate(FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.n)]), batchSize: 2) { seen.append($0.n) }
        #expect(seen == [1, 2, 3, 4, 5])
        seen = []
        try ctx.enumerate(FetchDescriptor<CtxItem>(predicate: #Predicate { $0.n != 3 }), batchSize: 2) { seen.append($0.n) }
        #expect(seen.sorted() == [1, 2, 4, 5])
        #expect(throws: SwiftDataError.self) {
            try ctx.enumerate(FetchDescriptor<CtxItem>(), batchSize: 2, allowEscapingMutations: false) { $0.n += 100 }
        }
        ctx.rollback()
        var touched = 0
        try ctx.enumerate(FetchDescriptor<CtxItem>(), batchSize: 2, allowEscapingMutations: true) {
            $0.n += 100
            touched += 1
        }
        #expect(touched == 5)
    }

    @Test("FET-12 paging over equal sort keys is stable: pages cover every row once", arguments: StoreKind.allCases)
    func stablePaging(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (_, ctx) = try seeded(kind, dir, (1...5).map { CtxItem(name: "same", n: $0) })
        var collected: [PersistentIdentifier] = []
        for offset in stride(from: 0, to: 6, by: 2) {
            var d = FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.name)])
            d.fetchOffset = offset
            d.fetchLimit = 2
            collected += try ctx.fetch(d).map(\.persistentModelID)
        }
        #expect(collected.count == 5)
        #expect(Set(collected).count == 5)
        // Same with a pending insert among them.
        ctx.insert(CtxItem(name: "same", n: 6))
        var withPending: [Int] = []
        for offset in stride(from: 0, to: 8, by: 2) {
            var d = FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.name)])
            d.fetchOffset = offset
            d.fetchLimit = 2
            withPending += try ctx.fetch(d).map(\.n)
        }
        #expect(withPending.sorted() == [1, 2, 3, 4, 5, 6])
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
        let alpha = try #require(try ctx.fetch(FetchDescriptor<CtxItem>(predicate: #Predicate { $0.name == "alpha" })).first)
        alpha.flag = false
        #expect(try ctx.fetchCount(flagged) == 3)
        let gamma = try #require(try ctx.fetch(FetchDescriptor<CtxItem>(predicate: #Predicate { $0.name == "gamma" })).first)
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
        let accepted: Set<SwiftDataError.Code> = [SwiftDataError.unsupportedPredicate.code, SwiftDataError.unsupportedKeyPath.code]
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

    @Test("FET sorting by a transient or computed property throws unsupportedSortDescriptor", arguments: StoreKind.allCases)
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

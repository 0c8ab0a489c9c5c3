import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

/// The order of a fetch that merges pending changes and has no sort: the stored rows by key,
/// a changed model at its key among them, then the pending inserts in the order they were
/// inserted; offset and limit page that order. Checked against the same order computed in
/// Swift from the models themselves.
@Suite("Pending merge order")
struct PendingMergeOrderTests {
    /// A context with `count` saved items named `s1`…, `n` = 1…`count`, and the models.
    func seeded(_ kind: StoreKind, _ dir: ScratchDirectory, count: Int) throws -> (ModelContext, [CtxItem]) {
        let container = try kind.makeContainer(for: contextSuiteModels, in: dir)
        let writer = ModelContext(container)
        for i in 1...count { writer.insert(CtxItem(name: "s\(i)", n: i)) }
        try writer.save()
        let context = ModelContext(container)
        let items = try context.fetch(FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.n)]))
        return (context, items)
    }

    @Test(
        "FET-07 FET-12 an unsorted fetch with pending changes: keys, then inserts in order",
        arguments: StoreKind.allCases)
    func unsortedMergeOrder(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (context, items) = try seeded(kind, dir, count: 8)
        // Changed models in the middle and at the end, matched in memory; a changed model that
        // leaves the predicate's set; a deleted one; inserts whose values would sort them first.
        items[3].n = 100
        items[7].n = 101
        items[5].n = -5
        context.delete(items[1])
        let late = CtxItem(name: "late", n: 0)
        let early = CtxItem(name: "early", n: -100)
        context.insert(late)
        context.insert(early)

        let all = try context.fetch(FetchDescriptor<CtxItem>())
        #expect(all.map(\.name) == ["s1", "s3", "s4", "s5", "s6", "s7", "s8", "late", "early"])
        #expect(all[7] === late && all[8] === early, "the pending inserts are the instances inserted")

        let positive = try context.fetch(FetchDescriptor<CtxItem>(predicate: #Predicate { $0.n > 0 }))
        #expect(positive.map(\.name) == ["s1", "s3", "s4", "s5", "s7", "s8"])

        var page = FetchDescriptor<CtxItem>()
        page.fetchOffset = 5
        page.fetchLimit = 3
        #expect(try context.fetch(page).map(\.name) == ["s7", "s8", "late"])
        page.fetchOffset = 8
        #expect(try context.fetch(page).map(\.name) == ["early"])
        page.fetchOffset = 20
        #expect(try context.fetch(page).isEmpty)
        #expect(try context.fetchCount(FetchDescriptor<CtxItem>()) == all.count)
    }

    @Test(
        "FET-07 FET-12 pending inserts come in the order they were inserted, whenever their identifiers were first read",
        arguments: StoreKind.allCases)
    func insertOrderNotIdentifierOrder(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (context, _) = try seeded(kind, dir, count: 2)
        let first = CtxItem(name: "first", n: 5)
        let second = CtxItem(name: "second", n: 5)
        // The second model's identifier is made before the first's.
        _ = second.persistentModelID
        _ = first.persistentModelID
        context.insert(first)
        context.insert(second)
        #expect(try context.fetch(FetchDescriptor<CtxItem>()).map(\.name) == ["s1", "s2", "first", "second"])
        let tied = try context.fetch(
            FetchDescriptor<CtxItem>(predicate: #Predicate { $0.n == 5 }, sortBy: [SortDescriptor(\.n)]))
        #expect(tied.map(\.name) == ["first", "second"])
    }

    @Test("FET-12 a sorted fetch with pending changes breaks ties by key, inserts last", arguments: StoreKind.allCases)
    func sortedMergeTies(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (context, items) = try seeded(kind, dir, count: 6)
        for item in items { item.score = Double(item.n % 2) }
        let inserted = (0..<3).map { CtxItem(name: "new\($0)", n: 10 + $0, score: Double($0 % 2)) }
        for item in inserted.reversed() { context.insert(item) }
        let fetched = try context.fetch(FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.score)]))
        // Plain Swift: a stable sort by score of the rows in key order, then the inserts in the
        // order they were inserted.
        let baseOrder = items + inserted.reversed()
        let expected = baseOrder.enumerated().sorted { a, b in
            a.element.score != b.element.score ? a.element.score < b.element.score : a.offset < b.offset
        }.map(\.element.name)
        #expect(fetched.map(\.name) == expected)
    }
}

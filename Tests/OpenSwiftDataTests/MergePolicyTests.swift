import Foundation
import OpenSwiftData
import Testing

/// Row versions (`Z_OPT`) and what a save does with a row another writer changed since it was
/// read: SwiftData's merge-by-property with the context's changes winning (the default), or a
/// typed `.mergeConflict` that writes nothing (`mergePolicy = .error`). Two contexts stand for
/// two writers: on one container they share a connection (both store kinds); two containers on
/// one file have a connection each, as two processes would.
@Suite("MergePolicy")
struct MergePolicyTests {
    /// Two contexts on the same store: one container for memory, two containers for disk.
    private func writers(
        _ kind: StoreKind, _ dir: ScratchDirectory,
        policy: ModelConfiguration.MergePolicy
    ) throws -> (ModelContext, ModelContext, ModelContainer) {
        func config() -> ModelConfiguration {
            var c =
                kind == .memory
                ? ModelConfiguration(isStoredInMemoryOnly: true)
                : ModelConfiguration(url: dir.file("merge.store"))
            c.mergePolicy = policy
            return c
        }
        let first = try ModelContainer(for: CtxItem.self, configurations: config())
        let second = kind == .memory ? first : try ModelContainer(for: CtxItem.self, configurations: config())
        let seed = ModelContext(first)
        seed.insert(CtxItem(name: "counter", n: 0, score: 1))
        try seed.save()
        return (ModelContext(first), ModelContext(second), first)
    }

    private func version(_ container: ModelContainer) throws -> SQLValue? {
        try container.withStoreConnection { try $0.scalar("SELECT \"Z_OPT\" FROM \"ZCTXITEM\"") }
    }

    private func only(_ ctx: ModelContext) throws -> CtxItem {
        try #require(try ctx.fetch(FetchDescriptor<CtxItem>()).first)
    }

    @Test(
        "Z_OPT is 1 for a new row and grows by one with every saved update; an unchanged save leaves it",
        arguments: StoreKind.allCases)
    func versionsCount(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "versions")
        let (a, _, container) = try writers(kind, dir, policy: .mergeByPropertyObjectTrump)
        #expect(try version(container) == .integer(1))
        let item = try only(a)
        item.n = 1
        try a.save()
        #expect(try version(container) == .integer(2))
        item.score = 2
        item.name = "renamed"
        try a.save()
        #expect(try version(container) == .integer(3))
        try a.save()
        #expect(try version(container) == .integer(3))
    }

    @Test(
        "Default policy: each writer's changed properties win, the others keep the newer stored values, and the model shows them after its save",
        arguments: StoreKind.allCases)
    func defaultMergesByProperty(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "by-property")
        let (a, b, _) = try writers(kind, dir, policy: .mergeByPropertyObjectTrump)
        let inA = try only(a)
        let inB = try only(b)
        inA.name = "named by A"
        inB.n = 42
        try b.save()
        try a.save()  // stale, but it only changed `name`
        #expect(inA.n == 42, "A's model shows B's newer value of the property A did not change")
        let fresh = try only(ModelContext(a.container))
        #expect(fresh.name == "named by A")
        #expect(fresh.n == 42)
    }

    @Test(
        "Default policy: a read-modify-write of one property by two writers keeps the last save (documented lost update)",
        arguments: StoreKind.allCases)
    func defaultLastWriterWins(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "last-wins")
        let (a, b, _) = try writers(kind, dir, policy: .mergeByPropertyObjectTrump)
        let inA = try only(a)
        let inB = try only(b)
        inA.n += 1
        inB.n += 1
        try a.save()
        try b.save()
        #expect(try only(ModelContext(a.container)).n == 1)
    }

    @Test(
        "Strict policy: a save based on a stale read throws .mergeConflict, writes nothing, keeps its changes, and succeeds after a refetch",
        arguments: StoreKind.allCases)
    func strictRejectsStaleUpdate(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "strict-update")
        let (a, b, container) = try writers(kind, dir, policy: .error)
        let inA = try only(a)
        let inB = try only(b)
        inA.n += 1
        inB.n += 1
        inB.name = "B was second"
        try a.save()
        let error = #expect(throws: SwiftDataError.self) { try b.save() }
        #expect(error?.code == SwiftDataError.mergeConflict.code)
        #expect(error?.entityName == "CtxItem")
        #expect(b.hasChanges, "the failed save keeps the pending changes")
        #expect(inB.name == "B was second")
        let stored = try only(ModelContext(container))
        #expect(stored.n == 1)
        #expect(stored.name == "counter")
        #expect(try version(container) == .integer(2))
        // The user's way out: drop the stale state, read again, re-apply, save.
        b.rollback()
        let again = try only(b)
        #expect(again.n == 1)
        again.n += 1
        try b.save()
        #expect(try only(ModelContext(container)).n == 2)
        #expect(try version(container) == .integer(3))
    }

    @Test(
        "Strict policy: deleting a row changed since it was read, and updating a row deleted since, both throw .mergeConflict",
        arguments: StoreKind.allCases)
    func strictRejectsStaleDeleteAndUpdateOfDeleted(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "strict-delete")
        let (a, b, container) = try writers(kind, dir, policy: .error)
        let inA = try only(a)
        let inB = try only(b)
        inA.n = 5
        try a.save()
        b.delete(inB)
        let stale = #expect(throws: SwiftDataError.self) { try b.save() }
        #expect(stale?.code == SwiftDataError.mergeConflict.code)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<CtxItem>()) == 1)

        b.rollback()
        let current = try only(b)
        b.delete(current)
        try b.save()
        inA.n = 6
        let gone = #expect(throws: SwiftDataError.self) { try a.save() }
        #expect(gone?.code == SwiftDataError.mergeConflict.code)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<CtxItem>()) == 0)
    }

    @Test("Strict policy: saves that do not overlap never conflict", arguments: StoreKind.allCases)
    func strictAllowsSequentialSaves(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "strict-ok")
        let (a, b, container) = try writers(kind, dir, policy: .error)
        for round in 1...5 {
            let inA = try only(a)
            inA.n += 1
            try a.save()
            let inB = try only(b)  // a fetch refreshes B's unchanged model to the new version
            inB.n += 1
            try b.save()
            #expect(try only(ModelContext(container)).n == 2 * round)
        }
    }
}

/// The version a save hands an updated row's model, now read back without `RETURNING`.
@Suite("Update versions")
struct UpdateVersionTests {
    @Test(
        "An upsert's adopted row and later strict saves of it keep Z_OPT and the model's version in step (UNQ-10, UNQ-12)",
        arguments: StoreKind.allCases)
    func upsertVersions(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "upsert-versions")
        var config =
            kind == .memory
            ? ModelConfiguration(isStoredInMemoryOnly: true) : ModelConfiguration(url: dir.file("v.store"))
        config.mergePolicy = .error
        let container = try ModelContainer(for: Category.self, Word.self, configurations: config)
        func version() throws -> SQLValue? {
            try container.withStoreConnection { try $0.scalar("SELECT \"Z_OPT\" FROM \"ZCATEGORY\"") }
        }
        let ctx = ModelContext(container)
        ctx.insert(Category(name: "fruit"))
        try ctx.save()
        #expect(try version() == .integer(1))
        // A new model with the same unique name updates the stored row (its unique column is
        // not rewritten) and takes its identity; the row's version grows by one.
        let again = Category(name: "fruit")
        again.words = [Word(text: "apple")]
        ctx.insert(again)
        try ctx.save()
        #expect(try version() == .integer(2))
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Category>()) == 1)
        // Strict saves compare the version the context holds: a wrong one would be a conflict.
        again.words.append(Word(text: "pear"))
        try ctx.save()
        let fetched = try #require(try ctx.fetch(FetchDescriptor<Category>()).first)
        fetched.name = "fruits"
        try ctx.save()
        #expect(try version() == .integer(3))
        fetched.name = "produce"
        try ctx.save()
        #expect(try version() == .integer(4))
        let stored = try ModelContext(container).fetch(FetchDescriptor<Category>())
        #expect(stored.map(\.name) == ["produce"])
        #expect(stored.first.map { Set($0.words.map(\.text)) } == ["apple", "pear"])
    }
}

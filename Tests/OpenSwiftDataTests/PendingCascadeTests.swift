import Foundation
import OpenSwiftDataTesting
import Testing

@testable import OpenSwiftData

/// Delete rules as fetches with pending changes see them before the save (Docs/BehaviourReference.md,
/// when delete rules run): cascaded models are pending deletes, nullified references read nil, nothing is written,
/// `rollback()` restores everything, and a `.deny` rule still throws at `save()`.
@Suite("PendingCascade")
struct PendingCascadeTests {
    /// A saved house with two rooms.
    private func savedHouse(_ ctx: ModelContext, _ name: String = "h") throws -> IgHouse {
        let house = IgHouse(name: name)
        house.rooms = [IgRoom(name: "\(name)-kitchen"), IgRoom(name: "\(name)-hall")]
        ctx.insert(house)
        try ctx.save()
        return house
    }

    /// A saved tree: level1 → 2 level2 (cascade) → 2 level3 each (cascade), plus one leaf per
    /// level2 (nullify).
    private func savedTree(_ ctx: ModelContext) throws -> IgLevel1 {
        let top = IgLevel1(name: "top")
        for i in 0..<2 {
            let mid = IgLevel2(name: "mid\(i)")
            mid.downs = [IgLevel3(name: "low\(i)a"), IgLevel3(name: "low\(i)b")]
            mid.leaves = [IgLeaf(name: "leaf\(i)")]
            top.downs.append(mid)
        }
        ctx.insert(top)
        try ctx.save()
        return top
    }

    @Test(
        "fetchCount, fetch, fetchIdentifiers and enumerate skip cascaded children before save (the cascade itself: deleteRules suite, DEL-02)",
        arguments: StoreKind.allCases)
    func cascadeBeforeSave(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "pcascade")
        let container = try kind.makeContainer(for: integrityModels, in: dir)
        let ctx = ModelContext(container)
        let house = try savedHouse(ctx)
        _ = try savedHouse(ctx, "other")
        ctx.delete(house)
        #expect(try ctx.fetchCount(FetchDescriptor<IgRoom>()) == 2)
        #expect(try ctx.fetch(FetchDescriptor<IgRoom>()).map(\.name).sorted() == ["other-hall", "other-kitchen"])
        #expect(try ctx.fetchIdentifiers(FetchDescriptor<IgRoom>()).count == 2)
        var seen: [String] = []
        try ctx.enumerate(FetchDescriptor<IgRoom>()) { seen.append($0.name) }
        #expect(seen.sorted() == ["other-hall", "other-kitchen"])
        // Nothing written before the save; another context still sees every room.
        #expect(try storedCount(IgRoom.self, in: container) == 4)
        // Without pending changes the fetch reads the store.
        var storeOnly = FetchDescriptor<IgRoom>()
        storeOnly.includePendingChanges = false
        #expect(try ctx.fetchCount(storeOnly) == 4)
    }

    @Test(
        "delete(model:) and delete(model:where:) cascades are visible before save (at save: deleteRules suite, DEL-13)",
        arguments: StoreKind.allCases)
    func batchCascadeBeforeSave(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "pcascade")
        let container = try kind.makeContainer(for: integrityModels, in: dir)
        let ctx = ModelContext(container)
        _ = try savedHouse(ctx, "a")
        _ = try savedHouse(ctx, "b")
        try ctx.delete(model: IgHouse.self, where: #Predicate { $0.name == "a" })
        #expect(try ctx.fetchCount(FetchDescriptor<IgRoom>()) == 2)
        try ctx.delete(model: IgHouse.self)
        #expect(try ctx.fetchCount(FetchDescriptor<IgRoom>()) == 0)
        #expect(try storedCount(IgRoom.self, in: container) == 4)
        try ctx.save()
        #expect(try storedCount(IgRoom.self, in: container) == 0)
    }

    @Test(
        "nested cascades reach depth 3 before save; nullified leaves read nil (at save: deleteRules suite, DEL-04, DEL-05)",
        arguments: StoreKind.allCases)
    func nestedCascadeBeforeSave(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "pcascade")
        let container = try kind.makeContainer(for: integrityModels, in: dir)
        let ctx = ModelContext(container)
        let top = try savedTree(ctx)
        ctx.delete(top)
        #expect(try ctx.fetchCount(FetchDescriptor<IgLevel2>()) == 0)
        #expect(try ctx.fetchCount(FetchDescriptor<IgLevel3>()) == 0)
        let leaves = try ctx.fetch(FetchDescriptor<IgLeaf>())
        #expect(leaves.count == 2)
        #expect(leaves.allSatisfy { $0.up == nil })
        #expect(try ctx.fetchCount(FetchDescriptor<IgLeaf>(predicate: #Predicate { $0.up == nil })) == 2)
        #expect(try storedCount(IgLevel3.self, in: container) == 4)
    }

    @Test(
        "nullified references read nil before save (at save: deleteRules suite, DEL-01)", arguments: StoreKind.allCases)
    func nullifyBeforeSave(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "pcascade")
        let container = try kind.makeContainer(for: integrityModels, in: dir)
        let ctx = ModelContext(container)
        let p = IgParent(name: "p")
        p.children = [IgChild(name: "a"), IgChild(name: "b")]
        ctx.insert(p)
        try ctx.save()
        ctx.delete(p)
        let children = try ctx.fetch(FetchDescriptor<IgChild>())
        #expect(children.count == 2)
        #expect(children.allSatisfy { $0.parent == nil })
        // The store still holds the links until the save.
        let other = try ModelContext(container).fetch(FetchDescriptor<IgChild>())
        #expect(other.allSatisfy { $0.parent?.name == "p" })
    }

    @Test(
        "rollback after pending-aware fetches restores cascaded children and nullified links (deleteRules suite, DEL-15)",
        arguments: StoreKind.allCases)
    func rollbackRestores(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "pcascade")
        let container = try kind.makeContainer(for: integrityModels, in: dir)
        let ctx = ModelContext(container)
        let top = try savedTree(ctx)
        ctx.delete(top)
        #expect(try ctx.fetchCount(FetchDescriptor<IgLevel3>()) == 0)
        ctx.rollback()
        #expect(!ctx.hasChanges)
        #expect(!top.isDeleted)
        #expect(try ctx.fetchCount(FetchDescriptor<IgLevel2>()) == 2)
        #expect(try ctx.fetchCount(FetchDescriptor<IgLevel3>()) == 4)
        let leaves = try ctx.fetch(FetchDescriptor<IgLeaf>())
        #expect(leaves.compactMap { $0.up?.name }.sorted() == ["mid0", "mid1"])
        #expect(top.downs.count == 2 && top.downs.allSatisfy { $0.downs.count == 2 && !$0.isDeleted })
        try ctx.save()
        #expect(try storedCount(IgLevel3.self, in: container) == 4)
    }

    @Test(
        "save after a pending-aware fetch writes the same rows as a plain save (the cascade: deleteRules suite, DEL-04)",
        arguments: StoreKind.allCases)
    func saveWritesSameRows(_ kind: StoreKind) throws {
        func run(fetchFirst: Bool) throws -> [String] {
            let dir = try ScratchDirectory(prefix: "pcascade")
            let container = try kind.makeContainer(for: integrityModels, in: dir)
            let ctx = ModelContext(container)
            let top = try savedTree(ctx)
            ctx.delete(top)
            if fetchFirst { #expect(try ctx.fetchCount(FetchDescriptor<IgLevel3>()) == 0) }
            try ctx.save()
            let fresh = ModelContext(container)
            return try fresh.fetch(FetchDescriptor<IgLevel1>()).map { "1:\($0.name)" }
                + fresh.fetch(FetchDescriptor<IgLevel2>()).map { "2:\($0.name)" }
                + fresh.fetch(FetchDescriptor<IgLevel3>()).map { "3:\($0.name)" }
                + fresh.fetch(FetchDescriptor<IgLeaf>()).map { "leaf:\($0.name):\($0.up?.name ?? "nil")" }
        }
        let plain = try run(fetchFirst: false)
        #expect(plain.sorted() == ["leaf:leaf0:nil", "leaf:leaf1:nil"])
        #expect(try run(fetchFirst: true) == plain)
    }

    @Test(
        "a deny rule still throws at save, not at delete or at a pending-aware fetch (the rule: deleteRules suite, DEL-08)",
        arguments: StoreKind.allCases)
    func denyThrowsAtSave(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "pcascade")
        let container = try kind.makeContainer(for: integrityModels, in: dir)
        let ctx = ModelContext(container)
        let house = try savedHouse(ctx)
        let dept = IgDepartment(name: "d")
        dept.employees = [IgEmployee(name: "e")]
        ctx.insert(dept)
        try ctx.save()
        ctx.delete(house)
        ctx.delete(dept)
        // The cascade is visible; the denied delete does not touch its employees.
        #expect(try ctx.fetchCount(FetchDescriptor<IgRoom>()) == 0)
        let employees = try ctx.fetch(FetchDescriptor<IgEmployee>())
        #expect(employees.count == 1 && employees.first?.department === dept)
        #expect(throws: SwiftDataError.deleteRuleDenied) { try ctx.save() }
        #expect(try storedCount(IgRoom.self, in: container) == 2)
        #expect(try storedCount(IgDepartment.self, in: container) == 1)
        ctx.rollback()
        #expect(try ctx.fetchCount(FetchDescriptor<IgRoom>()) == 2)
        #expect(house.rooms.count == 2)
    }
}

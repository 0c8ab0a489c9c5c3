import Foundation
import Testing
@testable import OpenSwiftData

/// Delete rules (behaviour reference §3.1–3.3): nullify by default, cascade all the way down,
/// cascade stopping at nullify, many-to-many nullify, and the lifecycle of a deleted model.
@Suite("Delete rules")
struct DeleteRuleTests {
    @Test("DEL-01 the default rule nullifies: children survive with parent == nil", arguments: StoreKind.allCases)
    func defaultNullify(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("del")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let p = IgParent(name: "p")
        let a = IgChild(name: "a"), b = IgChild(name: "b")
        p.children = [a, b]
        ctx.insert(p)
        try ctx.save()
        ctx.delete(p)
        try ctx.save()
        #expect(try storedCount(IgParent.self, in: container) == 0)
        #expect(try storedCount(IgChild.self, in: container) == 2)
        #expect(a.parent == nil && b.parent == nil)
        let fresh = try ModelContext(container).fetch(FetchDescriptor<IgChild>())
        #expect(fresh.count == 2 && fresh.allSatisfy { $0.parent == nil })
    }

    @Test("DEL-02 cascade to-many deletes the rooms of a deleted house", arguments: StoreKind.allCases)
    func cascadeToMany(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("del")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let house = IgHouse(name: "h")
        house.rooms = [IgRoom(name: "kitchen"), IgRoom(name: "hall")]
        ctx.insert(house)
        try ctx.save()
        ctx.delete(house)
        try ctx.save()
        #expect(try storedCount(IgHouse.self, in: container) == 0)
        #expect(try storedCount(IgRoom.self, in: container) == 0)
    }

    @Test("DEL-02 Category/Word tutorial: deleting a category deletes its words", arguments: StoreKind.allCases)
    func categoryCascade(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("del")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let fruit = Category(name: "fruit"), veg = Category(name: "veg")
        fruit.words = [Word(text: "apple"), Word(text: "pear")]
        veg.words = [Word(text: "leek")]
        ctx.insert(fruit)
        ctx.insert(veg)
        try ctx.save()
        ctx.delete(fruit)
        try ctx.save()
        let words = try ModelContext(container).fetch(FetchDescriptor<Word>())
        #expect(words.map(\.text) == ["leek"])
    }

    @Test("DEL-03 cascade to-one deletes the lodging of a deleted voyage", arguments: StoreKind.allCases)
    func cascadeToOne(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("del")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let v = IgVoyage(name: "v")
        v.lodging = IgLodging(place: "inn")
        ctx.insert(v)
        try ctx.save()
        // From a fresh context, so the to-one is loaded from the store.
        let other = ModelContext(container)
        let stored = try #require(try other.fetch(FetchDescriptor<IgVoyage>()).first)
        other.delete(stored)
        try other.save()
        #expect(try storedCount(IgLodging.self, in: container) == 0)
        #expect(try storedCount(IgVoyage.self, in: container) == 0)
    }

    @Test("DEL-04 cascade is recursive: deleting the top deletes every level below", arguments: StoreKind.allCases)
    func recursiveCascade(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("del")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let top = IgLevel1(name: "top")
        for i in 0..<2 {
            let mid = IgLevel2(name: "mid\(i)")
            mid.downs = [IgLevel3(name: "low\(i)a"), IgLevel3(name: "low\(i)b")]
            top.downs.append(mid)
        }
        ctx.insert(top)
        try ctx.save()
        #expect(try storedCount(IgLevel3.self, in: container) == 4)
        let other = ModelContext(container)
        other.delete(try #require(try other.fetch(FetchDescriptor<IgLevel1>()).first))
        try other.save()
        #expect(try storedCount(IgLevel1.self, in: container) == 0)
        #expect(try storedCount(IgLevel2.self, in: container) == 0)
        #expect(try storedCount(IgLevel3.self, in: container) == 0)
    }

    @Test("DEL-05 a cascade stops at a nullify rule: leaves survive with up == nil", arguments: StoreKind.allCases)
    func cascadeStopsAtNullify(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("del")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let top = IgLevel1(name: "top")
        let mid = IgLevel2(name: "mid")
        let leaf = IgLeaf(name: "leaf")
        mid.leaves = [leaf]
        top.downs = [mid]
        ctx.insert(top)
        try ctx.save()
        ctx.delete(top)
        try ctx.save()
        #expect(try storedCount(IgLevel2.self, in: container) == 0)
        let leaves = try ModelContext(container).fetch(FetchDescriptor<IgLeaf>())
        #expect(leaves.count == 1 && leaves[0].up == nil)
        #expect(leaf.up == nil)
    }

    @Test("DEL-06 many-to-many nullify: a deleted product leaves its tags' lists", arguments: StoreKind.allCases)
    func manyToManyNullify(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("del")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let tag = Tag(label: "sale")
        let a = Product(name: "a", price: 1), b = Product(name: "b", price: 2)
        a.tags = [tag]
        b.tags = [tag]
        ctx.insert(a)
        ctx.insert(b)
        try ctx.save()
        ctx.delete(a)
        try ctx.save()
        #expect(tag.products.map(\.name) == ["b"])
        let other = ModelContext(container)
        let tags = try other.fetch(FetchDescriptor<Tag>())
        #expect(tags.count == 1 && tags[0].products.map(\.name) == ["b"])
        #expect(try storedCount(Product.self, in: container) == 1)
    }

    @Test("DEL-09 deleting an unsaved insert drops it: nothing written, no changes left", arguments: StoreKind.allCases)
    func deleteUnsavedInsert(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("del")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let p = IgParent(name: "ghost")
        ctx.insert(p)
        ctx.delete(p)
        #expect(!ctx.insertedModelsArray.contains { $0 === p })
        try ctx.save()
        #expect(ctx.hasChanges == false)
        #expect(try storedCount(IgParent.self, in: container) == 0)
    }

    @Test("DEL-10 isDeleted, deletedModelsArray and modelContext before and after the save", arguments: StoreKind.allCases)
    func lifecycle(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("del")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let p = IgParent(name: "p")
        ctx.insert(p)
        try ctx.save()
        ctx.delete(p)
        #expect(p.isDeleted)
        #expect(ctx.deletedModelsArray.count == 1 && ctx.deletedModelsArray[0] === p)
        #expect(p.modelContext === ctx)
        try ctx.save()
        #expect(p.isDeleted == false)   // after the save, as the reference (§3.3) reports
        #expect(ctx.deletedModelsArray.isEmpty)
        #expect(p.modelContext == nil)
        #expect(p.name == "p")   // reading a deleted model's attribute after save does not crash
    }

    @Test("DEL-15 rollback undoes a pending cascade", arguments: StoreKind.allCases)
    func rollbackCascade(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("del")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let house = IgHouse(name: "h")
        let room = IgRoom(name: "r")
        house.rooms = [room]
        ctx.insert(house)
        try ctx.save()
        ctx.delete(house)
        ctx.processPendingChanges()
        #expect(room.isDeleted)
        ctx.rollback()
        #expect(ctx.hasChanges == false)
        #expect(!house.isDeleted && !room.isDeleted)
        #expect(room.house === house)
        try ctx.save()
        #expect(try storedCount(IgHouse.self, in: container) == 1)
        #expect(try storedCount(IgRoom.self, in: container) == 1)
    }
}

import Foundation
import OpenSwiftDataTesting
import Testing

@testable import OpenSwiftData

/// Where Docs/BehaviourReference.md marks **[REC]** for uniqueness, delete rules, batch delete and
/// inheritance: our decisions, kept apart so a run on Apple hardware can confirm or reverse them.
@Suite("Decisions: integrity")
struct IntegrityDecisionsTests {

    @Test("[REC] §3.3 delete rules run at processPendingChanges, before any save", arguments: StoreKind.allCases)
    func rulesAtProcessPendingChanges(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "dec")
        let container = try kind.makeContainer(for: integrityModels, in: dir)
        let ctx = ModelContext(container)
        let house = IgHouse(name: "h")
        let room = IgRoom(name: "r")
        house.rooms = [room]
        let p = IgParent(name: "p")
        let c = IgChild(name: "c")
        p.children = [c]
        ctx.insert(house)
        ctx.insert(p)
        try ctx.save()
        ctx.delete(house)
        ctx.delete(p)
        ctx.processPendingChanges()
        #expect(room.isDeleted)
        #expect(c.parent == nil && !c.isDeleted)
        #expect(try storedCount(IgRoom.self, in: container) == 1)
        try ctx.save()
        #expect(try storedCount(IgRoom.self, in: container) == 0)
        #expect(try storedCount(IgChild.self, in: container) == 1)
    }

    @Test(
        "[REC] §3.5 batch delete picks its models at call time; a matching pending insert is dropped",
        arguments: StoreKind.allCases)
    func batchSnapshot(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "dec")
        let container = try kind.makeContainer(for: integrityModels, in: dir)
        let ctx = ModelContext(container)
        ctx.insert(IgParent(name: "stored"))
        try ctx.save()
        let pending = IgParent(name: "pending")
        ctx.insert(pending)
        try ctx.delete(model: IgParent.self)
        #expect(ctx.insertedModelsArray.isEmpty)
        ctx.insert(IgParent(name: "after"))  // inserted after the call: kept
        try ctx.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<IgParent>()).map(\.name) == ["after"])
    }
}

import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

@Suite("Context")
struct ContextTests {
    func container(_ kind: StoreKind, _ dir: ScratchDirectory) throws -> ModelContainer {
        try kind.makeContainer(for: contextSuiteModels, in: dir)
    }

    // MARK: Lookups

    @Test(
        "model(for:) for a deleted row gives a detectable deleted model and does not trap, run in a child process (the lookup itself: lifecycle suite, CTX-09)",
        arguments: StoreKind.allCases)
    func modelForDeletedRow(_ kind: StoreKind) async throws {
        // Run in a child process so that a trap is reported as a failure instead of killing the run.
        await #expect(processExitsWith: .success) { [kind] in
            let dir = try ScratchDirectory()
            let container = try kind.makeContainer(for: contextSuiteModels, in: dir)
            let writer = ModelContext(container)
            let item = CtxItem(name: "gone", n: 1)
            writer.insert(item)
            try writer.save()
            let id = item.persistentModelID
            writer.delete(item)
            try writer.save()

            let reader = ModelContext(container)
            let model = reader.model(for: id)
            guard model.persistentModelID == id, model.isDeleted else { exit(2) }
            if let m = model as? CtxItem {
                _ = m.name  // must not trap
                _ = m.n
                _ = m.note
            }
            exit(0)
        }
    }

    // MARK: Insert, identity map, lifecycle

    @Test("CTX inserting the same object twice is a no-op", arguments: StoreKind.allCases)
    func doubleInsert(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let container = try container(kind, dir)
        let ctx = ModelContext(container)
        let item = CtxItem(name: "once")
        ctx.insert(item)
        let id = item.persistentModelID
        ctx.insert(item)
        #expect(ctx.insertedModelsArray.count == 1)
        #expect(item.persistentModelID == id)
        try ctx.save()
        ctx.insert(item)
        #expect(ctx.hasChanges == false)
        try ctx.save()
        #expect(try storedCount(CtxItem.self, in: container) == 1)
    }

    @Test("CTX one object per row per context: two fetches return identical instances", arguments: StoreKind.allCases)
    func identityMap(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let container = try container(kind, dir)
        let writer = ModelContext(container)
        for i in 1...3 { writer.insert(CtxItem(name: "i\(i)", n: i)) }
        try writer.save()

        let ctx = ModelContext(container)
        let first = try ctx.fetch(FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.n)]))
        let second = try ctx.fetch(FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.n, order: .reverse)]))
        #expect(first.count == 3)
        for (a, b) in zip(first, second.reversed()) { #expect(a === b) }
        let filtered = try ctx.fetch(FetchDescriptor<CtxItem>(predicate: #Predicate { $0.n == 2 }))
        #expect(filtered.first === first[1])
        #expect(ctx.model(for: first[2].persistentModelID) as? CtxItem === first[2])
        // The inserting context keeps its own instances.
        let own = try writer.fetch(FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.n)]))
        #expect(own.count == 3)
        #expect(own.allSatisfy { $0.modelContext === writer })
        #expect(zip(own, first).allSatisfy { $0 !== $1 && $0.persistentModelID == $1.persistentModelID })
    }

    @Test("CTX modelContext and isDeleted through insert, save, delete and save", arguments: StoreKind.allCases)
    func lifecycleFlags(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let container = try container(kind, dir)
        let ctx = ModelContext(container)
        let item = CtxItem(name: "life")
        #expect(item.modelContext == nil)
        #expect(item.isDeleted == false)
        ctx.insert(item)
        #expect(item.modelContext === ctx)
        #expect(item.isDeleted == false)
        #expect(item.hasChanges)
        try ctx.save()
        #expect(item.modelContext === ctx)
        #expect(item.isDeleted == false)
        #expect(item.hasChanges == false)

        ctx.delete(item)
        #expect(item.isDeleted)
        #expect(ctx.hasChanges)
        #expect(ctx.deletedModelsArray.count == 1)
        #expect(ctx.deletedModelsArray.first.map { $0 === item } == true)
        // A pending delete hides the model from fetches of this context.
        #expect(try ctx.fetch(FetchDescriptor<CtxItem>()).isEmpty)
        #expect(try ctx.fetchCount(FetchDescriptor<CtxItem>()) == 0)
        #expect(try storedCount(CtxItem.self, in: container) == 1)
        try ctx.save()
        #expect(item.isDeleted == false)  // DEL-10: false again after the save, as SwiftData reports
        #expect(item.modelContext == nil)
        #expect(ctx.deletedModelsArray.isEmpty)
        #expect(try storedCount(CtxItem.self, in: container) == 0)
    }

    @Test("CTX deleting an unsaved insert drops it without saving it", arguments: StoreKind.allCases)
    func deleteUnsavedInsert(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let container = try container(kind, dir)
        let ctx = ModelContext(container)
        let item = CtxItem(name: "brief")
        ctx.insert(item)
        ctx.delete(item)
        #expect(ctx.insertedModelsArray.isEmpty)
        #expect(try ctx.fetch(FetchDescriptor<CtxItem>()).isEmpty)
        try ctx.save()
        #expect(try storedCount(CtxItem.self, in: container) == 0)
    }

    @Test("CTX rollback of a pending delete restores the model", arguments: StoreKind.allCases)
    func rollbackDelete(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let container = try container(kind, dir)
        let ctx = ModelContext(container)
        let item = CtxItem(name: "back")
        ctx.insert(item)
        try ctx.save()
        ctx.delete(item)
        ctx.rollback()
        #expect(item.isDeleted == false)
        #expect(ctx.deletedModelsArray.isEmpty)
        #expect(ctx.hasChanges == false)
        #expect(try ctx.fetch(FetchDescriptor<CtxItem>()).first === item)
        try ctx.save()
        #expect(try storedCount(CtxItem.self, in: container) == 1)
    }
}

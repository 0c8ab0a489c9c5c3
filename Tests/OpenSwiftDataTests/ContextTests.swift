import Foundation
import Testing
import OpenSwiftData

/// Records `ModelContext.willSave` / `didSave` notifications posted by one context object.
final class SaveNotificationRecorder: @unchecked Sendable {
    struct Event: Sendable {
        let name: Notification.Name
        let hasUserInfo: Bool
        let inserted: Set<PersistentIdentifier>?
        let updated: Set<PersistentIdentifier>?
        let deleted: Set<PersistentIdentifier>?
    }

    private let lock = NSLock()
    private var _events: [Event] = []
    private var tokens: [any NSObjectProtocol] = []

    init(_ context: ModelContext) {
        for name in [ModelContext.willSave, ModelContext.didSave] {
            let token = NotificationCenter.default.addObserver(forName: name, object: context, queue: nil) { [weak self] note in
                let info = note.userInfo
                func ids(_ key: ModelContext.NotificationKey) -> Set<PersistentIdentifier>? {
                    let v = info?[key.rawValue]
                    if let a = v as? [PersistentIdentifier] { return Set(a) }
                    if let s = v as? Set<PersistentIdentifier> { return s }
                    return nil
                }
                let event = Event(name: note.name, hasUserInfo: !(info?.isEmpty ?? true),
                                  inserted: ids(.insertedIdentifiers), updated: ids(.updatedIdentifiers),
                                  deleted: ids(.deletedIdentifiers))
                self?.append(event)
            }
            tokens.append(token)
        }
    }

    private func append(_ e: Event) { lock.withLock { _events.append(e) } }
    var events: [Event] { lock.withLock { _events } }
    var didSaves: [Event] { events.filter { $0.name == ModelContext.didSave } }
    var willSaves: [Event] { events.filter { $0.name == ModelContext.willSave } }

    deinit { for t in tokens { NotificationCenter.default.removeObserver(t) } }
}

struct MarkerError: Error, Equatable {}

@Suite("Context")
struct ContextTests {
    func container(_ kind: StoreKind, _ dir: TemporaryDirectory) throws -> ModelContainer {
        try makeContainer(kind, contextSuiteModels, in: dir)
    }

    func count<T: PersistentModel>(_ type: T.Type, in container: ModelContainer) throws -> Int {
        try ModelContext(container).fetchCount(FetchDescriptor<T>())
    }

    // MARK: CTX-01 … CTX-04

    @Test("CTX-01 insert then save makes the identifier permanent", arguments: StoreKind.allCases)
    func insertThenSave(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let container = try container(kind, dir)
        let ctx = ModelContext(container)
        #expect(ctx.hasChanges == false)
        let item = CtxItem(name: "a", n: 1)
        ctx.insert(item)
        #expect(ctx.hasChanges)
        #expect(ctx.insertedModelsArray.count == 1)
        #expect(ctx.insertedModelsArray.first.map { $0 === item } == true)
        let temporary = item.persistentModelID
        #expect(temporary.isTemporary)
        #expect(temporary.entityName == "CtxItem")

        try ctx.save()
        #expect(ctx.hasChanges == false)
        #expect(ctx.insertedModelsArray.isEmpty)
        #expect(ctx.changedModelsArray.isEmpty)
        #expect(ctx.deletedModelsArray.isEmpty)
        let permanent = item.persistentModelID
        #expect(permanent.isTemporary == false)
        #expect(permanent.primaryKey != nil)
        #expect(permanent != temporary)
        #expect(permanent.storeIdentifier != nil)

        // Stable across refetch, in this context and in a fresh one.
        let again = try ctx.fetch(FetchDescriptor<CtxItem>())
        #expect(again.map(\.persistentModelID) == [permanent])
        let fresh = try ModelContext(container).fetch(FetchDescriptor<CtxItem>())
        #expect(fresh.map(\.persistentModelID) == [permanent])
        #expect(fresh.first?.name == "a")
    }

    @Test("CTX-02 a change to a saved model is tracked and rollback restores the saved value", arguments: StoreKind.allCases)
    func changeThenRollback(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let container = try container(kind, dir)
        let ctx = ModelContext(container)
        let item = CtxItem(name: "saved", n: 1, note: "kept")
        ctx.insert(item)
        try ctx.save()

        item.name = "edited"
        item.note = nil
        #expect(ctx.hasChanges)
        #expect(ctx.changedModelsArray.count == 1)
        #expect(ctx.changedModelsArray.first.map { $0 === item } == true)
        #expect(ctx.insertedModelsArray.isEmpty)
        #expect(item.hasChanges)

        ctx.rollback()
        #expect(item.name == "saved")
        #expect(item.note == "kept")
        #expect(ctx.hasChanges == false)
        #expect(ctx.changedModelsArray.isEmpty)
        #expect(item.hasChanges == false)
        // Nothing reached the store; a save now writes nothing.
        try ctx.save()
        let stored = try ModelContext(container).fetch(FetchDescriptor<CtxItem>())
        #expect(stored.map(\.name) == ["saved"])
        #expect(stored.first?.note == "kept")
    }

    @Test("CTX-03 rollback after insert discards the model", arguments: StoreKind.allCases)
    func rollbackInsert(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let container = try container(kind, dir)
        let ctx = ModelContext(container)
        ctx.insert(CtxItem(name: "kept", n: 1))
        try ctx.save()
        ctx.insert(CtxItem(name: "discarded", n: 2))
        ctx.rollback()
        #expect(ctx.insertedModelsArray.isEmpty)
        #expect(ctx.hasChanges == false)
        #expect(try ctx.fetch(FetchDescriptor<CtxItem>()).map(\.name) == ["kept"])
        #expect(try ctx.fetchCount(FetchDescriptor<CtxItem>()) == 1)
        try ctx.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<CtxItem>()).map(\.name) == ["kept"])
    }

    @Test("CTX-04 autosaveEnabled is false on a new context and true on mainContext", arguments: StoreKind.allCases)
    @MainActor
    func autosaveDefaults(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let container = try container(kind, dir)
        #expect(ModelContext(container).autosaveEnabled == false)
        #expect(container.mainContext.autosaveEnabled == true)
        #expect(container.mainContext === container.mainContext)
        #expect(container.mainContext.container === container)
    }

    // MARK: CTX-06 / CTX-07 transactions

    @Test("CTX-06 transaction saves the block's changes", arguments: StoreKind.allCases)
    func transactionSaves(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let container = try container(kind, dir)
        let ctx = ModelContext(container)
        try ctx.transaction {
            ctx.insert(CtxItem(name: "a"))
            ctx.insert(CtxItem(name: "b"))
        }
        #expect(ctx.hasChanges == false)
        let names = try ModelContext(container).fetch(FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        #expect(names == ["a", "b"])
    }

    @Test("CTX-07 a throwing transaction block rethrows and saves nothing", arguments: StoreKind.allCases)
    func transactionThrows(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let container = try container(kind, dir)
        let ctx = ModelContext(container)
        #expect(throws: MarkerError()) {
            try ctx.transaction {
                ctx.insert(CtxItem(name: "a"))
                throw MarkerError()
            }
        }
        #expect(try count(CtxItem.self, in: container) == 0)
        // The block's changes stay pending in the context (nothing is silently lost).
        #expect(ctx.hasChanges)
        #expect(ctx.insertedModelsArray.count == 1)
    }

    // MARK: CTX-08 / CTX-09 lookups

    @Test("CTX-08 registeredModel is nil in a fresh context and the fetched instance after a fetch", arguments: StoreKind.allCases)
    func registeredModelLookup(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let container = try container(kind, dir)
        let writer = ModelContext(container)
        let item = CtxItem(name: "x", n: 7)
        writer.insert(item)
        #expect((writer.registeredModel(for: item.persistentModelID) as CtxItem?) === item)
        try writer.save()
        let id = item.persistentModelID
        #expect((writer.registeredModel(for: id) as CtxItem?) === item)

        let reader = ModelContext(container)
        #expect((reader.registeredModel(for: id) as CtxItem?) == nil)
        let fetched = try reader.fetch(FetchDescriptor<CtxItem>())
        #expect(fetched.count == 1)
        let registered: CtxItem? = reader.registeredModel(for: id)
        #expect(registered != nil)
        #expect(registered === fetched.first)
        // A lookup with the wrong type gives nil rather than a wrong object.
        #expect((reader.registeredModel(for: id) as CtxPerson?) == nil)
    }

    @Test("CTX-09 model(for:) in a fresh context loads the stored attributes", arguments: StoreKind.allCases)
    func modelForLoads(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let container = try container(kind, dir)
        let writer = ModelContext(container)
        let item = CtxItem(name: "lazy", n: 42, score: 1.5, flag: true, when: day(3), note: "n", rank: 2)
        writer.insert(item)
        try writer.save()
        let id = item.persistentModelID

        let reader = ModelContext(container)
        let model = reader.model(for: id)
        #expect(model.persistentModelID == id)
        let loaded = try #require(model as? CtxItem)
        #expect(loaded !== item)
        #expect(loaded.name == "lazy")
        #expect(loaded.n == 42)
        #expect(loaded.score == 1.5)
        #expect(loaded.flag)
        #expect(loaded.when == day(3))
        #expect(loaded.note == "n")
        #expect(loaded.rank == 2)
        #expect(loaded.isDeleted == false)
        #expect(loaded.modelContext === reader)
        // The same instance afterwards: one object per row per context.
        #expect(reader.model(for: id) as? CtxItem === loaded)
        #expect(try reader.fetch(FetchDescriptor<CtxItem>()).first === loaded)
    }

    @Test("CTX-09 model(for:) for a deleted row gives a detectable deleted model and does not crash", arguments: StoreKind.allCases)
    func modelForDeletedRow(_ kind: StoreKind) async throws {
        // Run in a child process so that a trap is reported as a failure instead of killing the run.
        await #expect(processExitsWith: .success) { [kind] in
            let dir = TemporaryDirectory()
            let container = try makeContainer(kind, contextSuiteModels, in: dir)
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
                _ = m.name       // must not trap
                _ = m.n
                _ = m.note
            }
            exit(0)
        }
    }

    // MARK: CTX-10 / CTX-12 notifications

    @Test("CTX-10 willSave then didSave post once per save with the identifier sets", arguments: StoreKind.allCases)
    func saveNotifications(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let container = try container(kind, dir)
        let ctx = ModelContext(container)
        let keep = CtxItem(name: "keep", n: 1)
        let doomed = CtxItem(name: "doomed", n: 2)
        ctx.insert(keep)
        ctx.insert(doomed)
        try ctx.save()

        let recorder = SaveNotificationRecorder(ctx)
        let fresh = CtxItem(name: "fresh", n: 3)
        ctx.insert(fresh)
        keep.n = 10
        let doomedID = doomed.persistentModelID
        ctx.delete(doomed)
        try ctx.save()

        let events = recorder.events
        #expect(events.map(\.name) == [ModelContext.willSave, ModelContext.didSave])
        #expect(recorder.willSaves.first?.hasUserInfo == false)
        let did = try #require(recorder.didSaves.first)
        #expect(did.inserted == [fresh.persistentModelID])
        #expect(did.inserted?.allSatisfy { !$0.isTemporary } == true)
        #expect(did.updated == [keep.persistentModelID])
        #expect(did.deleted == [doomedID])
    }

    @Test("CTX-10 notifications from another context are not delivered to observers of this one", arguments: StoreKind.allCases)
    func notificationsScopedToContext(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let container = try container(kind, dir)
        let watched = ModelContext(container)
        let other = ModelContext(container)
        let recorder = SaveNotificationRecorder(watched)
        other.insert(CtxItem(name: "elsewhere"))
        try other.save()
        #expect(recorder.events.isEmpty)
        watched.insert(CtxItem(name: "here"))
        try watched.save()
        #expect(recorder.didSaves.count == 1)
        #expect(recorder.didSaves.first?.inserted?.count == 1)
    }

    @Test("CTX-12 a save with no changes posts no notifications", arguments: StoreKind.allCases)
    func emptySaveIsSilent(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let container = try container(kind, dir)
        let ctx = ModelContext(container)
        let recorder = SaveNotificationRecorder(ctx)
        try ctx.save()
        #expect(recorder.events.isEmpty)
        ctx.insert(CtxItem(name: "a"))
        try ctx.save()
        #expect(recorder.didSaves.count == 1)
        try ctx.save()
        #expect(recorder.didSaves.count == 1)
        #expect(recorder.willSaves.count == 1)
        // Insert then rollback leaves nothing to save.
        ctx.insert(CtxItem(name: "b"))
        ctx.rollback()
        try ctx.save()
        #expect(recorder.didSaves.count == 1)
    }

    // MARK: CTX-11 cross-context visibility

    @Test("CTX-11 a save in context B is seen by a new fetch in A and refreshes A's unmodified instance", arguments: StoreKind.allCases)
    func crossContextVisibility(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let container = try container(kind, dir)
        let seed = ModelContext(container)
        seed.insert(CtxItem(name: "old", n: 1))
        try seed.save()

        let a = ModelContext(container)
        let b = ModelContext(container)
        let inA = try #require(try a.fetch(FetchDescriptor<CtxItem>()).first)
        #expect(inA.name == "old")
        let inB = try #require(try b.fetch(FetchDescriptor<CtxItem>()).first)
        #expect(inA !== inB)
        inB.name = "new"
        inB.n = 2
        b.insert(CtxItem(name: "added", n: 3))
        try b.save()

        let again = try a.fetch(FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.n)]))
        #expect(again.map(\.name) == ["new", "added"])
        #expect(again.first === inA)
        #expect(inA.name == "new")
        #expect(inA.n == 2)
        #expect(a.hasChanges == false)
        let matching = try a.fetch(FetchDescriptor<CtxItem>(predicate: #Predicate { $0.name == "new" }))
        #expect(matching.count == 1)
        #expect(matching.first === inA)
    }

    @Test("CTX-11 a refetch in A keeps A's own pending change", arguments: StoreKind.allCases)
    func crossContextKeepsPendingChange(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let container = try container(kind, dir)
        let seed = ModelContext(container)
        seed.insert(CtxItem(name: "x", n: 1, score: 1))
        try seed.save()

        let a = ModelContext(container)
        let b = ModelContext(container)
        let inA = try #require(try a.fetch(FetchDescriptor<CtxItem>()).first)
        inA.score = 5
        let inB = try #require(try b.fetch(FetchDescriptor<CtxItem>()).first)
        inB.n = 9
        try b.save()

        _ = try a.fetch(FetchDescriptor<CtxItem>())
        #expect(inA.score == 5)
        #expect(a.hasChanges)
        #expect(a.changedModelsArray.count == 1)
    }

    // MARK: Insert, identity map, lifecycle

    @Test("CTX inserting the same object twice is a no-op", arguments: StoreKind.allCases)
    func doubleInsert(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory()
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
        #expect(try count(CtxItem.self, in: container) == 1)
    }

    @Test("CTX one object per row per context: two fetches return identical instances", arguments: StoreKind.allCases)
    func identityMap(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory()
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
        let dir = TemporaryDirectory()
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
        #expect(try count(CtxItem.self, in: container) == 1)
        try ctx.save()
        #expect(item.isDeleted == false)   // DEL-10: false again after the save, as SwiftData reports
        #expect(item.modelContext == nil)
        #expect(ctx.deletedModelsArray.isEmpty)
        #expect(try count(CtxItem.self, in: container) == 0)
    }

    @Test("CTX deleting an unsaved insert drops it without saving it", arguments: StoreKind.allCases)
    func deleteUnsavedInsert(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory()
        let container = try container(kind, dir)
        let ctx = ModelContext(container)
        let item = CtxItem(name: "brief")
        ctx.insert(item)
        ctx.delete(item)
        #expect(ctx.insertedModelsArray.isEmpty)
        #expect(try ctx.fetch(FetchDescriptor<CtxItem>()).isEmpty)
        try ctx.save()
        #expect(try count(CtxItem.self, in: container) == 0)
    }

    @Test("CTX rollback of a pending delete restores the model", arguments: StoreKind.allCases)
    func rollbackDelete(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory()
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
        #expect(try count(CtxItem.self, in: container) == 1)
    }
}

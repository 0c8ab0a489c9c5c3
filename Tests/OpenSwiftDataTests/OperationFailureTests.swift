import Foundation
import Testing

@testable import OpenSwiftData

@Model final class FailureNote {
    var title: String
    var rank: Int
    init(title: String, rank: Int) {
        self.title = title
        self.rank = rank
    }
}

/// Operations that cannot throw (a property read, a batched fetch's element, autosave,
/// `deleteAllData()`) never turn a store error into an answer: the failure is posted, logged,
/// and a read failure is thrown by the next fetch or save (`OperationFailure`).
///
/// The store error is injected by renaming the model's table behind the context's back
/// (`ALTER TABLE … RENAME TO …`) and renaming it back afterwards.
@Suite("OperationFailure")
struct OperationFailureTests {
    /// Collects the failures posted for `object`.
    final class Recorder: @unchecked Sendable {
        var failures: [OperationFailure] = []
        private var token: NSObjectProtocol?
        init(_ name: Notification.Name, object: AnyObject) {
            token = NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) {
                [unowned self] note in
                if let f = note.userInfo?[OperationFailure.userInfoKey] as? OperationFailure { failures.append(f) }
            }
        }
        deinit { if let token { NotificationCenter.default.removeObserver(token) } }
    }

    /// A container with `count` saved notes titled `note-<i>`, ranked `i`.
    func seeded(_ kind: StoreKind, _ dir: ScratchDirectory, count: Int) throws -> ModelContainer {
        let container = try kind.makeContainer(for: [FailureNote.self], in: dir)
        let context = ModelContext(container)
        for i in 0..<count { context.insert(FailureNote(title: "note-\(i)", rank: i)) }
        try context.save()
        return container
    }

    /// Renames the notes' table away (every read of it fails) or back.
    func hideTable(_ container: ModelContainer, _ hidden: Bool, of type: any PersistentModel.Type = FailureNote.self)
        throws
    {
        let name = container.mapping.table(for: try ModelLayout.of(type))!.name
        let (from, to) = hidden ? (name, name + "_HIDDEN") : (name + "_HIDDEN", name)
        try container.withStoreConnection { try $0.execute("ALTER TABLE \"\(from)\" RENAME TO \"\(to)\"") }
    }

    @Test(
        "a fault fill that fails is reported, stays a fault, and the next fetch throws it once",
        arguments: StoreKind.allCases)
    func faultFill(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "failure-fault")
        let container = try seeded(kind, dir, count: 3)
        let context = ModelContext(container)
        let recorder = Recorder(ModelContext.operationDidFail, object: context)
        let note = try context.fetch(FetchDescriptor<FailureNote>(sortBy: [SortDescriptor(\.rank)]))[1]
        // Unload the attribute, as a fault: the next read goes to the row.
        let slot = try ModelLayout.of(FailureNote.self).slots.first { $0.name == "title" }!.index
        note.persistentBackingData.values[slot] = nil

        try hideTable(container, true)
        #expect(note.title == "")  // the placeholder: the read cannot throw …
        #expect(recorder.failures.map(\.operation) == [.faultFill])  // … but it is reported
        #expect(recorder.failures.first?.error.code == SwiftDataError.storeError.code)
        #expect(recorder.failures.first?.error.entityName == "FailureNote")
        #expect(context.pendingReadFailures.count == 1)
        #expect(!note.isDeleted)
        try hideTable(container, false)

        // The next fetch throws the failure, once.
        #expect { try context.fetchCount(FetchDescriptor<FailureNote>()) } throws: { error in
            let e = error as? SwiftDataError
            return e?.code == SwiftDataError.storeError.code && e?.message.contains("faultFill") == true
        }
        #expect(context.pendingReadFailures.isEmpty)
        #expect(try context.fetchCount(FetchDescriptor<FailureNote>()) == 3)
        #expect(note.title == "note-1")  // still a fault: this read loads the row
    }

    @Test(
        "a save after a failed read throws it first, writes nothing, and the retry saves", arguments: StoreKind.allCases
    )
    func saveAfterFailedRead(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "failure-save")
        let container = try seeded(kind, dir, count: 2)
        let context = ModelContext(container)
        let note = try context.fetch(FetchDescriptor<FailureNote>(sortBy: [SortDescriptor(\.rank)]))[0]
        let slot = try ModelLayout.of(FailureNote.self).slots.first { $0.name == "title" }!.index
        note.persistentBackingData.values[slot] = nil
        try hideTable(container, true)
        _ = note.title
        try hideTable(container, false)
        context.insert(FailureNote(title: "new", rank: 9))
        #expect(throws: SwiftDataError.self) { try context.save() }
        #expect(context.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<FailureNote>()) == 2)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<FailureNote>()) == 3)
    }

    @Test(
        "a batch of fetch(_:batchSize:) that cannot be read is reported, not read as deleted rows",
        arguments: StoreKind.allCases)
    func batchLoad(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "failure-batch")
        let container = try seeded(kind, dir, count: 10)
        let context = ModelContext(container)
        let recorder = Recorder(ModelContext.operationDidFail, object: context)
        let all = try context.fetch(FetchDescriptor<FailureNote>(sortBy: [SortDescriptor(\.rank)]), batchSize: 4)
        #expect(all.count == 10)

        try hideTable(container, true)
        _ = all[5]
        #expect(recorder.failures.first?.operation == .batchLoad)
        #expect(recorder.failures.allSatisfy { $0.error.code == SwiftDataError.storeError.code })
        try hideTable(container, false)
        #expect(throws: SwiftDataError.self) { try context.fetch(FetchDescriptor<FailureNote>()) }

        // The batch was not kept: it is read again, with the stored values.
        #expect(all[5].title == "note-5")
        #expect(!all[5].isDeleted)
        #expect(all.map(\.rank) == Array(0..<10))
        #expect(context.pendingReadFailures.isEmpty)
    }

    @Test(
        "a relationship that cannot be read is reported and not kept; the next read loads it",
        arguments: StoreKind.allCases)
    func relationshipLoad(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "failure-relationship")
        let container = try kind.makeContainer(for: [Word.self, Category.self], in: dir)
        let seed = ModelContext(container)
        let fruit = Category(name: "fruit")
        seed.insert(fruit)
        for text in ["apple", "pear"] {
            let w = Word(text: text)
            seed.insert(w)
            w.category = fruit
        }
        try seed.save()

        let context = ModelContext(container)
        let recorder = Recorder(ModelContext.operationDidFail, object: context)
        let category = try context.fetch(FetchDescriptor<Category>())[0]  // its words are not loaded yet
        try hideTable(container, true, of: Word.self)
        #expect(category.words.isEmpty)  // the read cannot throw …
        #expect(recorder.failures.map(\.operation) == [.relationshipLoad])  // … but it is reported
        #expect(recorder.failures.first?.error.propertyName == "words")
        try hideTable(container, false, of: Word.self)
        #expect(throws: SwiftDataError.self) { try context.fetchCount(FetchDescriptor<Category>()) }
        #expect(category.words.map(\.text).sorted() == ["apple", "pear"])  // not kept: read again
    }

    @Test("a failed autosave is posted, logged and keeps the pending changes", arguments: StoreKind.allCases)
    func autosave(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "failure-autosave")
        let container = try seeded(kind, dir, count: 1)
        let context = container.mainContext
        #expect(context.autosaveEnabled)
        let recorder = Recorder(ModelContext.operationDidFail, object: context)
        context.insert(FailureNote(title: "pending", rank: 1))
        try hideTable(container, true)
        context.processPendingChanges()
        #expect(recorder.failures.map(\.operation) == [.autosave])
        #expect(context.hasChanges)
        #expect(context.pendingReadFailures.isEmpty)  // a save failure is not a read's
        try hideTable(container, false)
        context.processPendingChanges()
        #expect(!context.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<FailureNote>()) == 2)
        #expect(recorder.failures.count == 1)
    }

    @Test(
        "delete rules that cannot read the related rows: reported, nothing autosaved, and the retry cascades",
        arguments: StoreKind.allCases)
    func pendingChanges(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "failure-pending")
        let container = try kind.makeContainer(for: [Word.self, Category.self], in: dir)
        let context = container.mainContext
        let fruit = Category(name: "fruit")
        context.insert(fruit)
        for text in ["apple", "pear"] {
            let w = Word(text: text)
            context.insert(w)
            w.category = fruit
        }
        try context.save()
        let fresh = ModelContext(container)
        let recorder = Recorder(ModelContext.operationDidFail, object: fresh)
        fresh.autosaveEnabled = true
        fresh.delete(try fresh.fetch(FetchDescriptor<Category>())[0])  // cascades to the words, not loaded
        try hideTable(container, true, of: Word.self)
        fresh.processPendingChanges()
        // The delete rules read the words through the relationship, whose failure is reported; the
        // autosave then throws it instead of saving a cascade that missed them.
        #expect(recorder.failures.map(\.operation) == [.relationshipLoad, .autosave])
        #expect(recorder.failures.last?.error.message.contains("relationshipLoad") == true)
        #expect(fresh.hasChanges)
        try hideTable(container, false, of: Word.self)
        fresh.processPendingChanges()
        #expect(!fresh.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Word>()) == 0)
        #expect(recorder.failures.count == 2)
    }

    @Test(
        "a failed deleteAllData() is posted, logged and kept on the container; nothing is deleted",
        arguments: StoreKind.allCases)
    func deleteAllData(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "failure-deleteall")
        let container = try seeded(kind, dir, count: 4)
        let recorder = Recorder(ModelContainer.operationDidFail, object: container)
        #expect(container.lastOperationFailure == nil)
        try hideTable(container, true)
        container.deleteAllData()
        #expect(recorder.failures.map(\.operation) == [.deleteAllData])
        #expect(container.lastOperationFailure?.operation == .deleteAllData)
        #expect(container.lastOperationFailure?.error.code == SwiftDataError.storeError.code)
        try hideTable(container, false)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<FailureNote>()) == 4)
        container.deleteAllData()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<FailureNote>()) == 0)
        #expect(recorder.failures.count == 1)
    }
}

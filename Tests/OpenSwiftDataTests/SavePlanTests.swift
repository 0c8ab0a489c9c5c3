import Foundation
import Testing

@testable import OpenSwiftData

@Model final class SpFolder {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \SpNote.folder) var notes: [SpNote] = []
    init(name: String) { self.name = name }
}

@Model final class SpNote {
    var title: String
    var folder: SpFolder?
    var tag: SpTag?
    init(title: String) { self.title = title }
}

@Model final class SpTag {
    @Attribute(.unique) var label: String
    var uses: Int
    var weight: Double
    init(label: String, uses: Int, weight: Double = 1) {
        self.label = label
        self.uses = uses
        self.weight = weight
    }
}

/// What a save decides per new model without asking the context again: the new models a model's
/// relationships reach (walked at its insert, and again at the save only when a relationship was
/// written since), and whether each new model inserts, upserts or collapses (kept on its storage).
@Suite("Save plan")
struct SavePlanTests {
    @Test(
        "New models linked to an inserted model after its insert are saved with it: by its setter, through an inverse, and one link further (REL-01, REL-02)",
        arguments: StoreKind.allCases)
    func linkedAfterInsert(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "save-plan")
        let container = try kind.makeContainer(for: [SpFolder.self, SpNote.self, SpTag.self], in: dir, name: "store")
        let context = ModelContext(container)
        let folder = SpFolder(name: "inbox")
        context.insert(folder)
        // The folder's own setter, after its insert.
        let a = SpNote(title: "a")
        folder.notes.append(a)
        // The note's setter; the folder's list changes through the inverse (REL-02).
        let b = SpNote(title: "b")
        b.folder = folder
        #expect(folder.notes.map(\.title) == ["a", "b"])
        // One link further: a tag on a note that is itself not inserted yet.
        a.tag = SpTag(label: "red", uses: 1)
        // A model inserted on its own, linked to a new model after its insert.
        let d = SpNote(title: "d")
        context.insert(d)
        d.tag = SpTag(label: "blue", uses: 2)
        try context.save()

        let fresh = ModelContext(container)
        let notes = try fresh.fetch(FetchDescriptor<SpNote>(sortBy: [SortDescriptor(\.title)]))
        #expect(notes.map(\.title) == ["a", "b", "d"])
        #expect(notes.map { $0.folder?.name } == ["inbox", "inbox", nil])
        #expect(notes.map { $0.tag?.label } == ["red", nil, "blue"])
        #expect(try fresh.fetchCount(FetchDescriptor<SpTag>()) == 2)
        let folders = try fresh.fetch(FetchDescriptor<SpFolder>())
        #expect(folders.map { $0.notes.count } == [2])
    }

    @Test(
        "A new model unlinked after its insert is not saved through that link (REL-01)",
        arguments: StoreKind.allCases)
    func unlinkedAfterInsert(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "save-plan")
        let container = try kind.makeContainer(for: [SpFolder.self, SpNote.self, SpTag.self], in: dir, name: "store")
        let context = ModelContext(container)
        let note = SpNote(title: "n")
        note.tag = SpTag(label: "gone", uses: 0)
        context.insert(note)  // inserts the tag too (REL-01)
        let kept = SpTag(label: "kept", uses: 1)
        note.tag = kept
        try context.save()
        let labels = try ModelContext(container).fetch(FetchDescriptor<SpTag>(sortBy: [SortDescriptor(\.label)]))
            .map(\.label)
        // The first tag was inserted with the note and stays inserted (SwiftData keeps an
        // inserted model); the second is reached at the save.
        #expect(labels == ["gone", "kept"])
    }

    @Test(
        "Upserts and collapses after a save that failed: the failed save wrote nothing, the next one adopts the stored row's key and version (UNQ-10, UNQ-19)",
        arguments: StoreKind.allCases)
    func upsertAfterFailedSave(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "save-plan")
        let container = try kind.makeContainer(for: [SpFolder.self, SpNote.self, SpTag.self], in: dir, name: "store")
        let seed = ModelContext(container)
        seed.insert(SpTag(label: "x", uses: 1))
        try seed.save()
        let storedID = try seed.fetch(FetchDescriptor<SpTag>()).first!.persistentModelID

        let context = ModelContext(container)
        let x = SpTag(label: "x", uses: 5)  // matches the stored row
        let y1 = SpTag(label: "y", uses: 1)
        let y2 = SpTag(label: "y", uses: 2)  // collapses y1 into itself
        let bad = SpTag(label: "z", uses: 3, weight: .nan)
        for tag in [x, y1, y2, bad] { context.insert(tag) }
        #expect(throws: SwiftDataError.self) { try context.save() }
        // Nothing written, everything still pending.
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<SpTag>()) == 1)
        #expect(context.insertedModelsArray.count == 4)

        bad.weight = 3
        try context.save()
        let tags = try ModelContext(container).fetch(FetchDescriptor<SpTag>(sortBy: [SortDescriptor(\.label)]))
        #expect(tags.map(\.label) == ["x", "y", "z"])
        #expect(tags.map(\.uses) == [5, 2, 3])
        // The upsert updated the stored row: same key, one version more.
        #expect(x.persistentModelID == storedID)
        #expect(x.persistentBackingData.version == 2)
        #expect(y2.persistentBackingData.version == 1)
        // The collapsed model shows the row its later twin wrote.
        #expect(y1.persistentModelID == y2.persistentModelID)
        #expect(y1.uses == 2)
        #expect(!context.hasChanges)
    }
}

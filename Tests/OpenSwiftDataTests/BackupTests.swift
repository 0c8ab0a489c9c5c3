import Foundation
import OpenSwiftData
import Testing

/// `ModelContainer.backup(to:)` copies either store kind to a file that reopens with the same rows.
@Suite("Backup to a file")
struct BackupTests {
    @Test(
        "backup (an OpenSwiftData addition, no SwiftData counterpart) of each store kind reopens on disk and restores into memory with the same rows",
        arguments: StoreKind.allCases)
    func roundTrip(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let container = try kind.makeContainer(for: [Category.self, Word.self], in: dir)
        let context = ModelContext(container)
        let c = Category(name: "fruit")
        context.insert(c)
        for w in ["apple", "pear", "fig"] {
            let word = Word(text: w)
            context.insert(word)
            word.category = c
        }
        try context.save()
        context.insert(Word(text: "unsaved"))  // pending changes are not part of the backup

        let url = dir.url.appendingPathComponent("backup.sqlite")
        try container.backup(to: url)
        let reopened = try ModelContainer(for: Category.self, Word.self, configurations: ModelConfiguration(url: url))
        let words = try ModelContext(reopened).fetch(FetchDescriptor<Word>(sortBy: [SortDescriptor(\.text)]))
        #expect(words.map(\.text) == ["apple", "fig", "pear"])
        #expect(words.allSatisfy { $0.category?.name == "fruit" })

        let memory = try ModelContainer(
            for: Category.self, Word.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        try memory.restore(from: url)
        #expect(try ModelContext(memory).fetchCount(FetchDescriptor<Word>()) == 3)
    }

    @Test("backup (an OpenSwiftData addition) refuses an existing file and leaves it unchanged")
    func existingFile() throws {
        let dir = try ScratchDirectory()
        let container = try StoreKind.memory.makeContainer(for: [Category.self, Word.self], in: dir)
        let url = dir.url.appendingPathComponent("taken.sqlite")
        try Data("keep me".utf8).write(to: url)
        let error = #expect(throws: SwiftDataError.self) { try container.backup(to: url) }
        #expect(error?.code == SwiftDataError.storeError.code)
        #expect(try Data(contentsOf: url) == Data("keep me".utf8))
    }
}

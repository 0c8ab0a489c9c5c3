import Foundation
import Testing

@testable import OpenSwiftData

/// `enumerate` holds one batch at a time: what it registered and nothing references is released
/// after its batch, and what is still referenced stays registered, so the context keeps one
/// object per row (the visiting order and batching themselves: the fetching suite's enumerate case).
@Suite("Enumerate memory")
struct EnumerateMemoryTests {
    /// 300 words, one in ten in a category; a fresh context over the store.
    func words(_ kind: StoreKind, _ dir: ScratchDirectory) throws -> ModelContext {
        let container = try kind.makeContainer(for: [Word.self, Category.self], in: dir)
        let writer = ModelContext(container)
        let category = Category(name: "tens")
        writer.insert(category)
        for n in 1...300 {
            let word = Word(text: "w\(n)")
            writer.insert(word)
            if n % 10 == 0 { word.category = category }
        }
        try writer.save()
        return ModelContext(container)
    }

    @Test("models nothing references are released after their batch", arguments: StoreKind.allCases)
    func releasesUnreferenced(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "enumerate")
        let context = try words(kind, dir)
        var visited = 0
        var largestRegistered = 0
        try context.enumerate(FetchDescriptor<Word>(sortBy: [SortDescriptor(\.text)]), batchSize: 50) { word in
            visited += 1
            _ = word.length
            largestRegistered = max(largestRegistered, context.registered.count)
        }
        #expect(visited == 300)
        #expect(largestRegistered <= 50, "at most one batch registered at a time, saw \(largestRegistered)")
        #expect(context.registered.count == 0)
        // Enumerating again reads the same rows.
        var texts: [String] = []
        try context.enumerate(FetchDescriptor<Word>(sortBy: [SortDescriptor(\.text)]), batchSize: 50) {
            texts.append($0.text)
        }
        #expect(texts == (1...300).map { "w\($0)" })
    }

    @Test(
        "A negative offset counts as 0 for fetch, fetchCount, fetchIdentifiers and enumerate, also while enumerate pages through pending changes: each row once (FET-02, FET-10)",
        arguments: StoreKind.allCases)
    func negativeOffset(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "enumerate-offset")
        let context = try words(kind, dir)
        var descriptor = FetchDescriptor<Word>(sortBy: [SortDescriptor(\.text)])
        descriptor.fetchOffset = -3
        descriptor.fetchLimit = 25
        let expected = (1...300).map { "w\($0)" }.prefix(25)  // SortDescriptor(\.text): numbers by value (FET-06)
        #expect(try context.fetch(descriptor).map(\.text) == Array(expected))
        #expect(try context.fetchCount(descriptor) == 25)
        #expect(try context.fetchIdentifiers(descriptor) == context.fetch(descriptor).map(\.persistentModelID))
        var visited: [String] = []
        try context.enumerate(descriptor, batchSize: 10) { visited.append($0.text) }
        #expect(visited == Array(expected))
        // A pending insert of this kind: enumerate pages with fetchOffset/fetchLimit (FET-07).
        context.insert(Word(text: "w0"))
        visited = []
        try context.enumerate(descriptor, batchSize: 10, allowEscapingMutations: true) { visited.append($0.text) }
        #expect(visited == Array((["w0"] + expected).prefix(25)))
    }

    @Test(
        "models the caller keeps, or that a loaded relationship reaches, stay registered: one object per row",
        arguments: StoreKind.allCases)
    func keepsReferenced(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "enumerate")
        let context = try words(kind, dir)
        let registeredBefore = try context.fetch(FetchDescriptor<Word>(predicate: #Predicate { $0.text == "w7" }))
        var kept: [Word] = []
        var categories: [Category] = []
        try context.enumerate(FetchDescriptor<Word>(), batchSize: 40) { word in
            if word.text == "w3" || word.text == "w250" { kept.append(word) }
            // Loading a word's category registers it; the category's loaded words refer back.
            if word.text == "w20", let category = word.category {
                categories.append(category)
                _ = category.words.count
            }
        }
        for word in kept + registeredBefore {
            let text = word.text
            let again = try context.fetch(FetchDescriptor<Word>(predicate: #Predicate { $0.text == text }))
            #expect(again.first === word, "\(word.text) is the same object after enumerate")
        }
        // The category's words (loaded from the category) are the objects the context returns.
        let tens = try #require(categories.first).words
        #expect(tens.count == 30)
        for word in tens.prefix(3) {
            let text = word.text
            let again = try context.fetch(FetchDescriptor<Word>(predicate: #Predicate { $0.text == text }))
            #expect(again.first === word)
        }
        // Changes made while enumerating (allowEscapingMutations) are kept and saved.
        try context.enumerate(
            FetchDescriptor<Word>(predicate: #Predicate { $0.length == 2 }), batchSize: 3,
            allowEscapingMutations: true
        ) { $0.length = 20 }
        #expect(context.hasChanges)
        try context.save()
        let fresh = ModelContext(context.container)
        #expect(try fresh.fetchCount(FetchDescriptor<Word>(predicate: #Predicate { $0.length == 20 })) == 9)
    }

    @Test(
        "fetch(_:batchSize:) holds at most two batches; what it registered and nothing references leaves with its batch",
        arguments: StoreKind.allCases)
    func batchedFetchHoldsTwoBatches(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "batched")
        let context = try words(kind, dir)
        let all = try context.fetch(FetchDescriptor<Word>(sortBy: [SortDescriptor(\.text)]), batchSize: 50)
        #expect(all.count == 300)
        var texts: [String] = []
        var largestRegistered = 0
        for word in all {
            texts.append(word.text)
            largestRegistered = max(largestRegistered, context.registered.count)
        }
        #expect(texts == (1...300).map { "w\($0)" })
        let kept = FetchResultsCollection<Word>.batchesKept * 50
        #expect(largestRegistered <= kept, "at most two batches registered at a time, saw \(largestRegistered)")
        // Going back reads the rows again, in the same order.
        #expect(all[0].text == texts[0])
        #expect(all[299].text == texts[299])
        #expect(Array(all.map(\.text)) == texts)
    }

    @Test(
        "models of a batched fetch that the caller keeps stay registered after their batch is dropped: one object per row",
        arguments: StoreKind.allCases)
    func batchedFetchKeepsReferenced(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "batched")
        let context = try words(kind, dir)
        let all = try context.fetch(FetchDescriptor<Word>(sortBy: [SortDescriptor(\.text)]), batchSize: 40)
        let first = all[0]
        let changed = all[1]
        changed.length = 99  // a pending change keeps it too
        for word in all { _ = word.text }  // every batch loaded; the first one dropped long ago
        #expect(all[0] === first, "the kept model is the one the collection returns again")
        #expect(all[1] === changed)
        let text = first.text
        #expect(try context.fetch(FetchDescriptor<Word>(predicate: #Predicate { $0.text == text })).first === first)
        try context.save()
        let fresh = ModelContext(context.container)
        #expect(try fresh.fetchCount(FetchDescriptor<Word>(predicate: #Predicate { $0.length == 99 })) == 1)
    }
}

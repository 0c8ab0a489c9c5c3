import Foundation
import Testing

@testable import OpenSwiftData

/// `enumerate` and `fetch(_:batchSize:)` read the keys first and then each batch by key: a run
/// of consecutive keys with `BETWEEN`, scattered keys with `IN`. These cases cross the batch
/// boundaries of both reads and the rows that change between the keys and their batch.
@Suite("Streaming reads")
struct StreamingReadTests {
    /// 300 words `w1`…`w300`; a fresh context over the store.
    func words(_ kind: StoreKind, _ dir: ScratchDirectory) throws -> ModelContext {
        let container = try kind.makeContainer(for: [Word.self, Category.self], in: dir)
        let writer = ModelContext(container)
        for n in 1...300 { writer.insert(Word(text: "w\(n)")) }
        try writer.save()
        return ModelContext(container)
    }

    /// Descriptors whose keys come in one run, several runs, or no runs at all (reverse order).
    func descriptors() -> [(String, FetchDescriptor<Word>)] {
        var paged = FetchDescriptor<Word>(sortBy: [SortDescriptor(\.text)])
        paged.fetchOffset = 17
        paged.fetchLimit = 200
        func unsorted(offset: Int?, limit: Int?) -> FetchDescriptor<Word> {
            var d = FetchDescriptor<Word>()
            d.fetchOffset = offset
            d.fetchLimit = limit
            return d
        }
        return [
            ("unsorted paged", unsorted(offset: 17, limit: 200)),
            ("unsorted offset", unsorted(offset: 290, limit: nil)),
            ("unsorted limit", unsorted(offset: nil, limit: 5)),
            ("negative offset", unsorted(offset: -3, limit: 25)),
            ("limit past the end", unsorted(offset: 250, limit: .max)),
            ("offset past the end", unsorted(offset: 400, limit: 10)),
            ("all", FetchDescriptor<Word>()),
            ("reverse", FetchDescriptor<Word>(sortBy: [SortDescriptor(\.text, order: .reverse)])),
            ("two runs", FetchDescriptor<Word>(predicate: #Predicate { $0.length != 3 })),
            ("one run", FetchDescriptor<Word>(predicate: #Predicate { $0.length == 3 })),
            ("paged", paged),
        ]
    }

    @Test(
        "enumerate and fetch(_:batchSize:) give the unbatched fetch's models in its order at every batch size (FET-10, FET-11)",
        arguments: StoreKind.allCases)
    func batchBoundaries(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "stream")
        let context = try words(kind, dir)
        for (name, descriptor) in descriptors() {
            let expected = try ModelContext(context.container).fetch(descriptor).map(\.text)
            #expect(!expected.isEmpty || name == "offset past the end", "\(name)")
            for size in [1, 7, 64, 89, 299, 300, 301] {
                var visited: [String] = []
                try context.enumerate(descriptor, batchSize: size) { visited.append($0.text) }
                #expect(visited == expected, "enumerate \(name), batchSize \(size)")
                let collection = try context.fetch(descriptor, batchSize: size)
                #expect(collection.count == expected.count)
                #expect(collection.map(\.text) == expected, "fetch(batchSize:) \(name), batchSize \(size)")
                // Backwards across every boundary, then one batch after the other again.
                #expect(collection.reversed().map(\.text) == expected.reversed(), "\(name), batchSize \(size)")
            }
        }
        #expect(context.registered.count <= 2 * 301)
    }

    @Test(
        "a batched fetch that goes away leaves in the context only the models something still references (FET-11)",
        arguments: StoreKind.allCases)
    func droppedCollectionReleasesItsBatches(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "stream")
        let context = try words(kind, dir)
        #expect(context.registered.count == 0)
        var kept: [Word] = []
        do {
            let collection = try context.fetch(FetchDescriptor<Word>(), batchSize: 50)
            var visited = 0
            for word in collection {
                visited += 1
                if word.text == "w7" || word.text == "w300" { kept.append(word) }
            }
            #expect(visited == collection.count && collection.count > 100)
            #expect(context.registered.count > 2, "the last two batches are held while the collection is")
        }
        // The two models the caller kept; the rest of the held batches left with the collection.
        #expect(context.registered.count == 2, "\(context.registered.count) registered")
        #expect(Set(kept.map(\.text)).count == 2)
        // Read again, a kept model is the same object.
        let again = try context.fetch(FetchDescriptor<Word>(predicate: #Predicate { $0.text == "w7" }))
        #expect(again.first === kept.first { $0.text == "w7" })
    }

    @Test(
        "a model registered before the read is the object enumerate and the batched fetch give, and it stays registered (FET-10, FET-11)",
        arguments: StoreKind.allCases)
    func registeredIdentity(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "stream")
        let context = try words(kind, dir)
        let held = try context.fetch(
            FetchDescriptor<Word>(predicate: #Predicate { $0.text == "w42" || $0.text == "w250" }))
        #expect(held.count == 2)
        var seen: [Word] = []
        try context.enumerate(FetchDescriptor<Word>(), batchSize: 16) { word in
            if word.text == "w42" || word.text == "w250" { seen.append(word) }
        }
        #expect(seen.count == 2)
        #expect(seen.allSatisfy { word in held.contains { $0 === word } })
        let collection = try context.fetch(FetchDescriptor<Word>(), batchSize: 16)
        #expect(collection[41] === held.first { $0.text == "w42" })
        #expect(collection[249] === held.first { $0.text == "w250" })
        for word in collection { _ = word.length }
        #expect(collection[41] === held.first { $0.text == "w42" }, "still the same object after its batch was dropped")
        let registered: Word? = context.registeredModel(for: held[0].persistentModelID)
        #expect(registered === held[0])
    }

    @Test(
        "rows deleted after the keys were read: enumerate skips them, the batched fetch's other positions keep their models (FET-10, FET-11)",
        arguments: StoreKind.allCases)
    func rowsDeletedMeanwhile(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "stream")
        let context = try words(kind, dir)
        let gone: Set<String> = ["w2", "w150", "w151", "w152", "w300"]
        func deleteGone() throws {
            let other = ModelContext(context.container)
            for word in try other.fetch(FetchDescriptor<Word>()) where gone.contains(word.text) { other.delete(word) }
            try other.save()
        }
        var visited: [String] = []
        try context.enumerate(FetchDescriptor<Word>(), batchSize: 100) { word in
            if visited.isEmpty { try deleteGone() }
            visited.append(word.text)
        }
        // The first batch was read before the delete: its rows are visited, later batches skip theirs.
        #expect(visited == (1...300).map { "w\($0)" }.filter { !gone.contains($0) || $0 == "w2" })

        let dir2 = try ScratchDirectory(prefix: "stream")
        let fresh = try words(kind, dir2)
        let collection = try fresh.fetch(FetchDescriptor<Word>(sortBy: [SortDescriptor(\.text)]), batchSize: 100)
        let ids = try fresh.fetchIdentifiers(FetchDescriptor<Word>(sortBy: [SortDescriptor(\.text)]))
        let other = ModelContext(fresh.container)
        for word in try other.fetch(FetchDescriptor<Word>()) where gone.contains(word.text) { other.delete(word) }
        try other.save()
        #expect(collection.count == 300)
        for i in collection.indices {
            let word = collection[i]
            #expect(word.persistentModelID == ids[i], "position \(i)")
            if !gone.contains("w\(i + 1)") { #expect(word.text == "w\(i + 1)", "position \(i)") }
        }
    }

    @Test(
        "enumerate skips a model of its batch that the block deleted, and visits it again once the delete is rolled back (FET-10)",
        arguments: StoreKind.allCases)
    func blockDeletesLaterModel(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "stream")
        let context = try words(kind, dir)
        // Each visit of a multiple of ten deletes the next word, a later model of the same batch.
        let byText = Dictionary(uniqueKeysWithValues: try context.fetch(FetchDescriptor<Word>()).map { ($0.text, $0) })
        var visited: [String] = []
        try context.enumerate(FetchDescriptor<Word>(), batchSize: 100, allowEscapingMutations: true) { word in
            visited.append(word.text)
            let n = Int(word.text.dropFirst())!
            if n % 10 == 0, let next = byText["w\(n + 1)"] { context.delete(next) }
        }
        let skipped = Set((1...29).map { "w\($0 * 10 + 1)" })
        #expect(visited == (1...300).map { "w\($0)" }.filter { !skipped.contains($0) })
        context.rollback()
        // No pending delete any more: every model is visited, the ones rolled back too.
        visited = []
        try context.enumerate(FetchDescriptor<Word>(), batchSize: 100) { visited.append($0.text) }
        #expect(visited == (1...300).map { "w\($0)" })
    }

    @Test(
        "saves during enumerate: every row once, later batches read the saved values, rows inserted meanwhile are not visited (FET-10)",
        arguments: StoreKind.allCases)
    func saveDuringEnumerate(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "stream")
        let context = try words(kind, dir)
        var visited: [String] = []
        var lengthOf120 = 0
        try context.enumerate(FetchDescriptor<Word>(), batchSize: 40, allowEscapingMutations: true) { word in
            visited.append(word.text)
            if word.text == "w120" { lengthOf120 = word.length }
            word.length = 1_000
            if visited.count == 50 {
                // Another context changes a row of a later batch; this one saves its own changes.
                let other = ModelContext(context.container)
                let later = try other.fetch(FetchDescriptor<Word>(predicate: #Predicate { $0.text == "w120" }))
                later.first?.length = 777
                try other.save()
            }
            if visited.count % 50 == 0 {
                context.insert(Word(text: "new\(visited.count)"))
                try context.save()
            }
        }
        #expect(visited == (1...300).map { "w\($0)" })
        #expect(lengthOf120 == 777, "a later batch reads the values saved meanwhile")
        try context.save()
        let check = ModelContext(context.container)
        #expect(try check.fetchCount(FetchDescriptor<Word>(predicate: #Predicate { $0.length == 1_000 })) == 300)
        #expect(try check.fetchCount(FetchDescriptor<Word>()) == 306)
    }

    @Test(
        "rows of subclass entities in a batch come back as their own classes, as the unbatched fetch gives them (FET-10, FET-11, INH-01)",
        arguments: StoreKind.allCases)
    func subclassRows(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "stream")
        let container = try kind.makeContainer(for: integrityModels, in: dir)
        let writer = ModelContext(container)
        for i in 0..<24 {
            let trip: Trip =
                switch i % 3 {
                case 0: Trip(name: "t\(i)", days: i)
                case 1: BusinessTrip(name: "b\(i)", days: i, perdiem: 1)
                default: PersonalTrip(name: "p\(i)", days: i, reason: "r")
                }
            writer.insert(trip)
        }
        try writer.save()
        func describe(_ trip: Trip) -> String { "\(trip.name):\(String(describing: type(of: trip)))" }
        let expected = try ModelContext(container).fetch(FetchDescriptor<Trip>()).map(describe)
        #expect(expected.count == 24)
        let context = ModelContext(container)
        var visited: [String] = []
        try context.enumerate(FetchDescriptor<Trip>(), batchSize: 5) { visited.append(describe($0)) }
        #expect(visited == expected)
        #expect(try context.fetch(FetchDescriptor<Trip>(), batchSize: 5).map(describe) == expected)
        let business = try context.fetch(FetchDescriptor<BusinessTrip>(), batchSize: 3).map(describe)
        #expect(business == expected.filter { $0.hasSuffix(":BusinessTrip") })
    }

    @Test(
        "an unsorted batched fetch reads no keys when they have no gaps, and reads them when rows left gaps (FET-11)",
        arguments: StoreKind.allCases)
    func unsortedKeysWithAndWithoutGaps(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "stream")
        let context = try words(kind, dir)
        let recorder = TraceRecorder()
        try context.container.setSQLTrace { recorder.record($0) }
        let unsorted = descriptors().filter { $0.1.predicate == nil && $0.1.sortBy.isEmpty }
        #expect(unsorted.count == 7)
        func check(_ label: String) throws {
            for (name, descriptor) in unsorted {
                let expected = try ModelContext(context.container).fetch(descriptor).map(\.text)
                for size in [1, 7, 300] {
                    let collection = try context.fetch(descriptor, batchSize: size)
                    #expect(collection.count == expected.count, "\(label) \(name), batchSize \(size)")
                    #expect(collection.map(\.text) == expected, "\(label) \(name), batchSize \(size)")
                }
            }
        }
        try check("no gaps")
        let keyLists = { recorder.statements.filter { $0.hasPrefix("SELECT t.\"Z_PK\" FROM") } }
        #expect(keyLists().isEmpty, "\(keyLists())")
        // The first and the last row, and a run in the middle, leave gaps.
        let gone: Set<String> = ["w1", "w2", "w100", "w101", "w102", "w300"]
        let other = ModelContext(context.container)
        for word in try other.fetch(FetchDescriptor<Word>()) where gone.contains(word.text) { other.delete(word) }
        try other.save()
        recorder.clear()
        try check("gaps")
        #expect(!keyLists().isEmpty)
        try context.container.setSQLTrace(nil)
    }

    @Test("a batch larger than one statement reads is still one batch, in key order (FET-10)")
    func batchOfSeveralReads() throws {
        let dir = try ScratchDirectory(prefix: "stream")
        let container = try StoreKind.memory.makeContainer(for: [Word.self, Category.self], in: dir)
        let writer = ModelContext(container)
        let rows = ModelContext.rowsPerRangeRead + 16
        for n in 1...rows { writer.insert(Word(text: "w\(n)")) }
        try writer.save()
        let context = ModelContext(container)
        var visited = 0
        var inOrder = true
        var registeredAtStart: [Int] = []
        let size = ModelContext.rowsPerRangeRead + 6
        try context.enumerate(FetchDescriptor<Word>(), batchSize: size) { word in
            if visited % size == 0 { registeredAtStart.append(context.registered.count) }
            visited += 1
            inOrder = inOrder && word.text == "w\(visited)"
        }
        #expect(visited == rows)
        #expect(inOrder)
        #expect(registeredAtStart == [size, rows - size], "one batch registered at a time")
    }
}

// Models that leave out `inverse:` get their pairs as SwiftData infers them: a to-one against a
// to-many (or a to-one) of the other class is paired; two arrays of each other are not.
import Foundation
import SwiftData
import Testing

@Model
final class Shelf {
    var label: String
    var books: [Volume] = []
    init(label: String) { self.label = label }
}

@Model
final class Volume {
    var title: String
    var shelf: Shelf?
    var cover: Cover?
    var readers: [Reader] = []
    init(title: String) { self.title = title }
}

@Model
final class Cover {
    var colour: String
    var volume: Volume?
    init(colour: String) { self.colour = colour }
}

@Model
final class Reader {
    var name: String
    var volumes: [Volume] = []
    init(name: String) { self.name = name }
}

@Suite("Compatibility: inverses inferred where SwiftData infers them")
struct InferredInverseTests {
    private func container(inMemory: Bool, url: URL) throws -> ModelContainer {
        let config = inMemory ? ModelConfiguration(isStoredInMemoryOnly: true) : ModelConfiguration(url: url)
        return try ModelContainer(for: Shelf.self, Cover.self, Reader.self, configurations: config)
    }

    @Test("REL-06 one-to-many and one-to-one pairs without inverse: are inferred", arguments: [true, false])
    func toOnePairsAreInferred(inMemory: Bool) throws {
        let url = URL.temporaryDirectory.appending(path: "shelves-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        let container = try container(inMemory: inMemory, url: url)
        let schema = container.schema
        #expect(schema.entity(for: Shelf.self)?.relationshipsByName["books"]?.inverseName == "shelf")
        #expect(schema.entity(for: Volume.self)?.relationshipsByName["cover"]?.inverseName == "volume")

        let context = ModelContext(container)
        let shelf = Shelf(label: "Fiction")
        context.insert(shelf)
        let volume = Volume(title: "Dune")
        shelf.books.append(volume)
        #expect(volume.shelf === shelf)
        let cover = Cover(colour: "ochre")
        volume.cover = cover
        #expect(cover.volume === volume)
        try context.save()

        let fresh = ModelContext(container)
        let stored = try #require(try fresh.fetch(FetchDescriptor<Volume>()).first)
        #expect(stored.shelf?.label == "Fiction")
        #expect(stored.cover?.volume?.title == "Dune")
    }

    @Test("REL-06 two arrays of each other without inverse: are two one-way relationships", arguments: [true, false])
    func manyToManyIsNotInferred(inMemory: Bool) throws {
        let url = URL.temporaryDirectory.appending(path: "readers-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        let container = try container(inMemory: inMemory, url: url)
        #expect(container.schema.entity(for: Reader.self)?.relationshipsByName["volumes"]?.inverseName == nil)
        #expect(container.schema.entity(for: Volume.self)?.relationshipsByName["readers"]?.inverseName == nil)

        let context = ModelContext(container)
        let reader = Reader(name: "Ada")
        let volume = Volume(title: "Dune")
        context.insert(reader)
        context.insert(volume)
        try context.save()
        reader.volumes.append(volume)
        #expect(volume.readers.isEmpty)
        try context.save()
        #expect(volume.readers.isEmpty)

        let fresh = ModelContext(container)
        let storedReader = try #require(try fresh.fetch(FetchDescriptor<Reader>()).first)
        #expect(storedReader.volumes.map(\.title) == ["Dune"])
        let storedVolume = try #require(try fresh.fetch(FetchDescriptor<Volume>()).first)
        #expect(storedVolume.readers.isEmpty)

        // The other direction is its own relationship, with its own members.
        storedVolume.readers.append(storedReader)
        try fresh.save()
        let third = ModelContext(container)
        #expect(try third.fetch(FetchDescriptor<Volume>()).first?.readers.map(\.name) == ["Ada"])
        #expect(try third.fetch(FetchDescriptor<Reader>()).first?.volumes.map(\.title) == ["Dune"])
    }
}

/// A many-to-many pair as a store holds it when one side declares the inverse.
enum PairedRelease {
    @Model
    final class Author {
        var name: String
        @Relationship(inverse: \Essay.authors) var essays: [Essay] = []
        init(name: String) { self.name = name }
    }

    @Model
    final class Essay {
        var title: String
        var authors: [Author] = []
        init(title: String) { self.title = title }
    }
}

/// The same classes with neither side declaring the inverse: two one-way relationships.
enum UnpairedRelease {
    @Model
    final class Author {
        var name: String
        var essays: [Essay] = []
        init(name: String) { self.name = name }
    }

    @Model
    final class Essay {
        var title: String
        var authors: [Author] = []
        init(title: String) { self.title = title }
    }
}

@Suite("Compatibility: a store whose many-to-many pair loses its inverse")
struct UnpairedManyToManyStoreTests {
    /// A store whose authors and essays were linked through a join table.
    private func pairedStore() throws -> URL {
        let url = URL.temporaryDirectory.appending(path: "essays-\(UUID().uuidString).store")
        let container = try ModelContainer(for: PairedRelease.Author.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let ada = PairedRelease.Author(name: "Ada")
        let bob = PairedRelease.Author(name: "Bob")
        context.insert(ada)
        context.insert(bob)
        let essay = PairedRelease.Essay(title: "Engines")
        ada.essays.append(essay)
        bob.essays.append(essay)
        try context.save()
        return url
    }

    @Test("REL-06 MIG-34 a join table's links cannot move to one-way keys: refused, the store unchanged")
    func refusesToDropLinks() throws {
        let url = try pairedStore()
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) } }
        let before = try Data(contentsOf: url)
        let error = try #require(throws: SwiftDataError.self) {
            _ = try ModelContainer(for: UnpairedRelease.Author.self, configurations: ModelConfiguration(url: url))
        }
        #expect(error.code == SwiftDataError.incompatibleSchema.code)
        #expect("\(error)".contains("Author.essays was stored as a many-to-many pair"))
        #expect("\(error)".contains("Declare `inverse:`"))
        #expect(try Data(contentsOf: url) == before)

        // The models that declare the inverse still read every link.
        let container = try ModelContainer(for: PairedRelease.Author.self, configurations: ModelConfiguration(url: url))
        let essays = try ModelContext(container).fetch(FetchDescriptor<PairedRelease.Essay>())
        #expect(essays.map { Set($0.authors.map(\.name)) } == [["Ada", "Bob"]])
    }

    @Test("REL-06 MIG-34 one-way to-manys cannot become a join table's pairs: refused, the store unchanged")
    func refusesToMergeLinks() throws {
        let url = URL.temporaryDirectory.appending(path: "essays-\(UUID().uuidString).store")
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) } }
        do {
            let container = try ModelContainer(
                for: UnpairedRelease.Author.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let ada = UnpairedRelease.Author(name: "Ada")
            context.insert(ada)
            ada.essays.append(UnpairedRelease.Essay(title: "Engines"))
            try context.save()
        }
        let before = try Data(contentsOf: url)
        let error = try #require(throws: SwiftDataError.self) {
            _ = try ModelContainer(for: PairedRelease.Author.self, configurations: ModelConfiguration(url: url))
        }
        #expect("\(error)".contains("was stored as a relationship without a many-to-many inverse"))
        #expect(try Data(contentsOf: url) == before)
    }
}

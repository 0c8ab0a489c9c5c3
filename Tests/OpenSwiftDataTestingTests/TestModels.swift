import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

// Models of a "test author": a fixture of their own types.

@Model final class Shelf {
    @Attribute(.unique) var name: String
    @Relationship(deleteRule: .cascade, inverse: \Book.shelf) var books: [Book] = []
    init(name: String) { self.name = name }
}

@Model class Book {
    var title: String
    var pages: Int
    var shelf: Shelf?
    @Relationship(inverse: \Label.books) var labels: [Label] = []
    init(title: String, pages: Int) {
        self.title = title
        self.pages = pages
    }
}

@Model final class Comic: Book {
    var artist: String
    init(title: String, pages: Int, artist: String) {
        self.artist = artist
        super.init(title: title, pages: pages)
    }
}

@Model final class Label {
    var text: String
    var books: [Book] = []
    init(text: String) { self.text = text }
}

/// Two versions of one model: the second adds a field.
@Model final class GadgetV1 {
    var name: String
    var price: Double
    init(name: String, price: Double) {
        self.name = name
        self.price = price
    }
}

@Model final class GadgetV2 {
    var name: String
    var colour: String
    var price: Double
    init(name: String, colour: String, price: Double) {
        self.name = name
        self.colour = colour
        self.price = price
    }
}

func library(seed: UInt64, books: Int = 300, batchSize: Int = 10_000) -> Fixture {
    var f = Fixture(seed: seed) {
        Generate(Shelf.self, count: 12) { row in Shelf(name: "\(row.word("name")) \(row.index)") }
        Generate(Label.self, count: 8) { row in Label(text: row.word("text")) }
        Generate(Book.self, count: books, parent: \.shelf, fanOut: .zipf(0.99)) { row in
            let title = row.words("title", count: .uniform(1...4))
            let pages = row.int("pages", .normal(mean: 300, standardDeviation: 80, in: 20...2_000))
            if row.weighted("kind", [3, 1]) == 1 {
                return Comic(title: title, pages: pages, artist: row.personName("artist"))
            }
            return Book(title: title, pages: pages)
        }
        .linking(\.labels, count: .uniform(0...3))
    }
    f.batchSize = batchSize
    return f
}

let librarySchema = Schema([Shelf.self, Book.self, Comic.self, Label.self])

func memoryContainer(_ schema: Schema) throws -> ModelContainer {
    try ModelContainer(for: schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
}

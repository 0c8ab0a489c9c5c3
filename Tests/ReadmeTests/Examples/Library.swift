import OpenSwiftData
import OpenSwiftDataTesting

@Model final class Shelf {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Book.shelf) var books: [Book] = []
    init(name: String) { self.name = name }
}

@Model final class Book {
    var title: String
    var pages: Int
    var shelf: Shelf?
    init(title: String, pages: Int) {
        self.title = title
        self.pages = pages
    }
}

/// 12 shelves and 2,000 books spread over them, the same rows on every run and every machine.
let fixture = Fixture(seed: 42) {
    Generate(Shelf.self, count: 12) { row in Shelf(name: row.word("name")) }
    Generate(Book.self, count: 2_000, parent: \.shelf, children: \.books, fanOut: .zipf(0.99)) { row in
        Book(title: row.words("title", count: .uniform(1...4)), pages: row.int("pages", in: 20...900))
    }
}

/// Writes the fixture as a store file plus `<file>.manifest.json`, then opens a private copy.
func writeLibrary(to url: URL) throws -> Int {
    let schema = Schema([Shelf.self, Book.self])
    try FixtureFile.write(fixture, schema: schema, name: "library", scale: 2_000, to: url)
    let db = try FixtureDatabase(contentsOf: url, schema: schema, store: .memory)  // a private copy
    return try ModelContext(db.container).fetchCount(FetchDescriptor<Book>())  // 2000
}

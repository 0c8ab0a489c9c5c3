import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

@Model final class RShelf {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \RBook.shelf) var books: [RBook] = []
    init(name: String) { self.name = name }
}

@Model final class RBook {
    var title: String
    var pages: Int
    var shelf: RShelf?
    init(title: String, pages: Int) {
        self.title = title
        self.pages = pages
    }
}

/// The README's fixture example, as written but for the class names (Shelf, Book exist in this target) and a temporary file.
@Suite("FixturesReadmeExample")
struct ReadmeFixtureExampleTests {
    @Test("the README fixture example runs and reproduces its digest")
    func example() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("readme-fx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("library.sqlite")

        let fixture = Fixture(seed: 42) {
            Generate(RShelf.self, count: 12) { row in RShelf(name: row.word("name")) }
            Generate(RBook.self, count: 10_000, parent: \.shelf, children: \.books, fanOut: .zipf(0.99)) { row in
                RBook(title: row.words("title", count: .uniform(1...4)), pages: row.int("pages", in: 20...900))
            }
        }
        let schema = Schema([RShelf.self, RBook.self])
        let manifest = try FixtureFile.write(fixture, schema: schema, name: "library", scale: 10_000, to: url)
        let db = try FixtureDatabase(contentsOf: url, schema: schema, store: .memory)
        let books = try ModelContext(db.container).fetchCount(FetchDescriptor<RBook>())
        #expect(books == 10_000)
        #expect(try ModelContext(db.container).fetchCount(FetchDescriptor<RShelf>()) == 12)

        let again = dir.appendingPathComponent("again.sqlite")
        #expect(try FixtureFile.write(fixture, schema: schema, name: "library", scale: 10_000, to: again).digest == manifest.digest)
    }
}

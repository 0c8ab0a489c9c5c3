// An app's next release adds properties to a model and ships no migration plan, as most SwiftData
// apps do: the store the previous release wrote opens with the new model (SwiftData's automatic,
// inferred lightweight migration), compiled unchanged.
import Foundation
import SwiftData
import Testing

/// The previous release's model.
enum ReleaseOne {
    @Model
    final class Bookmark {
        var title: String
        var url: URL
        var visits: Int

        init(title: String, url: URL, visits: Int) {
            self.title = title
            self.url = url
            self.visits = visits
        }
    }
}

/// The next release's model: two properties added, one renamed, one removed.
enum ReleaseTwo {
    @Model
    final class Bookmark {
        @Attribute(originalName: "title") var name: String
        var url: URL
        var tags: [String] = []
        var lastOpened: Date?

        init(name: String, url: URL) {
            self.name = name
            self.url = url
        }
    }
}

@Suite("Compatibility: a release that adds properties without a migration plan")
struct AddedPropertyOpensTests {
    @Test(
        "the previous release's store opens with the new model: added properties nil or their default, a rename kept (MIG-20, MIG-21)"
    )
    func opensWithAddedProperties() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bookmarks-\(UUID().uuidString).store")
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) } }
        do {
            let previous = try ModelContainer(
                for: ReleaseOne.Bookmark.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(previous)
            context.insert(ReleaseOne.Bookmark(title: "Swift", url: URL(string: "https://swift.org")!, visits: 3))
            try context.save()
        }
        let container = try ModelContainer(for: ReleaseTwo.Bookmark.self, configurations: ModelConfiguration(url: url))
        let bookmarks = try ModelContext(container).fetch(FetchDescriptor<ReleaseTwo.Bookmark>())
        #expect(bookmarks.map(\.name) == ["Swift"])
        #expect(bookmarks.map(\.url) == [URL(string: "https://swift.org")!])
        #expect(bookmarks.map(\.tags) == [[]])
        #expect(bookmarks.map(\.lastOpened) == [nil])
    }
}

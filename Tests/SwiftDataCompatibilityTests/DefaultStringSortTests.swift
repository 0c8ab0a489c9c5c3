// `SortDescriptor(\.title)` on a `String`, as apps write it: Apple's default comparator
// (`localizedStandard`) puts numbers in value order and ignores case and diacritics;
// `comparator: .lexical` sorts by Swift's `<`.
import Foundation
import SwiftData
import Testing

@Model
final class Chapter {
    var title: String
    init(title: String) { self.title = title }
}

@Suite("Compatibility: SortDescriptor on a String key")
struct DefaultStringSortTests {
    @Test(
        "FET-06 SortDescriptor(\\.title) orders item 1, Item 2, Item 10; comparator: .lexical orders Item 10, Item 2, item 1",
        arguments: [true, false])
    func defaultAndLexicalComparators(inMemory: Bool) throws {
        let url = URL.temporaryDirectory.appending(path: "chapters-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        let config = inMemory ? ModelConfiguration(isStoredInMemoryOnly: true) : ModelConfiguration(url: url)
        let container = try ModelContainer(for: Chapter.self, configurations: config)
        let context = ModelContext(container)
        for title in ["Item 10", "Item 2", "item 1", "Éclair", "eclair", "Zebra"] {
            context.insert(Chapter(title: title))
        }
        try context.save()
        context.insert(Chapter(title: "Item 3"))  // pending: sorted with the saved rows

        let natural = ["eclair", "Éclair", "item 1", "Item 2", "Item 3", "Item 10", "Zebra"]
        let byDefault = FetchDescriptor<Chapter>(sortBy: [SortDescriptor(\.title)])
        #expect(try context.fetch(byDefault).map(\.title) == natural)
        let reversed = FetchDescriptor<Chapter>(sortBy: [SortDescriptor(\.title, order: .reverse)])
        #expect(try context.fetch(reversed).map(\.title) == natural.reversed())

        let lexical = ["Item 10", "Item 2", "Item 3", "Zebra", "eclair", "item 1", "Éclair"]
        let byLexical = FetchDescriptor<Chapter>(sortBy: [SortDescriptor(\.title, comparator: .lexical)])
        #expect(try context.fetch(byLexical).map(\.title) == lexical)
        #expect(lexical == natural.sorted(), "the lexical order is Swift's <")

        var page = FetchDescriptor<Chapter>(sortBy: [SortDescriptor(\.title)])
        page.fetchOffset = 2
        page.fetchLimit = 3
        #expect(try context.fetch(page).map(\.title) == ["item 1", "Item 2", "Item 3"])
    }
}

// Queries sorted by `persistentModelID`, as some apps write every query: the store's key order,
// the order `PersistentIdentifier`'s `<` gives, for saved and pending models alike.
import Foundation
import SwiftData
import Testing

@Model
class Reminder {
    var title: String
    init(title: String) { self.title = title }
}

@Model
final class FlaggedReminder: Reminder {
    var flag: String
    init(title: String, flag: String) {
        self.flag = flag
        super.init(title: title)
    }
}

@Suite("Compatibility: sorting by persistentModelID")
struct IdentifierSortTests {
    @Test(
        "FET-13 SortDescriptor(\\.persistentModelID) orders as PersistentIdentifier's < does, both directions",
        arguments: [true, false])
    func sortsByIdentifier(inMemory: Bool) throws {
        let url = URL.temporaryDirectory.appending(path: "reminders-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        let config = inMemory ? ModelConfiguration(isStoredInMemoryOnly: true) : ModelConfiguration(url: url)
        let container = try ModelContainer(for: Reminder.self, FlaggedReminder.self, configurations: config)
        let context = ModelContext(container)
        for i in 0..<6 {
            context.insert(i % 2 == 0 ? Reminder(title: "r\(i)") : FlaggedReminder(title: "f\(i)", flag: "red"))
        }
        try context.save()
        context.insert(Reminder(title: "pending"))
        for order in [SortOrder.forward, .reverse] {
            let descriptor = FetchDescriptor<Reminder>(sortBy: [SortDescriptor(\.persistentModelID, order: order)])
            let fetched = try context.fetch(descriptor)
            #expect(fetched.count == 7)
            let expected = fetched.sorted {
                order == .forward
                    ? $0.persistentModelID < $1.persistentModelID : $1.persistentModelID < $0.persistentModelID
            }
            #expect(fetched.map(\.title) == expected.map(\.title))
            // Saved rows of one class come in the order they were inserted (their keys).
            let saved = fetched.filter { type(of: $0) == Reminder.self && $0.title != "pending" }.map(\.title)
            #expect(saved == (order == .forward ? ["r0", "r2", "r4"] : ["r4", "r2", "r0"]))
        }
        var first = FetchDescriptor<Reminder>(sortBy: [SortDescriptor(\.persistentModelID)])
        first.fetchLimit = 2
        let page = try context.fetch(first)
        #expect(page.count == 2)
    }
}

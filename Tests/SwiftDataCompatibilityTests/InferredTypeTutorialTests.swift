// The tutorial form of SwiftData models (as in Hacking with Swift's iTour project): a to-many
// relationship declared by its initial value, `var sights = [Sight]()`, with no annotation.
import SwiftData
import Testing

@Model
class Destination {
    var name: String
    var details: String
    var date: Date
    var priority: Int
    var sights = [Sight]()

    init(name: String = "", details: String = "", date: Date = .now, priority: Int = 2) {
        self.name = name
        self.details = details
        self.date = date
        self.priority = priority
    }
}

@Model
class Sight {
    var name: String

    init(name: String) {
        self.name = name
    }
}

@Suite("Compatibility")
struct InferredTypeTutorialTests {
    @Test("var sights = [Sight]() is a to-many relationship", arguments: [true, false])
    func tutorialModels(inMemory: Bool) throws {
        let url = URL.temporaryDirectory.appending(path: "tutorial-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        let config = inMemory ? ModelConfiguration(isStoredInMemoryOnly: true) : ModelConfiguration(url: url)
        let container = try ModelContainer(for: Destination.self, configurations: config)
        let sights = container.schema.entitiesByName["Destination"]?.relationships.first { $0.name == "sights" }
        #expect(sights?.destination == "Sight")
        #expect(sights?.isToOneRelationship == false)

        let context = ModelContext(container)
        let rome = Destination(name: "Rome", details: "The eternal city", priority: 3)
        rome.sights.append(Sight(name: "Colosseum"))
        rome.sights.append(Sight(name: "Pantheon"))
        context.insert(rome)
        try context.save()

        let reader = ModelContext(container)
        let found = try reader.fetch(FetchDescriptor<Destination>(predicate: #Predicate { $0.priority == 3 }))
        #expect(found.map(\.name) == ["Rome"])
        #expect(Set(found.first?.sights.map(\.name) ?? []) == ["Colosseum", "Pantheon"])
        #expect(try reader.fetchCount(FetchDescriptor<Sight>()) == 2)
    }
}

// The README's example, verbatim but for the store's path.
import SwiftData
import Testing

@Model final class ReadmeTrip {
    @Attribute(.unique) var name: String
    var price: Double
    var notes: String?
    @Relationship(deleteRule: .cascade, inverse: \ReadmeStop.trip) var stops: [ReadmeStop] = []

    init(name: String, price: Double) {
        self.name = name
        self.price = price
    }
}

@Model final class ReadmeStop {
    var city: String
    var trip: ReadmeTrip?
    init(city: String) { self.city = city }
}

@Suite("ReadmeExample")
struct ReadmeExampleTests {
    @Test("the README example runs as written")
    func example() throws {
        let url = URL.temporaryDirectory.appending(path: "readme-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        let container = try ModelContainer(for: ReadmeTrip.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)

        let lisbon = ReadmeTrip(name: "Lisbon", price: 420)
        lisbon.stops.append(ReadmeStop(city: "Porto"))
        #expect(lisbon.stops[0].trip === lisbon)
        context.insert(lisbon)
        context.insert(ReadmeTrip(name: "Kyoto", price: 1_250))
        try context.save()

        let cheap = FetchDescriptor<ReadmeTrip>(predicate: #Predicate { $0.price < 1000 },
                                                sortBy: [SortDescriptor(\.name)])
        let trips = try context.fetch(cheap)
        #expect(trips.map(\.name) == ["Lisbon"])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<ReadmeStop>()) == 1)
    }
}

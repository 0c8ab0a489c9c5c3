import SwiftData  // on Linux: OpenSwiftData's re-export module

@Model final class Trip {
    @Attribute(.unique) var name: String
    var price: Double
    var notes: String?
    @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []

    init(name: String, price: Double) {
        self.name = name
        self.price = price
    }
}

@Model final class Stop {
    var city: String
    var trip: Trip?
    init(city: String) { self.city = city }
}

func planTrips(at url: URL) throws -> [String] {
    let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
    let context = ModelContext(container)

    let lisbon = Trip(name: "Lisbon", price: 420)
    lisbon.stops.append(Stop(city: "Porto"))  // the inverse is set at once: stops[0].trip === lisbon
    context.insert(lisbon)  // the new Stop comes along
    context.insert(Trip(name: "Kyoto", price: 1_250))
    try context.save()  // one SQLite transaction

    context.insert(Trip(name: "Kyoto", price: 980))  // same unique name: the save updates the stored Kyoto
    try context.save()

    let cheap = FetchDescriptor<Trip>(
        predicate: #Predicate { $0.price < 1000 },
        sortBy: [SortDescriptor(\.name)])
    return try context.fetch(cheap).map { "\($0.name) \($0.price) \($0.stops.map(\.city))" }
    // ["Kyoto 980.0 []", "Lisbon 420.0 [\"Porto\"]"]
}

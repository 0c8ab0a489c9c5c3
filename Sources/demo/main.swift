// `make run` for now: create an on-disk store, write, reopen and print.
import Foundation
import OpenSwiftData

@Model final class Trip {
    @Attribute(.unique) var name: String
    var start: Date
    var price: Double
    var notes: String?
    @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []

    init(name: String, start: Date, price: Double) {
        self.name = name
        self.start = start
        self.price = price
    }
}

@Model final class Stop {
    var city: String
    var trip: Trip?
    init(city: String) { self.city = city }
}

let dir = FileManager.default.temporaryDirectory.appendingPathComponent("openswiftdata-demo-\(getpid())")
let url = dir.appendingPathComponent("Trips.store")
defer { try? FileManager.default.removeItem(at: dir) }

do {
    let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
    let context = ModelContext(container)
    let lisbon = Trip(name: "Lisbon", start: Date(timeIntervalSinceReferenceDate: 0), price: 420)
    lisbon.stops = [Stop(city: "Porto"), Stop(city: "Sintra")]
    context.insert(lisbon)
    context.insert(Trip(name: "Kyoto", start: Date(timeIntervalSinceReferenceDate: 86_400), price: 1_250))
    try context.save()
    print("saved \(try context.fetchCount(FetchDescriptor<Trip>())) trips to \(url.path)")
}
do {
    let reopened = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
    let context = ModelContext(reopened)
    let cheap = FetchDescriptor<Trip>(predicate: #Predicate { $0.price < 1000 }, sortBy: [SortDescriptor(\.name)])
    for trip in try context.fetch(cheap) {
        print("reopened: \(trip.name), \(trip.price), stops: \(trip.stops.map(\.city).sorted())")
    }
}

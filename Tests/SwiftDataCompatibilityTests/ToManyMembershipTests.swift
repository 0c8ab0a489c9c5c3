// Apple's sample code sets both sides of a pair (`item.trip = trip; trip.items.append(item)`):
// a to-many relationship holds each model once, in memory as in the store.
import Foundation
import SwiftData
import Testing

@Model
final class Journey {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Stop.journey) var stops: [Stop] = []
    @Relationship(deleteRule: .nullify, inverse: \Stop.sharedJourney) var sharedStops: [Stop]? = []
    @Relationship(deleteRule: .nullify) var photos: [Snapshot] = []
    init(name: String) { self.name = name }
}

@Model
final class Stop {
    var place: String
    var journey: Journey?
    var sharedJourney: Journey?
    init(place: String) { self.place = place }
}

@Model
final class Snapshot {
    var caption: String
    init(caption: String) { self.caption = caption }
}

@Suite("Compatibility: to-many relationships are sets")
struct ToManyMembershipTests {
    @Test("REL-05 setting both sides, or appending a member again, leaves one member", arguments: [true, false])
    func bothSides(inMemory: Bool) throws {
        let url = URL.temporaryDirectory.appending(path: "journeys-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        let config = inMemory ? ModelConfiguration(isStoredInMemoryOnly: true) : ModelConfiguration(url: url)
        let container = try ModelContainer(for: Journey.self, configurations: config)
        let context = ModelContext(container)
        let journey = Journey(name: "Alps")
        context.insert(journey)
        let stop = Stop(place: "Zermatt")
        stop.journey = journey
        journey.stops.append(stop)
        #expect(journey.stops.count == 1)
        journey.stops.append(stop)
        #expect(journey.stops.count == 1)
        let other = Stop(place: "Chur")
        journey.sharedStops?.append(other)
        journey.sharedStops?.append(other)
        other.sharedJourney = journey
        #expect(journey.sharedStops?.count == 1)
        let photo = Snapshot(caption: "summit")
        journey.photos.append(photo)
        journey.photos.append(photo)
        journey.photos += [photo, Snapshot(caption: "valley")]
        #expect(journey.photos.map(\.caption) == ["summit", "valley"])
        try context.save()
        let fresh = try #require(try ModelContext(container).fetch(FetchDescriptor<Journey>()).first)
        #expect(fresh.stops.map(\.place) == ["Zermatt"])
        #expect(fresh.sharedStops?.map(\.place) == ["Chur"])
        #expect(Set(fresh.photos.map(\.caption)) == ["summit", "valley"])
        // After a save, in the same context: appending a stored member again changes nothing.
        journey.stops.append(stop)
        #expect(journey.stops.count == 1)
    }
}

import Foundation
import Testing

@testable import OpenSwiftData

/// Model inheritance beyond the `inheritance` conformance suite: relationships typed as the base
/// with an inverse declared on the base (the suite's garage relationship is one-way).
@Suite("Inheritance")
struct InheritanceTests {
    @Test(
        "A base-typed to-many with an inverse holds mixed subclasses after refetch; its cascade deletes them (one-way case: inheritance suite, INH-07)",
        arguments: StoreKind.allCases)
    func cascadeToSubclasses(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "inh")
        let container = try kind.makeContainer(for: integrityModels, in: dir)
        let ctx = ModelContext(container)
        let t = Traveler(name: "ada")
        t.trips = [
            Trip(name: "t", days: 1), BusinessTrip(name: "b", days: 1, perdiem: 1),
            PersonalTrip(name: "p", days: 1, reason: "r"),
            ExecutiveTrip(name: "e", days: 1, perdiem: 1, lounge: "L"),
        ]
        ctx.insert(t)
        ctx.insert(Traveler(name: "bob"))
        ctx.insert(Trip(name: "solo", days: 1))
        try ctx.save()
        let other = ModelContext(container)
        let travelers = try other.fetch(FetchDescriptor<Traveler>(sortBy: [SortDescriptor(\.name)]))
        let stored = travelers[0]
        #expect(
            Set(stored.trips.map { "\($0.name):\(String(describing: type(of: $0)))" })
                == ["t:Trip", "b:BusinessTrip", "p:PersonalTrip", "e:ExecutiveTrip"])
        #expect((stored.trips.first { $0.name == "e" } as? ExecutiveTrip)?.lounge == "L")
        #expect((stored.trips.first { $0.name == "p" } as? PersonalTrip)?.reason == "r")
        #expect(stored.trips.allSatisfy { $0.traveler === stored })
        #expect(travelers[1].trips.isEmpty)
        other.delete(stored)
        try other.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Trip>()).map(\.name) == ["solo"])
    }

    @Test(
        "A subclass instance's inverse declared on the base nullifies when it is deleted (one-way case: inheritance suite, INH-07)",
        arguments: StoreKind.allCases)
    func subclassRelationshipNullify(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "inh")
        let container = try kind.makeContainer(for: integrityModels, in: dir)
        let ctx = ModelContext(container)
        let t = Traveler(name: "ada")
        let b = BusinessTrip(name: "b", days: 1, perdiem: 1)
        b.traveler = t
        ctx.insert(t)
        #expect(t.trips.contains { $0 === b })
        try ctx.save()
        ctx.delete(b)
        try ctx.save()
        #expect(t.trips.isEmpty)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Traveler>())[0].trips.isEmpty)
    }
}

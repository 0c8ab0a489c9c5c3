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
        "Rows of four entities interleaved in one table come back as their own classes with their own values: read into new models, then found registered, and through a subclass (INH-01, INH-02)",
        arguments: StoreKind.allCases)
    func interleavedEntitiesMaterialize(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "inh")
        let container = try kind.makeContainer(for: integrityModels, in: dir)
        // Inserted in this order, the rows of the one table alternate between the entities, so
        // every row read is of another entity than the row before.
        let ctx = ModelContext(container)
        for i in 0..<24 {
            let trip: Trip =
                switch i % 4 {
                case 0: Trip(name: "t\(i)", days: i)
                case 1: BusinessTrip(name: "b\(i)", days: i, perdiem: Double(i) / 2)
                case 2: PersonalTrip(name: "p\(i)", days: i, reason: "r\(i)")
                default: ExecutiveTrip(name: "e\(i)", days: i, perdiem: Double(i) / 2, lounge: "L\(i)")
                }
            ctx.insert(trip)
        }
        try ctx.save()
        // What each row must read as, written out in plain Swift.
        let expected = (0..<24).map { i in
            switch i % 4 {
            case 0: "Trip t\(i) \(i)"
            case 1: "BusinessTrip b\(i) \(i) \(Double(i) / 2)"
            case 2: "PersonalTrip p\(i) \(i) r\(i)"
            default: "ExecutiveTrip e\(i) \(i) \(Double(i) / 2) L\(i)"
            }
        }
        func describe(_ t: Trip) -> String {
            switch t {
            case let e as ExecutiveTrip: "ExecutiveTrip \(e.name) \(e.days) \(e.perdiem) \(e.lounge)"
            case let b as BusinessTrip: "BusinessTrip \(b.name) \(b.days) \(b.perdiem)"
            case let p as PersonalTrip: "PersonalTrip \(p.name) \(p.days) \(p.reason)"
            default: "Trip \(t.name) \(t.days)"
            }
        }
        let fresh = ModelContext(container)
        let byDays = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.days)])
        let first = try fresh.fetch(byDays)
        #expect(first.map(describe) == expected)
        // The second fetch finds every row registered: the same instances, the same values.
        let again = try fresh.fetch(byDays)
        #expect(again.count == 24 && zip(first, again).allSatisfy { $0 === $1 })
        #expect(again.map(describe) == expected)
        // Through a subclass: its own rows and its subclass's, still interleaved.
        let business = try ModelContext(container).fetch(
            FetchDescriptor<BusinessTrip>(sortBy: [SortDescriptor(\.days)]))
        #expect(business.map(describe) == expected.enumerated().filter { $0.offset % 4 % 2 == 1 }.map(\.element))
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

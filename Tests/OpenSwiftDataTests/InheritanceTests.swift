import Foundation
import Testing
@testable import OpenSwiftData

/// Model inheritance (behaviour reference §6): type predicates and casts, sorting across the
/// hierarchy, deep hierarchies, and cascades through relationships typed as the base.
/// (INH-01/02/03/07 are in StorageTests.)
@Suite("Inheritance")
struct InheritanceTests {
    /// 1 Trip, 2 BusinessTrip (perdiem 80, 150), 3 PersonalTrip, 1 ExecutiveTrip (perdiem 300).
    static func seed(_ ctx: ModelContext) throws {
        ctx.insert(Trip(name: "base", days: 5))
        ctx.insert(BusinessTrip(name: "b-low", days: 2, perdiem: 80))
        ctx.insert(BusinessTrip(name: "b-high", days: 7, perdiem: 150))
        ctx.insert(PersonalTrip(name: "p1", days: 1, reason: "rest"))
        ctx.insert(PersonalTrip(name: "p2", days: 6, reason: "family"))
        ctx.insert(PersonalTrip(name: "p3", days: 3, reason: "sport"))
        ctx.insert(ExecutiveTrip(name: "exec", days: 4, perdiem: 300, lounge: "A"))
        try ctx.save()
    }

    @Test("INH-04 predicate with `is` over the base selects subclasses", arguments: StoreKind.allCases)
    func isPredicate(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("inh")
        let container = try makeContainer(kind, integrityModels, in: dir)
        try Self.seed(ModelContext(container))
        let ctx = ModelContext(container)
        let found = try ctx.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0 is BusinessTrip || $0 is PersonalTrip }))
        #expect(found.count == 6)   // 2 business + 1 executive (a BusinessTrip) + 3 personal
        #expect(!found.contains { type(of: $0) == Trip.self })
    }

    @Test("INH-05 predicate with a cast reads a subclass attribute", arguments: StoreKind.allCases)
    func castPredicate(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("inh")
        let container = try makeContainer(kind, integrityModels, in: dir)
        try Self.seed(ModelContext(container))
        let ctx = ModelContext(container)
        let p = #Predicate<Trip> { trip in
            if let b = trip as? BusinessTrip { b.perdiem > 100 } else { false }
        }
        let found = try ctx.fetch(FetchDescriptor<Trip>(predicate: p, sortBy: [SortDescriptor(\.name)]))
        #expect(found.map(\.name) == ["b-high", "exec"])
    }

    @Test("INH-06 sorting by a base attribute mixes subclasses", arguments: StoreKind.allCases)
    func sortAcross(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("inh")
        let container = try makeContainer(kind, integrityModels, in: dir)
        try Self.seed(ModelContext(container))
        let trips = try ModelContext(container).fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.days)]))
        #expect(trips.map(\.days) == [1, 2, 3, 4, 5, 6, 7])
        #expect(trips.map(\.name) == ["p1", "b-low", "p3", "exec", "base", "p2", "b-high"])
        #expect(trips[3] is ExecutiveTrip && trips[1] is BusinessTrip && trips[0] is PersonalTrip)
    }

    @Test("INH-08 an ExecutiveTrip is a Trip and a BusinessTrip, never a PersonalTrip", arguments: StoreKind.allCases)
    func deepHierarchy(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("inh")
        let container = try makeContainer(kind, integrityModels, in: dir)
        try Self.seed(ModelContext(container))
        let ctx = ModelContext(container)
        #expect(try ctx.fetch(FetchDescriptor<Trip>()).contains { $0 is ExecutiveTrip })
        #expect(try ctx.fetch(FetchDescriptor<BusinessTrip>()).contains { $0 is ExecutiveTrip })
        #expect(try ctx.fetchCount(FetchDescriptor<BusinessTrip>()) == 3)
        #expect(try ctx.fetchCount(FetchDescriptor<PersonalTrip>()) == 3)
        #expect(try ctx.fetchCount(FetchDescriptor<ExecutiveTrip>()) == 1)
    }

    @Test("INH-07 a cascade through a relationship typed as the base deletes subclass instances", arguments: StoreKind.allCases)
    func cascadeToSubclasses(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("inh")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let t = Traveler(name: "ada")
        t.trips = [BusinessTrip(name: "b", days: 1, perdiem: 1), PersonalTrip(name: "p", days: 1, reason: "r"),
                   ExecutiveTrip(name: "e", days: 1, perdiem: 1, lounge: "L")]
        ctx.insert(t)
        ctx.insert(Trip(name: "solo", days: 1))
        try ctx.save()
        let other = ModelContext(container)
        let stored = try other.fetch(FetchDescriptor<Traveler>())[0]
        #expect(Set(stored.trips.map { String(describing: type(of: $0)) }) == ["BusinessTrip", "PersonalTrip", "ExecutiveTrip"])
        #expect(stored.trips.allSatisfy { $0.traveler === stored })
        other.delete(stored)
        try other.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Trip>()).map(\.name) == ["solo"])
    }

    @Test("INH-07 a subclass instance's base relationship nullifies when its traveler loses it", arguments: StoreKind.allCases)
    func subclassRelationshipNullify(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("inh")
        let container = try makeContainer(kind, integrityModels, in: dir)
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

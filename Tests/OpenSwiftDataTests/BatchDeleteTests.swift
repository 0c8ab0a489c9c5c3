import Foundation
import Testing
@testable import OpenSwiftData

/// Batch delete `delete(model:where:includeSubclasses:)` (behaviour reference §3.5, §6.2):
/// staged until save, with a predicate, across or restricted to a class hierarchy.
@Suite("Batch delete")
struct BatchDeleteTests {
    /// 1 Trip, 2 BusinessTrip (perdiem 40, 120), 1 ExecutiveTrip (perdiem 30), 3 PersonalTrip.
    static func seedTrips(_ ctx: ModelContext) throws {
        ctx.insert(Trip(name: "plain", days: 1))
        ctx.insert(BusinessTrip(name: "cheap", days: 2, perdiem: 40))
        ctx.insert(BusinessTrip(name: "dear", days: 3, perdiem: 120))
        ctx.insert(ExecutiveTrip(name: "exec", days: 4, perdiem: 30, lounge: "A"))
        for i in 0..<3 { ctx.insert(PersonalTrip(name: "p\(i)", days: i, reason: "rest")) }
        try ctx.save()
    }

    @Test("INH-30 includeSubclasses: false deletes only the exact class", arguments: StoreKind.allCases)
    func exactClass(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("batch")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        try Self.seedTrips(ctx)
        try ctx.delete(model: Trip.self, includeSubclasses: false)
        try ctx.save()
        let left = try ModelContext(container).fetch(FetchDescriptor<Trip>())
        #expect(left.count == 6)
        #expect(!left.contains { type(of: $0) == Trip.self })
        // On a subclass: ExecutiveTrip (a BusinessTrip) survives.
        try ctx.delete(model: BusinessTrip.self, includeSubclasses: false)
        try ctx.save()
        let rest = try ModelContext(container).fetch(FetchDescriptor<BusinessTrip>())
        #expect(rest.map(\.name) == ["exec"])
    }

    @Test("INH-31 includeSubclasses defaults to true: every trip of every class is deleted", arguments: StoreKind.allCases)
    func wholeHierarchy(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("batch")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        try Self.seedTrips(ctx)
        try ctx.delete(model: Trip.self)
        try ctx.save()
        #expect(try storedCount(Trip.self, in: container) == 0)
    }

    @Test("INH-32 a subclass batch delete with a predicate on a subclass attribute", arguments: StoreKind.allCases)
    func subclassPredicate(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("batch")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        try Self.seedTrips(ctx)
        try ctx.delete(model: BusinessTrip.self, where: #Predicate { $0.perdiem < 50 })
        try ctx.save()
        let other = ModelContext(container)
        #expect(try other.fetch(FetchDescriptor<BusinessTrip>()).map(\.name) == ["dear"])
        #expect(try other.fetchCount(FetchDescriptor<Trip>()) == 5)
    }
}

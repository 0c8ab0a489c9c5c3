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

    @Test("DEL-11 batch delete is deferred until save", arguments: StoreKind.allCases)
    func deferred(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("batch")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        for i in 0..<3 { ctx.insert(IgParent(name: "p\(i)")) }
        try ctx.save()
        try ctx.delete(model: IgParent.self)
        #expect(try storedCount(IgParent.self, in: container) == 3)
        #expect(try ctx.fetchCount(FetchDescriptor<IgParent>()) == 0)
        try ctx.save()
        #expect(try storedCount(IgParent.self, in: container) == 0)
    }

    @Test("DEL-12 batch delete with a predicate deletes only the matching models", arguments: StoreKind.allCases)
    func withPredicate(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("batch")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        for name in ["ann", "bob", "amy"] { ctx.insert(IgParent(name: name)) }
        try ctx.save()
        try ctx.delete(model: IgParent.self, where: #Predicate { $0.name.starts(with: "a") })
        try ctx.save()
        let left = try ModelContext(container).fetch(FetchDescriptor<IgParent>())
        #expect(left.map(\.name) == ["bob"])
    }

    @Test("DEL-12 batch delete reaches stored rows that were never registered", arguments: StoreKind.allCases)
    func unregisteredRows(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("batch")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let writer = ModelContext(container)
        for i in 0..<4 { writer.insert(IgParent(name: "p\(i)")) }
        try writer.save()
        let ctx = ModelContext(container)
        try ctx.delete(model: IgParent.self, where: #Predicate { $0.name != "p2" })
        try ctx.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<IgParent>()).map(\.name) == ["p2"])
    }

    @Test("DEL-13 batch delete honours cascade (house → rooms) and nullify (tag ↔ products)", arguments: StoreKind.allCases)
    func honoursRules(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("batch")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let house = IgHouse(name: "h")
        house.rooms = [IgRoom(name: "a"), IgRoom(name: "b")]
        let tag = Tag(label: "t")
        let product = Product(name: "x", price: 1)
        product.tags = [tag]
        ctx.insert(house)
        ctx.insert(product)
        try ctx.save()
        let other = ModelContext(container)
        try other.delete(model: IgHouse.self)
        try other.delete(model: Tag.self)
        try other.save()
        #expect(try storedCount(IgRoom.self, in: container) == 0)
        let products = try ModelContext(container).fetch(FetchDescriptor<Product>())
        #expect(products.count == 1 && products[0].tags.isEmpty)
    }

    @Test("DEL-08 batch delete hitting a deny rule throws at save and deletes nothing", arguments: StoreKind.allCases)
    func denyThrows(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("batch")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let full = IgDepartment(name: "full")
        full.employees = [IgEmployee(name: "e")]
        ctx.insert(full)
        ctx.insert(IgDepartment(name: "empty"))
        try ctx.save()
        try ctx.delete(model: IgDepartment.self)
        #expect(throws: SwiftDataError.deleteRuleDenied) { try ctx.save() }
        #expect(try storedCount(IgDepartment.self, in: container) == 2)
        #expect(ctx.hasChanges)
        ctx.rollback()
        #expect(try ctx.fetchCount(FetchDescriptor<IgDepartment>()) == 2)
        // Only the empty department: allowed.
        try ctx.delete(model: IgDepartment.self, where: #Predicate { $0.name == "empty" })
        try ctx.save()
        #expect(try storedCount(IgDepartment.self, in: container) == 1)
        #expect(try storedCount(IgEmployee.self, in: container) == 1)
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

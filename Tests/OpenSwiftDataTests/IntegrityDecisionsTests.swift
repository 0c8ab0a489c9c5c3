import Foundation
import Testing
@testable import OpenSwiftData

/// Where the behaviour reference marks **[REC]** for uniqueness, delete rules, batch delete and
/// inheritance: our decisions, kept apart so a run on Apple hardware can confirm or reverse them.
@Suite("Decisions: integrity")
struct IntegrityDecisionsTests {
    @Test("DEL-07 [REC] .noAction: the other side reads nil after save, no dangling reference", arguments: StoreKind.allCases)
    func noAction(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("dec")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let owner = IgOwner(name: "o")
        let gadget = IgGadget(name: "g")
        owner.gadget = gadget
        ctx.insert(owner)
        try ctx.save()
        ctx.delete(owner)
        try ctx.save()
        #expect(try storedCount(IgGadget.self, in: container) == 1)
        #expect(gadget.owner == nil)
        #expect(try ModelContext(container).fetch(FetchDescriptor<IgGadget>())[0].owner == nil)
    }

    @Test("DEL-08 [REC] .deny: save throws naming model and relationship, writes nothing; rollback restores; an empty one deletes", arguments: StoreKind.allCases)
    func deny(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("dec")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let dept = IgDepartment(name: "sales")
        let emp = IgEmployee(name: "e")
        dept.employees = [emp]
        let empty = IgDepartment(name: "empty")
        ctx.insert(dept)
        ctx.insert(empty)
        try ctx.save()
        ctx.delete(dept)
        do {
            try ctx.save()
            Issue.record("a denied delete saved")
        } catch let e as SwiftDataError {
            #expect(e == SwiftDataError.deleteRuleDenied)
            #expect(e.entityName == "IgDepartment")
            #expect(e.relationshipName == "employees")
        }
        #expect(try storedCount(IgDepartment.self, in: container) == 2)
        #expect(ctx.deletedModelsArray.contains { $0 === dept })   // the delete stays pending
        ctx.rollback()
        #expect(!dept.isDeleted)
        #expect(emp.department === dept)
        #expect(try ctx.fetchCount(FetchDescriptor<IgDepartment>()) == 2)
        ctx.delete(empty)
        try ctx.save()
        #expect(try storedCount(IgDepartment.self, in: container) == 1)
    }

    @Test("DEL-08 [REC] .deny at processPendingChanges does not throw; the save does", arguments: StoreKind.allCases)
    func denyAtProcessPendingChanges(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("dec")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let dept = IgDepartment(name: "sales")
        dept.employees = [IgEmployee(name: "e")]
        ctx.insert(dept)
        try ctx.save()
        ctx.delete(dept)
        ctx.processPendingChanges()
        #expect(throws: SwiftDataError.deleteRuleDenied) { try ctx.save() }
        // Deleting the employee too makes the delete legal.
        ctx.delete(dept.employees[0])
        try ctx.save()
        #expect(try storedCount(IgDepartment.self, in: container) == 0)
    }

    @Test("DEL-14 [REC] one-way relationships: a deleted target reads nil after save, no crash", arguments: StoreKind.allCases)
    func oneWay(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("dec")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let memo = IgMemo(text: "m")
        let a = IgMarker(name: "a"), b = IgMarker(name: "b")
        memo.label = a
        memo.markers = [a, b]
        ctx.insert(memo)
        try ctx.save()
        ctx.delete(a)
        try ctx.save()
        #expect(memo.label == nil)
        #expect(memo.markers.map(\.name) == ["b"])
        let fresh = try ModelContext(container).fetch(FetchDescriptor<IgMemo>())[0]
        #expect(fresh.label == nil)
        #expect(fresh.markers.map(\.name) == ["b"])
    }

    @Test("DEL-14 [REC] one-way: a target deleted from another context reads nil in a fresh fetch", arguments: StoreKind.allCases)
    func oneWayUnloaded(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("dec")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let memo = IgMemo(text: "m")
        memo.label = IgMarker(name: "a")
        ctx.insert(memo)
        try ctx.save()
        let other = ModelContext(container)
        other.delete(try other.fetch(FetchDescriptor<IgMarker>())[0])
        try other.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<IgMemo>())[0].label == nil)
    }

    @Test("[REC] §3.3 delete rules run at processPendingChanges, before any save", arguments: StoreKind.allCases)
    func rulesAtProcessPendingChanges(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("dec")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let house = IgHouse(name: "h")
        let room = IgRoom(name: "r")
        house.rooms = [room]
        let p = IgParent(name: "p")
        let c = IgChild(name: "c")
        p.children = [c]
        ctx.insert(house)
        ctx.insert(p)
        try ctx.save()
        ctx.delete(house)
        ctx.delete(p)
        ctx.processPendingChanges()
        #expect(room.isDeleted)
        #expect(c.parent == nil && !c.isDeleted)
        #expect(try storedCount(IgRoom.self, in: container) == 1)
        try ctx.save()
        #expect(try storedCount(IgRoom.self, in: container) == 0)
        #expect(try storedCount(IgChild.self, in: container) == 1)
    }

    @Test("[REC] §3.5 batch delete picks its models at call time; a matching pending insert is dropped", arguments: StoreKind.allCases)
    func batchSnapshot(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("dec")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        ctx.insert(IgParent(name: "stored"))
        try ctx.save()
        let pending = IgParent(name: "pending")
        ctx.insert(pending)
        try ctx.delete(model: IgParent.self)
        #expect(ctx.insertedModelsArray.isEmpty)
        ctx.insert(IgParent(name: "after"))   // inserted after the call: kept
        try ctx.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<IgParent>()).map(\.name) == ["after"])
    }

    @Test("UNQ-14 [REC] an upsert replaces the to-many; detached children survive with no parent", arguments: StoreKind.allCases)
    func toManyReplace(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("dec")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let first = IgFolder(key: "k")
        first.files = [IgFile(name: "c1")]
        ctx.insert(first)
        try ctx.save()
        let second = IgFolder(key: "k")
        second.files = [IgFile(name: "c2")]
        ctx.insert(second)
        try ctx.save()
        let other = ModelContext(container)
        let folders = try other.fetch(FetchDescriptor<IgFolder>())
        #expect(folders.count == 1)
        #expect(folders[0].files.map(\.name) == ["c2"])
        let files = try other.fetch(FetchDescriptor<IgFile>(sortBy: [SortDescriptor(\.name)]))
        #expect(files.map(\.name) == ["c1", "c2"])
        #expect(files[0].folder == nil)
    }

    @Test("UNQ-40 [REC] a unique name declared on the base: same subclass upserts", arguments: StoreKind.allCases)
    func hierarchyUpsert(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("dec")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        ctx.insert(IgCityTour(name: "x", price: 10, city: "Rome"))
        try ctx.save()
        ctx.insert(IgCityTour(name: "x", price: 20, city: "Oslo"))
        try ctx.save()
        let tours = try ModelContext(container).fetch(FetchDescriptor<IgTour>())
        #expect(tours.count == 1)
        #expect((tours[0] as? IgCityTour)?.city == "Oslo" && tours[0].price == 20)
    }

    @Test("UNQ-41 [REC] an upsert that would change a row's class throws; store unchanged", arguments: StoreKind.allCases)
    func hierarchyClassChange(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("dec")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        ctx.insert(IgCityTour(name: "x", price: 10, city: "Rome"))
        try ctx.save()
        ctx.insert(IgBoatTour(name: "x", price: 20, boat: "Ark"))
        #expect(throws: SwiftDataError.uniqueConstraintViolation) { try ctx.save() }
        let tours = try ModelContext(container).fetch(FetchDescriptor<IgTour>())
        #expect(tours.count == 1 && tours[0] is IgCityTour && tours[0].price == 10)
        #expect(ctx.hasChanges)
        ctx.rollback()
        try ctx.save()
    }

    @Test("INH-20 [REC] a subclass missing from the schema fails with a clear error", arguments: StoreKind.allCases)
    func subclassNotInSchema(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("dec")
        do {
            let container = try makeContainer(kind, [IgTour.self, IgCityTour.self], in: dir)
            // Container creation accepted it: then the insert must be refused at save.
            let ctx = ModelContext(container)
            ctx.insert(IgBoatTour(name: "b", price: 1, boat: "Ark"))
            #expect(throws: SwiftDataError.self) { try ctx.save() }
            #expect(try storedCount(IgTour.self, in: container) == 0)
        } catch let e as SwiftDataError {
            #expect(e.description.contains("IgBoatTour"))
        }
    }

    @Test("DEL-13 [REC] a delete that would nil a non-optional to-one throws at save; nothing deleted", arguments: StoreKind.allCases)
    func mandatoryInverse(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("dec")
        let container = try makeContainer(kind, mandatoryModels, in: dir)
        let ctx = ModelContext(container)
        let machine = IgMachine(name: "m")
        let part = IgPart(name: "p", machine: machine)
        ctx.insert(part)
        try ctx.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<IgMachine>())[0].parts.map(\.name) == ["p"])
        try ctx.delete(model: IgMachine.self)
        ctx.processPendingChanges()
        #expect(part.machine === machine)
        do {
            try ctx.save()
            Issue.record("a mandatory to-one was left dangling")
        } catch let e as SwiftDataError {
            #expect(e == SwiftDataError.modelValidationFailure)
            #expect(e.entityName == "IgPart" && e.relationshipName == "machine")
        }
        #expect(try storedCount(IgMachine.self, in: container) == 1)
        ctx.rollback()
        // Deleting the part with it is fine.
        ctx.delete(machine)
        ctx.delete(part)
        try ctx.save()
        #expect(try storedCount(IgPart.self, in: container) == 0)
        #expect(try storedCount(IgMachine.self, in: container) == 0)
    }
}

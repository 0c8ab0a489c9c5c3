import Foundation
import Testing

@testable import OpenSwiftData

@Model final class UtOwner {
    @Attribute(.unique) var number: Int
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \UtGadget.owner) var gadgets: [UtGadget] = []
    init(number: Int, name: String) {
        self.number = number
        self.name = name
    }
}

@Model final class UtGadget {
    var code: String
    var owner: UtOwner?
    init(code: String) { self.code = code }
}

/// UNQ-14 for one-to-many lists: the row an upsert takes over holds exactly the new model's
/// members, also when this save linked other models to the stored row's object.
@Suite("UpsertToManyMembers")
struct UpsertToManyMembersTests {
    /// How the save links gadget `b` to the stored owner before the upsert.
    enum Link: CaseIterable, Sendable {
        case append, ownerFromGadget, wholeList, newGadget
    }

    /// A store with owner 1 holding gadget `a` and an unowned gadget `b`; a context that has
    /// owner 1 (its gadgets loaded) and both gadgets.
    private static func setUp(_ kind: StoreKind, _ dir: ScratchDirectory) throws -> (
        container: ModelContainer, context: ModelContext, owner: UtOwner, a: UtGadget, b: UtGadget
    ) {
        let container = try kind.makeContainer(for: [UtOwner.self, UtGadget.self], in: dir, name: "store")
        let seed = ModelContext(container)
        let owner = UtOwner(number: 1, name: "stored")
        seed.insert(owner)
        let a = UtGadget(code: "a")
        seed.insert(a)
        a.owner = owner
        seed.insert(UtGadget(code: "b"))
        try seed.save()
        let context = ModelContext(container)
        let ownerHere = try #require(try context.fetch(FetchDescriptor<UtOwner>()).first)
        #expect(ownerHere.gadgets.map(\.code) == ["a"])
        let gadgets = try context.fetch(FetchDescriptor<UtGadget>(sortBy: [SortDescriptor(\.code)]))
        return (container, context, ownerHere, gadgets[0], gadgets[1])
    }

    /// Each gadget's owner's name (nil when it has none) as a fresh context reads the store.
    private static func storedOwners(_ container: ModelContainer) throws -> [String: String?] {
        let check = ModelContext(container)
        var owners: [String: String?] = [:]
        for g in try check.fetch(FetchDescriptor<UtGadget>()) { owners.updateValue(g.owner?.name, forKey: g.code) }
        return owners
    }

    @Test(
        "UNQ-14: gadgets this save linked to a stored owner do not stay with it when a new owner upserts its row",
        arguments: StoreKind.allCases, Link.allCases)
    func linkedMembersDropped(_ kind: StoreKind, _ link: Link) throws {
        let dir = try ScratchDirectory(prefix: "upsert-members")
        let (container, context, owner, a, b) = try Self.setUp(kind, dir)
        var linked = b
        switch link {
        case .append: owner.gadgets.append(b)
        case .ownerFromGadget: b.owner = owner
        case .wholeList: owner.gadgets = [a, b]
        case .newGadget:
            linked = UtGadget(code: "c")
            context.insert(linked)
            linked.owner = owner
        }
        #expect(linked.owner === owner)
        context.insert(UtOwner(number: 1, name: "new"))
        try context.save()

        let stored = try Self.storedOwners(container)
        #expect(stored["a"] == .some(nil), "\(link)")
        #expect(stored[linked.code] == .some(nil), "\(link)")
        // The context shows what the store holds.
        #expect(owner.name == "new" && owner.gadgets.isEmpty, "\(link)")
        #expect(a.owner == nil && linked.owner == nil, "\(link)")
    }

    @Test(
        "UNQ-14: a gadget the new owner names stays with the row; the stored owner's other gadgets leave it",
        arguments: StoreKind.allCases)
    func namedMemberKept(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "upsert-members")
        let (container, context, owner, a, b) = try Self.setUp(kind, dir)
        owner.gadgets.append(b)
        let new = UtOwner(number: 1, name: "new")
        context.insert(new)
        new.gadgets = [b]
        try context.save()

        let stored = try Self.storedOwners(container)
        #expect(stored["a"] == .some(nil))
        #expect(stored["b"] == .some("new"))
        #expect(owner.gadgets.map(\.code) == ["b"] && new.gadgets.map(\.code) == ["b"])
        #expect(a.owner == nil && b.owner?.name == "new")
    }

    @Test(
        "UNQ-30, UNQ-14: a gadget linked to a new owner that collapses into a later one stays with the row the later one upserts",
        arguments: StoreKind.allCases)
    func collapsedOwnersMembersKept(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "upsert-members")
        let (container, context, owner, a, b) = try Self.setUp(kind, dir)
        let first = UtOwner(number: 1, name: "first")
        context.insert(first)
        first.gadgets = [b]
        let second = UtOwner(number: 1, name: "second")
        context.insert(second)
        try context.save()

        let stored = try Self.storedOwners(container)
        #expect(stored["a"] == .some(nil))
        #expect(stored["b"] == .some("second"))
        // The context shows what the store holds, through each of the three objects.
        for o in [owner, first, second] { #expect(o.name == "second" && o.gadgets.map(\.code) == ["b"]) }
        #expect(a.owner == nil && b.owner?.name == "second")
    }
}

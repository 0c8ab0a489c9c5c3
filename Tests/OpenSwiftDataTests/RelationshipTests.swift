import Foundation
import Testing
@testable import OpenSwiftData

/// The relationship graph (behaviour reference §3.6): inserting a root inserts its graph,
/// inverses stay in sync before save, removal never deletes, and relationship counts are validated.
@Suite("Relationships")
struct RelationshipTests {
    @Test("REL-01 inserting a parent inserts its new children", arguments: StoreKind.allCases)
    func graphInsert(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("rel")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let p = IgParent(name: "p")
        p.children = [IgChild(name: "a"), IgChild(name: "b")]
        ctx.insert(p)
        try ctx.save()
        #expect(try storedCount(IgChild.self, in: container) == 2)
    }

    @Test("REL-02 setting child.parent adds the child to parent.children before save", arguments: StoreKind.allCases)
    func inverseSync(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("rel")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let p = IgParent(name: "p")
        ctx.insert(p)
        let c = IgChild(name: "c")
        c.parent = p
        #expect(p.children.contains { $0 === c })
        try ctx.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<IgParent>())[0].children.map(\.name) == ["c"])
    }

    @Test("REL-03 removing a child from the list clears its parent and never deletes it", arguments: StoreKind.allCases)
    func removalNeverDeletes(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("rel")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let p = IgParent(name: "p")
        let c = IgChild(name: "c")
        p.children = [c]
        ctx.insert(p)
        try ctx.save()
        p.children.removeAll()
        #expect(c.parent == nil)
        #expect(!c.isDeleted)
        try ctx.save()
        #expect(try storedCount(IgChild.self, in: container) == 1)
        #expect(try ModelContext(container).fetch(FetchDescriptor<IgChild>())[0].parent == nil)
    }

    @Test("REL-04 minimumModelCount and maximumModelCount are validated at save; nothing written", arguments: StoreKind.allCases)
    func counts(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("rel")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let empty = IgTeam(name: "empty")
        ctx.insert(empty)
        do {
            try ctx.save()
            Issue.record("a team with no members saved")
        } catch let e as SwiftDataError {
            #expect(e == SwiftDataError.modelValidationFailure)
            #expect(e.entityName == "IgTeam")
            #expect(e.relationshipName == "members")
        }
        #expect(try storedCount(IgTeam.self, in: container) == 0)
        #expect(ctx.hasChanges)
        // Fixing the model lets the retry succeed.
        empty.members = [IgMember(name: "m1")]
        try ctx.save()
        #expect(try storedCount(IgTeam.self, in: container) == 1)

        // Too many on an update: throws, store keeps one member.
        empty.members.append(contentsOf: [IgMember(name: "m2"), IgMember(name: "m3"), IgMember(name: "m4")])
        #expect(throws: SwiftDataError.modelValidationFailure) { try ctx.save() }
        #expect(try storedCount(IgMember.self, in: container) == 1)
        ctx.rollback()
        #expect(try ctx.fetch(FetchDescriptor<IgTeam>())[0].members.count == 1)

        // Removing the last member of a stored team is also refused.
        let team = try #require(try ctx.fetch(FetchDescriptor<IgTeam>()).first)
        team.members = []
        #expect(throws: SwiftDataError.modelValidationFailure) { try ctx.save() }
        ctx.rollback()
        #expect(try ModelContext(container).fetch(FetchDescriptor<IgTeam>())[0].members.count == 1)
    }

    @Test("REL-04 a count violation inside transaction {} writes nothing and keeps the changes for a retry", arguments: StoreKind.allCases)
    func countsInTransaction(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("rel")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let team = IgTeam(name: "t")
        #expect(throws: SwiftDataError.modelValidationFailure) {
            try ctx.transaction {
                ctx.insert(IgParent(name: "bystander"))
                ctx.insert(team)
            }
        }
        #expect(try storedCount(IgParent.self, in: container) == 0)
        #expect(ctx.insertedModelsArray.count == 2)
        team.members = [IgMember(name: "m")]
        try ctx.save()
        #expect(try storedCount(IgParent.self, in: container) == 1)
        #expect(try storedCount(IgMember.self, in: container) == 1)
    }
}

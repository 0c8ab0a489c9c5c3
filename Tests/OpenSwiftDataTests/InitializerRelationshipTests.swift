import Foundation
import Testing
@testable import OpenSwiftData

@Model final class Shelf2 {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Volume.shelf) var volumes: [Volume] = []
    init(name: String) { self.name = name }
}

@Model final class Volume {
    var title: String
    var shelf: Shelf2
    init(title: String, shelf: Shelf2) {
        self.title = title
        self.shelf = shelf           // assigned through the init accessor
    }
}

/// A relationship assigned in an initialiser updates the other side once the model is inserted
/// (REL-02), without duplicates when the other side was also set by hand.
@Suite("InitializerRelationships")
struct InitializerRelationshipTests {
    @Test("REL-02 a to-one set in init appears in the inverse after insert", arguments: StoreKind.allCases)
    func initAssigned(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("initrel")
        let container = try makeContainer(kind, [Shelf2.self, Volume.self], in: dir)
        let ctx = ModelContext(container)
        let shelf = Shelf2(name: "s")
        ctx.insert(shelf)
        let a = Volume(title: "a", shelf: shelf)
        ctx.insert(a)
        #expect(shelf.volumes.map(\.title) == ["a"])
        let b = Volume(title: "b", shelf: shelf)
        shelf.volumes.append(b)      // linked by hand too: no duplicate after insert
        ctx.insert(b)
        #expect(shelf.volumes.map(\.title) == ["a", "b"])
        try ctx.save()
        #expect(shelf.volumes.count == 2)
        let stored = try ModelContext(container).fetch(FetchDescriptor<Shelf2>())
        #expect(stored.first?.volumes.map(\.title).sorted() == ["a", "b"])
    }
}

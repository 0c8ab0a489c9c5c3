import Foundation
import Testing

@testable import OpenSwiftData

@Model final class HoBadge {
    @Attribute(.unique) var code: String
    var holder: String
    init(code: String, holder: String) {
        self.code = code
        self.holder = holder
    }
}

@Model final class HoSeat {
    #Unique<HoSeat>([\.row, \.number])
    var row: String
    var number: Int
    var guest: String
    init(row: String, number: Int, guest: String) {
        self.row = row
        self.number = number
        self.guest = guest
    }
}

/// Unique values handed over between rows inside one save: the save is checked against its
/// result, whatever order its rows are written in (UNQ-33).
@Suite("Unique values handed over within one save")
struct UniqueHandOverTests {
    private static func badges(_ container: ModelContainer) throws -> [String] {
        try ModelContext(container).fetch(FetchDescriptor<HoBadge>(sortBy: [SortDescriptor(\.holder)]))
            .map { "\($0.holder)=\($0.code)" }
    }

    private static func seeded(_ kind: StoreKind, _ dir: ScratchDirectory, _ badges: [(String, String)]) throws
        -> ModelContainer
    {
        let container = try kind.makeContainer(for: [HoBadge.self, HoSeat.self], in: dir, name: "store")
        let context = ModelContext(container)
        for (holder, code) in badges { context.insert(HoBadge(code: code, holder: holder)) }
        try context.save()
        return container
    }

    private static func badge(_ context: ModelContext, held by: String) throws -> HoBadge {
        try #require(try context.fetch(FetchDescriptor<HoBadge>(predicate: #Predicate { $0.holder == by })).first)
    }

    @Test("UNQ-33: two saved rows swap their unique values in one save, in either order", arguments: StoreKind.allCases)
    func swap(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "unique-hand-over")
        let container = try Self.seeded(kind, dir, [("ann", "A"), ("bob", "B")])
        for order in [["ann", "bob"], ["bob", "ann"]] {
            let context = ModelContext(container)
            let first = try Self.badge(context, held: order[0])
            let second = try Self.badge(context, held: order[1])
            (first.code, second.code) = (second.code, first.code)
            try context.save()
            #expect(!context.hasChanges)
        }
        // Swapped twice: back where they started.
        #expect(try Self.badges(container) == ["ann=A", "bob=B"])
    }

    @Test("UNQ-33: a chain of renames and a three-way rotation in one save", arguments: StoreKind.allCases)
    func chainAndRotation(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "unique-hand-over")
        let container = try Self.seeded(kind, dir, [("ann", "A"), ("bob", "B"), ("cy", "C")])
        let context = ModelContext(container)
        // ann takes bob's, bob takes cy's, cy takes a new one: each value is free once the save is written.
        try Self.badge(context, held: "ann").code = "B"
        try Self.badge(context, held: "bob").code = "C"
        try Self.badge(context, held: "cy").code = "D"
        try context.save()
        #expect(try Self.badges(container) == ["ann=B", "bob=C", "cy=D"])

        let again = ModelContext(container)
        try Self.badge(again, held: "ann").code = "C"
        try Self.badge(again, held: "bob").code = "D"
        try Self.badge(again, held: "cy").code = "B"
        try again.save()
        #expect(try Self.badges(container) == ["ann=C", "bob=D", "cy=B"])
    }

    @Test(
        "UNQ-33, UNQ-10: a new model takes the value a saved row leaves in the same save: an insert, not an upsert",
        arguments: StoreKind.allCases)
    func insertOntoAValueLeft(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "unique-hand-over")
        let container = try Self.seeded(kind, dir, [("ann", "A")])
        let context = ModelContext(container)
        let ann = try Self.badge(context, held: "ann")
        let annID = ann.persistentModelID
        ann.code = "A2"
        let dan = HoBadge(code: "A", holder: "dan")
        context.insert(dan)
        try context.save()
        #expect(try Self.badges(container) == ["ann=A2", "dan=A"])
        #expect(ann.persistentModelID == annID && dan.persistentModelID != annID)
    }

    @Test(
        "UNQ-33: compound groups hand over too; a nil-free swap of whole (row, number) pairs",
        arguments: StoreKind.allCases)
    func compoundGroup(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "unique-hand-over")
        let container = try kind.makeContainer(for: [HoBadge.self, HoSeat.self], in: dir, name: "store")
        let seed = ModelContext(container)
        seed.insert(HoSeat(row: "A", number: 1, guest: "ann"))
        seed.insert(HoSeat(row: "A", number: 2, guest: "bob"))
        try seed.save()
        let context = ModelContext(container)
        let seats = try context.fetch(FetchDescriptor<HoSeat>(sortBy: [SortDescriptor(\.guest)]))
        (seats[0].number, seats[1].number) = (2, 1)
        try context.save()
        let after = try ModelContext(container).fetch(FetchDescriptor<HoSeat>(sortBy: [SortDescriptor(\.guest)]))
        #expect(after.map { "\($0.guest)=\($0.row)\($0.number)" } == ["ann=A2", "bob=A1"])
    }

    @Test(
        "UNQ-33, CTX-03: rows left holding one value throw; nothing is written and the changes stay pending",
        arguments: StoreKind.allCases)
    func realDuplicateThrows(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "unique-hand-over")
        let container = try Self.seeded(kind, dir, [("ann", "A"), ("bob", "B"), ("cy", "C")])
        let context = ModelContext(container)
        // ann takes bob's value; bob moves to cy's, which cy keeps.
        try Self.badge(context, held: "ann").code = "B"
        try Self.badge(context, held: "bob").code = "C"
        do {
            try context.save()
            Issue.record("the save should throw")
        } catch let error as SwiftDataError {
            #expect(error.code == SwiftDataError.uniqueConstraintViolation.code, "\(error)")
        }
        #expect(context.hasChanges)
        #expect(try Self.badges(container) == ["ann=A", "bob=B", "cy=C"])
        // The pending changes are kept: moving cy off C makes the same save valid.
        try Self.badge(context, held: "cy").code = "A"
        try context.save()
        #expect(try Self.badges(container) == ["ann=B", "bob=C", "cy=A"])
    }
}

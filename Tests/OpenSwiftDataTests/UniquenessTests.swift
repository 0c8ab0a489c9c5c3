import Foundation
import Testing
@testable import OpenSwiftData

@Model final class CreditCard {
    @Attribute(.unique) var number: String
    var balance: Int
    var note: String?
    init(number: String, balance: Int, note: String? = nil) {
        self.number = number
        self.balance = balance
        self.note = note
    }
}

@Model final class Account {
    @Attribute(.unique) var id: Int
    @Attribute(.unique) var email: String
    var name: String
    init(id: Int, email: String, name: String) {
        self.id = id
        self.email = email
        self.name = name
    }
}

@Model final class Event {
    #Unique<Event>([\.name, \.day])
    var name: String
    var day: String
    var seats: Int
    init(name: String, day: String, seats: Int) {
        self.name = name
        self.day = day
        self.seats = seats
    }
}

@Model final class Badge {
    @Attribute(.unique) var code: String?
    var holder: String
    init(code: String?, holder: String) {
        self.code = code
        self.holder = holder
    }
}

/// Unique upserts at save (behaviour reference §2): the inserted values win, the stored row keeps
/// its identifier, nils never collide, and an impossible upsert throws and writes nothing.
@Suite("Uniqueness")
struct UniquenessTests {
    static let models: [any PersistentModel.Type] = [CreditCard.self, Account.self, Event.self, Badge.self]

    @Test("UNQ-10/11/12 an insert colliding with a stored row updates it, keeps its id, refreshes the registered instance", arguments: StoreKind.allCases)
    func upsert(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("unq")
        let container = try makeContainer(kind, Self.models, in: dir)
        let ctx = ModelContext(container)
        let first = CreditCard(number: "1234", balance: 1000, note: "x")
        ctx.insert(first)
        try ctx.save()
        let idA = first.persistentModelID
        let second = CreditCard(number: "1234", balance: 0)
        ctx.insert(second)
        #expect(try ctx.fetchCount(FetchDescriptor<CreditCard>()) == 2)   // UNQ-20: pending, no constraint yet
        try ctx.save()
        #expect(try ctx.fetchCount(FetchDescriptor<CreditCard>()) == 1)
        #expect(first.balance == 0)                                      // UNQ-12
        #expect(first.note == nil)                                       // UNQ-13: nil overwrites
        #expect(second.persistentModelID == idA)                        // UNQ-11
        #expect(!second.persistentModelID.isTemporary)
        second.balance = 7                                              // one row, one storage
        #expect(first.balance == 7)
        try ctx.save()
        let reader = ModelContext(container)
        let cards = try reader.fetch(FetchDescriptor<CreditCard>())
        #expect(cards.map(\.balance) == [7])
        #expect(cards.first?.persistentModelID == idA)
    }

    @Test("UNQ-15 UNQ-17 a collision on any unique attribute replaces that row", arguments: StoreKind.allCases)
    func secondConstraint(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("unq")
        let container = try makeContainer(kind, Self.models, in: dir)
        let ctx = ModelContext(container)
        ctx.insert(Account(id: 1, email: "a@x", name: "Alice"))
        try ctx.save()
        ctx.insert(Account(id: 2, email: "a@x", name: "Bob"))
        try ctx.save()
        let rows = try ModelContext(container).fetch(FetchDescriptor<Account>())
        #expect(rows.map { "\($0.id) \($0.name)" } == ["2 Bob"])
    }

    @Test("UNQ-16 compound uniqueness collides only on the whole group", arguments: StoreKind.allCases)
    func compound(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("unq")
        let container = try makeContainer(kind, Self.models, in: dir)
        let ctx = ModelContext(container)
        ctx.insert(Event(name: "Launch", day: "Mon", seats: 1))
        try ctx.save()
        ctx.insert(Event(name: "Launch", day: "Tue", seats: 2))
        try ctx.save()
        #expect(try ctx.fetchCount(FetchDescriptor<Event>()) == 2)
        ctx.insert(Event(name: "Launch", day: "Mon", seats: 3))
        try ctx.save()
        let events = try ModelContext(container).fetch(FetchDescriptor<Event>(sortBy: [SortDescriptor(\.day)]))
        #expect(events.map { "\($0.day) \($0.seats)" } == ["Mon 3", "Tue 2"])
    }

    @Test("UNQ-18 a collision with two different rows throws, writes nothing, keeps the insert pending", arguments: StoreKind.allCases)
    func doubleCollision(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("unq")
        let container = try makeContainer(kind, Self.models, in: dir)
        let ctx = ModelContext(container)
        ctx.insert(Account(id: 1, email: "a@x", name: "A"))
        ctx.insert(Account(id: 2, email: "b@x", name: "B"))
        try ctx.save()
        ctx.insert(Account(id: 1, email: "b@x", name: "C"))
        #expect { try ctx.save() } throws: { ($0 as? SwiftDataError)?.code == SwiftDataError.uniqueConstraintViolation.code }
        #expect(ctx.hasChanges)
        #expect(ctx.insertedModelsArray.count == 1)
        let names = try ModelContext(container).fetch(FetchDescriptor<Account>(sortBy: [SortDescriptor(\.id)])).map(\.name)
        #expect(names == ["A", "B"])
        ctx.rollback()
        #expect(!ctx.hasChanges)
    }

    @Test("UNQ-19 nil never collides; UNQ-30 colliding pending inserts collapse, last wins", arguments: StoreKind.allCases)
    func nilsAndPendingCollapse(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("unq")
        let container = try makeContainer(kind, Self.models, in: dir)
        let ctx = ModelContext(container)
        let a = CreditCard(number: "9", balance: 1, note: "first")
        let b = CreditCard(number: "9", balance: 2, note: "second")
        ctx.insert(a)
        ctx.insert(b)
        try ctx.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<CreditCard>()).map(\.note) == ["second"])
        #expect(a.persistentModelID == b.persistentModelID)
        #expect(a.note == "second")
        ctx.insert(Badge(code: nil, holder: "x"))
        ctx.insert(Badge(code: nil, holder: "y"))
        try ctx.save()
        ctx.insert(Badge(code: nil, holder: "z"))
        try ctx.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Badge>()) == 3)
    }

    @Test("UNQ-31 insert, save, insert again, save: an ordinary upsert", arguments: StoreKind.allCases)
    func saveBetween(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("unq")
        let container = try makeContainer(kind, Self.models, in: dir)
        let ctx = ModelContext(container)
        ctx.insert(Account(id: 5, email: "e@x", name: "one"))
        try ctx.save()
        let other = ModelContext(container)            // UNQ-32: another context, same container
        other.insert(Account(id: 5, email: "e@x", name: "two"))
        try other.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Account>()).map(\.name) == ["two"])
    }
}

import Foundation
import Testing

@testable import OpenSwiftData

@Model final class UlCard {
    @Attribute(.unique) var number: String
    var balance: Int
    init(number: String, balance: Int) {
        self.number = number
        self.balance = balance
    }
}

@Model final class UlPerson {
    @Attribute(.unique) var code: Int
    @Attribute(.unique) var email: String
    var name: String
    init(code: Int, email: String, name: String) {
        self.code = code
        self.email = email
        self.name = name
    }
}

/// A save's uniqueness lookup (`StoreWriter.rows(matching:anyOf:found:)`): skipped when the
/// table has no row at all, run otherwise — up to 256 values a statement, each batch in the
/// shortest of lists of 1, 4, 16, 64 and 256 values that holds it — with the same upserts
/// whatever the batches.
@Suite("Uniqueness lookups")
struct UniquenessLookupTests {
    private static func lookups(_ sql: [String]) -> [String] {
        sql.filter {
            $0.hasPrefix("SELECT \"ZNUMBER\", \"Z_PK\", \"Z_ENT\", \"Z_OPT\" FROM \"ZULCARD\" WHERE \"ZNUMBER\" IN (")
        }
    }

    /// The lookup with a list of `n` values (`… IN (?, …)`).
    private static func lookup(listing n: Int) -> String {
        "SELECT \"ZNUMBER\", \"Z_PK\", \"Z_ENT\", \"Z_OPT\" FROM \"ZULCARD\" WHERE \"ZNUMBER\" IN ("
            + Array(repeating: "?", count: n).joined(separator: ", ") + ")"
    }

    @Test(
        "A save into an empty table looks nothing up; the next one does, and upserts (UNQ-10, UNQ-19)",
        arguments: StoreKind.allCases)
    func emptyTableSkipsTheLookup(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "uniqueness-lookup")
        let container = try kind.makeContainer(for: [UlCard.self], in: dir, name: "store")
        let statements = Statements()
        // First save: an empty table, and two new cards colliding with each other (the later wins).
        try statements.record(container) {
            let context = ModelContext(container)
            for i in 0..<5 { context.insert(UlCard(number: "c\(i)", balance: i)) }
            context.insert(UlCard(number: "c1", balance: 100))
            try context.save()
        }
        #expect(Self.lookups(statements.sql).isEmpty)
        #expect(statements.sql.contains("SELECT 1 FROM \"ZULCARD\" LIMIT 1"))
        let first = ModelContext(container)
        let cards = try first.fetch(FetchDescriptor<UlCard>(sortBy: [SortDescriptor(\.number)]))
        #expect(cards.map(\.number) == ["c0", "c1", "c2", "c3", "c4"])
        #expect(cards.map(\.balance) == [0, 100, 2, 3, 4])

        // Second save: the table has rows; two of three new cards match stored ones and replace them.
        statements.sql = []
        try statements.record(container) {
            let context = ModelContext(container)
            context.insert(UlCard(number: "c2", balance: 20))
            context.insert(UlCard(number: "c4", balance: 40))
            context.insert(UlCard(number: "c9", balance: 9))
            try context.save()
        }
        // Three values: one lookup, in the four-value list (its last placeholder repeats "c9").
        #expect(Self.lookups(statements.sql) == [Self.lookup(listing: 4)])
        let after = try ModelContext(container).fetch(FetchDescriptor<UlCard>(sortBy: [SortDescriptor(\.number)]))
        #expect(after.map(\.number) == ["c0", "c1", "c2", "c3", "c4", "c9"])
        #expect(after.map(\.balance) == [0, 100, 20, 3, 40, 9])
        // The upserted rows kept their keys (UNQ-10: an update of the stored row).
        #expect(after[2].persistentModelID == cards[2].persistentModelID)
        #expect(after[4].persistentModelID == cards[4].persistentModelID)
    }

    @Test(
        "New models are looked up 256 values a statement, each batch in the shortest list, with the same upserts (UNQ-10)",
        arguments: StoreKind.allCases)
    func batchedAndSingleLookups(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "uniqueness-lookup")
        let container = try kind.makeContainer(for: [UlCard.self], in: dir, name: "store")
        let seed = ModelContext(container)
        for i in 0..<300 { seed.insert(UlCard(number: "s\(i)", balance: i)) }
        try seed.save()
        let statements = Statements()
        // 300 new cards, every third one a stored number: two lookups, 256 values, then 44 in the 64-value list.
        try statements.record(container) {
            let context = ModelContext(container)
            for i in 0..<300 {
                context.insert(UlCard(number: i % 3 == 0 ? "s\(i)" : "n\(i)", balance: -i))
            }
            try context.save()
        }
        #expect(Self.lookups(statements.sql) == [Self.lookup(listing: 256), Self.lookup(listing: 64)])
        // 31 new cards: one lookup, in the 64-value list.
        statements.sql = []
        try statements.record(container) {
            let context = ModelContext(container)
            for i in 0..<31 { context.insert(UlCard(number: "s\(i + 1)", balance: 1000 + i)) }
            try context.save()
        }
        #expect(Self.lookups(statements.sql) == [Self.lookup(listing: 64)])
        // One new card: the one-value list, which SQLite runs as `= ?`.
        statements.sql = []
        try statements.record(container) {
            let context = ModelContext(container)
            context.insert(UlCard(number: "s299", balance: 2990))
            try context.save()
        }
        #expect(Self.lookups(statements.sql) == [Self.lookup(listing: 1)])
        let cards = try ModelContext(container).fetch(FetchDescriptor<UlCard>())
        let balances = Dictionary(uniqueKeysWithValues: cards.map { ($0.number, $0.balance) })
        // 300 stored + 200 new numbers; each stored number upserted once or twice, never duplicated.
        #expect(cards.count == 500)
        for i in 0..<300 {
            let expected = i == 299 ? 2990 : (1...31).contains(i) ? 1000 + i - 1 : i % 3 == 0 ? -i : i
            #expect(balances["s\(i)"] == expected, "s\(i)")
            if i % 3 != 0 { #expect(balances["n\(i)"] == -i, "n\(i)") }
        }
    }

    @Test("A table emptied by this save's deletes takes a new model's values without a lookup (UNQ-10)")
    func deletedInTheSameSave() throws {
        let dir = try ScratchDirectory(prefix: "uniqueness-lookup")
        let container = try StoreKind.disk.makeContainer(for: [UlCard.self], in: dir, name: "store")
        let seed = ModelContext(container)
        seed.insert(UlCard(number: "x", balance: 1))
        try seed.save()
        let context = ModelContext(container)
        for card in try context.fetch(FetchDescriptor<UlCard>()) { context.delete(card) }
        context.insert(UlCard(number: "x", balance: 2))
        context.insert(UlCard(number: "y", balance: 3))
        try context.save()
        let after = try ModelContext(container).fetch(FetchDescriptor<UlCard>(sortBy: [SortDescriptor(\.number)]))
        #expect(after.map(\.number) == ["x", "y"] && after.map(\.balance) == [2, 3])
    }

    @Test("ValueMap keys compare as SQLValues do: an integer, a real and a text of one number are three keys")
    func valueMapKeys() {
        var map = ValueMap<String>()
        #expect(map.isEmpty)
        #expect(map.updateValue("int", forKey: .integer(1)) == nil)
        #expect(map.updateValue("real", forKey: .real(1)) == nil)
        #expect(map.updateValue("text", forKey: .text("1")) == nil)
        #expect(!map.isEmpty)
        #expect(map[.integer(1)] == "int" && map[.real(1)] == "real" && map[.text("1")] == "text")
        #expect(map.updateValue("int2", forKey: .integer(1)) == "int")
        #expect(map[.integer(2)] == nil && map[.null] == nil)
        map[.integer(1)] = nil
        #expect(map[.integer(1)] == nil && map[.real(1)] == "real")
    }

    @Test(
        "A new model matching two stored rows, one per unique attribute, is refused by the lookup, naming both (UNQ-18)",
        arguments: StoreKind.allCases)
    func doubleCollisionNamesBothGroups(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "uniqueness-lookup")
        let container = try kind.makeContainer(for: [UlPerson.self], in: dir, name: "store")
        let seed = ModelContext(container)
        seed.insert(UlPerson(code: 1, email: "a@x", name: "A"))
        seed.insert(UlPerson(code: 2, email: "b@x", name: "B"))
        try seed.save()
        let context = ModelContext(container)
        context.insert(UlPerson(code: 1, email: "b@x", name: "C"))
        do {
            try context.save()
            Issue.record("the save should throw")
        } catch let error as SwiftDataError {
            #expect(error.code == SwiftDataError.uniqueConstraintViolation.code)
            // The lookup's error (before any row is written), not SQLite's unique index.
            #expect(error.message.contains("matches 2 different stored rows"), "\(error.message)")
            #expect(error.message.contains("ZCODE") && error.message.contains("ZEMAIL"), "\(error.message)")
        }
        #expect(context.hasChanges)
        let rows = try ModelContext(container).fetch(FetchDescriptor<UlPerson>(sortBy: [SortDescriptor(\.code)]))
        #expect(rows.map(\.name) == ["A", "B"])
    }
}

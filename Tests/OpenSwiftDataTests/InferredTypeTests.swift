import Foundation
import OpenSwiftData
import Testing

/// Properties whose type the compiler infers from the initial value, as Apple's macro accepts.
/// (`let id = UUID()` compiles too, with a warning: a `let`'s default is evaluated again when a
/// model is loaded, so the identifier is a `var` here; MacroDiagnosticsTests checks the warning.)
@Model final class InfAccount {
    var id = UUID()
    var balance = Decimal.zero
    var date = Date(timeIntervalSinceReferenceDate: 0)
    var count = 0
    var ratio = 1.5
    var name = ""
    var isDone = false
    var tags = [String]()
    var entries = [InfEntry]()
    @Relationship(deleteRule: .cascade) var notes = [InfNote]()

    init(name: String) { self.name = name }
}

@Model final class InfEntry {
    var amount = 0
    var account: InfAccount?
    init(amount: Int) { self.amount = amount }
}

@Model final class InfNote {
    var text = "note"
    init() {}
}

@Suite("InferredTypes")
struct InferredTypeTests {
    @Test("inferred attribute types, defaults and a to-many relationship reach the schema")
    func schema() throws {
        let schema = Schema([InfAccount.self])
        let e = try #require(schema.entitiesByName["InfAccount"])
        let expectations: [(String, Any.Type)] = [
            ("id", UUID.self), ("balance", Decimal.self), ("date", Date.self), ("count", Int.self),
            ("ratio", Double.self), ("name", String.self), ("isDone", Bool.self), ("tags", [String].self),
        ]
        #expect(e.attributes.map(\.name) == expectations.map(\.0))
        for (name, type) in expectations {
            let a = try #require(e.attributes.first { $0.name == name })
            #expect(ObjectIdentifier(a.valueType) == ObjectIdentifier(type), "\(name): \(a.valueType)")
            #expect(a.isOptional == false, "\(name)")
        }
        #expect(e.attributes.first { $0.name == "count" }?.defaultValue as? Int == 0)
        #expect(e.attributes.first { $0.name == "balance" }?.defaultValue as? Decimal == 0)
        let entries = try #require(e.relationships.first { $0.name == "entries" })
        #expect(entries.destination == "InfEntry")
        #expect(entries.isToOneRelationship == false)
        #expect(entries.inverseName == "account")
        let notes = try #require(e.relationships.first { $0.name == "notes" })
        #expect(notes.destination == "InfNote")
        #expect(notes.isToOneRelationship == false)
        #expect(notes.deleteRule == .cascade)
    }

    @Test("models with inferred types round-trip", arguments: StoreKind.allCases)
    func roundTrip(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "inf")
        let container = try kind.makeContainer(for: [InfAccount.self], in: dir)
        let writer = ModelContext(container)
        let account = InfAccount(name: "cash")
        writer.insert(account)
        account.balance = Decimal(string: "12.25")!
        account.count = 3
        account.isDone = true
        account.tags = ["a", "b"]
        account.entries.append(InfEntry(amount: 7))
        account.notes.append(InfNote())
        try writer.save()
        let id = account.id

        let reader = ModelContext(container)
        let read = try #require(
            try reader.fetch(FetchDescriptor<InfAccount>(predicate: #Predicate { $0.count == 3 })).first)
        #expect(read.id == id)
        let stored = try reader.fetch(FetchDescriptor<InfAccount>(predicate: #Predicate { $0.id == id }))
        #expect(stored.count == 1, "the UUID assigned at insert is the one stored")
        #expect(read.name == "cash")
        #expect(read.balance == Decimal(string: "12.25")!)
        #expect(read.date == Date(timeIntervalSinceReferenceDate: 0))
        #expect(read.isDone)
        #expect(read.ratio == 1.5)
        #expect(read.tags == ["a", "b"])
        #expect(read.entries.map(\.amount) == [7])
        #expect(read.entries.first?.account === read)
        #expect(read.notes.map(\.text) == ["note"])
        reader.delete(read)
        try reader.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<InfNote>()) == 0)
    }
}

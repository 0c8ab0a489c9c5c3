import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

/// A value of a gadget: a Codable struct attribute.
struct GadgetSpec: Codable, Hashable, Sendable {
    var label: String
    var weight: Double
    var parts: [String]
    var serial: Int?
}

/// The size of a gadget: a `CaseIterable` raw-value enum.
enum GadgetSize: String, Codable, CaseIterable, Sendable { case small, medium, large }

/// Counts calls of `AutoGadget.init` (automatic data must never call it).
final class InitCounter: @unchecked Sendable {
    static let shared = InitCounter()
    private let lock = NSLock()
    private var value = 0
    func bump() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
}

/// Every attribute type automatic data fills, with a compound unique constraint.
@Model final class AutoGadget {
    #Unique<AutoGadget>([\.code, \.size])
    var code: String
    var size: GadgetSize
    var count8: Int8
    var price: Decimal
    var ratio: Float
    var homepage: URL
    var blob: Data
    var token: UUID
    var made: Date
    var spec: GadgetSpec
    var nickname: String?
    var tags: [String]
    var owner: AutoOwner?
    init(code: String) {
        InitCounter.shared.bump()
        self.code = code
        size = .small
        count8 = 0
        price = 0
        ratio = 0
        homepage = URL(string: "https://example.com")!
        blob = Data()
        token = UUID()
        made = Date()
        spec = GadgetSpec(label: "", weight: 0, parts: [], serial: nil)
        tags = []
    }
}

/// Owners: a unique number, cascading to their gadgets, a self reference and a many-to-many.
@Model final class AutoOwner {
    @Attribute(.unique) var number: Int
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \AutoGadget.owner) var gadgets: [AutoGadget] = []
    var mentor: AutoOwner?
    @Relationship(inverse: \AutoClub.members) var clubs: [AutoClub] = []
    init(number: Int, name: String) {
        self.number = number
        self.name = name
    }
}

/// Clubs: many-to-many with owners, at least one member each.
@Model final class AutoClub {
    var title: String
    @Relationship(minimumModelCount: 1) var members: [AutoOwner] = []
    init(title: String) { self.title = title }
}

@Suite("AutomaticFixtures")
struct AutomaticFixtureTests {
    static let schema = Schema([AutoOwner.self, AutoGadget.self, AutoClub.self])

    @Test("a schema fixture fills every type and relationship without calling initialisers, the same on both stores")
    func schemaFixture() throws {
        let before = InitCounter.shared.count
        let fixture = Fixture(
            schema: Self.schema, seed: 5, counts: ["AutoOwner": 30, "AutoGadget": 120, "AutoClub": 8])
        let pair = try StorePair(schema: Self.schema, seed: 5)
        try pair.populate(fixture)
        #expect(InitCounter.shared.count == before)
        let context = ModelContext(pair.memory)
        let gadgets = try context.fetch(FetchDescriptor<AutoGadget>())
        #expect(gadgets.count == 120)
        #expect(Set(gadgets.map(\.size)).count == 3)
        #expect(gadgets.contains { $0.nickname == nil } && gadgets.contains { $0.nickname != nil })
        #expect(gadgets.contains { !$0.spec.parts.isEmpty })
        #expect(gadgets.filter { $0.owner != nil }.count > 60)
        let owners = try context.fetch(FetchDescriptor<AutoOwner>())
        #expect(Set(owners.map(\.number)).count == 30)
        #expect(owners.contains { $0.mentor != nil })
        let clubs = try context.fetch(FetchDescriptor<AutoClub>())
        #expect(clubs.count == 8 && clubs.allSatisfy { !$0.members.isEmpty })
        try pair.expectSameContents("automatic fixture")
        // Same seed, same rows.
        let again = try StorePair(schema: Self.schema, seed: 5)
        try again.populate(fixture)
        #expect(try CanonicalDump.content(of: again.memory).digest == CanonicalDump.content(of: pair.memory).digest)
    }

    @Test("a schema with inheritance gets a mix of subclasses; populate reports the stored rows")
    func inheritanceMix() throws {
        let schema = SampleSchema.trips.schema
        let container = try ModelContainer(for: schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let counts = try Fixture(schema: schema, seed: 3, defaultCount: 15).populate(container)
        #expect(counts["TravelTrip"] == 45)
        let context = ModelContext(container)
        #expect(try context.fetchCount(FetchDescriptor<TravelBusinessTrip>()) == 15)
        #expect(try context.fetchCount(FetchDescriptor<TravelPersonalTrip>()) == 15)
    }

    @Test("overrides replace automatic values; Generate without a closure is automatic")
    func overrides() throws {
        let fixture = Fixture(seed: 2) {
            Generate(AutoOwner.self, count: 10)
        }.override(\AutoOwner.name) { row in "owner \(row.index)" }
        let container = try ModelContainer(
            for: Self.schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(try fixture.populate(container) == ["AutoOwner": 10])
        let names = try ModelContext(container).fetch(FetchDescriptor<AutoOwner>(sortBy: [SortDescriptor(\.name)])).map(
            \.name)
        #expect(names == (0..<10).map { "owner \($0)" }.sorted())
    }

    @Test("populate fails loudly when an upsert merges rows nobody asked to collide")
    func collapsedUpsert() throws {
        let colliding = Fixture(seed: 1) {
            Generate(AutoOwner.self, count: 50) { row in AutoOwner(number: row.int("number", in: 0...9), name: "x") }
        }
        let container = try ModelContainer(
            for: Self.schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let error = #expect(throws: FixtureCollisionError.self) { try colliding.populate(container) }
        #expect(error?.generated == 50 && (error?.stored ?? 50) <= 10)
        #expect(error?.description.contains("[number]") == true)

        let allowed = Fixture(seed: 1) {
            Generate(AutoOwner.self, count: 50) { row in AutoOwner(number: row.int("number", in: 0...9), name: "x") }
                .allowingCollisions()
        }
        let other = try ModelContainer(for: Self.schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(try allowed.populate(other)["AutoOwner"] == 10)

        let unique = Fixture(seed: 1) {
            Generate(AutoOwner.self, count: 50) { row in
                AutoOwner(number: row.unique.int("number"), name: row.unique.email("e"))
            }
        }
        let third = try ModelContainer(for: Self.schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(try unique.populate(third)["AutoOwner"] == 50)
    }

    @Test("an unknown entity name in counts is reported")
    func unknownCount() throws {
        let container = try ModelContainer(
            for: Self.schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(throws: SwiftDataError.self) {
            try Fixture(schema: Self.schema, seed: 1, counts: ["Nope": 1]).populate(container)
        }
    }
}

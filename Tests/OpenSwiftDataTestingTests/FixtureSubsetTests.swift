import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

/// A household → owner → pet chain of required to-ones, an optional to-one without inverse
/// (`vet`), a many-to-many (`toys`) and a to-many without inverse (`visits`): every kind of key
/// a subset has to keep consistent.
@Model final class SubsetHousehold {
    var street: String
    init(street: String) { self.street = street }
}

@Model final class SubsetOwner {
    @Attribute(.unique) var email: String
    var name: String
    var phone: String
    var household: SubsetHousehold
    @Relationship(deleteRule: .cascade, inverse: \SubsetPet.owner) var pets: [SubsetPet] = []
    init(email: String, name: String, phone: String, household: SubsetHousehold) {
        self.email = email
        self.name = name
        self.phone = phone
        self.household = household
    }
}

@Model final class SubsetVet {
    var name: String
    init(name: String) { self.name = name }
}

@Model final class SubsetToy {
    var label: String
    var pets: [SubsetPet] = []
    init(label: String) { self.label = label }
}

@Model final class SubsetVisit {
    var note: String
    var day: Date
    init(note: String, day: Date) {
        self.note = note
        self.day = day
    }
}

@Model final class SubsetPet {
    var name: String
    var owner: SubsetOwner
    var vet: SubsetVet?
    @Relationship(inverse: \SubsetToy.pets) var toys: [SubsetToy] = []
    var visits: [SubsetVisit] = []
    init(name: String, owner: SubsetOwner) {
        self.name = name
        self.owner = owner
    }
}

/// `FixtureSubset` and `FixtureScrub` on stores the library writes: the subset is referentially
/// complete, the same for a seed, opens with the schema, and never changes its input.
@Suite("Fixture subsets and scrubbing")
struct FixtureSubsetTests {
    static let schema = Schema([
        SubsetHousehold.self, SubsetOwner.self, SubsetVet.self, SubsetToy.self, SubsetVisit.self, SubsetPet.self,
    ])

    /// The pets' many-to-many join table.
    static func join() throws -> StoreGraph.Join { try #require(StoreGraph(schema).joins.first) }

    /// A store of 8 households, 20 owners (names repeat), 40 pets, 5 vets, 6 toys, 60 visits,
    /// written by a disk container and copied with its `-wal` while the app still has it open, as
    /// from a device; its history tables hold the saves.
    static func petStore(in dir: URL) throws -> URL {
        let app = dir.appendingPathComponent("app")
        try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
        let url = app.appendingPathComponent("pets.store")
        let copy = dir.appendingPathComponent("pets.store")
        do {
            let container = try ModelContainer(for: schema, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let households = (0..<8).map { SubsetHousehold(street: "\($0) Long Street") }
            let owners = (0..<20).map { i in
                SubsetOwner(
                    email: "owner\(i)@mail\(i % 3).example.com",
                    name: ["Ada Byron", "Alan Turing", "Grace Hopper"][i % 3],
                    phone: "+44 20 7946 \(1000 + i)", household: households[i % 8])
            }
            let vets = (0..<5).map { SubsetVet(name: "Vet \($0)") }
            let toys = (0..<6).map { SubsetToy(label: "toy \($0)") }
            for h in households { context.insert(h) }
            for o in owners { context.insert(o) }
            for v in vets { context.insert(v) }
            for t in toys { context.insert(t) }
            for i in 0..<40 {
                let pet = SubsetPet(name: "Pet \(i % 7)", owner: owners[i % 20])
                context.insert(pet)
                pet.vet = i % 3 == 0 ? nil : vets[i % 5]
                pet.toys = [toys[i % 6], toys[(i + 1) % 6]]
                pet.visits = (0..<(i % 4)).map { SubsetVisit(note: "visit \($0)", day: FixtureEpoch.reference) }
            }
            try context.save()
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: url.path + suffix) {
                try FileManager.default.copyItem(atPath: url.path + suffix, toPath: copy.path + suffix)
            }
        }
        return copy
    }

    private static func rows(_ url: URL, _ sql: String) throws -> [[SQLValue]] {
        let db = try SQLiteConnection(path: url.path, mode: .readOnly)
        defer { db.close() }
        return try db.rows(sql)
    }

    private static func count(_ url: URL, _ sql: String) throws -> Int {
        guard case .integer(let n)? = try rows(url, sql).first?.first else { return -1 }
        return Int(n)
    }

    private static func text(_ value: SQLValue) -> String {
        if case .text(let text) = value { return text }
        return "not text: \(value)"
    }

    private static func bytes(_ url: URL) throws -> [Data] {
        // The -shm file is SQLite's index of the -wal, which any reader may rebuild.
        try ["", "-wal"].filter { FileManager.default.fileExists(atPath: url.path + $0) }
            .map { try Data(contentsOf: URL(fileURLWithPath: url.path + $0)) }
    }

    @Test("FIX-10 FIX-11 FIX-12 FIX-14: a subset keeps required destinations, clears the rest, opens, input unchanged")
    func subsetIsComplete() throws {
        let scratch = try ScratchDirectory(prefix: "fixture-subset")
        let input = try Self.petStore(in: scratch.url)
        let before = try Self.bytes(input)
        let out = scratch.url.appendingPathComponent("small.store")
        let summary = try FixtureSubset.write(
            from: input, schema: Self.schema, keep: ["SubsetPet": 5], seed: 3, to: out)
        #expect(try Self.bytes(input) == before, "FIX-14: the input keeps its bytes")
        #expect(summary.isValid, "\(summary.text)")

        // FIX-10: five pets; FIX-11: their owners and the owners' households, nothing else.
        #expect(try Self.count(out, "SELECT count(*) FROM ZSUBSETPET") == 5)
        let owners = try Self.count(out, "SELECT count(DISTINCT ZOWNER) FROM ZSUBSETPET")
        #expect(try Self.count(out, "SELECT count(*) FROM ZSUBSETOWNER") == owners)
        #expect(
            try Self.count(out, "SELECT count(*) FROM ZSUBSETHOUSEHOLD")
                == Self.count(out, "SELECT count(DISTINCT ZHOUSEHOLD) FROM ZSUBSETOWNER"))
        #expect(
            try Self.count(out, "SELECT count(*) FROM ZSUBSETPET WHERE ZOWNER NOT IN (SELECT Z_PK FROM ZSUBSETOWNER)")
                == 0)
        #expect(try Self.count(out, "SELECT count(*) FROM ZSUBSETVET") == 0, "not named, not required: empty")
        #expect(try Self.count(out, "SELECT count(*) FROM ZSUBSETTOY") == 0)
        #expect(
            try Self.count(out, "SELECT count(*) FROM ZSUBSETPET WHERE ZVET IS NOT NULL") == 0, "optional key cleared")
        #expect(
            try Self.count(out, "SELECT count(*) FROM \(Self.join().table)") == 0, "join rows to toys not kept removed")
        #expect(summary.removedJoinRows["SubsetPet.toys", default: 0] > 0)
        #expect(try Self.count(out, "SELECT count(*) FROM ZSUBSETVISIT") == 0)
        #expect(summary.entities.first { $0.name == "SubsetVet" }?.rowsAfter == 0)
        #expect(summary.rowsKept["SubsetPet"] == 5 && summary.rowsKept["SubsetOwner"] == owners)
        #expect(summary.rowsKept["SubsetVet"] == 0 && summary.problems.isEmpty)
        #expect(summary.entities.first { $0.name == "SubsetOwner" }?.requiredBy["SubsetPet.owner"] == owners)
        // FIX-12: history emptied; the result opens with the schema and its objects fetch.
        #expect(summary.historyRowsRemoved > 0)
        #expect(try Self.count(out, "SELECT count(*) FROM ATRANSACTION") == 0)
        #expect(try FixtureFile.verifyStore(out).isValid)
        let fixture = try FixtureDatabase(contentsOf: out, schema: Self.schema, store: .disk)
        let context = ModelContext(fixture.container)
        let pets = try context.fetch(FetchDescriptor<SubsetPet>())
        #expect(pets.count == 5)
        #expect(
            pets.allSatisfy { pet in
                pet.owner.pets.contains { $0.persistentModelID == pet.persistentModelID }
                    && !pet.owner.household.street.isEmpty
            })
        #expect(pets.allSatisfy { $0.vet == nil && $0.toys.isEmpty && $0.visits.isEmpty })
    }

    @Test("FIX-11: named optional destinations keep their keys, join rows and one-way to-many keys")
    func keptDestinationsKeepTheirKeys() throws {
        let scratch = try ScratchDirectory(prefix: "fixture-subset")
        let input = try Self.petStore(in: scratch.url)
        let out = scratch.url.appendingPathComponent("small.store")
        let summary = try FixtureSubset.write(
            from: input, schema: Self.schema,
            keep: ["SubsetPet": 12, "SubsetToy": 3, "SubsetVet": FixtureSubset.all, "SubsetVisit": 20], seed: 9, to: out
        )
        #expect(summary.isValid, "\(summary.text)")
        #expect(try FixtureSubset.referentialProblems(of: out, schema: Self.schema).isEmpty)
        #expect(try Self.count(out, "SELECT count(*) FROM ZSUBSETVET") == 5)
        #expect(try Self.count(out, "SELECT count(*) FROM ZSUBSETPET WHERE ZVET IS NOT NULL") > 0)
        let join = try Self.join()
        #expect(
            try Self.count(
                out,
                "SELECT count(*) FROM \(join.table) WHERE \(join.ownerColumn) NOT IN (SELECT Z_PK FROM ZSUBSETPET) OR \(join.destinationColumn) NOT IN (SELECT Z_PK FROM ZSUBSETTOY)"
            ) == 0)
        #expect(try Self.count(out, "SELECT count(*) FROM \(join.table)") > 0)
        let column = try #require(StoreGraph(Self.schema).entity(named: "SubsetPet")?.oneWayToManys.first?.keyColumn)
        #expect(try Self.count(out, "SELECT count(*) FROM ZSUBSETVISIT WHERE \(column) IS NOT NULL") > 0)
        #expect(
            try Self.count(
                out,
                "SELECT count(*) FROM ZSUBSETVISIT WHERE \(column) IS NOT NULL AND \(column) NOT IN (SELECT Z_PK FROM ZSUBSETPET)"
            ) == 0)
        // Both sides of the many-to-many agree after loading.
        let fixture = try FixtureDatabase(contentsOf: out, schema: Self.schema, store: .memory)
        let context = ModelContext(fixture.container)
        let toys = try context.fetch(FetchDescriptor<SubsetToy>())
        #expect(toys.count == 3)
        #expect(toys.contains { !$0.pets.isEmpty })
        #expect(
            toys.allSatisfy { toy in
                toy.pets.allSatisfy { pet in pet.toys.contains { $0.persistentModelID == toy.persistentModelID } }
            })
    }

    @Test("FIX-10: the same seed picks the same rows and writes the same bytes; another seed picks others")
    func deterministicForSeed() throws {
        let scratch = try ScratchDirectory(prefix: "fixture-subset")
        let input = try Self.petStore(in: scratch.url)
        func keys(seed: UInt64, _ name: String) throws -> (Data, [[SQLValue]]) {
            let out = scratch.url.appendingPathComponent(name)
            try FixtureSubset.write(
                from: input, schema: Self.schema, keep: ["SubsetPet": 6], seed: seed,
                scrub: [FixtureScrub.Rule(entity: "SubsetOwner", attribute: "email")], to: out)
            return (try Data(contentsOf: out), try Self.rows(out, "SELECT Z_PK, ZNAME FROM ZSUBSETPET ORDER BY Z_PK"))
        }
        let a = try keys(seed: 5, "a.store")
        let b = try keys(seed: 5, "b.store")
        let c = try keys(seed: 6, "c.store")
        #expect(a.1 == b.1)
        #expect(a.0 == b.0, "same seed, same bytes")
        #expect(a.1 != c.1)
    }

    @Test("FIX-13: scrubbing is deterministic, injective on unique attributes, keeps shapes and frequencies")
    func scrubKeepsShape() throws {
        let scratch = try ScratchDirectory(prefix: "fixture-subset")
        let input = try Self.petStore(in: scratch.url)
        let out = scratch.url.appendingPathComponent("scrubbed.store")
        let rules = try ["SubsetOwner.email=email", "SubsetOwner.name", "SubsetOwner.phone=phone"].map(
            FixtureScrub.Rule.init(parsing:))
        let summary = try FixtureSubset.write(
            from: input, schema: Self.schema, keep: ["SubsetOwner": FixtureSubset.all], seed: 1, scrub: rules, to: out)
        #expect(summary.isValid, "\(summary.text)")
        #expect(summary.scrubbed.map(\.kind) == [.email, .name, .digits])
        #expect(summary.scrubbed[1].inferred)
        let original = try Self.rows(input, "SELECT Z_PK, ZEMAIL, ZNAME, ZPHONE FROM ZSUBSETOWNER ORDER BY Z_PK")
        let scrubbed = try Self.rows(out, "SELECT Z_PK, ZEMAIL, ZNAME, ZPHONE FROM ZSUBSETOWNER ORDER BY Z_PK")
        #expect(original.map { $0[0] } == scrubbed.map { $0[0] })
        for column in 1...3 {
            let old = original.map { Self.text($0[column]) }
            let new = scrubbed.map { Self.text($0[column]) }
            // A function of the value, injective: the partition of rows by value is the same.
            let oldGroups = Dictionary(grouping: old.indices, by: { old[$0] }).values.map { $0.sorted() }.sorted {
                $0[0] < $1[0]
            }
            let newGroups = Dictionary(grouping: new.indices, by: { new[$0] }).values.map { $0.sorted() }.sorted {
                $0[0] < $1[0]
            }
            #expect(oldGroups == newGroups, "column \(column)")
            #expect(Set(old).isDisjoint(with: new), "column \(column): no original value left")
        }
        for row in scrubbed {
            guard case .text(let email) = row[1], case .text(let phone) = row[3] else {
                Issue.record("not text: \(row)")
                continue
            }
            #expect(email.wholeMatch(of: /[a-z]{5}[0-9]{1,2}@[a-z]{4}[0-9]\.[a-z]{7}\.com/) != nil, "\(email)")
            #expect(phone.wholeMatch(of: /\+[1-9]\d [1-9]\d [1-9]\d{3} [1-9]\d{3}/) != nil, "\(phone)")
        }
        let again = scratch.url.appendingPathComponent("again.store")
        try FixtureSubset.write(
            from: input, schema: Self.schema, keep: ["SubsetOwner": FixtureSubset.all], seed: 1, scrub: rules, to: again
        )
        #expect(try Self.rows(again, "SELECT Z_PK, ZEMAIL, ZNAME, ZPHONE FROM ZSUBSETOWNER ORDER BY Z_PK") == scrubbed)
    }

    @Test("FIX-13: replacements keep length and character classes; collisions resolve to distinct values")
    func replacementShapes() {
        let name = FixtureScrub.replacement(for: "Zoë Müller-Lüdenscheidt", kind: .name, seed: 4)
        #expect(name.count == "Zoë Müller-Lüdenscheidt".count)
        #expect(name == FixtureScrub.replacement(for: "Zoë Müller-Lüdenscheidt", kind: .name, seed: 4))
        #expect(name != FixtureScrub.replacement(for: "Zoë Müller-Lüdenscheidt", kind: .name, seed: 5))
        #expect(name.split(separator: " ").allSatisfy { $0.first?.isUppercase == true })
        #expect(name.contains("-") && name.split(separator: " ").count == 2)
        let email = FixtureScrub.replacement(for: "first.last+tag@mail.example.org", kind: .email, seed: 1)
        #expect(email.wholeMatch(of: /[a-z]{5}\.[a-z]{4}\+[a-z]{3}@[a-z]{4}\.[a-z]{7}\.org/) != nil, "\(email)")
        // Ten one-digit values, ten one-digit candidates: collisions resolve to ten distinct values.
        let digits = (0...9).map(String.init)
        let (map, _) = FixtureScrub.mapping(digits, kind: .digits, seed: 2)
        #expect(Set(map.values).count == 10)
        #expect(FixtureScrub.inferKind(["a@b.org", "c@d.com"]) == .email)
        #expect(FixtureScrub.inferKind(["+1 555 0100", "(020) 7946"]) == .digits)
        #expect(FixtureScrub.inferKind(["Ada Lovelace", "Alan Turing"]) == .name)
        #expect(FixtureScrub.inferKind(["a longer sentence, with punctuation."]) == .text)
    }

    @Test("FIX-15: unknown names, unsupported types, malformed rules and output = input are typed one-line errors")
    func errors() throws {
        let scratch = try ScratchDirectory(prefix: "fixture-subset")
        let input = try Self.petStore(in: scratch.url)
        let out = scratch.url.appendingPathComponent("x.store")
        func error(_ keep: [String: Int], _ scrub: [FixtureScrub.Rule] = [], to: URL? = nil) -> FixtureSubsetError? {
            do {
                try FixtureSubset.write(from: input, schema: Self.schema, keep: keep, scrub: scrub, to: to ?? out)
                return nil
            } catch {
                return error as? FixtureSubsetError
            }
        }
        let unknown = error(["Pet": 1])
        #expect(unknown == .unknownEntity("Pet", valid: Self.schema.entities.map(\.name).sorted()))
        #expect(unknown?.description.contains("SubsetPet, SubsetToy, SubsetVet, SubsetVisit") == true)
        let attribute = error(["SubsetPet": 1], [FixtureScrub.Rule(entity: "SubsetOwner", attribute: "mail")])
        #expect(
            attribute == .unknownAttribute(entity: "SubsetOwner", attribute: "mail", valid: ["email", "name", "phone"]))
        let date = error(["SubsetPet": 1], [FixtureScrub.Rule(entity: "SubsetVisit", attribute: "day")])
        #expect(
            date == .unsupportedAttribute(entity: "SubsetVisit", attribute: "day", type: "a Date", scrubbable: ["note"])
        )
        #expect(
            date?.description
                == "SubsetVisit.day is a Date; only String attributes can be scrubbed (SubsetVisit's: note)")
        #expect(error(["SubsetPet": -1]) == .negativeCount(entity: "SubsetPet", count: -1))
        #expect(throws: FixtureSubsetError.unknownKind("mail", valid: ["email", "name", "text", "digits", "phone"])) {
            try FixtureScrub.Rule(parsing: "SubsetOwner.email=mail")
        }
        #expect(throws: FixtureSubsetError.self) { try FixtureScrub.Rule(parsing: "SubsetOwner") }
        let before = try Self.bytes(input)
        #expect(error(["SubsetPet": 1], to: input) == .outputIsInput(input.relativePath))
        #expect(try Self.bytes(input) == before)
        #expect(!FileManager.default.fileExists(atPath: out.path), "nothing written for a refused request")
        // Another model's store: incompatibleSchema naming the entities.
        let other = try #require(throws: SwiftDataError.self) {
            try FixtureSubset.write(
                from: committedFixtures.appendingPathComponent("users.sqlite"), schema: Self.schema,
                keep: ["SubsetPet": 1], to: out)
        }
        #expect(other.code == SwiftDataError.incompatibleSchema.code)
        #expect(other.message.contains("AccountUser"), "\(other.message)")
    }

    @Test("FIX-10 FIX-13 FIX-14: a committed fixture (users) subsets and scrubs its unique user names")
    func committedFixture() throws {
        let scratch = try ScratchDirectory(prefix: "fixture-subset")
        let input = committedFixtures.appendingPathComponent("users.sqlite")
        let before = try Data(contentsOf: input)
        let out = scratch.url.appendingPathComponent("users-50.sqlite")
        let summary = try FixtureSubset.write(
            from: input, schema: SampleSchema.users.schema, keep: ["AccountUser": 50], seed: 2,
            scrub: [
                FixtureScrub.Rule(entity: "AccountUser", attribute: "username"),
                FixtureScrub.Rule(entity: "AccountUser", attribute: "email", kind: .email),
            ],
            to: out)
        #expect(try Data(contentsOf: input) == before)
        #expect(summary.isValid && summary.entities.map(\.rowsAfter) == [50], "\(summary.text)")
        #expect(try Self.count(out, "SELECT count(DISTINCT ZUSERNAME) FROM ZACCOUNTUSER") == 50)
        let fixture = try FixtureDatabase(contentsOf: out, sample: .users, store: .memory)
        let users = try ModelContext(fixture.container).fetch(FetchDescriptor<AccountUser>())
        #expect(users.count == 50 && users.allSatisfy { $0.email.contains("@") })
    }

    @Test(
        "FIX-10 FIX-11: inheritance (trips): a named root keeps instances of its sub-entities; keys and entity columns cleared together"
    )
    func inheritance() throws {
        let scratch = try ScratchDirectory(prefix: "fixture-subset")
        let out = scratch.url.appendingPathComponent("trips.sqlite")
        let summary = try FixtureSubset.write(
            from: committedFixtures.appendingPathComponent("trips.sqlite"), schema: SampleSchema.trips.schema,
            keep: ["TravelTrip": 10, "TravelAccommodation": FixtureSubset.all], seed: 1, to: out)
        #expect(summary.isValid, "\(summary.text)")
        let trips = summary.entities.filter { $0.name.hasSuffix("Trip") }.map(\.rowsAfter)
        #expect(trips.reduce(0, +) == 10, "\(summary.text)")
        #expect(summary.entities.first { $0.name == "TravelAccommodation" }?.rowsAfter == 500)
        #expect(summary.entities.first { $0.name == "TravelMeal" }?.rowsAfter == 0)
        let trip = try #require(
            StoreGraph(SampleSchema.trips.schema).entity(named: "TravelAccommodation")?.toOnes.first)
        let entityColumn = try #require(trip.entityColumn, "TravelTrip has sub-entities: the key has an entity column")
        #expect(
            try Self.count(
                out,
                "SELECT count(*) FROM ZTRAVELACCOMMODATION WHERE (\(trip.keyColumn) IS NULL) != (\(entityColumn) IS NULL)"
            ) == 0)
        #expect(
            try Self.count(out, "SELECT count(*) FROM ZTRAVELACCOMMODATION WHERE \(trip.keyColumn) IS NOT NULL") > 0)
        let fixture = try FixtureDatabase(contentsOf: out, sample: .trips, store: .memory)
        let context = ModelContext(fixture.container)
        #expect(try context.fetchCount(FetchDescriptor<TravelTrip>()) == 10)
    }

}

import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

@Suite("Generators")
struct GeneratorsTests {
    @Test("value generators: names, emails, dates, UUIDs, prices, enums")
    func values() {
        enum Size: CaseIterable { case s, m, l }
        var scripts = Set<NameScript>()
        for i in 0..<300 {
            let row = Row(index: i, entity: "Person", seed: 1)
            let email = row.email("email")
            #expect(email.contains("@") && email.split(separator: "@").count == 2)
            let name = row.personName("name")
            #expect(!name.isEmpty)
            if name.unicodeScalars.contains(where: { (0x0400...0x04FF) ~= $0.value }) { scripts.insert(.cyrillic) }
            if name.unicodeScalars.contains(where: { (0x3040...0x9FFF) ~= $0.value }) { scripts.insert(.cjk) }
            if name.unicodeScalars.allSatisfy({ $0.value < 0x0400 }) { scripts.insert(.latin) }
            let offset = row.date("d", seconds: 0...86_400).timeIntervalSince(FixtureEpoch.reference)
            #expect(offset == offset.rounded() && (0...86_400) ~= offset)
            let price = row.price("p", cents: 100...999)
            #expect((1...9.99) ~= price && (price * 100).rounded() == (price * 100 * 1e6).rounded() / 1e6)
            _ = row.enumCase("size", Size.self)
        }
        #expect(scripts == [.latin, .cyrillic, .cjk])
        let row = Row(index: 5, entity: "User", seed: 9)
        #expect(row.uuid("id") == row.uuid("id"))
        #expect(row.uuid("id") != row.uuid("other"))
        #expect(row.uuid("id").uuidString.dropFirst(14).first == "4")
        #expect(FixtureEpoch.reference == ISO8601DateFormatter().date(from: "2024-01-01T00:00:00Z"))
        #expect(
            Row(index: 0, entity: "P", seed: 1).personName("n", script: .cjk).unicodeScalars.allSatisfy {
                $0.value > 0x2E80
            })
    }

    @Test("traits: hostile strings, unicode-heavy text, long strings; never NUL")
    func traits() {
        #expect(HostileStrings.all.allSatisfy { !$0.unicodeScalars.contains("\u{0}") })
        for needle in ["'", "%", "_", "\\", "DROP TABLE", "\u{301}", "مرحبا", "👩‍👩‍👧‍👦"] {
            #expect(HostileStrings.all.contains { $0.contains(needle) }, "\(needle)")
        }
        var hostile = 0
        var nonASCII = 0
        for i in 0..<1_000 {
            let h = Row(index: i, entity: "T", seed: 1, traits: .hostile).word("w")
            if HostileStrings.all.contains(h) { hostile += 1 }
            let u = Row(index: i, entity: "T", seed: 1, traits: .unicodeHeavy).word("w")
            if u.unicodeScalars.contains(where: { $0.value > 0x7F }) { nonASCII += 1 }
        }
        #expect((150...250) ~= hostile)
        #expect(nonASCII > 600)
        let long = Row(index: 0, entity: "T", seed: 1, traits: .longStrings).text("body")
        #expect(long.count >= 2_000 && long.count <= 20_200)
        #expect(Row(index: 0, entity: "T", seed: 1).text("body").count < 2_000)
        #expect(Traits(names: ["hostile", "long-strings"]) == [.hostile, .longStrings])
        #expect(Traits(names: ["nope"]) == nil)
    }

    @Test("adding a field leaves the other fields' values unchanged")
    func subStreamIndependence() throws {
        let v1 = Fixture(seed: 5) {
            Generate(GadgetV1.self, count: 50, label: "Gadget") { row in
                GadgetV1(name: row.words("name", count: .uniform(1...3)), price: row.price("price", cents: 1...10_000))
            }
        }
        let v2 = Fixture(seed: 5) {
            Generate(GadgetV2.self, count: 50, label: "Gadget") { row in
                GadgetV2(
                    name: row.words("name", count: .uniform(1...3)), colour: row.word("colour"),
                    price: row.price("price", cents: 1...10_000))
            }
        }
        let c1 = try memoryContainer(Schema([GadgetV1.self]))
        let c2 = try memoryContainer(Schema([GadgetV2.self]))
        _ = try v1.populate(c1)
        _ = try v2.populate(c2)
        let a = try ModelContext(c1).fetch(FetchDescriptor<GadgetV1>()).sorted {
            $0.persistentModelID < $1.persistentModelID
        }
        let b = try ModelContext(c2).fetch(FetchDescriptor<GadgetV2>()).sorted {
            $0.persistentModelID < $1.persistentModelID
        }
        #expect(a.count == 50 && b.count == 50)
        #expect(a.map(\.name) == b.map(\.name))
        #expect(a.map(\.price) == b.map(\.price))
    }

    @Test("graph builder: parents first, Zipf fan-out, many-to-many, a mix of subclasses")
    func graph() throws {
        let container = try memoryContainer(librarySchema)
        let counts = try library(seed: 1, batchSize: 64).populate(container)
        #expect(counts == ["Shelf": 12, "Label": 8, "Book": 300])
        let context = ModelContext(container)
        let books = try context.fetch(FetchDescriptor<Book>())
        #expect(books.count == 300)
        #expect(books.allSatisfy { $0.shelf != nil })
        let comics = books.filter { $0 is Comic }.count
        #expect((40...110) ~= comics)
        let shelves = try context.fetch(FetchDescriptor<Shelf>()).sorted { $0.persistentModelID < $1.persistentModelID }
        #expect(shelves.reduce(0) { $0 + $1.books.count } == 300)
        #expect(shelves[0].books.count > 2 * shelves[11].books.count)  // Zipf: the first shelf is the biggest
        #expect(
            books.allSatisfy {
                (0...3) ~= $0.labels.count && Set($0.labels.map(\.persistentModelID)).count == $0.labels.count
            })
        let linked = try context.fetch(FetchDescriptor<Label>()).reduce(0) { $0 + $1.books.count }
        #expect(linked == books.reduce(0) { $0 + $1.labels.count } && linked > 300)
    }

    @Test("the batch size does not change the content")
    func batchSizeInvariance() throws {
        let scratch = try ScratchDirectory(prefix: "osdt")
        let dir = scratch.url
        let small = try FixtureFile.write(
            library(seed: 3, batchSize: 7), schema: librarySchema, name: "library",
            scale: 300, to: dir.appendingPathComponent("a.sqlite"))
        let large = try FixtureFile.write(
            library(seed: 3), schema: librarySchema, name: "library",
            scale: 300, to: dir.appendingPathComponent("b.sqlite"))
        #expect(small.digest == large.digest)
        #expect(small.rowCounts["Book"] == 300)
    }

    @Test("a child step without its parent step fails clearly")
    func missingParent() throws {
        let f = Fixture(seed: 1) {
            Generate(Book.self, count: 3, parent: \.shelf) { row in Book(title: row.word("t"), pages: 1) }
        }
        let error = #expect(throws: SwiftDataError.self) { try f.populate(try memoryContainer(librarySchema)) }
        #expect(error?.message.contains("Shelf") == true)
    }

    @Test("progress is reported after each save")
    func progress() throws {
        var reports: [FixtureProgress] = []
        var f = Fixture(seed: 1) { Generate(Label.self, count: 25) { Label(text: $0.word("text")) } }
        f.batchSize = 10
        _ = try f.populate(try memoryContainer(librarySchema)) { reports.append($0) }
        #expect(reports.map(\.rowsDone) == [10, 20, 25])
        #expect(reports.allSatisfy { $0.totalRows == 25 && $0.step == "Label" })
    }
}

import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

/// `<package>/Fixtures`.
let committedFixtures = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

@Suite("Fixtures")
struct FixturesTests {
    @Test("the canonical dump is the documented text")
    func canonicalDump() throws {
        let db = try SQLiteConnection(path: ":memory:", mode: .inMemory)
        try db.execute("CREATE TABLE b (k INTEGER PRIMARY KEY, v)")
        try db.execute("CREATE TABLE a (x)")
        try db.run(
            "INSERT INTO b VALUES (2, ?), (1, ?), (3, ?), (4, ?)",
            [.text("a b\n"), .real(1), .blob(Data([0, 255])), .null])
        try db.run("INSERT INTO a VALUES (?)", [.integer(-42)])
        #expect(
            try CanonicalDump.text(of: db) == """
                OpenSwiftData canonical dump 2
                table a
                columns x
                I-42 
                end a 1
                table b
                columns k,v
                I1 R3ff0000000000000 
                I2 T4:a b
                 
                I3 B2:00ff 
                I4 N 
                end b 4

                """)
    }

    @Test("same seed, same digest; another seed, another digest")
    func determinism() throws {
        let scratch = try ScratchDirectory(prefix: "osdt")
        let dir = scratch.url
        let a = try FixtureFile.write(
            .users, seed: 11, scale: 150, traits: [.hostile], to: dir.appendingPathComponent("a.sqlite"))
        let b = try FixtureFile.write(
            .users, seed: 11, scale: 150, traits: [.hostile], to: dir.appendingPathComponent("b.sqlite"))
        let c = try FixtureFile.write(
            .users, seed: 12, scale: 150, traits: [.hostile], to: dir.appendingPathComponent("c.sqlite"))
        let d = try FixtureFile.write(.users, seed: 11, scale: 150, to: dir.appendingPathComponent("d.sqlite"))
        #expect(a.digest == b.digest)
        #expect(a.digest != c.digest)
        #expect(a.digest != d.digest)
        #expect(a.schemaHash == c.schemaHash)
        #expect(a.rowCounts == ["AccountUser": 150])
        #expect(try FixtureManifest.read(for: dir.appendingPathComponent("a.sqlite")) == a)
    }

    @Test("committed fixtures reopen with the right counts", arguments: StoreKind.allCases)
    func reopen(store: StoreKind) throws {
        for sample in SampleSchema.all {
            let url = committedFixtures.appendingPathComponent("\(sample.name).sqlite")
            let before = try Data(contentsOf: url)
            let manifest = try FixtureManifest.read(for: url)
            do {
                let fixture = try FixtureDatabase(contentsOf: url, sample: sample, store: store)
                let context = ModelContext(fixture.container)
                switch sample.name {
                case "catalogue":
                    #expect(
                        try context.fetchCount(FetchDescriptor<CatalogueProduct>())
                            == manifest.rowCounts["CatalogueProduct"])
                    #expect(
                        try context.fetchCount(FetchDescriptor<CatalogueCategory>())
                            == manifest.rowCounts["CatalogueCategory"])
                    let product = try #require(
                        try context.fetch(FetchDescriptor<CatalogueProduct>(sortBy: [SortDescriptor(\.sku)])).first)
                    #expect(product.category != nil)
                    context.delete(product)  // writes go to the copy only
                    try context.save()
                case "dictionary":
                    #expect(
                        try context.fetchCount(FetchDescriptor<DictionaryWord>())
                            == manifest.rowCounts["DictionaryWord"])
                case "trips":
                    #expect(try context.fetchCount(FetchDescriptor<TravelTrip>()) == manifest.rowCounts["TravelTrip"])
                    let business = try context.fetch(FetchDescriptor<TravelBusinessTrip>())
                    #expect(!business.isEmpty)
                    #expect(business.reduce(0) { $0 + $1.meals.count } == manifest.rowCounts["TravelMeal"])
                case "users":
                    #expect(try context.fetchCount(FetchDescriptor<AccountUser>()) == manifest.rowCounts["AccountUser"])
                default:
                    Issue.record("no check for \(sample.name)")
                }
            }
            #expect(try Data(contentsOf: url) == before, "\(sample.name) was modified")
        }
    }

    @Test("committed fixtures regenerate to their manifests' digests")
    func committedRegenerate() throws {
        for sample in SampleSchema.all {
            let url = committedFixtures.appendingPathComponent("\(sample.name).sqlite")
            let manifest = try FixtureManifest.read(for: url)
            #expect(manifest.generatorVersion == FixtureManifest.currentGeneratorVersion)
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            #expect(((attributes[.size] as? NSNumber)?.intValue ?? .max) <= 1 << 20)
            let verification = try FixtureFile.verify(url, regenerate: true)
            #expect(verification.isValid, "\(sample.name): \(verification.mismatches)")
        }
    }

    @Test("verify rejects a tampered fixture")
    func tampered() throws {
        let scratch = try ScratchDirectory(prefix: "osdt")
        let dir = scratch.url
        let source = committedFixtures.appendingPathComponent("dictionary.sqlite")
        let copy = dir.appendingPathComponent("dictionary.sqlite")
        try FileManager.default.copyItem(at: source, to: copy)
        try FileManager.default.copyItem(at: FixtureManifest.url(for: source), to: FixtureManifest.url(for: copy))
        #expect(try FixtureFile.verify(copy).isValid)
        let db = try SQLiteConnection(path: copy.path, mode: .readWrite)
        try db.execute("UPDATE \"ZDICTIONARYWORD\" SET \"ZTEXT\" = 'tampered' WHERE \"Z_PK\" = 17")
        db.close()
        let verification = try FixtureFile.verify(copy)
        #expect(!verification.isValid)
        #expect(verification.mismatches.first?.hasPrefix("digest") == true)
    }

    @Test("restore refuses a store of another schema")
    func restoreIncompatible() throws {
        let container = try memoryContainer(librarySchema)
        let error = #expect(throws: SwiftDataError.self) {
            try container.restore(from: committedFixtures.appendingPathComponent("catalogue.sqlite"))
        }
        #expect(error?.code == SwiftDataError.incompatibleSchema.code)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Book>()) == 0)
    }

    @Test("a test author's own fixture opens on both stores")
    func ownModels() throws {
        let scratch = try ScratchDirectory(prefix: "osdt")
        let dir = scratch.url
        let url = dir.appendingPathComponent("library.sqlite")
        let manifest = try FixtureFile.write(
            library(seed: 8), schema: librarySchema, name: "library", scale: 300, to: url)
        for store in StoreKind.allCases {
            let db = try FixtureDatabase(contentsOf: url, schema: librarySchema, store: store)
            let context = ModelContext(db.container)
            #expect(try context.fetchCount(FetchDescriptor<Book>()) == 300)
            #expect(try context.fetchCount(FetchDescriptor<Comic>()) > 0)
            #expect(try context.fetchCount(FetchDescriptor<Shelf>()) == manifest.rowCounts["Shelf"])
        }
    }
}

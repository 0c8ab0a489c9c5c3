import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

/// Version 1 of a schema whose second version below changes it in every way a diff reports.
enum DiffV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Part.self, Bin.self] }

    @Model final class Part {
        var title: String
        var score: Int
        var legacy: String
        init(title: String, score: Int) {
            self.title = title
            self.score = score
            legacy = "old"
        }
    }

    @Model final class Bin {
        var code: String
        init(code: String) { self.code = code }
    }
}

/// Version 2: `Part.title` optional, `score` a `String`, `legacy` removed, `rating` added,
/// `Bin` removed and `Tray` added.
enum DiffV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Part.self, Tray.self] }

    @Model final class Part {
        var title: String?
        var score: String
        var rating: Double?
        init(title: String, score: String) {
            self.title = title
            self.score = score
        }
    }

    @Model final class Tray {
        var size: Int
        init(size: Int) { self.size = size }
    }
}

/// Version 3: only `Part.rating` changes, from optional to required; the columns stay the same.
enum DiffV3: VersionedSchema {
    static let versionIdentifier = Schema.Version(3, 0, 0)
    static var models: [any PersistentModel.Type] { [Part.self, DiffV2.Tray.self] }

    @Model final class Part {
        var title: String?
        var score: String
        var rating: Double = 0
        init(title: String, score: String) {
            self.title = title
            self.score = score
        }
    }
}

@Suite("Fixture diff")
struct FixtureDiffTests {
    /// A catalogue fixture at `name` in `dir`.
    private static func catalogue(_ dir: URL, _ name: String, seed: UInt64 = 1) throws -> URL {
        let url = dir.appendingPathComponent(name)
        _ = try FixtureFile.write(.catalogue, seed: seed, scale: 30, to: url)
        return url
    }

    /// Runs `sql` on `url` through a plain SQLite writer.
    private static func edit(_ url: URL, _ statements: [String]) throws {
        let db = try SQLiteConnection(path: url.path)
        defer { db.close() }
        for statement in statements { try db.execute(statement) }
    }

    /// The bytes of `url` and of its `-wal` when there is one.
    private static func bytes(_ url: URL) throws -> [Data] {
        let wal = URL(fileURLWithPath: url.path + "-wal")
        return [try Data(contentsOf: url)]
            + (FileManager.default.fileExists(atPath: wal.path) ? [try Data(contentsOf: wal)] : [])
    }

    @Test("FIX-20, FIX-26: two fixtures of the same seed are identical; neither file changes")
    func identical() throws {
        let scratch = try ScratchDirectory(prefix: "diff")
        let a = try Self.catalogue(scratch.url, "a.sqlite")
        let b = try Self.catalogue(scratch.url, "b.sqlite")
        let before = try [Self.bytes(a), Self.bytes(b)]
        let diff = try FixtureDiff(a, b)
        #expect(diff.isIdentical)
        #expect(diff.schema.isEmpty && diff.rows.isEmpty)
        #expect(diff.counts.map(\.name) == ["CatalogueCategory", "CatalogueProduct", "CatalogueTag", "Z_2TAGS"])
        #expect(diff.counts.allSatisfy { $0.delta == 0 && $0.a == $0.b })
        #expect(diff.text().hasSuffix("changed rows: none\nidentical\n"), "\(diff.text())")
        #expect(try [Self.bytes(a), Self.bytes(b)] == before, "FIX-26: diff never writes")
    }

    @Test("FIX-22: a changed value is one changed row, named by the schema's property and printed readably")
    func changedRow() throws {
        let scratch = try ScratchDirectory(prefix: "diff")
        let a = try Self.catalogue(scratch.url, "a.sqlite")
        let b = try Self.catalogue(scratch.url, "b.sqlite")
        try Self.edit(b, [#"UPDATE ZCATALOGUEPRODUCT SET ZNAME = 'Desk "lamp"' || char(10) WHERE Z_PK = 3"#])
        let old = try #require(
            try SQLiteConnection(path: a.path, mode: .readOnly).scalar(
                "SELECT ZNAME FROM ZCATALOGUEPRODUCT WHERE Z_PK = 3"))
        guard case .text(let oldName) = old else {
            Issue.record("no name")
            return
        }

        let diff = try FixtureDiff(a, b, schema: SampleSchema.catalogue.schema)
        #expect(!diff.isIdentical && diff.schema.isEmpty)
        #expect(diff.schemaIsIdentical && diff.changedRows == 1)
        #expect(diff.rows.count == 1)
        let rows = try #require(diff.rows.first)
        #expect(rows.name == "CatalogueProduct" && rows.matchedBy == ["Z_PK"])
        #expect(rows.added == 0 && rows.removed == 0 && rows.changed == 1)
        #expect(
            rows.changes == [
                FixtureDiff.RowChange(
                    kind: .changed, key: "CatalogueProduct#3",
                    values: [FixtureDiff.Value(property: "name", old: "\"\(oldName)\"", new: #""Desk \"lamp\"\n""#)])
            ])
        // Without the schema the property is named by its column.
        let bare = try FixtureDiff(a, b)
        #expect(bare.rows.first?.changes.first?.values.map(\.property) == ["ZNAME"])
    }

    @Test("FIX-22: added and removed rows, with their values; counts show the deltas; --limit caps the lines")
    func addedAndRemoved() throws {
        let scratch = try ScratchDirectory(prefix: "diff")
        let a = try Self.catalogue(scratch.url, "a.sqlite")
        let b = try Self.catalogue(scratch.url, "b.sqlite")
        try Self.edit(
            b,
            [
                "DELETE FROM Z_2TAGS WHERE Z_2PRODUCTS = 5", "DELETE FROM ZCATALOGUEPRODUCT WHERE Z_PK = 5",
                "INSERT INTO ZCATALOGUETAG (Z_PK, Z_ENT, Z_OPT, ZLABEL) VALUES (51, 3, 1, 'tab\tbed')",
            ])
        let links = try SQLiteConnection(path: a.path, mode: .readOnly).rows(
            "SELECT Z_3TAGS FROM Z_2TAGS WHERE Z_2PRODUCTS = 5 ORDER BY Z_3TAGS")
        let diff = try FixtureDiff(a, b, schema: SampleSchema.catalogue.schema)
        #expect(diff.schema.isEmpty)
        #expect(diff.rows.map(\.name) == ["CatalogueProduct", "CatalogueTag", "Z_2TAGS"])
        let products = diff.rows[0]
        #expect(products.removed == 1 && products.added == 0 && products.changed == 0)
        #expect(products.changes.first?.key == "CatalogueProduct#5")
        #expect(
            products.changes.first?.values.contains {
                $0.property == "category" && $0.old?.hasPrefix("CatalogueCategory#") == true
            } == true)
        #expect(
            products.changes.first?.values.contains { $0.property == "addedAt" && $0.old?.hasSuffix("Z") == true }
                == true)
        #expect(
            diff.rows[1].changes == [
                FixtureDiff.RowChange(
                    kind: .added, key: "CatalogueTag#51",
                    values: [FixtureDiff.Value(property: "label", new: #""tab\tbed""#)])
            ])
        #expect(diff.rows[2].removed == links.count && diff.rows[2].added == 0)
        #expect(diff.rows[2].changes.allSatisfy { $0.key.hasPrefix("CatalogueProduct#5 CatalogueTag#") })
        #expect(diff.schemaIsIdentical && diff.changedRows == 1 + 1 + links.count, "one product, one tag, its links")
        let counts = Dictionary(uniqueKeysWithValues: diff.counts.map { ($0.name, $0.delta) })
        #expect(counts == ["CatalogueCategory": 0, "CatalogueProduct": -1, "CatalogueTag": 1, "Z_2TAGS": -links.count])
        let text = diff.text(limit: 1)
        #expect(
            text.contains("  Z_2TAGS (by Z_2PRODUCTS, Z_3TAGS): 0 added, \(links.count) removed, 0 changed"), "\(text)")
        if links.count > 1 { #expect(text.contains("    … and \(links.count - 1) more"), "\(text)") }
        #expect(text.hasSuffix("differ: 0 schema changes, 3 entities with changed rows\n"), "\(text)")
    }

    @Test("FIX-22: two seeds differ only in rows: every changed value is a real difference")
    func twoSeeds() throws {
        let scratch = try ScratchDirectory(prefix: "diff")
        let a = try Self.catalogue(scratch.url, "a.sqlite", seed: 1)
        let b = try Self.catalogue(scratch.url, "b.sqlite", seed: 2)
        let diff = try FixtureDiff(a, b, schema: SampleSchema.catalogue.schema)
        #expect(diff.schema.isEmpty)
        let products = try #require(diff.rows.first { $0.name == "CatalogueProduct" })
        // Same scale: the same keys, so every product row is matched and compared.
        #expect(products.added == 0 && products.removed == 0)
        let readA = try SQLiteConnection(path: a.path, mode: .readOnly)
        let readB = try SQLiteConnection(path: b.path, mode: .readOnly)
        let rowsA = try readA.rows("SELECT ZNAME, ZSKU, ZPRICE, ZSTOCK FROM ZCATALOGUEPRODUCT ORDER BY Z_PK")
        let rowsB = try readB.rows("SELECT ZNAME, ZSKU, ZPRICE, ZSTOCK FROM ZCATALOGUEPRODUCT ORDER BY Z_PK")
        let differing = zip(rowsA, rowsB).filter { $0 != $1 }.count
        #expect(differing > 0)
        #expect(products.changed >= differing)
        for change in products.changes { #expect(change.values.allSatisfy { $0.old != $0.new }, "\(change.line)") }
    }

    @Test("FIX-21: two schema versions: entities, properties, types and optionality that changed, and nothing else")
    func schemaVersions() throws {
        let scratch = try ScratchDirectory(prefix: "diff")
        let a = scratch.url.appendingPathComponent("v1.store")
        let b = scratch.url.appendingPathComponent("v2.store")
        let v1 = Schema(versionedSchema: DiffV1.self)
        let v2 = Schema(versionedSchema: DiffV2.self)
        do {
            let context = ModelContext(try ModelContainer(for: v1, configurations: ModelConfiguration(url: a)))
            context.insert(DiffV1.Part(title: "bolt", score: 3))
            context.insert(DiffV1.Bin(code: "A1"))
            try context.save()
        }
        do {
            let context = ModelContext(try ModelContainer(for: v2, configurations: ModelConfiguration(url: b)))
            context.insert(DiffV2.Part(title: "bolt", score: "3"))
            context.insert(DiffV2.Part(title: "nut", score: "4"))
            context.insert(DiffV2.Tray(size: 2))
            try context.save()
        }
        let diff = try FixtureDiff(a, b, schemaA: v1, schemaB: v2)
        #expect(
            diff.schema.map(\.line) == [
                "- entity Bin (Z_ENT 1, table ZBIN)",
                "+ Part.rating Double (FLOAT), optional, column ZRATING",
                "- Part.legacy String (VARCHAR), required, column ZLEGACY",
                "~ Part.score: type Int (INTEGER) → String (VARCHAR)",
                "~ Part.title: required → optional",
                "+ entity Tray (Z_ENT 2, table ZTRAY)",
            ], "\(diff.schema.map(\.line))")
        // Without schemas the store's own record still shows the entities and columns.
        let bare = try FixtureDiff(a, b)
        #expect(
            bare.schema.map(\.line) == [
                "- entity Bin (Z_ENT 1, table ZBIN)",
                "+ Part.ZRATING FLOAT",
                "- Part.ZLEGACY VARCHAR",
                "~ Part.ZSCORE: type INTEGER → VARCHAR",
                "+ entity Tray (Z_ENT 2, table ZTRAY)",
            ], "\(bare.schema.map(\.line))")
        #expect(!diff.isIdentical && !diff.schemaIsIdentical)
        // Part#1 changed, Part#2 added; Bin and Tray are schema changes, not rows.
        #expect(diff.changedRows == 2)
        let part = try #require(diff.rows.first { $0.name == "Part" })
        // An added row shows every value B stores, the new column's too.
        #expect(
            part.changes.map(\.line) == [
                #"~ Part#1  score: 3 → "3""#, #"+ Part#2  rating: nil, score: "4", title: "nut""#,
            ],
            "\(part.changes.map(\.line))")
    }

    @Test("FIX-21: a change the columns do not show is a changed version hash; the schemas name it")
    func versionHashOnly() throws {
        let scratch = try ScratchDirectory(prefix: "diff")
        let a = scratch.url.appendingPathComponent("v2.store")
        let b = scratch.url.appendingPathComponent("v3.store")
        let v2 = Schema(versionedSchema: DiffV2.self)
        let v3 = Schema(versionedSchema: DiffV3.self)
        do {
            let context = ModelContext(try ModelContainer(for: v2, configurations: ModelConfiguration(url: a)))
            context.insert(DiffV2.Part(title: "bolt", score: "3"))
            try context.save()
        }
        do {
            let context = ModelContext(try ModelContainer(for: v3, configurations: ModelConfiguration(url: b)))
            context.insert(DiffV3.Part(title: "bolt", score: "3"))
            try context.save()
        }
        let bare = try FixtureDiff(a, b)
        #expect(bare.schema.map(\.kind) == [.versionHashChanged], "\(bare.schema.map(\.line))")
        #expect(bare.schema.first?.entity == "Part")
        let named = try FixtureDiff(a, b, schemaA: v2, schemaB: v3)
        #expect(named.schema.map(\.line) == ["~ Part.rating: optional → required"], "\(named.schema.map(\.line))")
        // The stored rows: rating NULL in A, 0 in B.
        #expect(named.rows.flatMap(\.changes).map(\.line) == ["~ Part#1  rating: nil → 0.0"])
    }

    @Test("FIX-24: the same files give the same text and JSON; rows in natural key order (#9 before #10)")
    func deterministic() throws {
        let scratch = try ScratchDirectory(prefix: "diff")
        let a = try Self.catalogue(scratch.url, "a.sqlite")
        let b = try Self.catalogue(scratch.url, "b.sqlite")
        try Self.edit(b, ["UPDATE ZCATALOGUEPRODUCT SET ZSTOCK = ZSTOCK + 1 WHERE Z_PK IN (2, 9, 10, 21)"])
        let first = try FixtureDiff(a, b)
        let second = try FixtureDiff(a, b)
        #expect(first.text() == second.text())
        #expect(try first.json() == second.json())
        #expect(
            first.rows.first?.changes.map(\.key) == [
                "CatalogueProduct#2", "CatalogueProduct#9", "CatalogueProduct#10", "CatalogueProduct#21",
            ])
    }

    @Test("FIX-25: the JSON decodes to an equal value; its keys are the documented ones")
    func jsonRoundTrip() throws {
        let scratch = try ScratchDirectory(prefix: "diff")
        let a = try Self.catalogue(scratch.url, "a.sqlite")
        let b = try Self.catalogue(scratch.url, "b.sqlite", seed: 2)
        let diff = try FixtureDiff(a, b)
        let data = try diff.json()
        #expect(try JSONDecoder().decode(FixtureDiff.self, from: data) == diff)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["format", "a", "b", "identical", "schema", "counts", "rows"])
        #expect(object["format"] as? Int == 1)
        #expect(try diff.json() == data, "FIX-24: the same files give the same bytes")
    }

    @Test(
        "FIX-27: a missing file, a file that is no SQLite database and an SQLite file that is no store are one-line errors"
    )
    func unreadable() throws {
        let scratch = try ScratchDirectory(prefix: "diff")
        let a = try Self.catalogue(scratch.url, "a.sqlite")
        let text = scratch.url.appendingPathComponent("notes.txt")
        try Data("hello, not a database at all".utf8).write(to: text)
        let plain = scratch.url.appendingPathComponent("plain.sqlite")
        try Self.edit(plain, ["CREATE TABLE t (x)"])
        for (other, words) in [
            (scratch.url.appendingPathComponent("missing.sqlite"), "no such file"),
            (text, "not an SQLite database"), (plain, "not a SwiftData or Core Data store"),
        ] {
            let error = try #require(throws: SwiftDataError.self) { try FixtureDiff(a, other) }
            #expect(
                error.message.contains(words) && error.message.contains(other.lastPathComponent), "\(error.message)")
            #expect(!error.message.contains("\n"))
        }
    }
}

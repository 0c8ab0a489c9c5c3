import Foundation
import OpenSwiftDataTesting
import Testing

@testable import OpenSwiftData

/// Store files copied from a simulator or device, as a team brings them: Apple's format, `-wal` and
/// `-shm` beside the file, no manifest. `FixtureDatabase` and `StorePair(loading:schema:)` open
/// private copies on both stores and never change the original; `StoreFileDescription` and
/// `FixtureFile.verifyStore` read any such file. The files are built from the reference
/// vectors' DDL (`AppleStoreFile`), with the rows only in the `-wal` file.
@Suite("Store files from an app")
struct StoreFileTests {
    typealias M = ResourcesVectorModels

    /// The bytes of the file and of its `-wal` (read while no connection has the file open).
    private static func bytes(_ url: URL) throws -> [Data] {
        [try Data(contentsOf: url), try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal"))]
    }

    private static func removeDirectory(of url: URL) {
        try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
    }

    @Test(
        "FixtureDatabase opens a device copy (rows only in -wal) as a private copy; the original keeps its bytes",
        arguments: StoreKind.allCases)
    func fixtureDatabaseOpensDeviceCopy(store: StoreKind) throws {
        let url = try AppleStoreFile.resourcesCopiedFromDevice()
        defer { Self.removeDirectory(of: url) }
        #expect(!FixtureFile.hasManifest(url))
        let before = try Self.bytes(url)
        #expect(before[1].count > 0, "the rows live in the -wal file")

        do {
            let fixture = try FixtureDatabase(contentsOf: url, schema: M.schema, store: store)
            #expect((fixture.copyURL == nil) == (store == .memory))
            #expect(fixture.copyURL != url)
            let context = ModelContext(fixture.container)
            let items = try context.fetch(FetchDescriptor<M.Item>(sortBy: [SortDescriptor(\.name)]))
            #expect(items.map(\.name) == ["Log", "Plank", "Stick"])
            #expect(items[1].craftingRecipe?.producedItem === items[1])
            #expect(items[1].craftingRecipe?.requiredComponents.first?.item === items[0])
            // Writes go to the copy only.
            context.insert(M.Item(name: "Board"))
            items[0].name = "Oak log"
            try context.save()
            #expect(try context.fetchCount(FetchDescriptor<M.Item>()) == 4)
        }

        #expect(try Self.bytes(url) == before, "the file and its -wal keep their bytes")
        let raw = try SQLiteConnection(path: url.path, mode: .readOnly)
        raw.disableCheckpointOnClose()
        #expect(
            try raw.rows("SELECT ZNAME FROM ZITEM ORDER BY ZNAME") == [
                [.text("Log")], [.text("Plank")], [.text("Stick")],
            ])
        raw.close()
        #expect(try Self.bytes(url) == before)
    }

    @Test(
        "FixtureDatabase refuses a device copy written by other models with incompatibleSchema naming the entities",
        arguments: StoreKind.allCases)
    func fixtureDatabaseRefusesOtherModels(store: StoreKind) throws {
        let url = try AppleStoreFile.resourcesCopiedFromDevice()
        defer { Self.removeDirectory(of: url) }
        let before = try Self.bytes(url)
        let error = try #require(throws: SwiftDataError.self) {
            _ = try FixtureDatabase(contentsOf: url, schema: CartVectorModels.schema, store: store)
        }
        #expect(error.code == SwiftDataError.incompatibleSchema.code)
        #expect(error.message.contains("CartModel"), "\(error.message)")
        #expect(error.message.contains("Item"), "\(error.message)")
        #expect(try Self.bytes(url) == before)
    }

    @Test("StorePair(loading:schema:) starts both stores from a device copy and compares them")
    func storePairLoadsDeviceCopy() throws {
        let url = try AppleStoreFile.resourcesCopiedFromDevice()
        defer { Self.removeDirectory(of: url) }
        let before = try Self.bytes(url)
        let pair = try StorePair(loading: url, schema: M.schema)
        try pair.run("item names", reference: { ["Log", "Plank", "Stick"] }) { context, _ in
            try context.fetch(FetchDescriptor<M.Item>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        }
        try pair.run("components with count > 1", reference: { 1 }) { context, _ in
            try context.fetchCount(FetchDescriptor<M.Component>(predicate: #Predicate { $0.count > 1 }))
        }
        try pair.expectSameContents("as loaded")
        #expect(pair.diskURL != url)
        #expect(try Self.bytes(url) == before)

        let error = try #require(throws: SwiftDataError.self) {
            _ = try StorePair(loading: url, schema: CartVectorModels.schema)
        }
        #expect(error.code == SwiftDataError.incompatibleSchema.code)
        #expect(try Self.bytes(url) == before)
    }

    @Test(
        "StoreFileDescription reads entities, row counts by Z_ENT, metadata hashes in hex, tables and indexes; read-only"
    )
    func describeDeviceCopy() throws {
        let url = try AppleStoreFile.resourcesCopiedFromDevice()
        defer { Self.removeDirectory(of: url) }
        let before = try Self.bytes(url)
        let vector = try StoreVector.named("swiftdata-resources")
        let description = try StoreFileDescription(contentsOf: url)

        #expect(description.journalMode == "wal")
        #expect(description.pageSize == 4096)
        let summary = description.entities.map {
            "\($0.number) \($0.name) \($0.parent ?? "-") \($0.maxKey) \($0.rows) \($0.table ?? "-")"
        }
        #expect(
            Array(summary.prefix(3)) == [
                "1 Component - 2 2 ZCOMPONENT", "2 CraftingRecipe - 2 2 ZCRAFTINGRECIPE",
                "3 Item - 5 3 ZITEM",
            ], "\(summary)")
        #expect(description.entities.first { $0.name == "CHANGE" }?.table == "ACHANGE")
        #expect(description.entities.map(\.number) == vector.z_primarykey.map(\.entity))
        #expect(description.entities.first { $0.name == "TRANSACTION" }?.rows == 1, "history entities are listed too")

        let hex = vector.entityHashes.mapValues { $0.map { String(format: "%02x", $0) }.joined() }
        #expect(description.metadata.versionHashes == hex)
        #expect(description.metadata.versionHashes["Item"]?.count == 64)
        #expect(description.versionHashes == hex)
        #expect(description.metadata.frameworkVersion == vector.metadata.NSPersistenceFrameworkVersion)
        #expect(description.metadata.versionIdentifiers == vector.metadata.NSStoreModelVersionIdentifiers)
        #expect(description.metadata.versionHashesDigest == vector.metadata.NSStoreModelVersionHashesDigest)
        #expect(description.metadata.uuid.count == 36)

        #expect(description.tables.first { $0.name == "ZITEM" }?.rows == 3)
        #expect(description.tables.first { $0.name == "Z_PRIMARYKEY" }?.rows == vector.z_primarykey.count)
        #expect(!description.tables.contains { $0.name.hasPrefix("sqlite_") })
        let declaredIndexes = Set(
            vector.ddl.compactMap { statement -> String? in
                guard statement.hasPrefix("CREATE INDEX ") || statement.hasPrefix("CREATE UNIQUE INDEX ") else {
                    return nil
                }
                return statement.split(separator: " ").dropFirst(statement.hasPrefix("CREATE UNIQUE") ? 3 : 2).first
                    .map(String.init)
            })
        #expect(!declaredIndexes.isEmpty)
        #expect(
            declaredIndexes.isSubset(of: Set(description.indexes.map(\.name))), "\(description.indexes.map(\.name))")
        let unique = description.indexes.filter(\.unique).map { "\($0.table) \($0.columns)" }
        #expect(unique.contains("ZITEM [\"ZNAME\"]"), "\(unique)")

        let decoded = try JSONDecoder().decode(StoreFileDescription.self, from: try description.json())
        #expect(decoded == description)
        let text = description.text
        #expect(text.contains("entities (Z_PRIMARYKEY)") && text.contains("ZITEM") && text.contains(hex["Item"] ?? "?"))
        #expect(try Self.bytes(url) == before, "describing reads the file, -wal included, without changing it")
    }

    @Test("describe lists parents from Z_SUPER and counts rows per Z_ENT in a shared inheritance table")
    func describeInheritance() throws {
        let url = try AppleStoreFile.storeURL()
        defer { Self.removeDirectory(of: url) }
        let vector = try StoreVector.named("coredata-inheritance")
        let writer = try AppleStoreFile.write("coredata-inheritance", at: url, maxKeys: [:]) { _ in }
        writer.close()
        let description = try StoreFileDescription(contentsOf: url)
        let names = Dictionary(uniqueKeysWithValues: vector.z_primarykey.map { ($0.entity, $0.name) })
        for (entity, row) in zip(description.entities, vector.z_primarykey) {
            #expect(entity.number == row.entity && entity.name == row.name)
            #expect(entity.parent == (row.superEntity == 0 ? nil : names[row.superEntity]), "\(entity.name)")
        }
        #expect(description.entities.contains { $0.parent != nil }, "the vector has subentities")
        #expect(
            description.entities.first { $0.name == "ExpensiveSportCar" }?.table == "ZCAR",
            "a subentity lives in its root's table")
    }

    @Test("verifyStore checks a store without a manifest: integrity_check and metadata; the file keeps its bytes")
    func verifyStoreWithoutManifest() throws {
        let url = try AppleStoreFile.resourcesCopiedFromDevice()
        defer { Self.removeDirectory(of: url) }
        let before = try Self.bytes(url)
        let check = try FixtureFile.verifyStore(url)
        #expect(check.isValid)
        #expect(check.integrityProblems.isEmpty)
        #expect(check.entityCount == (try StoreVector.named("swiftdata-resources")).z_primarykey.count)
        #expect(check.metadata.versionHashes.keys.sorted() == ["Component", "CraftingRecipe", "Item"])
        #expect(try Self.bytes(url) == before)
        // Without a manifest, the manifest-based verify says so.
        #expect(throws: SwiftDataError.self) { try FixtureFile.verify(url) }
    }

    @Test("verifyStore reports what integrity_check finds in a store without a manifest, naming the index")
    func verifyStoreFindsDamage() throws {
        let url = try AppleStoreFile.resourcesCopiedFromDevice()
        defer { Self.removeDirectory(of: url) }
        // Re-declare the unique name index over Z_PK without rebuilding it: every row is then
        // missing from the index b-tree while the table rows stay intact.
        let db = try SQLiteConnection(path: url.path, mode: .readWrite)
        try db.execute("PRAGMA writable_schema = ON")
        try db.run(
            "UPDATE sqlite_master SET sql = ? WHERE name = ?",
            [.text("CREATE UNIQUE INDEX Z_Item_UNIQUE_name ON ZITEM (Z_PK)"), .text("Z_Item_UNIQUE_name")])
        db.close()
        let check = try FixtureFile.verifyStore(url)
        #expect(!check.isValid)
        #expect(
            !check.integrityProblems.isEmpty
                && check.integrityProblems.allSatisfy { $0.contains("Z_Item_UNIQUE_name") },
            "\(check.integrityProblems)")
        #expect(check.metadata.versionHashes.count == 3, "the metadata still reads")
    }

    @Test("describe and verifyStore give one-line typed errors for a file that is no Core Data store")
    func describeErrors() throws {
        let dir = try ScratchDirectory(prefix: "storefile")
        let text = dir.file("notes.store")
        try Data("hello, this is not a database at all, just text\n".utf8).write(to: text)
        let plain = dir.file("plain.sqlite")
        let db = try SQLiteConnection(path: plain.path)
        try db.execute("CREATE TABLE t (x)")
        db.close()
        let cases: [(URL, SwiftDataError.Code, String)] = [
            (text, SwiftDataError.notADatabase.code, "not an SQLite database"),
            (plain, SwiftDataError.loadIssueModelContainer.code, "not a SwiftData or Core Data store"),
            (dir.file("absent.store"), SwiftDataError.loadIssueModelContainer.code, "no such file"),
            (dir.url, SwiftDataError.notADatabase.code, "a directory"),
        ]
        for (url, code, phrase) in cases {
            for (label, body) in [
                ("describe", { _ = try StoreFileDescription(contentsOf: url) }),
                ("verifyStore", { _ = try FixtureFile.verifyStore(url) }),
            ] as [(String, () throws -> Void)] {
                let error = try #require(throws: SwiftDataError.self, "\(label) \(url.lastPathComponent)") {
                    try body()
                }
                #expect(error.code == code, "\(label) \(url.lastPathComponent): \(error)")
                #expect(error.message.contains(phrase), "\(label): \(error.message)")
                #expect(error.message.contains(url.lastPathComponent), "\(label): \(error.message)")
                #expect(!error.message.contains("\n"))
            }
        }
    }
}

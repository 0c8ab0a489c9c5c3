import Foundation
import Testing

@testable import OpenSwiftData

@Suite("StoreFormat layout")
struct StoreFormatLayoutTests {
    @Test("every vector's DDL is reproduced statement for statement, byte for byte", arguments: StoreVector.names)
    func ddl(vector name: String) throws {
        let vector = try StoreVector.named(name)
        let layout = try StoreLayout(vector.storeModel, options: .init(includesHistory: vector.hasHistory))
        let expected = Set(vector.ddl)
        let actual = Set(layout.statements)
        #expect(actual.subtracting(expected).sorted() == [], "statements the store does not have")
        #expect(expected.subtracting(actual).sorted() == [], "statements we do not make")
        #expect(layout.statements.count == vector.ddl.count, "no duplicates")
        #expect(layout.derivedAttributesWithoutTriggers == [])
    }

    @Test("every vector's Z_PRIMARYKEY rows: entity numbers, names and superentities", arguments: StoreVector.names)
    func primaryKeyRows(vector name: String) throws {
        let vector = try StoreVector.named(name)
        let layout = try StoreLayout(vector.storeModel, options: .init(includesHistory: vector.hasHistory))
        #expect(
            layout.primaryKeyRows.map { [String($0.entity), $0.name, String($0.superEntity)] }
                == vector.z_primarykey.map { [String($0.entity), $0.name, String($0.superEntity)] })
        for row in layout.primaryKeyRows where row.entity < 16000 {
            #expect(layout.entity(named: row.name)?.number == row.entity)
        }
    }

    @Test("composites: one column per element named after it, a later equal name numbered (ZID, ZID1)")
    func composites() throws {
        let layout = try StoreLayout(try StoreVector.named("swiftdata-cocktails").storeModel)
        let cocktail = try #require(layout.entity(named: "Cocktail"))
        #expect(cocktail.table == "ZCOCKTAIL" && cocktail.number == 1)
        #expect(
            cocktail.properties["author"]
                == .composite([
                    .init(element: "id", column: "ZID"), .init(element: "person", column: "ZPERSON"),
                    .init(element: "place", column: "ZPLACE"), .init(element: "year", column: "ZYEAR"),
                ]))
        #expect(cocktail.properties["id"] == .column("ZID1"))
        #expect(
            cocktail.properties["glasswareType"]
                == .composite([.init(element: "glasswareType", column: "ZGLASSWARETYPE")]))
        #expect(
            cocktail.properties["garnish"]
                == .manyToMany(joinTable: "Z_1GARNISH", ownColumn: "Z_1COCKTAILS", otherColumn: "Z_2GARNISH"))
        #expect(cocktail.properties["spec"] == .toManyWithoutInverse(table: "ZINGREDIENT", key: "Z1SPEC"))
        let garnish = try #require(layout.entity(named: "Garnish"))
        #expect(
            garnish.properties["cocktails"]
                == .manyToMany(joinTable: "Z_1GARNISH", ownColumn: "Z_2GARNISH", otherColumn: "Z_1COCKTAILS"))
        #expect(
            layout.joinTables == [
                .init(
                    name: "Z_1GARNISH", entity: "Cocktail", relationship: "garnish",
                    ownerColumn: "Z_1COCKTAILS", destinationColumn: "Z_2GARNISH")
            ])
        #expect(
            layout.entity(named: "Ingredient")?.properties["ingredientBase"]
                == .toOne(key: "ZINGREDIENTBASE", entity: nil))
    }

    @Test(
        "inheritance: one table per root, inherited properties share its columns, Z<n>_ entity column for a polymorphic to-one"
    )
    func inheritance() throws {
        let layout = try StoreLayout(try StoreVector.named("coredata-abstract-derived").storeModel)
        #expect(layout.tables.map(\.name) == ["ZBOOK", "ZFEEDBACK", "ZPAGE", "ZWRITER"])
        #expect(layout.table(named: "ZWRITER")?.entities == ["Writer", "Author"])
        let author = try #require(layout.entity(named: "Author"))
        #expect(author.table == "ZWRITER" && author.superNumber == 5)
        #expect(author.properties["age"] == .column("ZAGE"))
        #expect(author.properties["books"] == .toManyThroughInverse(table: "ZBOOK", key: "ZAUTHOR"))
        #expect(author.properties["feedbacks"] == .notStored)
        let page = try #require(layout.entity(named: "Page"))
        #expect(page.properties["book"] == .toOne(key: "ZBOOK", entity: "Z1_BOOK"))
        let novel = try #require(layout.entity(named: "GraphicNovel"))
        #expect(novel.properties["pagesCount"] == .column("ZPAGESCOUNT"))  // derived: a column and triggers
        #expect(novel.properties["pages"] == .toManyThroughInverse(table: "ZPAGE", key: "ZBOOK"))
        let car = try StoreLayout(
            try StoreVector.named("coredata-inheritance").storeModel, options: .init(includesHistory: false))
        #expect(car.entity(named: "SportCar")?.properties["currentDrivingSpeed"] == .notStored)
        #expect(car.entity(named: "ExpensiveSportCar")?.properties["owner"] == .toOne(key: "ZOWNER", entity: nil))
    }

    @Test("one-to-one keeps a key on both sides; to-many without inverse owns Z<n><NAME> on the destination")
    func keys() throws {
        let resources = try StoreLayout(try StoreVector.named("swiftdata-resources").storeModel)
        #expect(
            resources.entity(named: "Item")?.properties["craftingRecipe"] == .toOne(key: "ZCRAFTINGRECIPE", entity: nil)
        )
        #expect(
            resources.entity(named: "CraftingRecipe")?.properties["producedItem"]
                == .toOne(key: "ZPRODUCEDITEM", entity: nil))
        #expect(
            resources.entity(named: "CraftingRecipe")?.properties["requiredComponents"]
                == .toManyThroughInverse(table: "ZCOMPONENT", key: "ZCRAFTINGRECIPE"))
        let cart = try StoreLayout(try StoreVector.named("swiftdata-cart").storeModel)
        #expect(
            cart.entity(named: "CartModel")?.properties["items"]
                == .toManyWithoutInverse(table: "ZCARTITEMMODEL", key: "Z3ITEMS"))
        #expect(
            cart.table(named: "ZCARTITEMMODEL")?.columns.first { $0.name == "Z3ITEMS" }?.role
                == .toManyKey(entity: "CartModel", relationship: "items"))
    }

    @Test("a self-referencing many-to-many: Z_2BLOCKING with Z_2BLOCKEDBY and Z_2BLOCKING")
    func selfManyToMany() throws {
        let layout = try StoreLayout(
            try StoreVector.named("coredata-self-many-to-many").storeModel, options: .init(includesHistory: false))
        let item = try #require(layout.entity(named: "TodoItem"))
        #expect(
            item.properties["blocking"]
                == .manyToMany(joinTable: "Z_2BLOCKING", ownColumn: "Z_2BLOCKEDBY", otherColumn: "Z_2BLOCKING"))
        #expect(
            item.properties["blockedBy"]
                == .manyToMany(joinTable: "Z_2BLOCKING", ownColumn: "Z_2BLOCKING", otherColumn: "Z_2BLOCKEDBY"))
    }

    @Test("an inconsistent model is refused with the entity and property named")
    func validation() throws {
        var model = try StoreVector.named("swiftdata-resources").storeModel
        let item = model.entities.firstIndex { $0.name == "Item" }!
        model.entities[item].relationships.append(.init(name: "ghost", destination: "Nowhere"))
        #expect { try StoreLayout(model) } throws: { error in
            let e = error as? SwiftDataError
            return e?.code == SwiftDataError.unknownSchema.code && e?.entityName == "Item" && e?.propertyName == "ghost"
        }
        model.entities[item].relationships.removeLast()
        model.entities[item].uniquenessConstraints.append(["craftingRecipe", "nope"])
        #expect(throws: SwiftDataError.unknownSchema) { try StoreLayout(model) }
        model.entities[item].uniquenessConstraints.removeLast()
        let component = model.entities.firstIndex { $0.name == "Component" }!
        let item2 = model.entities[component].relationships.firstIndex { $0.name == "item" }!
        // Item.craftingRecipe's inverse is producedItem
        model.entities[component].relationships[item2].inverse = "craftingRecipe"
        #expect(throws: SwiftDataError.unknownSchema) { try StoreLayout(model) }
        model.entities[component].relationships[item2].inverse = nil
        #expect(throws: Never.self) { try StoreLayout(model) }
        let recipe = model.entities.firstIndex { $0.name == "CraftingRecipe" }!
        model.entities[recipe].relationships[0].isOrdered = true
        model.entities[recipe].relationships[0].maxCount = 0
        #expect(throws: SwiftDataError.unknownSchema) { try StoreLayout(model) }
    }
}

@Suite("StoreFormat store files")
struct StoreFormatStoreFileTests {
    /// A fresh path in a private temporary directory.
    private func temporaryStore() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("osd-format-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent("default.store")
    }

    @Test(
        "a store installed from each vector's layout has its DDL, page size, auto-vacuum and readable metadata",
        arguments: StoreVector.names)
    func installAndRead(vector name: String) throws {
        let vector = try StoreVector.named(name)
        let model = vector.storeModel
        let layout = try StoreLayout(model, options: .init(includesHistory: vector.hasHistory))
        let url = try temporaryStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let written = StoreMetadata(model: model, uuid: UUID())
        let db = try SQLiteConnection(path: url.path)
        try layout.install(on: db, metadata: written)
        let ddl = try db.rows("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL").map { row -> String in
            guard case .text(let sql) = row[0] else { return "" }
            return sql
        }
        #expect(Set(ddl) == Set(vector.ddl))
        #expect(try db.scalar("PRAGMA page_size") == .integer(4096))
        #expect(try db.scalar("PRAGMA auto_vacuum") == .integer(2))
        #expect(
            try db.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
                == vector.z_primarykey.map {
                    [.integer(Int64($0.entity)), .text($0.name), .integer(Int64($0.superEntity)), .integer(0)]
                })
        db.close()

        let read = try StoreMetadata.read(contentsOf: url)
        #expect(read == written)
        #expect(read.versionHashes == vector.entityHashes)
        #expect(read.storeType == "SQLite" && read.versionHashesVersion == 3 && read.autoVacuumLevel == "2")
        #expect(read.versionIdentifiers == vector.metadata.NSStoreModelVersionIdentifiers)
        #expect(read.frameworkVersion == 1523 && read.maximumFrameworkVersion == 1523)
        #expect(read.entitiesWithDifferentHashes(from: written) == [])
    }

    @Test("reading metadata leaves the file's bytes unchanged")
    func readDoesNotWrite() throws {
        let vector = try StoreVector.named("swiftdata-cart")
        let url = try temporaryStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let db = try SQLiteConnection(path: url.path)
        try StoreLayout(vector.storeModel).install(
            on: db, metadata: StoreMetadata(model: vector.storeModel, uuid: UUID()))
        db.close()
        let before = try Data(contentsOf: url)
        _ = try StoreMetadata.read(contentsOf: url)
        #expect(try Data(contentsOf: url) == before)
    }

    @Test("metadata committed only to the -wal file, while its writer is still open, is read")
    func readsThroughTheWAL() throws {
        let vector = try StoreVector.named("swiftdata-resources")
        let url = try temporaryStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let db = try SQLiteConnection(path: url.path)
        defer { db.close() }
        try StoreLayout(vector.storeModel).install(
            on: db, metadata: StoreMetadata(model: vector.storeModel, uuid: UUID()))
        #expect(try db.scalar("PRAGMA journal_mode = WAL") == .text("wal"))
        try db.execute("PRAGMA wal_autocheckpoint = 0")
        try db.run("UPDATE Z_METADATA SET Z_UUID = ?", [.text("0D9A6C1E-0000-4000-8000-000000000001")])
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal"))
        #expect(try StoreMetadata.read(contentsOf: url).uuid == "0D9A6C1E-0000-4000-8000-000000000001")
    }

    @Test("a file that is not a Core Data store gives a typed error")
    func notAStore() throws {
        let url = try temporaryStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        #expect(throws: SwiftDataError.loadIssueModelContainer) { try StoreMetadata.read(contentsOf: url) }  // missing

        try Data(repeating: 0x41, count: 4096).write(to: url)
        #expect(throws: SwiftDataError.notADatabase) { try StoreMetadata.read(contentsOf: url) }

        try FileManager.default.removeItem(at: url)
        let db = try SQLiteConnection(path: url.path)
        try db.execute("CREATE TABLE t (x)")
        db.close()
        // no Z_METADATA
        #expect(throws: SwiftDataError.loadIssueModelContainer) { try StoreMetadata.read(contentsOf: url) }

        let db2 = try SQLiteConnection(path: url.path)
        try db2.execute(StoreLayout.metadataTableStatements[1])
        try db2.run(StoreLayout.insertMetadataSQL, [.text("X"), .blob(Data("not a plist".utf8))])
        db2.close()
        #expect(throws: SwiftDataError.corruptStore) { try StoreMetadata.read(contentsOf: url) }
    }
}

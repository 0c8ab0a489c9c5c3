import Foundation
import Testing

@testable import OpenSwiftData

/// Store files as SwiftData writes them on an Apple platform open here (store-format README
/// §1–§4). Each file is built from a reference store's own DDL, `Z_PRIMARYKEY` rows and
/// metadata (`vectors.json`), with rows written through plain SQLite as Core Data writes them
/// (`Z_OPT` versions above 1, `Z_MAX` above the largest key, history rows, a model cache), and
/// left in WAL mode with its writer still open, so committed rows live only in the `-wal` file.
/// The `@Model` classes equivalent to the app's then read every row and relationship, write
/// (keys from `Z_MAX`, `Z_OPT` bumped, no table or column added), and reopen.
@Suite("Apple-written stores")
struct AppleStoreTests {
    private static func schemaStatements(_ db: SQLiteConnection) throws -> Set<String> {
        Set(
            try db.rows("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL").compactMap { row -> String? in
                if case .text(let sql) = row[0] { return sql }
                return nil
            })
    }

    private static func uuidBlob(_ uuid: UUID) -> SQLValue { AppleStoreFile.uuidBlob(uuid) }

    @Test("resources (SwiftData): unique name, one-to-one keys on both sides, UUIDs; read, write, reopen")
    func resources() throws {
        typealias M = ResourcesVectorModels
        let url = try AppleStoreFile.storeURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let plankComponent = UUID()
        let stickComponent = UUID()
        // Entities: Component 1, CraftingRecipe 2, Item 3. Item keys 4 and 5 were deleted by the app.
        let writer = try AppleStoreFile.write(
            "swiftdata-resources", at: url,
            maxKeys: ["Component": 2, "CraftingRecipe": 2, "Item": 5]
        ) { db in
            try db.run(
                """
                INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZCRAFTINGRECIPE, ZNAME) VALUES
                (1, 3, 2, 1, 'Plank'), (2, 3, 1, NULL, 'Log'), (3, 3, 3, 2, 'Stick')
                """)
            try db.run(
                """
                INSERT INTO ZCRAFTINGRECIPE (Z_PK, Z_ENT, Z_OPT, ZPRODUCEDITEM, ZPRODUCEDITEMCOUNT) VALUES
                (1, 2, 3, 1, '4'), (2, 2, 1, 3, '2')
                """)
            try db.run(
                "INSERT INTO ZCOMPONENT (Z_PK, Z_ENT, Z_OPT, ZCOUNT, ZCRAFTINGRECIPE, ZITEM, ZID) VALUES (1, 1, 1, 1, 1, 2, ?), (2, 1, 2, 2, 2, 1, ?)",
                [Self.uuidBlob(plankComponent), Self.uuidBlob(stickComponent)])
        }
        defer { writer.close() }
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal"))
        let before = try Self.schemaStatements(writer)

        do {
            let container = try ModelContainer(for: M.schema, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let items = try context.fetch(FetchDescriptor<M.Item>(sortBy: [SortDescriptor(\.name)]))
            #expect(items.map(\.name) == ["Log", "Plank", "Stick"])
            let plank = items[1]
            let stick = items[2]
            let log = items[0]
            #expect(plank.craftingRecipe?.producedItemCount == "4")
            #expect(plank.craftingRecipe?.producedItem === plank, "the one-to-one reads the same pair from both sides")
            #expect(log.craftingRecipe == nil)
            let recipe = try #require(plank.craftingRecipe)
            #expect(recipe.requiredComponents.map(\.id) == [plankComponent])
            #expect(recipe.requiredComponents.first?.item === log)
            #expect(stick.craftingRecipe?.requiredComponents.first?.item === plank)
            #expect(try context.fetchCount(FetchDescriptor<M.Component>(predicate: #Predicate { $0.count > 1 })) == 1)

            // Writes: a new item and recipe (keys above Z_MAX), an edit (Z_OPT + 1), a new one-to-one.
            let board = M.Item(name: "Board")
            context.insert(board)
            let logRecipe = M.CraftingRecipe()
            context.insert(logRecipe)
            log.craftingRecipe = logRecipe
            recipe.producedItemCount = "6"
            try context.save()
        }

        let raw = try SQLiteConnection(path: url.path, mode: .readOnly)
        defer { raw.close() }
        #expect(try Self.schemaStatements(raw) == before, "no table, column or index was added")
        #expect(
            try raw.scalar("SELECT Z_PK FROM ZITEM WHERE ZNAME = 'Board'") == .integer(6),
            "keys continue after Z_MAX (5)")
        #expect(try raw.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Item'") == .integer(6))
        #expect(try raw.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'CraftingRecipe'") == .integer(3))
        #expect(try raw.rows("SELECT Z_ENT, Z_OPT FROM ZITEM WHERE Z_PK = 6") == [[.integer(3), .integer(1)]])
        #expect(
            try raw.rows("SELECT ZPRODUCEDITEMCOUNT, Z_OPT FROM ZCRAFTINGRECIPE WHERE Z_PK = 1") == [
                [.text("6"), .integer(4)]
            ])
        #expect(
            try raw.rows("SELECT ZCRAFTINGRECIPE FROM ZITEM WHERE Z_PK = 2") == [[.integer(3)]], "Log → its new recipe")
        #expect(
            try raw.rows("SELECT ZPRODUCEDITEM FROM ZCRAFTINGRECIPE WHERE Z_PK = 3") == [[.integer(2)]],
            "and back: both keys")
        #expect(
            try raw.scalar("SELECT count(*) FROM ACHANGE WHERE ZTRANSACTIONID = 1") == .integer(1),
            "the app's history rows are kept")

        let reopened = try ModelContainer(for: M.schema, configurations: ModelConfiguration(url: url))
        let context = ModelContext(reopened)
        // The app's transaction, then ours: 2 inserts (Board, Log's recipe), 2 updates (Log's
        // new to-one, recipe 1's count).
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.map(\.bundleIdentifier).first == "com.example.app")
        let kinds = history.last?.changes.map { change -> String in
            switch change {
            case .insert: "insert"
            case .update: "update"
            case .delete: "delete"
            }
        }
        #expect(history.count == 2 && kinds == ["insert", "insert", "update", "update"])
        let names = try context.fetch(FetchDescriptor<M.Item>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        #expect(names == ["Board", "Log", "Plank", "Stick"])
        let log = try #require(
            try context.fetch(FetchDescriptor<M.Item>(predicate: #Predicate { $0.name == "Log" })).first)
        #expect(log.craftingRecipe?.producedItem === log)
    }

    @Test(
        "cart (SwiftData): Decimal and Date columns, a to-many without inverse (Z3ITEMS) and cascades; read, write, reopen"
    )
    func cart() throws {
        typealias M = CartVectorModels
        let url = try AppleStoreFile.storeURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        // Entities: CartItemModel 1, CartItemModifierModel 2, CartModel 3.
        let created = Date(timeIntervalSinceReferenceDate: 743_906_532.5)
        let writer = try AppleStoreFile.write(
            "swiftdata-cart", at: url,
            maxKeys: ["CartItemModel": 3, "CartItemModifierModel": 1, "CartModel": 1]
        ) { db in
            try db.run(
                """
                INSERT INTO ZCARTMODEL (Z_PK, Z_ENT, Z_OPT, ZCREATEDAT, ZUPDATEDAT, ZMINSUBTOTALAMOUNT, ZID, ZSTATUS, ZSTOREID, ZMETADATAJSON)
                VALUES (1, 3, 4, ?, ?, 12.5, 'cart-1', 'open', 'store-9', ?)
                """,
                [
                    .real(created.timeIntervalSinceReferenceDate), .real(created.timeIntervalSinceReferenceDate + 60),
                    .blob(Data("{}".utf8)),
                ])
            try db.run(
                """
                INSERT INTO ZCARTITEMMODEL (Z_PK, Z_ENT, Z_OPT, ZQUANTITY, Z3ITEMS, ZTOTALPRICEAMOUNT, ZUNITPRICEAMOUNT, ZID, ZPRODUCTID,
                                            ZTOTALPRICECURRENCYCODE, ZUNITPRICECURRENCYCODE)
                VALUES (1, 1, 1, 2, 1, 9.98, 4.99, 'item-1', 'p-1', 'EUR', 'EUR'),
                       (3, 1, 2, 1, 1, 20, 20, 'item-3', 'p-3', 'EUR', 'EUR')
                """)
            try db.run(
                """
                INSERT INTO ZCARTITEMMODIFIERMODEL (Z_PK, Z_ENT, Z_OPT, Z1MODIFIERS, ZPRICEDELTAAMOUNT, ZID, ZNAME, ZPRICEDELTACURRENCYCODE)
                VALUES (1, 2, 1, 1, 0.5, 'mod-1', 'extra shot', 'EUR')
                """)
        }
        defer { writer.close() }
        let before = try Self.schemaStatements(writer)

        do {
            let container = try ModelContainer(for: M.schema, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let cart = try #require(try context.fetch(FetchDescriptor<M.CartModel>()).first)
            #expect(
                cart.id == "cart-1" && cart.createdAt == created && cart.updatedAt == created.addingTimeInterval(60))
            #expect(cart.minSubtotalAmount == Decimal(string: "12.5"))
            #expect(cart.metadataJSON == Data("{}".utf8))
            let items = cart.items.sorted { $0.id < $1.id }
            #expect(items.map(\.id) == ["item-1", "item-3"])
            #expect(items.map(\.totalPriceAmount) == [Decimal(string: "9.98")!, 20])
            #expect(items[0].modifiers.map(\.name) == ["extra shot"])
            #expect(items[0].modifiers.first?.priceDeltaAmount == Decimal(string: "0.5"))
            let total = items.reduce(Decimal(0)) { $0 + $1.totalPriceAmount }
            #expect(total == Decimal(string: "29.98"), "Decimals read back exactly: \(total)")
            #expect(
                try context.fetchCount(
                    FetchDescriptor<M.CartItemModel>(predicate: #Predicate { $0.unitPriceAmount > 5 })) == 1)

            // Writes: a new item joins the cart (Z3ITEMS set), item-3 leaves it (cleared).
            let added = M.CartItemModel(
                id: "item-4", productId: "p-4", quantity: 3, price: Decimal(string: "1.25")!, currency: "EUR")
            context.insert(added)
            cart.items.append(added)
            cart.items.removeAll { $0.id == "item-3" }
            cart.status = "checkout"
            try context.save()
        }

        let raw = try SQLiteConnection(path: url.path, mode: .readOnly)
        #expect(try Self.schemaStatements(raw) == before, "no table, column or index was added")
        #expect(
            try raw.rows("SELECT Z_PK, Z3ITEMS, ZTOTALPRICEAMOUNT, Z_OPT FROM ZCARTITEMMODEL ORDER BY Z_PK")
                == [
                    [.integer(1), .integer(1), .real(9.98), .integer(1)],
                    [.integer(3), .null, .integer(20), .integer(2)],
                    [.integer(4), .integer(1), .real(3.75), .integer(1)],
                ])
        #expect(try raw.rows("SELECT ZSTATUS, Z_OPT FROM ZCARTMODEL") == [[.text("checkout"), .integer(5)]])
        raw.close()

        let reopened = try ModelContainer(for: M.schema, configurations: ModelConfiguration(url: url))
        let context = ModelContext(reopened)
        let cart = try #require(try context.fetch(FetchDescriptor<M.CartModel>()).first)
        #expect(cart.items.map(\.id).sorted() == ["item-1", "item-4"])
        // Cascade through the one-way relationships: the cart's items and their modifiers go.
        context.delete(cart)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<M.CartItemModel>()) == 1, "item-3 had left the cart")
        #expect(try context.fetchCount(FetchDescriptor<M.CartItemModifierModel>()) == 0)
    }

    @Test(
        "a new store of the resources, cart and self-many-to-many apps' models has the vector's exact DDL, entity numbers and hashes",
        arguments: ["swiftdata-resources", "swiftdata-cart", "coredata-self-many-to-many"])
    func newStoreIsTheVectors(vector name: String) throws {
        let vector = try StoreVector.named(name)
        let schema =
            switch name {
            case "swiftdata-resources": ResourcesVectorModels.schema
            case "swiftdata-cart": CartVectorModels.schema
            default: SelfManyVectorModels.schema
            }
        let url = try AppleStoreFile.storeURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let container = try ModelContainer(for: schema, configurations: ModelConfiguration(url: url))
        let (ddl, keys, pragmas) = try container.withStoreConnection { db in
            (
                try Self.schemaStatements(db),
                try db.rows("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT"),
                [
                    try db.scalar("PRAGMA page_size"), try db.scalar("PRAGMA auto_vacuum"),
                    try db.scalar("PRAGMA journal_mode"),
                ]
            )
        }
        // A Core Data store made without persistent history has no history tables; ours always do.
        let history = Set(StoreLayout.historyTableStatements + StoreLayout.historyIndexStatements)
        #expect(vector.hasHistory ? ddl == Set(vector.ddl) : ddl.subtracting(history) == Set(vector.ddl))
        let expectedKeys = vector.z_primarykey.map {
            [SQLValue.integer(Int64($0.entity)), .text($0.name), .integer(Int64($0.superEntity))]
        }
        #expect(
            keys.filter { row in
                vector.hasHistory || { if case .integer(let n) = row[0] { n < 16000 } else { false } }()
            } == expectedKeys)
        #expect(pragmas == [.integer(4096), .integer(2), .text("wal")])
        let metadata = try StoreMetadata.read(contentsOf: url)
        #expect(metadata.versionHashes == vector.entityHashes)
        if let digest = vector.metadata.NSStoreModelVersionHashesDigest {
            #expect(metadata.versionHashesDigest == digest)
        }
        if let checksum = vector.metadata.NSStoreModelVersionChecksumKey {
            #expect(metadata.versionChecksum == checksum)
        }
    }

    @Test(
        "Codable structs are composite columns as in the cocktails store (ZID1 after ZID); raw-value enums their raw value; they round-trip",
        arguments: StoreKind.allCases)
    func composites(_ kind: StoreKind) throws {
        typealias M = CocktailsVectorModels
        let dir = try ScratchDirectory(prefix: "composites")
        let container = try kind.makeContainer(for: [M.Ingredient.self, M.IngredientBase.self], in: dir)
        let prepID = UUID()
        do {
            let context = ModelContext(container)
            let base = M.IngredientBase(name: "lime")
            base.prep = M.Prep(id: prepID, prepIngredientName: "juice", prepRecipe: ["squeeze", "strain"])
            base.tags = M.Tags(flavors: ["sour"], profiles: [], styles: ["fresh", "tart"], booze: [], nA: ["yes"])
            context.insert(base)
            let plain = M.IngredientBase(name: "salt")
            context.insert(plain)
            context.insert(M.Ingredient(base: base, unit: .dash, value: 0.5))
            try context.save()
        }
        let (rows, salt, unit) = try container.withStoreConnection { db in
            (
                try db.rows(
                    "SELECT ZID1, ZPREPINGREDIENTNAME, ZPREPRECIPE, ZFLAVORS, ZSTYLES, ZNA FROM ZINGREDIENTBASE WHERE ZNAME = 'lime'"
                ),
                try db.rows("SELECT ZPREPINGREDIENTNAME, ZFLAVORS FROM ZINGREDIENTBASE WHERE ZNAME = 'salt'"),
                try db.scalar("SELECT ZUNIT FROM ZINGREDIENT")
            )
        }
        do {
            let row = try #require(rows.first)
            #expect(row[0] == withUnsafeBytes(of: prepID.uuid) { .blob(Data($0)) }, "the UUID element is 16 bytes")
            #expect(row[1] == .text("juice"))
            guard case .blob(let recipe) = row[2] else {
                Issue.record("prepRecipe is not a blob: \(row[2])")
                return
            }
            #expect(try JSONDecoder().decode([String].self, from: recipe) == ["squeeze", "strain"])
            #expect(salt == [[.null, .null]], "a nil composite is NULL in every column")
            #expect(unit == .text("dash"))
        }
        let reader = ModelContext(container)
        let bases = try reader.fetch(FetchDescriptor<M.IngredientBase>(sortBy: [SortDescriptor(\.name)]))
        #expect(bases.map(\.name) == ["lime", "salt"])
        #expect(bases[0].prep == M.Prep(id: prepID, prepIngredientName: "juice", prepRecipe: ["squeeze", "strain"]))
        #expect(
            bases[0].tags == M.Tags(flavors: ["sour"], profiles: [], styles: ["fresh", "tart"], booze: [], nA: ["yes"]))
        #expect(bases[1].prep == nil && bases[1].tags == nil)
        let ingredient = try #require(try reader.fetch(FetchDescriptor<M.Ingredient>()).first)
        #expect(ingredient.unit == .dash && ingredient.ingredientBase.name == "lime")
        // An update rewrites every element column.
        bases[0].prep?.prepIngredientName = "zest"
        bases[0].prep?.id = nil
        try reader.save()
        let again = try #require(
            try ModelContext(container).fetch(
                FetchDescriptor<M.IngredientBase>(predicate: #Predicate { $0.name == "lime" })
            ).first)
        #expect(again.prep == M.Prep(id: nil, prepIngredientName: "zest", prepRecipe: ["squeeze", "strain"]))
        // A composite cannot be compared in a predicate: a typed error, not a wrong answer.
        let none: M.Prep? = nil
        _ = expectSwiftDataError(.unsupportedKeyPath, "composite comparison") {
            _ = try reader.fetch(FetchDescriptor<M.IngredientBase>(predicate: #Predicate { $0.prep == none }))
        }
    }

    @Test(
        "self-many-to-many (Core Data, no history tables): Z_2BLOCKING pairs read both ways, writes change pairs only, nothing is added"
    )
    func selfManyToMany() throws {
        typealias M = SelfManyVectorModels
        let url = try AppleStoreFile.storeURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        // Entities: Project 1, TodoItem 2. A row (a, b) of Z_2BLOCKING: a is blocking b.
        let writer = try AppleStoreFile.write(
            "coredata-self-many-to-many", at: url, maxKeys: ["Project": 1, "TodoItem": 6]
        ) { db in
            try db.run("INSERT INTO ZPROJECT (Z_PK, Z_ENT, Z_OPT, ZPRIORITY, ZNAME) VALUES (1, 1, 1, 2, 'house')")
            try db.run(
                """
                INSERT INTO ZTODOITEM (Z_PK, Z_ENT, Z_OPT, ZDONE, ZREPEATS, ZPROJECT, ZNAME) VALUES
                (1, 2, 1, 0, NULL, 1, 'foundation'), (2, 2, 1, 0, NULL, 1, 'walls'), (3, 2, 1, 1, 3, 1, 'roof'), (6, 2, 1, 0, NULL, NULL, 'party')
                """)
            try db.run("INSERT INTO Z_2BLOCKING (Z_2BLOCKEDBY, Z_2BLOCKING) VALUES (1, 2), (2, 3), (1, 3)")
        }
        defer { writer.close() }
        let before = try Self.schemaStatements(writer)
        do {
            let context = ModelContext(try ModelContainer(for: M.schema, configurations: ModelConfiguration(url: url)))
            let items = try context.fetch(FetchDescriptor<M.TodoItem>(sortBy: [SortDescriptor(\.name)]))
            let byName = Dictionary(uniqueKeysWithValues: items.map { ($0.name ?? "", $0) })
            let foundation = try #require(byName["foundation"])
            let roof = try #require(byName["roof"])
            let party = try #require(byName["party"])
            #expect(Set((foundation.blocking ?? []).compactMap(\.name)) == ["walls", "roof"])
            #expect(Set((roof.blockedBy ?? []).compactMap(\.name)) == ["foundation", "walls"])
            #expect(foundation.project?.name == "house" && foundation.project?.priority == 2 && roof.repeats == 3)
            #expect(party.project == nil && (party.blocking ?? []).isEmpty)
            #expect(
                try context.fetchCount(
                    FetchDescriptor<M.TodoItem>(predicate: #Predicate { $0.blockedBy?.isEmpty == false })) == 2)
            // The party now waits for the roof; the foundation no longer blocks the roof directly.
            party.blockedBy = [roof]
            foundation.blocking?.removeAll { $0.name == "roof" }
            try context.save()
        }
        let raw = try SQLiteConnection(path: url.path, mode: .readOnly)
        defer { raw.close() }
        #expect(try Self.schemaStatements(raw) == before, "no table (history included) is added to a Core Data store")
        #expect(
            try raw.rows("SELECT Z_2BLOCKEDBY, Z_2BLOCKING FROM Z_2BLOCKING ORDER BY 1, 2")
                == [[.integer(1), .integer(2)], [.integer(2), .integer(3)], [.integer(3), .integer(6)]])
    }

    @Test(
        "a store of a different model, opened read-only or sharing no entity, names each entity whose version hash differs and its changed columns (MIG-31, 32)"
    )
    func differentModel() throws {
        let url = try AppleStoreFile.storeURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        // The resources store, opened with the cart's models, and with resources' models minus a property.
        let writer = try AppleStoreFile.write("swiftdata-resources", at: url, maxKeys: [:]) { _ in }
        writer.close()
        let e = expectSwiftDataError(.incompatibleSchema, "other models") {
            _ = try ModelContainer(for: CartVectorModels.schema, configurations: ModelConfiguration(url: url))
        }
        let message = e.map { "\($0)" } ?? ""
        #expect(message.contains("Item: the store has it, the models do not"), "\(message)")
        #expect(message.contains("CartModel: the models have it, the store does not"), "\(message)")
        let changed = expectSwiftDataError(.incompatibleSchema, "a changed entity") {
            _ = try ModelContainer(
                for: Schema([
                    ChangedResources.Item.self, ChangedResources.CraftingRecipe.self,
                    ChangedResources.Component.self,
                ]),
                configurations: ModelConfiguration(url: url, allowsSave: false))
        }
        let text = changed.map { "\($0)" } ?? ""
        #expect(
            text.contains(
                "Component: the models add column ZQUALITY; the store has column ZCOUNT that the models do not"),
            "\(text)")
        #expect(!text.contains("Item:"), "Item is unchanged: \(text)")
    }
}

/// The resources app's models with `Component.count` removed and `quality` added (with a default,
/// so an inferred migration can make the change: `InferredMigrationTests`).
enum ChangedResources {
    @Model final class Item {
        @Attribute(.unique) var name: String
        var craftingRecipe: CraftingRecipe?
        init(name: String) { self.name = name }
    }

    @Model final class CraftingRecipe {
        var producedItem: Item?
        var producedItemCount: String = "1"
        var requiredComponents: [Component] = []
        init() {}
    }

    @Model final class Component {
        var id: UUID = UUID()
        var quality: Int = 1
        var item: Item?
        var craftingRecipe: CraftingRecipe?
        init() {}
    }
}

import Foundation
import OpenSwiftDataTesting
import Testing

@testable import OpenSwiftData

/// `FixtureSubset` on stores as Apple's SwiftData writes them (the reference vectors' DDL,
/// rows only in the `-wal` file, history rows present): the input keeps its bytes, the subset
/// is referentially complete and opens with the app's models.
@Suite("Fixture subsets of Apple-written stores")
struct FixtureSubsetAppleStoreTests {
    typealias M = ResourcesVectorModels

    private static func bytes(_ url: URL) throws -> [Data] {
        [try Data(contentsOf: url), try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal"))]
    }

    private static func rows(_ url: URL, _ sql: String) throws -> [[SQLValue]] {
        let db = try SQLiteConnection(path: url.path, mode: .readOnly)
        defer { db.close() }
        return try db.rows(sql)
    }

    @Test("FIX-11 FIX-12 FIX-14: two items of a device copy; one-to-one keys on both sides cleared; opens")
    func resourcesSubset() throws {
        let url = try AppleStoreFile.resourcesCopiedFromDevice()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let before = try Self.bytes(url)
        let out = url.deletingLastPathComponent().appendingPathComponent("subset.store")
        let summary = try FixtureSubset.write(from: url, schema: M.schema, keep: ["Item": 2], seed: 4, to: out)
        #expect(try Self.bytes(url) == before, "FIX-14: the store and its -wal keep their bytes")
        #expect(summary.isValid, "\(summary.text)")
        #expect(summary.historyRowsRemoved == 4, "two transaction strings, a transaction, a change")
        #expect(summary.entities.map(\.rowsAfter) == [0, 0, 2], "Component, CraftingRecipe empty; two items")
        #expect(try Self.rows(out, "SELECT count(*) FROM ZITEM WHERE ZCRAFTINGRECIPE IS NOT NULL") == [[.integer(0)]])
        #expect(try Self.rows(out, "SELECT count(*) FROM ACHANGE") == [[.integer(0)]])
        #expect(try Self.rows(out, "PRAGMA journal_mode") == [[.text("delete")]])

        let fixture = try FixtureDatabase(contentsOf: out, schema: M.schema, store: .disk)
        let context = ModelContext(fixture.container)
        let items = try context.fetch(FetchDescriptor<M.Item>())
        #expect(items.count == 2 && items.allSatisfy { $0.craftingRecipe == nil })
    }

    @Test("FIX-11 FIX-13: every recipe and component kept with scrubbed unique item names; keys intact")
    func resourcesScrubbed() throws {
        let url = try AppleStoreFile.resourcesCopiedFromDevice()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let out = url.deletingLastPathComponent().appendingPathComponent("scrubbed.store")
        let summary = try FixtureSubset.write(
            from: url, schema: M.schema,
            keep: ["Item": FixtureSubset.all, "CraftingRecipe": FixtureSubset.all, "Component": FixtureSubset.all],
            seed: 1, scrub: [FixtureScrub.Rule(entity: "Item", attribute: "name")], to: out)
        #expect(summary.isValid, "\(summary.text)")
        #expect(summary.scrubbed.first?.kind == .name)
        let fixture = try FixtureDatabase(contentsOf: out, schema: M.schema, store: .memory)
        let context = ModelContext(fixture.container)
        let items = try context.fetch(FetchDescriptor<M.Item>(sortBy: [SortDescriptor(\.name)]))
        #expect(items.count == 3)
        #expect(Set(items.map(\.name)).count == 3)
        #expect(Set(items.map(\.name)).isDisjoint(with: ["Log", "Plank", "Stick"]))
        #expect(items.map(\.name.count).sorted() == [3, 5, 5])
        #expect(items.filter { $0.craftingRecipe?.producedItem?.persistentModelID == $0.persistentModelID }.count == 2)
    }

    @Test("FIX-11: a cart without its items: the to-many key without inverse (Z3ITEMS) of kept items is cleared")
    func cartOneWayToMany() throws {
        typealias C = CartVectorModels
        let url = try AppleStoreFile.storeURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let writer = try AppleStoreFile.write(
            "swiftdata-cart", at: url, maxKeys: ["CartItemModel": 3, "CartItemModifierModel": 1, "CartModel": 2]
        ) { db in
            try db.run(
                """
                INSERT INTO ZCARTMODEL (Z_PK, Z_ENT, Z_OPT, ZCREATEDAT, ZUPDATEDAT, ZID, ZSTATUS, ZSTOREID)
                VALUES (1, 3, 1, 0, 0, 'cart-1', 'open', 'store-9'), (2, 3, 1, 0, 0, 'cart-2', 'open', 'store-9')
                """)
            try db.run(
                """
                INSERT INTO ZCARTITEMMODEL (Z_PK, Z_ENT, Z_OPT, ZQUANTITY, Z3ITEMS, ZTOTALPRICEAMOUNT, ZUNITPRICEAMOUNT, ZID, ZPRODUCTID,
                                            ZTOTALPRICECURRENCYCODE, ZUNITPRICECURRENCYCODE)
                VALUES (1, 1, 1, 2, 1, 9.98, 4.99, 'item-1', 'p-1', 'EUR', 'EUR'),
                       (2, 1, 1, 1, 2, 5, 5, 'item-2', 'p-2', 'EUR', 'EUR'),
                       (3, 1, 1, 1, 1, 20, 20, 'item-3', 'p-3', 'EUR', 'EUR')
                """)
        }
        writer.disableCheckpointOnClose()
        writer.close()
        let out = url.deletingLastPathComponent().appendingPathComponent("items.store")
        let summary = try FixtureSubset.write(
            from: url, schema: C.schema, keep: ["CartItemModel": FixtureSubset.all, "CartModel": 1], seed: 2, to: out)
        #expect(summary.isValid, "\(summary.text)")
        #expect(summary.clearedKeys.values.reduce(0, +) >= 1, "\(summary.clearedKeys)")
        let kept = try Self.rows(out, "SELECT Z_PK FROM ZCARTMODEL")
        #expect(kept.count == 1)
        #expect(
            try Self.rows(
                out,
                "SELECT count(*) FROM ZCARTITEMMODEL WHERE Z3ITEMS IS NOT NULL AND Z3ITEMS NOT IN (SELECT Z_PK FROM ZCARTMODEL)"
            )
                == [[.integer(0)]])
        let fixture = try FixtureDatabase(contentsOf: out, schema: C.schema, store: .memory)
        let context = ModelContext(fixture.container)
        let carts = try context.fetch(FetchDescriptor<C.CartModel>())
        #expect(carts.count == 1 && !carts[0].items.isEmpty)
    }
}

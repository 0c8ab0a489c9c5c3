import Foundation
import OpenSwiftDataTesting
import Testing

@testable import OpenSwiftData

/// `FixtureDiff` on a store as an Apple platform writes it (the `swiftdata-resources` reference
/// store, rows only in `-wal`) against a copy edited by plain SQLite: exactly the edits, and the
/// original keeps its bytes.
@Suite("Store file diff")
struct StoreFileDiffTests {
    typealias M = ResourcesVectorModels

    /// The bytes of the file and of its `-wal`.
    private static func bytes(_ url: URL) throws -> [Data] {
        [try Data(contentsOf: url), try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal"))]
    }

    /// A copy of `url` (file, `-wal`, `-shm`) with a recipe's count changed, an item added and a
    /// component removed.
    private static func editedCopy(of url: URL) throws -> URL {
        let copy = try AppleStoreFile.storeURL()
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: url.path + suffix, toPath: copy.path + suffix)
        }
        let db = try SQLiteConnection(path: copy.path)
        defer { db.close() }
        try db.execute("UPDATE ZCRAFTINGRECIPE SET ZPRODUCEDITEMCOUNT = '6' WHERE Z_PK = 1")
        try db.execute("INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZCRAFTINGRECIPE, ZNAME) VALUES (6, 3, 1, 2, 'Board')")
        try db.execute("DELETE FROM ZCOMPONENT WHERE Z_PK = 2")
        return copy
    }

    @Test("FIX-23: an Apple store against an edited copy: the three edits, matched by Z_PK or the unique name")
    func appleStoreAgainstEditedCopy() throws {
        let url = try AppleStoreFile.resourcesCopiedFromDevice()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let copy = try Self.editedCopy(of: url)
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        let before = try Self.bytes(url)

        let diff = try FixtureDiff(url, copy)
        #expect(diff.schema.isEmpty, "\(diff.schema.map(\.line))")
        #expect(
            diff.counts.map { "\($0.name) \($0.a ?? -1) \($0.b ?? -1) \($0.delta)" } == [
                "Component 2 1 -1", "CraftingRecipe 2 2 0", "Item 3 4 1",
            ])
        #expect(diff.rows.map(\.name) == ["Component", "CraftingRecipe", "Item"])
        #expect(diff.rows.map(\.matchedBy) == [["Z_PK"], ["Z_PK"], ["ZNAME"]])
        let lines = diff.rows.flatMap(\.changes).map(\.line)
        #expect(lines.count == 3)
        #expect(
            lines[0].hasPrefix("- Component#2  ZCOUNT: 2, ZCRAFTINGRECIPE: ?#2, ZITEM: ?#1, ZID: <16 bytes sha256:"),
            "\(lines)")
        #expect(lines[1] == #"~ CraftingRecipe#1  ZPRODUCEDITEMCOUNT: "4" → "6""#, "\(lines)")
        #expect(lines[2] == #"+ Item ZNAME="Board"  ZCRAFTINGRECIPE: ?#2, ZNAME: "Board""#, "\(lines)")

        // The models name the properties, the destinations and the UUID.
        let named = try FixtureDiff(url, copy, schema: M.schema)
        let namedLines = named.rows.flatMap(\.changes).map(\.line)
        #expect(named.rows.map(\.matchedBy) == [["Z_PK"], ["Z_PK"], ["name"]])
        #expect(namedLines.count == 3)
        #expect(
            namedLines[0].hasPrefix("- Component#2  count: 2, craftingRecipe: CraftingRecipe#2, item: Item#1, id: "),
            "\(namedLines)")
        #expect(
            namedLines[2] == #"+ Item name="Board"  craftingRecipe: CraftingRecipe#2, name: "Board""#, "\(namedLines)")
        #expect(try Self.bytes(url) == before, "FIX-26: the original keeps its bytes")
        #expect(try FixtureDiff(url, url).isIdentical)
    }
}

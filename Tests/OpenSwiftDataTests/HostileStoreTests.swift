import Foundation
import OpenSwiftDataTesting
import Testing

@testable import OpenSwiftData

/// The model the hostile-store tests write, then edit with raw SQLite as another tool would.
@Model final class HostileItem {
    var name: String
    var count: Int
    var price: Double
    init(name: String, count: Int = 0, price: Double = 0) {
        self.name = name
        self.count = count
        self.price = price
    }
}

/// DESIGN §9 for store files another tool edited: keys at the top of the key space, property
/// list bombs in `Z_METADATA`, triggers, rows of unknown entities and values of the wrong
/// storage class each get a typed error naming what is wrong; nothing on disk changes.
@Suite("Hostile store files")
struct HostileStoreTests {
    // MARK: Helpers

    /// A store of `kind` holding one saved `HostileItem`; the container is kept open.
    struct Fixture {
        let kind: StoreKind
        let dir: ScratchDirectory
        var container: ModelContainer
        var url: URL { dir.file("hostile.store") }

        init(_ kind: StoreKind, rows: Int = 1) throws {
            self.kind = kind
            dir = try ScratchDirectory(prefix: "hostile-\(kind)")
            container = try kind.makeContainer(for: [HostileItem.self], in: dir, name: "hostile")
            let ctx = ModelContext(container)
            for i in 0..<rows { ctx.insert(HostileItem(name: "item \(i)", count: i, price: Double(i))) }
            try ctx.save()
        }

        /// Runs `sql` as another tool would: on disk through a connection of its own (the
        /// container is then opened again), in memory on the store's own connection.
        mutating func edit(_ sql: String..., reopen: Bool = true) throws {
            switch kind {
            case .memory:
                for s in sql { try container.store.connection.execute(s) }
            case .disk:
                let db = try SQLiteConnection(path: url.path, mode: .readWrite)
                for s in sql { try db.execute(s) }
                db.close()
                guard reopen else { return }
                container = try ModelContainer(
                    for: Schema([HostileItem.self]), configurations: ModelConfiguration(url: url))
            }
        }

        /// The store's entity number of `HostileItem`.
        func entityNumber() throws -> Int64 {
            let value = try query("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'HostileItem'")
            guard case .integer(let n) = value else { throw CancellationError() }
            return n
        }

        /// One value read with raw SQLite (through the store's connection in memory).
        func query(_ sql: String) throws -> SQLValue? {
            switch kind {
            case .memory: return try container.store.connection.scalar(sql)
            case .disk:
                let db = try SQLiteConnection(path: url.path, mode: .readOnly)
                defer { db.close() }
                return try db.scalar(sql)
            }
        }

        /// The bytes of the store file and its WAL (empty in memory).
        func snapshot() throws -> [Data] {
            guard kind == .disk else { return [] }
            return try ["", "-wal"].map { suffix in
                let file = URL(fileURLWithPath: url.path + suffix)
                return FileManager.default.fileExists(atPath: file.path) ? try Data(contentsOf: file) : Data()
            }
        }
    }

    /// Inserts one item and saves; expects `code`, the context's changes still pending, and
    /// no byte of the store changed.
    private func expectSaveFails(
        _ f: Fixture, code: SwiftDataError, mentioning words: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try f.snapshot()
        let rows = try f.query("SELECT count(*) FROM ZHOSTILEITEM")
        let ctx = ModelContext(f.container)
        ctx.insert(HostileItem(name: "new"))
        let error = #expect(throws: SwiftDataError.self, sourceLocation: sourceLocation) { try ctx.save() }
        if let error {
            #expect(error == code, "\(error)", sourceLocation: sourceLocation)
            for word in words {
                #expect(
                    error.description.contains(word), "\(error) does not mention \(word)",
                    sourceLocation: sourceLocation)
            }
        }
        #expect(ctx.hasChanges && ctx.insertedModelsArray.count == 1, sourceLocation: sourceLocation)
        #expect(try f.query("SELECT count(*) FROM ZHOSTILEITEM") == rows, sourceLocation: sourceLocation)
        #expect(try f.snapshot() == before, "the failed save changed the file", sourceLocation: sourceLocation)
    }

    // MARK: Keys at the top of the key space

    @Test(
        "Z_MAX at Int64.max: the save throws naming the entity, writes nothing, keeps the changes",
        arguments: StoreKind.allCases)
    func zMaxAtTop(kind: StoreKind) throws {
        var f = try Fixture(kind)
        try f.edit("UPDATE Z_PRIMARYKEY SET Z_MAX = 9223372036854775807 WHERE Z_NAME = 'HostileItem'")
        try expectSaveFails(f, code: .corruptStore, mentioning: ["HostileItem", "exhausted"])
    }

    @Test("A row whose Z_PK is Int64.max: the save throws naming the entity", arguments: StoreKind.allCases)
    func rowKeyAtTop(kind: StoreKind) throws {
        var f = try Fixture(kind)
        let ent = try f.entityNumber()
        try f.edit(
            "INSERT INTO ZHOSTILEITEM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZCOUNT, ZPRICE) VALUES (9223372036854775807, \(ent), 1, 'top', 0, 0)"
        )
        try expectSaveFails(f, code: .corruptStore, mentioning: ["HostileItem", "exhausted"])
    }

    @Test("History keys (16001, 16002) at Int64.max: the save throws, writes nothing", arguments: StoreKind.allCases)
    func historyKeysAtTop(kind: StoreKind) throws {
        for entity in [16001, 16002] {
            var f = try Fixture(kind)
            try #require(try f.query("SELECT count(*) FROM sqlite_master WHERE name = 'ACHANGE'") == .integer(1))
            try f.edit("UPDATE Z_PRIMARYKEY SET Z_MAX = 9223372036854775807 WHERE Z_ENT = \(entity)")
            try expectSaveFails(f, code: .corruptStore, mentioning: ["exhausted"])
        }
    }

    @Test(
        "Z_MAX holding text or a real (entity, 16001, 16002): keys go above the tables' largest, the save succeeds",
        arguments: StoreKind.allCases)
    func zMaxNotAnInteger(kind: StoreKind) throws {
        var f = try Fixture(kind)
        let ent = try f.entityNumber()
        try f.edit(
            "UPDATE Z_PRIMARYKEY SET Z_MAX = 'many' WHERE Z_ENT = \(ent)",
            "UPDATE Z_PRIMARYKEY SET Z_MAX = 2.5 WHERE Z_ENT = 16001",
            "UPDATE Z_PRIMARYKEY SET Z_MAX = X'00' WHERE Z_ENT = 16002")
        let ctx = ModelContext(f.container)
        ctx.insert(HostileItem(name: "new"))
        try ctx.save()
        #expect(try f.query("SELECT max(Z_PK) FROM ZHOSTILEITEM") == .integer(2))
        #expect(try f.query("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = \(ent)") == .integer(2))
        // The first save wrote transaction 1 and its change 1; these are the next.
        #expect(try f.query("SELECT max(Z_PK) FROM ATRANSACTION") == .integer(2))
        #expect(try f.query("SELECT max(Z_PK) FROM ACHANGE") == .integer(2))
        #expect(try f.query("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16001") == .integer(2))
        #expect(try f.query("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16002") == .integer(2))
    }

    @Test("A row version (Z_OPT) at Int64.max: the update's save throws, writes nothing", arguments: StoreKind.allCases)
    func rowVersionAtTop(kind: StoreKind) throws {
        var f = try Fixture(kind)
        try f.edit("UPDATE ZHOSTILEITEM SET Z_OPT = 9223372036854775807")
        let before = try f.snapshot()
        let ctx = ModelContext(f.container)
        let item = try #require(try ctx.fetch(FetchDescriptor<HostileItem>()).first)
        item.name = "renamed"
        let error = #expect(throws: SwiftDataError.self) { try ctx.save() }
        #expect(error == SwiftDataError.corruptStore, "\(String(describing: error))")
        #expect(error?.entityName == "HostileItem")
        #expect(ctx.hasChanges)
        #expect(try f.query("SELECT ZNAME || typeof(Z_OPT) FROM ZHOSTILEITEM") == .text("item 0integer"))
        #expect(try f.snapshot() == before)
    }

    // MARK: Property-list bombs

    /// A `bplist00` of `objects` (each object's bytes, references as one byte each unless
    /// `refSize` says otherwise), with object `top` at the top.
    static func bplist(_ objects: [[UInt8]], top: Int = 0, refSize: UInt8 = 1) -> Data {
        var out: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(out.count)
            out += object
        }
        let table = out.count
        for o in offsets { out += [UInt8(o >> 8), UInt8(o & 0xFF)] }
        func u64(_ v: Int) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) } }
        out += [0, 0, 0, 0, 0, 0, 2, refSize] + u64(objects.count) + u64(top) + u64(table)
        return Data(out)
    }

    /// A collection header: `kind` (0xA array, 0xD dictionary) with `count` entries.
    static func header(_ kind: UInt8, _ count: Int) -> [UInt8] {
        count < 15 ? [kind << 4 | UInt8(count)] : [kind << 4 | 0xF, 0x11, UInt8(count >> 8), UInt8(count & 0xFF)]
    }

    /// The metadata dictionary `{"k": array 2}` where array `i` holds `width` references to
    /// array `i + 1`, `levels` deep, ending in a one-character string: `width^levels` objects
    /// when every reference is expanded, from a few hundred bytes.
    static func laughs(levels: Int, width: Int) -> Data {
        var objects: [[UInt8]] = [[0xD1, 1, 2], [0x51, UInt8(ascii: "k")]]
        for level in 0..<levels {
            objects.append(header(0xA, width) + Array(repeating: UInt8(3 + level), count: width))
        }
        objects.append([0x51, UInt8(ascii: "x")])
        return bplist(objects)
    }

    @Test("Billion-laughs property lists (shared references) are refused as corrupt, not expanded")
    func plistBombs() throws {
        let bombs = [
            ("two references per level, 40 levels", Self.laughs(levels: 40, width: 2)),
            ("two references per level, 60 levels", Self.laughs(levels: 60, width: 2)),
            ("200 references per level, 4 levels", Self.laughs(levels: 4, width: 200)),
            ("14 references per level, 8 levels", Self.laughs(levels: 8, width: 14)),
        ]
        for (label, bomb) in bombs {
            #expect(bomb.count < 1200, "\(label): \(bomb.count) bytes")
            #expect(throws: BinaryPropertyList.DecodingError.self, "\(label)") { try BinaryPropertyList.decode(bomb) }
            #expect(throws: SwiftDataError.corruptStore, "\(label)") { try StoreMetadata(propertyList: bomb, uuid: "") }
        }
        // 63 levels of two references: 2^63 strings from under 400 bytes.
        let small = Self.laughs(levels: 63, width: 2)
        #expect(small.count < 400)
        #expect(throws: SwiftDataError.corruptStore) { try StoreMetadata(propertyList: small, uuid: "") }
    }

    @Test("Nesting deeper than the bound and lengths beyond the data are refused")
    func plistDepthAndLengths() throws {
        // 2000 arrays, each holding the next (refs of two bytes).
        var deep: [[UInt8]] = []
        for i in 1..<2000 { deep.append([0xA1, UInt8(i >> 8), UInt8(i & 0xFF)]) }
        deep.append([0xA0])
        #expect(throws: BinaryPropertyList.DecodingError.self) {
            try BinaryPropertyList.decode(Self.bplist(deep, refSize: 2))
        }
        // A data object whose length says 2^62 bytes.
        let long = [[0x4F, 0x13, 0x40, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3]] as [[UInt8]]
        #expect(throws: BinaryPropertyList.DecodingError.self) { try BinaryPropertyList.decode(Self.bplist(long)) }
        // A UTF-16 string whose length is larger than half the remaining bytes.
        let utf16 = [[0x6F, 0x10, 200, 0, 0x41]] as [[UInt8]]
        #expect(throws: BinaryPropertyList.DecodingError.self) { try BinaryPropertyList.decode(Self.bplist(utf16)) }
        // A trailer whose offset table and object count overflow 64 bits.
        var trailer = Self.bplist([[0x08]])
        trailer.replaceSubrange(
            (trailer.count - 24)..<(trailer.count - 16), with: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: BinaryPropertyList.DecodingError.self) { try BinaryPropertyList.decode(trailer) }
        var offsetTable = Self.bplist([[0x08]])
        offsetTable.replaceSubrange(
            (offsetTable.count - 8)..<offsetTable.count, with: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0])
        #expect(throws: BinaryPropertyList.DecodingError.self) { try BinaryPropertyList.decode(offsetTable) }
    }

    @Test("Large values whose bytes are there, and many shared scalars, still decode")
    func plistLargeButHonest() throws {
        var blob = Data(repeating: 0xAB, count: 6 << 20)
        blob[12345] = 7
        let changes = (0..<2000).map { i -> PropertyListValue in
            .dictionary(["store": .string("S\(i % 3)"), "key": .integer(Int64(i)), "kind": .string("insert")])
        }
        let save: PropertyListValue = .dictionary([
            "generation": .integer(42), "author": .string("app"), "stores": .array(changes), "undo": .data(blob),
        ])
        var metadata = StoreMetadata(model: StoreModel(Schema([HostileItem.self])), uuid: UUID())
        metadata.otherEntries["OpenSwiftDataSave"] = save
        let bytes = metadata.encodedPropertyList()
        let read = try StoreMetadata(propertyList: bytes, uuid: metadata.uuid)
        #expect(read.otherEntries["OpenSwiftDataSave"] == save)
    }

    @Test(
        "A store whose Z_PLIST is a bomb: opening and reading its metadata throw corruptStore naming the file, nothing changes"
    )
    func plistBombInStore() throws {
        var f = try Fixture(.disk)
        let hex = Self.laughs(levels: 63, width: 2).map { String(format: "%02X", $0) }.joined()
        try f.edit("UPDATE Z_METADATA SET Z_PLIST = X'\(hex)' WHERE Z_VERSION = 1", reopen: false)
        let url = f.url
        f.container = try StoreKind.memory.makeContainer(for: [HostileItem.self], in: f.dir)
        let before = try f.snapshot()
        let read = #expect(throws: SwiftDataError.corruptStore) { try StoreMetadata.read(contentsOf: url) }
        #expect(read?.url == url)
        let open = #expect(throws: SwiftDataError.corruptStore) {
            try ModelContainer(for: Schema([HostileItem.self]), configurations: ModelConfiguration(url: url))
        }
        #expect(open?.url == url)
        #expect(try f.snapshot() == before)
    }

    // MARK: Constraints another tool added

    @Test(
        "A trigger's RAISE(ABORT) is a constraint violation with SQLite's message, not a uniqueness one",
        arguments: StoreKind.allCases)
    func triggerRaise(kind: StoreKind) throws {
        var f = try Fixture(kind)
        try f.edit(
            "CREATE TRIGGER hostile_no_new BEFORE INSERT ON ZHOSTILEITEM WHEN NEW.ZNAME = 'new' BEGIN SELECT RAISE(ABORT, 'names may not be new'); END"
        )
        try expectSaveFails(
            f, code: .constraintViolation, mentioning: ["names may not be new", "trigger", "HostileItem"])
        // A trigger on delete fails the save the same way.
        try f.edit(
            "CREATE TRIGGER hostile_keep BEFORE DELETE ON ZHOSTILEITEM BEGIN SELECT RAISE(ABORT, 'rows are kept'); END")
        let ctx = ModelContext(f.container)
        let item = try #require(try ctx.fetch(FetchDescriptor<HostileItem>()).first)
        ctx.delete(item)
        let error = #expect(throws: SwiftDataError.self) { try ctx.save() }
        #expect(error == SwiftDataError.constraintViolation, "\(String(describing: error))")
        #expect(error?.description.contains("rows are kept") == true)
        #expect(ctx.hasChanges)
    }

    @Test(
        "CTX-03 a trigger refusing one row of a multi-row INSERT: the save writes nothing and keeps every insert; a retry stores all in order",
        arguments: StoreKind.allCases)
    func triggerInMultiRowInsert(kind: StoreKind) throws {
        var f = try Fixture(kind)
        try f.edit(
            "CREATE TRIGGER hostile_no_21 BEFORE INSERT ON ZHOSTILEITEM WHEN NEW.ZNAME = 'new 21' BEGIN SELECT RAISE(ABORT, 'not 21'); END"
        )
        let before = try f.snapshot()
        let ctx = ModelContext(f.container)
        // 37 rows: two statements of 16 rows (the refused row in the second), then five of one.
        let names = (0..<37).map { "new \($0)" }
        for name in names { ctx.insert(HostileItem(name: name)) }
        let error = #expect(throws: SwiftDataError.self) { try ctx.save() }
        #expect(error == SwiftDataError.constraintViolation, "\(String(describing: error))")
        #expect(error?.description.contains("not 21") == true)
        #expect(ctx.insertedModelsArray.count == 37)
        #expect(try f.query("SELECT count(*) FROM ZHOSTILEITEM") == .integer(1))
        #expect(try f.snapshot() == before, "the failed save changed the file")

        try f.edit("DROP TRIGGER hostile_no_21", reopen: false)
        try ctx.save()
        #expect(!ctx.hasChanges)
        let stored = try f.query("SELECT group_concat(ZNAME, ',') FROM (SELECT ZNAME FROM ZHOSTILEITEM ORDER BY Z_PK)")
        #expect(stored == .text((["item 0"] + names).joined(separator: ",")))
        #expect(try f.query("SELECT max(Z_PK) - min(Z_PK) FROM ZHOSTILEITEM") == .integer(37))

        // The statements of a save of 37 rows (the schema unchanged since the last save, so no
        // statement is prepared and traced again).
        let trace = TraceRecorder()
        try f.container.setSQLTrace { trace.record($0) }
        for name in names { ctx.insert(HostileItem(name: "more " + name)) }
        try ctx.save()
        try f.container.setSQLTrace(nil)
        let inserts = trace.statements.filter { $0.hasPrefix("INSERT OR FAIL INTO \"ZHOSTILEITEM\"") }
        #expect(inserts.count == 7, "\(inserts)")
        #expect(try f.query("SELECT count(*) FROM ZHOSTILEITEM") == .integer(75))
    }

    @Test("SQLite's constraint sub-codes are told apart")
    func constraintKinds() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute(
            "CREATE TABLE p (id INTEGER PRIMARY KEY, u TEXT UNIQUE, n TEXT NOT NULL, c INTEGER CHECK (c > 0), f INTEGER REFERENCES p(id))"
        )
        try db.execute("PRAGMA foreign_keys = ON")
        try db.execute("INSERT INTO p VALUES (1, 'a', 'x', 1, NULL)")
        let cases: [(String, SQLiteError.ConstraintKind)] = [
            ("INSERT INTO p VALUES (1, 'b', 'x', 1, NULL)", .primaryKey),
            ("INSERT INTO p VALUES (2, 'a', 'x', 1, NULL)", .unique),
            ("INSERT INTO p VALUES (2, 'b', NULL, 1, NULL)", .notNull),
            ("INSERT INTO p VALUES (2, 'b', 'x', 0, NULL)", .check),
            ("INSERT INTO p VALUES (2, 'b', 'x', 1, 9)", .foreignKey),
        ]
        for (sql, kind) in cases {
            let error = #expect(throws: SQLiteError.self) { try db.execute(sql) }
            #expect(error?.constraintKind == kind, "\(sql): \(String(describing: error))")
        }
    }

    // MARK: Rows another tool wrote

    @Test(
        "A row of an unknown Z_ENT makes the fetch throw naming the table and the number", arguments: StoreKind.allCases
    )
    func unknownEntity(kind: StoreKind) throws {
        var f = try Fixture(kind, rows: 3)
        try f.edit(
            "INSERT INTO ZHOSTILEITEM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZCOUNT, ZPRICE) VALUES (100, 77, 1, 'ghost', 0, 0)")
        let before = try f.snapshot()
        let ctx = ModelContext(f.container)
        let error = #expect(throws: SwiftDataError.corruptStore) { try ctx.fetch(FetchDescriptor<HostileItem>()) }
        #expect(error?.message.contains("ZHOSTILEITEM") == true, "\(String(describing: error))")
        #expect(error?.message.contains("77") == true, "\(String(describing: error))")
        #expect(try f.snapshot() == before)
    }

    @Test("Values of the wrong storage class are not coerced silently", arguments: StoreKind.allCases)
    func wrongStorageClass(kind: StoreKind) throws {
        let edits = [
            ("ZCOUNT = 'abc'", "count", "TEXT"),
            ("ZCOUNT = 2.5", "count", "REAL"),
            ("ZPRICE = 'cheap'", "price", "TEXT"),
            ("ZNAME = CAST(X'41FFFE42' AS TEXT)", "name", "UTF-8"),
        ]
        for (assignment, property, stored) in edits {
            var f = try Fixture(kind)
            try f.edit("UPDATE ZHOSTILEITEM SET \(assignment)")
            let before = try f.snapshot()
            let ctx = ModelContext(f.container)
            let error = #expect(throws: SwiftDataError.self, "\(assignment)") {
                try ctx.fetch(FetchDescriptor<HostileItem>())
            }
            #expect(error == SwiftDataError.corruptStore, "\(assignment): \(String(describing: error))")
            #expect(error?.entityName == "HostileItem" && error?.propertyName == property, "\(assignment)")
            #expect(error?.message.contains(stored) == true, "\(assignment): \(String(describing: error))")
            #expect(error?.message.contains("Z_PK 1") == true, "\(assignment): \(String(describing: error))")
            #expect(try f.snapshot() == before)
        }
    }

    // MARK: Predicates

    @Test("A predicate comparing with a captured NaN names the property and says why", arguments: StoreKind.allCases)
    func nanInPredicate(kind: StoreKind) throws {
        let f = try Fixture(kind)
        let ctx = ModelContext(f.container)
        let nan = Double.nan
        let predicates: [Predicate<HostileItem>] = [
            #Predicate { $0.price == nan }, #Predicate { $0.price < nan }, #Predicate { nan != $0.price },
        ]
        for predicate in predicates {
            let error = #expect(throws: SwiftDataError.unsupportedPredicate) {
                try ctx.fetch(FetchDescriptor(predicate: predicate))
            }
            #expect(error?.propertyName == "price", "\(String(describing: error))")
            #expect(error?.message.contains("NaN") == true && error?.message.contains("isNaN") == true)
        }
    }
}

import Foundation
import OpenSwiftData
import Testing

/// The SQLite layout the store writes — Apple's (store-format README §3: `Z<ROOT>` tables,
/// `Z<PROPERTY>` columns, Core Data's column types) — read back through a raw read-only
/// connection, and the behaviours that depend on it: inheritance queries, many-to-many and
/// delete rules, on both stores.
@Suite("Storage")
struct StorageTests {
    static var tripModels: [any PersistentModel.Type] {
        [Trip.self, BusinessTrip.self, ExecutiveTrip.self, PersonalTrip.self, Traveler.self]
    }
    static var allModels: [any PersistentModel.Type] { tripModels + [Category.self, Product.self, User.self] }

    // MARK: Raw SQL helpers

    private func raw(_ dir: ScratchDirectory, _ name: String = "store.store") throws -> SQLiteConnection {
        try SQLiteConnection(path: dir.file(name).path, mode: .readOnly)
    }

    private func text(_ v: SQLValue?) -> String? {
        if case .text(let s)? = v { return s }
        return nil
    }

    private func int(_ v: SQLValue?) -> Int64? {
        if case .integer(let i)? = v { return i }
        return nil
    }

    private func tableNames(_ db: SQLiteConnection) throws -> Set<String> {
        Set(try db.rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { text($0.first) })
    }

    /// `PRAGMA table_info`: (name, declared type, pk position).
    private func columns(_ db: SQLiteConnection, _ table: String) throws -> [(name: String, type: String, pk: Int64)] {
        try db.rows("SELECT name, type, pk FROM pragma_table_info(?)", [.text(table)]).map {
            (text($0[0]) ?? "", text($0[1]) ?? "", int($0[2]) ?? 0)
        }
    }

    /// `PRAGMA index_list` joined with `index_info`: (unique, columns) per index.
    private func indexes(_ db: SQLiteConnection, _ table: String) throws -> [(
        name: String, unique: Bool, columns: [String]
    )] {
        try db.rows("SELECT name, \"unique\" FROM pragma_index_list(?)", [.text(table)]).map { row in
            let name = text(row[0]) ?? ""
            let cols = try db.rows("SELECT name FROM pragma_index_info(?) ORDER BY seqno", [.text(name)]).compactMap {
                text($0[0])
            }
            return (name, int(row[1]) == 1, cols)
        }
    }

    private func count(_ db: SQLiteConnection, _ table: String) throws -> Int64 {
        int(try db.scalar("SELECT count(*) FROM \"\(table)\"")) ?? -1
    }

    // MARK: Layout

    /// The entity tables and the metadata and history tables every store has.
    private static let fixedTables: Set<String> = [
        "Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE", "ATRANSACTION", "ACHANGE", "ATRANSACTIONSTRING",
    ]

    @Test(
        "One Z<ROOT> table per inheritance root with Z_PK, Z_ENT, Z_OPT; subclass columns NULL for other classes (INH storage)"
    )
    func inheritanceTableLayout() throws {
        let dir = try ScratchDirectory(prefix: "storage-layout")
        let container = try StoreKind.disk.makeContainer(for: Self.allModels, in: dir)
        let ctx = ModelContext(container)
        ctx.insert(Trip(name: "plain", days: 1))
        ctx.insert(BusinessTrip(name: "biz", days: 2, perdiem: 50))
        ctx.insert(ExecutiveTrip(name: "exec", days: 3, perdiem: 300, lounge: "Gold"))
        ctx.insert(PersonalTrip(name: "fun", days: 4, reason: "beach"))
        try ctx.save()

        let db = try raw(dir)
        let tables = try tableNames(db)
        #expect(tables.contains("ZTRIP"))
        #expect(
            tables.isDisjoint(with: ["ZBUSINESSTRIP", "ZEXECUTIVETRIP", "ZPERSONALTRIP"]),
            "subclasses share the root's table: \(tables.sorted())")
        #expect(tables.isSuperset(of: ["ZTRAVELER", "ZCATEGORY", "ZWORD", "ZPRODUCT", "ZTAG", "ZUSER"]))
        #expect(tables.isSuperset(of: Self.fixedTables))

        let cols = try columns(db, "ZTRIP")
        let names = cols.map(\.name)
        #expect(Array(names.prefix(3)) == ["Z_PK", "Z_ENT", "Z_OPT"])
        #expect(cols.first { $0.name == "Z_PK" }?.pk == 1)
        #expect(cols.first { $0.name == "Z_PK" }?.type == "INTEGER")
        #expect(
            Set(names) == ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME", "ZDAYS", "ZTRAVELER", "ZPERDIEM", "ZLOUNGE", "ZREASON"])
        #expect(cols.first { $0.name == "ZPERDIEM" }?.type == "FLOAT")
        #expect(cols.first { $0.name == "ZNAME" }?.type == "VARCHAR")
        for t in ["ZCATEGORY", "ZWORD", "ZPRODUCT", "ZTAG", "ZUSER", "ZTRAVELER"] {
            let c = try columns(db, t).map(\.name)
            #expect(Array(c.prefix(3)) == ["Z_PK", "Z_ENT", "Z_OPT"], "\(t): \(c)")
        }
        // Entity numbers: roots by name, each followed by its sub-entities (README §2).
        let numbers = Dictionary(
            uniqueKeysWithValues: try db.rows("SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY WHERE Z_ENT < 16000").map {
                (text($0[0]) ?? "", int($0[1]) ?? 0)
            })
        #expect(numbers["Category"] == 1 && numbers["Product"] == 2 && numbers["Tag"] == 3 && numbers["Traveler"] == 4)
        #expect(numbers["Trip"] == 5 && numbers["BusinessTrip"] == 6 && numbers["ExecutiveTrip"] == 7)
        #expect(numbers["PersonalTrip"] == 8 && numbers["User"] == 9 && numbers["Word"] == 10)

        let rows = try db.rows("SELECT ZNAME, Z_ENT, ZPERDIEM, ZLOUNGE, ZREASON FROM ZTRIP ORDER BY Z_PK")
        #expect(rows.count == 4)
        let byName = Dictionary(uniqueKeysWithValues: rows.map { (text($0[0]) ?? "", $0) })
        #expect(rows.compactMap { int($0[1]) } == [5, 6, 7, 8], "one Z_ENT value per class: its entity number")
        let plain = try #require(byName["plain"])
        #expect(plain[2] == .null && plain[3] == .null && plain[4] == .null)
        let biz = try #require(byName["biz"])
        #expect(biz[2] == .real(50) && biz[3] == .null && biz[4] == .null)
        let exec = try #require(byName["exec"])
        #expect(exec[2] == .real(300) && exec[3] == .text("Gold") && exec[4] == .null)
        let fun = try #require(byName["fun"])
        #expect(fun[2] == .null && fun[3] == .null && fun[4] == .text("beach"))
    }

    @Test("To-one is a Z<NAME> key column; many-to-many is a Z_<n><NAME> join table")
    func relationshipColumns() throws {
        let dir = try ScratchDirectory(prefix: "storage-fk")
        let container = try StoreKind.disk.makeContainer(for: Self.allModels, in: dir)
        let ctx = ModelContext(container)
        let animals = Category(name: "animals")
        animals.words = [Word(text: "cat"), Word(text: "dog")]
        ctx.insert(animals)
        ctx.insert(Word(text: "orphan"))
        let p1 = Product(name: "p1", price: 1)
        let p2 = Product(name: "p2", price: 2)
        let t1 = Tag(label: "t1")
        let t2 = Tag(label: "t2")
        let t3 = Tag(label: "t3")
        p1.tags = [t1, t2]
        p2.tags = [t2, t3]
        ctx.insert(p1)
        ctx.insert(p2)
        try ctx.save()

        let db = try raw(dir)
        #expect(try columns(db, "ZWORD").map(\.name).contains("ZCATEGORY"))
        #expect(try columns(db, "ZCATEGORY").map(\.name).contains("ZWORDS") == false)
        let catPK = try #require(int(try db.scalar("SELECT Z_PK FROM ZCATEGORY WHERE ZNAME = ?", [.text("animals")])))
        let fks = try db.rows("SELECT ZTEXT, ZCATEGORY FROM ZWORD ORDER BY ZTEXT")
        #expect(fks.map { text($0[0]) } == ["cat", "dog", "orphan"])
        #expect(fks.map { $0[1] } == [.integer(catPK), .integer(catPK), .null])
        #expect(
            try indexes(db, "ZWORD").contains { $0.name == "ZWORD_ZCATEGORY_INDEX" && $0.columns == ["ZCATEGORY"] },
            "the foreign key is indexed")

        #expect(try columns(db, "ZPRODUCT").map(\.name).contains("ZTAGS") == false)
        #expect(try columns(db, "ZTAG").map(\.name).contains("ZPRODUCTS") == false)
        let join = try tableNames(db).subtracting([
            "ZTRIP", "ZTRAVELER", "ZCATEGORY", "ZWORD", "ZPRODUCT", "ZTAG", "ZUSER",
        ])
        .subtracting(Self.fixedTables)
        #expect(join == ["Z_2TAGS"], "exactly one join table, named by Product.tags (entity 2): \(join.sorted())")
        let joinCols = try columns(db, "Z_2TAGS")
        #expect(joinCols.map(\.name) == ["Z_2PRODUCTS", "Z_3TAGS"])
        #expect(try count(db, "Z_2TAGS") == 4)
    }

    @Test("Unique attributes and #Index declarations become SQLite indexes (UNQ, #Index)")
    func indexesFromDeclarations() throws {
        let dir = try ScratchDirectory(prefix: "storage-index")
        _ = try StoreKind.disk.makeContainer(for: Self.allModels + [SchNote.self], in: dir)
        let db = try raw(dir)
        let category = try indexes(db, "ZCATEGORY")
        #expect(
            category.contains { $0.name == "Z_Category_UNIQUE_name" && $0.unique && $0.columns == ["ZNAME"] },
            "\(category)")
        let user = try indexes(db, "ZUSER")
        #expect(user.contains { $0.name == "Z_User_UNIQUE_id" && $0.unique && $0.columns == ["ZID"] }, "\(user)")
        let product = try indexes(db, "ZPRODUCT")
        #expect(
            product.contains {
                $0.name.hasPrefix("Z_Product_SwiftDataIndexOn") && !$0.unique && $0.columns == ["ZNAME"]
            }, "\(product)")
        #expect(product.contains { !$0.unique && $0.columns == ["ZPRICE", "ZNAME"] }, "\(product)")
        #expect(!product.contains { $0.unique }, "Product declares no unique constraint")
        let note = try indexes(db, "ZSCHNOTE")
        #expect(note.contains { $0.unique && $0.columns == ["ZTITLE", "ZDAY"] }, "\(note)")
        #expect(note.contains { $0.unique && $0.columns == ["ZCODE"] }, "\(note)")
        #expect(note.contains { !$0.unique && $0.columns == ["ZDAY"] }, "\(note)")

        let plan = try db.queryPlan("SELECT Z_PK FROM ZPRODUCT WHERE ZNAME = ?", [.text("x")]).joined(separator: "\n")
        #expect(plan.contains("USING INDEX") || plan.contains("USING COVERING INDEX"), "plan: \(plan)")
    }

    @Test("The on-disk store is in WAL mode")
    func walJournal() throws {
        let dir = try ScratchDirectory(prefix: "storage-wal")
        let container = try StoreKind.disk.makeContainer(for: [User.self], in: dir)
        let ctx = ModelContext(container)
        ctx.insert(User(id: UUID(), name: "a", joined: Date(timeIntervalSinceReferenceDate: 0)))
        try ctx.save()
        let db = try raw(dir)
        #expect(try db.scalar("PRAGMA journal_mode") == .text("wal"))
    }

    @Test("Values are bound: a hostile string is stored verbatim and no table is dropped")
    func valuesAreBound() throws {
        let dir = try ScratchDirectory(prefix: "storage-bound")
        let container = try StoreKind.disk.makeContainer(for: Self.allModels, in: dir)
        let evil = "x'); DROP TABLE \"ZWORD\"; DROP TABLE ZCATEGORY; -- \" ' ; ?1 :a"
        let ctx = ModelContext(container)
        let c = Category(name: evil)
        c.words = [Word(text: evil)]
        ctx.insert(c)
        try ctx.save()
        let db = try raw(dir)
        #expect(try tableNames(db).isSuperset(of: ["ZWORD", "ZCATEGORY"]))
        #expect(try db.scalar("SELECT ZTEXT FROM ZWORD") == .text(evil))
        #expect(try db.scalar("SELECT ZNAME FROM ZCATEGORY") == .text(evil))
        #expect(try db.scalar("SELECT typeof(ZLENGTH) FROM ZWORD") == .text("integer"))
        let fresh = ModelContext(container)  // kept alive: models hold their context weakly
        defer { withExtendedLifetime(fresh) {} }
        let back = try fresh.fetch(FetchDescriptor<Word>())
        #expect(back.map(\.text) == [evil])
        #expect(back.first?.category?.name == evil)
    }

    @Test(
        "Column types and values follow store-format README §3 (UUID 16-byte BLOB, Date REAL since 2001, enum raw value, Codable struct as composite columns, Decimal number)"
    )
    func storageClasses() throws {
        let dir = try ScratchDirectory(prefix: "storage-classes")
        let container = try StoreKind.disk.makeContainer(for: [Everything.self], in: dir)
        let ctx = ModelContext(container)
        let e = Everything()
        e.uuid = UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!
        e.date = Date(timeIntervalSinceReferenceDate: 12.5)
        e.priority = .high
        e.mood = .busy
        e.bool = true
        e.address = Address(street: "s", city: "c")
        e.list = ["a", "b"]
        ctx.insert(e)
        try ctx.save()
        let db = try raw(dir)
        let row = try #require(
            try db.rows(
                "SELECT ZUUID, ZDATE, ZPRIORITY, ZMOOD, ZBOOL, ZSTREET, ZCITY, ZLIST, ZOINT, ZDECIMAL FROM ZEVERYTHING"
            ).first)
        #expect(
            row[0]
                == .blob(
                    Data([
                        0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF,
                    ])))
        #expect(row[1] == .real(12.5))
        #expect(row[2] == .integer(10))
        #expect(row[3] == .text("busy"))
        #expect(row[4] == .integer(1))
        #expect(row[5] == .text("s") && row[6] == .text("c"), "Address's elements, one column each")
        #expect(text(row[7]) == "[\"a\",\"b\"]")
        #expect(row[8] == .null)
        #expect(row[9] == .integer(0))
        let types = Dictionary(uniqueKeysWithValues: try columns(db, "ZEVERYTHING").map { ($0.name, $0.type) })
        #expect(types["ZUUID"] == "BLOB" && types["ZDATE"] == "TIMESTAMP" && types["ZDECIMAL"] == "DECIMAL")
        #expect(types["ZSTREET"] == "VARCHAR" && types["ZBOOL"] == "INTEGER" && types["ZDOUBLE"] == "FLOAT")
        let reader = ModelContext(container)
        let back = try #require(try reader.fetch(FetchDescriptor<Everything>()).first)
        #expect(back.address == Address(street: "s", city: "c") && back.list == ["a", "b"] && back.mood == .busy)
    }

    // MARK: Relationships

    @Test("Nullify on disk: the foreign-key column and join rows are cleared")
    func nullifyOnDiskColumns() throws {
        let dir = try ScratchDirectory(prefix: "nullify-sql")
        let container = try StoreKind.disk.makeContainer(for: [Category.self, Product.self], in: dir)
        let ctx = ModelContext(container)
        let w = Word(text: "lonely")
        let c = Category(name: "c")
        c.words = [w]
        let p = Product(name: "p", price: 1)
        let t = Tag(label: "t")
        p.tags = [t]
        ctx.insert(c)
        ctx.insert(p)
        try ctx.save()
        // Word.category is nullify: deleting the word removes it from the category.
        ctx.delete(w)
        ctx.delete(t)
        try ctx.save()
        #expect(c.words.isEmpty)
        let db = try raw(dir)
        #expect(try count(db, "ZWORD") == 0)
        #expect(try count(db, "ZCATEGORY") == 1)
        #expect(try count(db, "Z_2TAGS") == 0)
        let reader = ModelContext(container)
        let category = try #require(try reader.fetch(FetchDescriptor<Category>()).first)
        #expect(category.modelContext === reader)
        #expect(category.name == "c")
        #expect(category.words.isEmpty)
    }
}

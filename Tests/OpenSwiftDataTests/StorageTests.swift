import Foundation
import Testing
import OpenSwiftData

/// The SQLite layout the store writes (DESIGN §5), read back through a raw read-only
/// connection, and the behaviours that depend on it: inheritance queries, many-to-many and
/// delete rules, on both stores.
@Suite("Storage")
struct StorageTests {
    static var tripModels: [any PersistentModel.Type] { [Trip.self, BusinessTrip.self, ExecutiveTrip.self, PersonalTrip.self, Traveler.self] }
    static var allModels: [any PersistentModel.Type] { tripModels + [Category.self, Product.self, User.self] }

    // MARK: Raw SQL helpers

    private func raw(_ dir: TemporaryDirectory, _ name: String = "test.store") throws -> SQLiteConnection {
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
    private func indexes(_ db: SQLiteConnection, _ table: String) throws -> [(name: String, unique: Bool, columns: [String])] {
        try db.rows("SELECT name, \"unique\" FROM pragma_index_list(?)", [.text(table)]).map { row in
            let name = text(row[0]) ?? ""
            let cols = try db.rows("SELECT name FROM pragma_index_info(?) ORDER BY seqno", [.text(name)]).compactMap { text($0[0]) }
            return (name, int(row[1]) == 1, cols)
        }
    }

    private func count(_ db: SQLiteConnection, _ table: String) throws -> Int64 {
        int(try db.scalar("SELECT count(*) FROM \"\(table)\"")) ?? -1
    }

    // MARK: Layout

    @Test("One table per inheritance root with Z_PK and Z_ENT; subclass columns NULL for other classes (INH storage)")
    func inheritanceTableLayout() throws {
        let dir = TemporaryDirectory("storage-layout")
        let container = try makeContainer(.disk, Self.allModels, in: dir)
        let ctx = ModelContext(container)
        ctx.insert(Trip(name: "plain", days: 1))
        ctx.insert(BusinessTrip(name: "biz", days: 2, perdiem: 50))
        ctx.insert(ExecutiveTrip(name: "exec", days: 3, perdiem: 300, lounge: "Gold"))
        ctx.insert(PersonalTrip(name: "fun", days: 4, reason: "beach"))
        try ctx.save()

        let db = try raw(dir)
        let tables = try tableNames(db)
        #expect(tables.contains("Trip"))
        #expect(tables.isDisjoint(with: ["BusinessTrip", "ExecutiveTrip", "PersonalTrip"]),
                "subclasses share the root's table: \(tables.sorted())")
        #expect(tables.isSuperset(of: ["Traveler", "Category", "Word", "Product", "Tag", "User"]))

        let cols = try columns(db, "Trip")
        let names = cols.map(\.name)
        #expect(Array(names.prefix(2)) == ["Z_PK", "Z_ENT"])
        #expect(cols.first { $0.name == "Z_PK" }?.pk == 1)
        #expect(cols.first { $0.name == "Z_PK" }?.type == "INTEGER")
        #expect(Set(names) == ["Z_PK", "Z_ENT", "Z_OPT", "name", "days", "traveler", "perdiem", "lounge", "reason"])
        #expect(cols.first { $0.name == "perdiem" }?.type == "REAL")
        #expect(cols.first { $0.name == "name" }?.type == "TEXT")
        for t in ["Category", "Word", "Product", "Tag", "User", "Traveler"] {
            let c = try columns(db, t).map(\.name)
            #expect(Array(c.prefix(2)) == ["Z_PK", "Z_ENT"], "\(t): \(c)")
        }

        let rows = try db.rows("SELECT name, Z_ENT, perdiem, lounge, reason FROM Trip ORDER BY Z_PK")
        #expect(rows.count == 4)
        let byName = Dictionary(uniqueKeysWithValues: rows.map { (text($0[0]) ?? "", $0) })
        #expect(Set(rows.compactMap { int($0[1]) }).count == 4, "one Z_ENT value per class")
        let plain = try #require(byName["plain"])
        #expect(plain[2] == .null && plain[3] == .null && plain[4] == .null)
        let biz = try #require(byName["biz"])
        #expect(biz[2] == .real(50) && biz[3] == .null && biz[4] == .null)
        let exec = try #require(byName["exec"])
        #expect(exec[2] == .real(300) && exec[3] == .text("Gold") && exec[4] == .null)
        let fun = try #require(byName["fun"])
        #expect(fun[2] == .null && fun[3] == .null && fun[4] == .text("beach"))
    }

    @Test("To-one is a foreign-key column; many-to-many is a join table")
    func relationshipColumns() throws {
        let dir = TemporaryDirectory("storage-fk")
        let container = try makeContainer(.disk, Self.allModels, in: dir)
        let ctx = ModelContext(container)
        let animals = Category(name: "animals")
        animals.words = [Word(text: "cat"), Word(text: "dog")]
        ctx.insert(animals)
        ctx.insert(Word(text: "orphan"))
        let p1 = Product(name: "p1", price: 1), p2 = Product(name: "p2", price: 2)
        let t1 = Tag(label: "t1"), t2 = Tag(label: "t2"), t3 = Tag(label: "t3")
        p1.tags = [t1, t2]
        p2.tags = [t2, t3]
        ctx.insert(p1)
        ctx.insert(p2)
        try ctx.save()

        let db = try raw(dir)
        #expect(try columns(db, "Word").map(\.name).contains("category"))
        #expect(try columns(db, "Category").map(\.name).contains("words") == false)
        let catPK = try #require(int(try db.scalar("SELECT Z_PK FROM Category WHERE name = ?", [.text("animals")])))
        let fks = try db.rows("SELECT text, category FROM Word ORDER BY text")
        #expect(fks.map { text($0[0]) } == ["cat", "dog", "orphan"])
        #expect(fks.map { $0[1] } == [.integer(catPK), .integer(catPK), .null])
        #expect(try indexes(db, "Word").contains { $0.columns == ["category"] }, "the foreign key is indexed")

        #expect(try columns(db, "Product").map(\.name).contains("tags") == false)
        #expect(try columns(db, "Tag").map(\.name).contains("products") == false)
        let join = try tableNames(db).subtracting(["Trip", "Traveler", "Category", "Word", "Product", "Tag", "User", "Z_METADATA"])
        #expect(join.count == 1, "exactly one join table: \(join.sorted())")
        let joinName = try #require(join.first)
        let joinCols = try columns(db, joinName)
        #expect(joinCols.count == 2)
        #expect(try count(db, joinName) == 4)
    }

    @Test("Unique attributes and #Index declarations become SQLite indexes (UNQ, #Index)")
    func indexesFromDeclarations() throws {
        let dir = TemporaryDirectory("storage-index")
        _ = try makeContainer(.disk, Self.allModels + [SchNote.self], in: dir)
        let db = try raw(dir)
        let category = try indexes(db, "Category")
        #expect(category.contains { $0.unique && $0.columns == ["name"] }, "\(category)")
        let user = try indexes(db, "User")
        #expect(user.contains { $0.unique && $0.columns == ["id"] }, "\(user)")
        let product = try indexes(db, "Product")
        #expect(product.contains { !$0.unique && $0.columns == ["name"] }, "\(product)")
        #expect(product.contains { !$0.unique && $0.columns == ["price", "name"] }, "\(product)")
        #expect(!product.contains { $0.unique }, "Product declares no unique constraint")
        let note = try indexes(db, "SchNote")
        #expect(note.contains { $0.unique && $0.columns == ["title", "day"] }, "\(note)")
        #expect(note.contains { $0.unique && $0.columns == ["code"] }, "\(note)")
        #expect(note.contains { !$0.unique && $0.columns == ["day"] }, "\(note)")

        let plan = try db.queryPlan("SELECT Z_PK FROM Product WHERE name = ?", [.text("x")]).joined(separator: "\n")
        #expect(plan.contains("USING INDEX") || plan.contains("USING COVERING INDEX"), "plan: \(plan)")
    }

    @Test("The on-disk store is in WAL mode")
    func walJournal() throws {
        let dir = TemporaryDirectory("storage-wal")
        let container = try makeContainer(.disk, [User.self], in: dir)
        let ctx = ModelContext(container)
        ctx.insert(User(id: UUID(), name: "a", joined: Date(timeIntervalSinceReferenceDate: 0)))
        try ctx.save()
        let db = try raw(dir)
        #expect(try db.scalar("PRAGMA journal_mode") == .text("wal"))
    }

    @Test("Values are bound: a hostile string is stored verbatim and no table is dropped")
    func valuesAreBound() throws {
        let dir = TemporaryDirectory("storage-bound")
        let container = try makeContainer(.disk, Self.allModels, in: dir)
        let evil = "x'); DROP TABLE \"Word\"; DROP TABLE Category; -- \" ' ; ?1 :a"
        let ctx = ModelContext(container)
        let c = Category(name: evil)
        c.words = [Word(text: evil)]
        ctx.insert(c)
        try ctx.save()
        let db = try raw(dir)
        #expect(try tableNames(db).isSuperset(of: ["Word", "Category"]))
        #expect(try db.scalar("SELECT text FROM Word") == .text(evil))
        #expect(try db.scalar("SELECT name FROM Category") == .text(evil))
        #expect(try db.scalar("SELECT typeof(length) FROM Word") == .text("integer"))
        let fresh = ModelContext(container)   // kept alive: models hold their context weakly
        defer { withExtendedLifetime(fresh) {} }
        let back = try fresh.fetch(FetchDescriptor<Word>())
        #expect(back.map(\.text) == [evil])
        #expect(back.first?.category?.name == evil)
    }

    @Test("Column storage classes follow DESIGN §5 (UUID 16-byte BLOB, Date REAL, enum raw value, Codable JSON)")
    func storageClasses() throws {
        let dir = TemporaryDirectory("storage-classes")
        let container = try makeContainer(.disk, [Everything.self], in: dir)
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
        let row = try #require(try db.rows("SELECT uuid, date, priority, mood, bool, address, list, oInt FROM Everything").first)
        #expect(row[0] == .blob(Data([0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF])))
        #expect(row[1] == .real(12.5))
        #expect(row[2] == .integer(10))
        #expect(row[3] == .text("busy"))
        #expect(row[4] == .integer(1))
        let json = try #require(text(row[5]))
        let decoded = try JSONDecoder().decode(Address.self, from: Data(json.utf8))
        #expect(decoded == Address(street: "s", city: "c"))
        #expect(text(row[6]) == "[\"a\",\"b\"]")
        #expect(row[7] == .null)
    }

    // MARK: Inheritance queries

    private func insertTrips(_ ctx: ModelContext) {
        ctx.insert(Trip(name: "t1", days: 1))
        ctx.insert(BusinessTrip(name: "b1", days: 2, perdiem: 80))
        ctx.insert(BusinessTrip(name: "b2", days: 3, perdiem: 120))
        ctx.insert(PersonalTrip(name: "p1", days: 4, reason: "r1"))
        ctx.insert(PersonalTrip(name: "p2", days: 5, reason: "r2"))
        ctx.insert(PersonalTrip(name: "p3", days: 6, reason: "r3"))
    }

    @Test("INH-01: fetching the base returns every subclass instance with its dynamic type", arguments: StoreKind.allCases)
    func inh01(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("inh01")
        let container = try makeContainer(kind, Self.tripModels, in: dir)
        let ctx = ModelContext(container)
        insertTrips(ctx)
        try ctx.save()
        let reader = ModelContext(container)
        defer { withExtendedLifetime(reader) {} }
        let trips = try reader.fetch(FetchDescriptor<Trip>())
        #expect(trips.count == 6)
        #expect(trips.filter { $0 is BusinessTrip }.count == 2)
        #expect(trips.filter { $0 is PersonalTrip }.count == 3)
        #expect(trips.filter { type(of: $0) == Trip.self }.count == 1)
        let b2 = try #require(trips.first { $0.name == "b2" } as? BusinessTrip)
        #expect(b2.perdiem == 120)
        #expect(b2.days == 3)
        let p3 = try #require(trips.first { $0.name == "p3" } as? PersonalTrip)
        #expect(p3.reason == "r3")
    }

    @Test("INH-02/08: fetching a subclass returns its subtree only", arguments: StoreKind.allCases)
    func inh02and08(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("inh02")
        let container = try makeContainer(kind, Self.tripModels, in: dir)
        let ctx = ModelContext(container)
        insertTrips(ctx)
        ctx.insert(ExecutiveTrip(name: "e1", days: 7, perdiem: 500, lounge: "Gold"))
        try ctx.save()
        let fresh = ModelContext(container)
        defer { withExtendedLifetime(fresh) {} }
        let business = try fresh.fetch(FetchDescriptor<BusinessTrip>())
        #expect(Set(business.map(\.name)) == ["b1", "b2", "e1"])
        #expect((business.first { $0.name == "e1" } as? ExecutiveTrip)?.lounge == "Gold")
        let personal = try fresh.fetch(FetchDescriptor<PersonalTrip>())
        #expect(Set(personal.map(\.name)) == ["p1", "p2", "p3"])
        let executive = try fresh.fetch(FetchDescriptor<ExecutiveTrip>())
        #expect(executive.map(\.name) == ["e1"])
        let all = try fresh.fetch(FetchDescriptor<Trip>())
        #expect(all.count == 7)
        #expect(all.contains { $0 is ExecutiveTrip })
        // One instance per row: the executive trip fetched through Trip and BusinessTrip is the same object.
        #expect(all.first { $0.name == "e1" } === business.first { $0.name == "e1" })
    }

    @Test("INH-03: counts per level of the hierarchy", arguments: StoreKind.allCases)
    func inh03(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("inh03")
        let container = try makeContainer(kind, Self.tripModels, in: dir)
        let ctx = ModelContext(container)
        insertTrips(ctx)
        ctx.insert(ExecutiveTrip(name: "e1", days: 7, perdiem: 500, lounge: "Gold"))
        try ctx.save()
        let fresh = ModelContext(container)
        defer { withExtendedLifetime(fresh) {} }
        #expect(try fresh.fetchCount(FetchDescriptor<Trip>()) == 7)
        #expect(try fresh.fetchCount(FetchDescriptor<BusinessTrip>()) == 3)
        #expect(try fresh.fetchCount(FetchDescriptor<ExecutiveTrip>()) == 1)
        #expect(try fresh.fetchCount(FetchDescriptor<PersonalTrip>()) == 3)
    }

    @Test("INH-07: a to-many typed as the base holds mixed subclasses after refetch", arguments: StoreKind.allCases)
    func inh07(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("inh07")
        let container = try makeContainer(kind, Self.tripModels, in: dir)
        let ctx = ModelContext(container)
        let ann = Traveler(name: "Ann")
        ann.trips = [Trip(name: "t", days: 1), BusinessTrip(name: "b", days: 2, perdiem: 10),
                     ExecutiveTrip(name: "e", days: 3, perdiem: 20, lounge: "L"), PersonalTrip(name: "p", days: 4, reason: "r")]
        ctx.insert(ann)
        ctx.insert(Traveler(name: "Bob"))
        try ctx.save()

        let fresh = ModelContext(container)
        defer { withExtendedLifetime(fresh) {} }

        defer { withExtendedLifetime(fresh) {} }
        let travelers = try fresh.fetch(FetchDescriptor<Traveler>())
        let back = try #require(travelers.first { $0.name == "Ann" })
        let byName = Dictionary(uniqueKeysWithValues: back.trips.map { ($0.name, $0) })
        #expect(byName.count == 4)
        #expect(type(of: try #require(byName["t"])) == Trip.self)
        #expect(type(of: try #require(byName["b"])) == BusinessTrip.self)
        #expect((byName["e"] as? ExecutiveTrip)?.lounge == "L")
        #expect((byName["p"] as? PersonalTrip)?.reason == "r")
        #expect(back.trips.allSatisfy { $0.traveler === back })
        #expect(travelers.first { $0.name == "Bob" }?.trips.isEmpty == true)
    }

    // MARK: Relationships

    @Test("Many-to-many round-trips in both directions (REL-02)", arguments: StoreKind.allCases)
    func manyToMany(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("m2m")
        let container = try makeContainer(kind, [Product.self], in: dir)
        let ctx = ModelContext(container)
        let p1 = Product(name: "p1", price: 1), p2 = Product(name: "p2", price: 2)
        let red = Tag(label: "red"), blue = Tag(label: "blue")
        ctx.insert(p1)
        ctx.insert(p2)
        p1.tags = [red, blue]          // set from the product side
        blue.products.append(p2)       // set from the tag side
        #expect(red.products.map(\.name) == ["p1"], "inverse updated before save")
        #expect(p2.tags.map(\.label) == ["blue"], "inverse updated before save")
        try ctx.save()

        let fresh = ModelContext(container)
        defer { withExtendedLifetime(fresh) {} }

        defer { withExtendedLifetime(fresh) {} }
        let products = try fresh.fetch(FetchDescriptor<Product>())
        let tags = try fresh.fetch(FetchDescriptor<Tag>())
        #expect(tags.count == 2)
        #expect(Set(try #require(products.first { $0.name == "p1" }).tags.map(\.label)) == ["red", "blue"])
        #expect(try #require(products.first { $0.name == "p2" }).tags.map(\.label) == ["blue"])
        #expect(Set(try #require(tags.first { $0.label == "blue" }).products.map(\.name)) == ["p1", "p2"])
        #expect(try #require(tags.first { $0.label == "red" }).products.map(\.name) == ["p1"])

        // Remove a link from the tag side; the product side sees it after refetch.
        let blueAgain = try #require(tags.first { $0.label == "blue" })
        blueAgain.products.removeAll { $0.name == "p1" }
        try fresh.save()
        let third = ModelContext(container)
        defer { withExtendedLifetime(third) {} }
        let p1Back = try #require(try third.fetch(FetchDescriptor<Product>()).first { $0.name == "p1" })
        #expect(p1Back.tags.map(\.label) == ["red"])
        #expect(try third.fetchCount(FetchDescriptor<Tag>()) == 2, "unlinking deletes nothing (REL-03)")
    }

    @Test("Cascade: deleting a Category deletes its Words after save (DEL)", arguments: StoreKind.allCases)
    func cascadeDelete(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("cascade")
        let container = try makeContainer(kind, [Category.self], in: dir)
        let ctx = ModelContext(container)
        let animals = Category(name: "animals"), plants = Category(name: "plants")
        animals.words = [Word(text: "cat"), Word(text: "dog"), Word(text: "owl")]
        plants.words = [Word(text: "fern")]
        ctx.insert(animals)
        ctx.insert(plants)
        try ctx.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Word>()) == 4, "REL-01: the graph was inserted")

        let del = ModelContext(container)
        let target = try #require(try del.fetch(FetchDescriptor<Category>()).first { $0.name == "animals" })
        del.delete(target)
        try del.save()
        let fresh = ModelContext(container)
        defer { withExtendedLifetime(fresh) {} }
        #expect(try fresh.fetch(FetchDescriptor<Category>()).map(\.name) == ["plants"])
        let words = try fresh.fetch(FetchDescriptor<Word>())
        #expect(words.map(\.text) == ["fern"])
        #expect(words.first?.category?.name == "plants")
    }

    @Test("Nullify (the default): deleting one side clears the inverse (DEL)", arguments: StoreKind.allCases)
    func nullifyDelete(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("nullify")
        let container = try makeContainer(kind, [SchAuthor.self, Product.self], in: dir)
        let ctx = ModelContext(container)
        let author = SchAuthor(name: "Ann")
        author.books = [SchBook(title: "one"), SchBook(title: "two")]
        ctx.insert(author)
        let p = Product(name: "p", price: 1)
        p.tags = [Tag(label: "keep"), Tag(label: "drop")]
        ctx.insert(p)
        try ctx.save()

        let del = ModelContext(container)
        let a = try #require(try del.fetch(FetchDescriptor<SchAuthor>()).first)
        let books = a.books
        #expect(books.count == 2)
        del.delete(a)
        let drop = try #require(try del.fetch(FetchDescriptor<Tag>()).first { $0.label == "drop" })
        let product = try #require(try del.fetch(FetchDescriptor<Product>()).first)
        #expect(product.tags.count == 2)
        del.delete(drop)
        try del.save()
        #expect(books.allSatisfy { $0.author == nil }, "in-memory inverse cleared")
        #expect(product.tags.map(\.label) == ["keep"], "in-memory inverse cleared")

        let fresh = ModelContext(container)
        defer { withExtendedLifetime(fresh) {} }

        defer { withExtendedLifetime(fresh) {} }
        let freshBooks = try fresh.fetch(FetchDescriptor<SchBook>())
        #expect(freshBooks.count == 2, "nullify deletes nothing")
        #expect(freshBooks.allSatisfy { $0.author == nil })
        #expect(try fresh.fetchCount(FetchDescriptor<SchAuthor>()) == 0)
        #expect(try fresh.fetch(FetchDescriptor<Product>()).first?.tags.map(\.label) == ["keep"])
        #expect(try fresh.fetch(FetchDescriptor<Tag>()).map(\.label) == ["keep"])
    }

    @Test("Nullify on disk: the foreign-key column and join rows are cleared")
    func nullifyOnDiskColumns() throws {
        let dir = TemporaryDirectory("nullify-sql")
        let container = try makeContainer(.disk, [Category.self, Product.self], in: dir)
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
        #expect(try count(db, "Word") == 0)
        #expect(try count(db, "Category") == 1)
        let join = try tableNames(db).subtracting(["Category", "Word", "Product", "Tag", "Z_METADATA"])
        let joinName = try #require(join.first)
        #expect(try count(db, joinName) == 0)
        let reader = ModelContext(container)
        let category = try #require(try reader.fetch(FetchDescriptor<Category>()).first)
        #expect(category.modelContext === reader)
        #expect(category.name == "c")
        #expect(category.words.isEmpty)
    }
}

import Foundation
import OpenSwiftData
import Testing

/// Docs/Design.md's reliability rules on the disk store: data survives container re-creation, a failed save is atomic
/// and retryable, bad files get typed errors and are never modified, and two contexts on one
/// container never lose an update.
@Suite("Reliability")
struct ReliabilityTests {
    // MARK: Helpers

    /// Checkpoints the WAL into the main file and empties it, through a raw connection.
    private func checkpoint(_ url: URL) throws {
        let db = try SQLiteConnection(path: url.path, mode: .readWrite)
        let result = try db.rows("PRAGMA wal_checkpoint(TRUNCATE)")
        #expect(result.first?.first == .integer(0), "checkpoint not blocked: \(result)")
        db.close()
    }

    /// Writes a small store of Category/Word rows through a container that is released on return.
    private func writeStore(_ dir: ScratchDirectory, name: String = "store", words: Int = 3) throws {
        let container = try StoreKind.disk.makeContainer(for: [Category.self], in: dir, name: name)
        let ctx = ModelContext(container)
        let c = Category(name: "c")
        c.words = (0..<words).map { Word(text: "word \($0) " + String(repeating: "x", count: 200)) }
        ctx.insert(c)
        try ctx.save()
    }

    /// Opens `url` for `types`, expects a `SwiftDataError`, and checks the file was not touched.
    private func expectOpenFails(
        _ url: URL, _ types: [any PersistentModel.Type],
        codes: [SwiftDataError.Code], _ label: String
    ) throws {
        let before = try bytes(url)
        let error = #expect(throws: SwiftDataError.self, "\(label)") {
            _ = try ModelContainer(for: Schema(types), configurations: ModelConfiguration(url: url))
        }
        if let error {
            #expect(codes.contains(error.code), "\(label): got \(error.code): \(error.message)")
            #expect(!error.message.isEmpty)
        }
        let after = try bytes(url)
        #expect(after == before, "\(label): the file changed (\(before.count) → \(after.count) bytes)")
    }

    /// A deterministic byte sequence (xorshift), never starting with the SQLite magic.
    private func pseudoRandomBytes(_ count: Int, seed: UInt64) -> Data {
        var x = seed
        var out = Data(capacity: count)
        for _ in 0..<count {
            x ^= x << 13
            x ^= x >> 7
            x ^= x << 17
            out.append(UInt8(truncatingIfNeeded: x))
        }
        return out
    }

    // MARK: Persistence

    @Test("Data persists across container re-creation (CFG-02)")
    func persistsAcrossContainers() throws {
        let dir = try ScratchDirectory(prefix: "rel-persist")
        let models: [any PersistentModel.Type] = [Category.self, Product.self, Trip.self, BusinessTrip.self, User.self]
        let userID = UUID(uuidString: "7B0F9A2C-1111-4222-8333-944455556666")!
        do {
            let container = try StoreKind.disk.makeContainer(for: models, in: dir)
            let ctx = ModelContext(container)
            let c = Category(name: "animals")
            c.words = [Word(text: "cat"), Word(text: "dog")]
            ctx.insert(c)
            let p = Product(name: "p", price: 9.5)
            p.tags = [Tag(label: "t")]
            ctx.insert(p)
            ctx.insert(BusinessTrip(name: "b", days: 2, perdiem: 99))
            ctx.insert(User(id: userID, name: "Zoë", joined: Date(timeIntervalSinceReferenceDate: 1.25)))
            try ctx.save()
            // A second save, then an update and a delete, all must be durable.
            let dog = try #require(c.words.first { $0.text == "dog" })
            ctx.delete(dog)
            p.price = 10.5
            try ctx.save()
        }
        for round in 1...2 {
            let container = try StoreKind.disk.makeContainer(for: models, in: dir)
            let ctx = ModelContext(container)
            let cats = try ctx.fetch(FetchDescriptor<Category>())
            #expect(cats.map(\.name) == ["animals"], "round \(round)")
            #expect(cats.first?.words.map(\.text) == ["cat"])
            #expect(try ctx.fetch(FetchDescriptor<Product>()).first?.price == 10.5)
            #expect(try ctx.fetch(FetchDescriptor<Product>()).first?.tags.map(\.label) == ["t"])
            let trips = try ctx.fetch(FetchDescriptor<Trip>())
            #expect((trips.first as? BusinessTrip)?.perdiem == 99)
            let user = try #require(try ctx.fetch(FetchDescriptor<User>()).first)
            #expect(user.id == userID)
            #expect(user.name == "Zoë")
            #expect(user.joined == Date(timeIntervalSinceReferenceDate: 1.25))
        }
    }

    @Test(
        "A persistent identifier survives releasing the container and opening the file again (with the first container open: lifecycle suite, PID-01)"
    )
    func identifierSurvivesReopen() throws {
        let dir = try ScratchDirectory(prefix: "rel-pid")
        let id: PersistentIdentifier
        do {
            let container = try StoreKind.disk.makeContainer(for: [User.self], in: dir)
            let ctx = ModelContext(container)
            let u = User(id: UUID(), name: "a", joined: Date(timeIntervalSinceReferenceDate: 0))
            ctx.insert(u)
            try ctx.save()
            id = u.persistentModelID
        }
        let container = try StoreKind.disk.makeContainer(for: [User.self], in: dir)
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<User>()).first)
        #expect(fetched.persistentModelID == id)
    }

    // MARK: Atomic saves

    @Test("A save failing partway (NaN after valid inserts) leaves the file and rows unchanged; retry succeeds")
    func atomicSaveNaN() throws {
        let dir = try ScratchDirectory(prefix: "rel-atomic")
        let url = dir.file("store.store")
        let models: [any PersistentModel.Type] = [Category.self, Everything.self]
        let container = try StoreKind.disk.makeContainer(for: models, in: dir)
        let ctx = ModelContext(container)
        let base = Category(name: "base")
        base.words = [Word(text: "w0")]
        ctx.insert(base)
        let row = Everything()
        row.double = 1
        ctx.insert(row)
        try ctx.save()
        try checkpoint(url)
        let before = try bytes(url)

        // Valid inserts are written first, then the update with NaN fails.
        for i in 0..<5 {
            let c = Category(name: "new \(i)")
            c.words = [Word(text: "n\(i)a"), Word(text: "n\(i)b")]
            ctx.insert(c)
        }
        let extra = Everything()
        extra.int = 7
        ctx.insert(extra)
        row.double = .nan
        let w0 = try #require(base.words.first)
        ctx.delete(w0)
        ctx.processPendingChanges()  // run delete rules now, so the counts below are final
        let insertedBefore = ctx.insertedModelsArray.count
        let changedBefore = ctx.changedModelsArray.count
        let deletedBefore = ctx.deletedModelsArray.count
        #expect(insertedBefore == 16)

        let error = #expect(throws: SwiftDataError.self) { try ctx.save() }
        #expect(error?.code == SwiftDataError.invalidValue.code)
        #expect(try bytes(url) == before, "the main store file changed")
        #expect(ctx.hasChanges)
        #expect(ctx.insertedModelsArray.count == insertedBefore)
        #expect(ctx.changedModelsArray.count == changedBefore)
        #expect(ctx.deletedModelsArray.count == deletedBefore)
        #expect(row.double.isNaN)

        do {
            let other = try StoreKind.disk.makeContainer(for: models, in: dir)
            let check = ModelContext(other)
            #expect(try check.fetchCount(FetchDescriptor<Category>()) == 1)
            #expect(try check.fetchCount(FetchDescriptor<Word>()) == 1)
            #expect(try check.fetchCount(FetchDescriptor<Everything>()) == 1)
            #expect(try check.fetch(FetchDescriptor<Everything>()).first?.double == 1)
        }
        let raw = try SQLiteConnection(path: url.path, mode: .readOnly)
        #expect(try raw.scalar("SELECT count(*) FROM ZWORD") == .integer(1))

        row.double = 2
        try ctx.save()
        #expect(!ctx.hasChanges)
        let after = ModelContext(try StoreKind.disk.makeContainer(for: models, in: dir))
        #expect(try after.fetchCount(FetchDescriptor<Category>()) == 6)
        #expect(try after.fetchCount(FetchDescriptor<Word>()) == 10)
        #expect(try after.fetchCount(FetchDescriptor<Everything>()) == 2)
        #expect(try after.fetch(FetchDescriptor<Everything>()).first { $0.int == 0 }?.double == 2)
    }

    @Test(
        "A save colliding with rows written behind the context's back by raw SQL is atomic; retry succeeds (in-context collisions: uniqueness suite, UNQ-18)"
    )
    func atomicSaveUniqueCollision() throws {
        let dir = try ScratchDirectory(prefix: "rel-unique")
        let url = dir.file("store.store")
        let models: [any PersistentModel.Type] = [StCounter.self, SchNote.self]
        let container = try StoreKind.disk.makeContainer(for: models, in: dir)
        let ctx = ModelContext(container)
        ctx.insert(StCounter(key: "a", value: 1))
        try ctx.save()

        // Another writer adds two notes directly. A note with code "x" and (title, day) == ("t2", 2)
        // collides with one row on `code` and with the other on (title, day): no upsert can
        // resolve that, so the save must fail as a whole.
        do {
            let db = try SQLiteConnection(path: url.path, mode: .readWrite)
            try db.run(
                "INSERT INTO ZSCHNOTE (Z_PK, Z_ENT, Z_OPT, ZCODE, ZTITLE, ZDAY) VALUES (100, 1, 1, 'x', 't1', 1)")
            try db.run(
                "INSERT INTO ZSCHNOTE (Z_PK, Z_ENT, Z_OPT, ZCODE, ZTITLE, ZDAY) VALUES (101, 1, 1, 'y', 't2', 2)")
            db.close()
        }
        try checkpoint(url)
        let before = try bytes(url)

        ctx.insert(StCounter(key: "b", value: 2))
        ctx.insert(SchNote(code: "free", title: "free", day: 9))
        let clash = SchNote(code: "x", title: "t2", day: 2)
        ctx.insert(clash)
        let error = #expect(throws: SwiftDataError.self) { try ctx.save() }
        #expect(error?.code == SwiftDataError.uniqueConstraintViolation.code, "got \(String(describing: error))")
        #expect(try bytes(url) == before, "the main store file changed")
        #expect(ctx.hasChanges)
        #expect(ctx.insertedModelsArray.count == 3)
        do {
            let check = ModelContext(try StoreKind.disk.makeContainer(for: models, in: dir))
            #expect(try check.fetchCount(FetchDescriptor<StCounter>()) == 1)
            #expect(Set(try check.fetch(FetchDescriptor<SchNote>()).map(\.code)) == ["x", "y"])
        }
        clash.code = "z"
        clash.title = "t3"
        try ctx.save()
        #expect(!ctx.hasChanges)
        let check = ModelContext(try StoreKind.disk.makeContainer(for: models, in: dir))
        #expect(try check.fetchCount(FetchDescriptor<StCounter>()) == 2)
        #expect(Set(try check.fetch(FetchDescriptor<SchNote>()).map(\.code)) == ["x", "y", "free", "z"])
    }

    // MARK: Bad files

    @Test("A text file throws .notADatabase and is not modified")
    func textFile() throws {
        let dir = try ScratchDirectory(prefix: "rel-text")
        let url = dir.file("notes.store")
        try Data("This is a shopping list, not a database.\nmilk\neggs\n".utf8).write(to: url)
        try expectOpenFails(url, [Category.self], codes: [SwiftDataError.notADatabase.code], "text file")
    }

    @Test("Random bytes throw .notADatabase and are not modified")
    func randomBytes() throws {
        let dir = try ScratchDirectory(prefix: "rel-random")
        let url = dir.file("random.store")
        try pseudoRandomBytes(8192, seed: 0x9E37_79B9_7F4A_7C15).write(to: url)
        try expectOpenFails(url, [Category.self], codes: [SwiftDataError.notADatabase.code], "random bytes")
    }

    @Test("An SQLite header followed by garbage throws a typed error and is not modified")
    func headerThenGarbage() throws {
        let dir = try ScratchDirectory(prefix: "rel-garbage")
        let url = dir.file("garbage.store")
        var data = Data("SQLite format 3\u{0}".utf8)
        data.append(pseudoRandomBytes(4096 - 16, seed: 42))
        try data.write(to: url)
        try expectOpenFails(
            url, [Category.self],
            codes: [SwiftDataError.corruptStore.code, SwiftDataError.notADatabase.code], "garbage after header")
    }

    @Test("A truncated store throws .corruptStore and is not modified")
    func truncatedStore() throws {
        let dir = try ScratchDirectory(prefix: "rel-trunc")
        try writeStore(dir, words: 300)
        let original = dir.file("store.store")
        try checkpoint(original)
        let full = try bytes(original)
        #expect(full.count >= 8 * 4096, "the store is big enough to cut: \(full.count) bytes")
        let cut = dir.file("cut.store")
        try full.prefix(full.count / 2).write(to: cut)
        try expectOpenFails(cut, [Category.self], codes: [SwiftDataError.corruptStore.code], "half a store")

        let odd = dir.file("odd.store")
        try full.prefix(full.count / 2 + 100).write(to: odd)
        try expectOpenFails(
            odd, [Category.self], codes: [SwiftDataError.corruptStore.code], "half a store plus 100 bytes")

        // The original is intact and still opens.
        let container = try StoreKind.disk.makeContainer(for: [Category.self], in: dir)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Word>()) == 300)
    }

    @Test("A page of a store overwritten with garbage throws .corruptStore and is not modified")
    func corruptedPage() throws {
        let dir = try ScratchDirectory(prefix: "rel-corrupt")
        try writeStore(dir, words: 300)
        let original = dir.file("store.store")
        try checkpoint(original)
        var data = try bytes(original)
        #expect(data.count > 4 * 4096)
        // Page 2 onwards holds the schema's tables; smash the page after the first.
        let start = 4096
        let end = 2 * 4096
        data.replaceSubrange(start..<end, with: pseudoRandomBytes(end - start, seed: 7))
        let bad = dir.file("bad.store")
        try data.write(to: bad)
        try expectOpenFails(bad, [Category.self], codes: [SwiftDataError.corruptStore.code], "smashed page")
    }

    @Test("A valid SQLite database not written by this library throws and is not modified")
    func foreignDatabase() throws {
        let dir = try ScratchDirectory(prefix: "rel-foreign")
        let url = dir.file("foreign.sqlite")
        do {
            let db = try SQLiteConnection(path: url.path, mode: .readWriteCreate)
            try db.execute(
                "CREATE TABLE Category (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO Category (name) VALUES ('mine')"
            )
            db.close()
        }
        try expectOpenFails(
            url, [Category.self],
            codes: [SwiftDataError.incompatibleSchema.code, SwiftDataError.notADatabase.code], "foreign database")
        let db = try SQLiteConnection(path: url.path, mode: .readOnly)
        #expect(try db.scalar("SELECT name FROM Category") == .text("mine"))
        #expect(try db.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table'") == .integer(1))
    }

    @Test(
        "A store written with a different schema is not modified by the refused open, byte for byte (the error: migrations suite, CFG-05)"
    )
    func differentSchema() throws {
        let dir = try ScratchDirectory(prefix: "rel-schema")
        let url = dir.file("store.store")
        do {
            let container = try StoreKind.disk.makeContainer(for: [User.self], in: dir)
            let ctx = ModelContext(container)
            ctx.insert(User(id: UUID(), name: "keep me", joined: Date(timeIntervalSinceReferenceDate: 0)))
            try ctx.save()
        }
        try checkpoint(url)
        try expectOpenFails(url, [Category.self], codes: [SwiftDataError.incompatibleSchema.code], "other models")
        // A store of other models sharing an entity is migrated by inference (MIG-20…33), not refused.
        try expectOpenFails(url, [Everything.self], codes: [SwiftDataError.incompatibleSchema.code], "unrelated model")
        // The original schema still opens, with its data.
        let container = try StoreKind.disk.makeContainer(for: [User.self], in: dir)
        #expect(try ModelContext(container).fetch(FetchDescriptor<User>()).map(\.name) == ["keep me"])
    }

    // MARK: Concurrency of contexts

    @Test("Two contexts on one disk container saving alternately lose no update")
    func twoContextsAlternate() throws {
        let dir = try ScratchDirectory(prefix: "rel-two")
        let container = try StoreKind.disk.makeContainer(for: [StCounter.self], in: dir)
        let a = ModelContext(container)
        let b = ModelContext(container)
        for i in 0..<10 {
            let ctx = i.isMultiple(of: 2) ? a : b
            ctx.insert(StCounter(key: "k\(i)", value: i))
            try ctx.save()
        }
        // Both contexts see every row.
        #expect(try a.fetchCount(FetchDescriptor<StCounter>()) == 10)
        #expect(try b.fetchCount(FetchDescriptor<StCounter>()) == 10)

        // Each context edits a different attribute of the same row; both edits survive.
        let rowA = try #require(try a.fetch(FetchDescriptor<StCounter>()).first { $0.key == "k0" })
        let rowB = try #require(try b.fetch(FetchDescriptor<StCounter>()).first { $0.key == "k0" })
        #expect(rowA !== rowB)
        rowA.value = 100
        rowB.note = "from b"
        try a.save()
        try b.save()
        // Alternating edits of different rows.
        for i in 1..<10 {
            let ctx = i.isMultiple(of: 2) ? a : b
            let row = try #require(try ctx.fetch(FetchDescriptor<StCounter>()).first { $0.key == "k\(i)" })
            row.value += 1000
            try ctx.save()
        }
        let fresh = ModelContext(try StoreKind.disk.makeContainer(for: [StCounter.self], in: dir))
        let rows = try fresh.fetch(FetchDescriptor<StCounter>())
        #expect(rows.count == 10)
        let k0 = try #require(rows.first { $0.key == "k0" })
        #expect(k0.value == 100, "context A's update survived")
        #expect(k0.note == "from b", "context B's update survived")
        for i in 1..<10 {
            #expect(rows.first { $0.key == "k\(i)" }?.value == i + 1000)
        }
    }

    @Test("Two containers on one file: writes from each are visible to the other; no busy error")
    func twoContainersOneFile() throws {
        let dir = try ScratchDirectory(prefix: "rel-two-containers")
        let one = try StoreKind.disk.makeContainer(for: [StCounter.self], in: dir)
        let two = try StoreKind.disk.makeContainer(for: [StCounter.self], in: dir)
        let a = ModelContext(one)
        let b = ModelContext(two)
        for i in 0..<6 {
            let ctx = i.isMultiple(of: 2) ? a : b
            ctx.insert(StCounter(key: "k\(i)", value: i))
            try ctx.save()
            #expect(try (i.isMultiple(of: 2) ? b : a).fetchCount(FetchDescriptor<StCounter>()) == i + 1)
        }
    }
}

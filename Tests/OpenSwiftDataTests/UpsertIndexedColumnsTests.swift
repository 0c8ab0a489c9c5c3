import Foundation
import Testing

@testable import OpenSwiftData

@Model final class UiSite {
    var name: String
    init(name: String) { self.name = name }
}

@Model final class UiReading {
    #Index<UiReading>([\.level], [\.label], [\.note], [\.taken])
    @Attribute(.unique) var sensor: String
    var level: Double
    var label: String
    var note: String?
    var taken: Date
    var count: Int
    var site: UiSite?
    init(sensor: String, _ v: UiValues, site: UiSite? = nil) {
        self.sensor = sensor
        self.level = v.level
        self.label = v.label
        self.note = v.note
        self.taken = v.taken
        self.count = v.count
        self.site = site
    }
}

@Model final class UiSlot {
    #Unique<UiSlot>([\.room, \.day])
    #Index<UiSlot>([\.title])
    var room: String
    var day: Int
    var title: String
    var seats: Int
    init(room: String, day: Int, title: String, seats: Int) {
        self.room = room
        self.day = day
        self.title = title
        self.seats = seats
    }
}

@Model final class UiFolder {
    @Attribute(.unique) var name: String
    @Relationship(deleteRule: .nullify, inverse: \UiDoc.folder) var docs: [UiDoc] = []
    init(name: String) { self.name = name }
}

@Model final class UiDoc {
    @Attribute(.unique) var title: String
    var size: Int
    var folder: UiFolder?
    init(title: String, size: Int) {
        self.title = title
        self.size = size
    }
}

/// One reading's values (the unique `sensor` apart).
struct UiValues: Sendable, CustomStringConvertible {
    var level: Double
    var label: String
    var note: String?
    var taken: Date
    var count: Int
    var description: String {
        "\(level) (\(level.bitPattern)) \(Array(label.unicodeScalars)) \(String(describing: note)) \(taken) \(count)"
    }
}

/// An upsert's `UPDATE` leaves out the indexed columns whose stored value is already the one it
/// would write (`IndexedColumns`, `StoredColumn`): the row must read back exactly as if every
/// column had been written, and as a fresh insert of the same values reads back.
@Suite("Upserts and indexed columns")
struct UpsertIndexedColumnsTests {
    /// Not a whole second: a `TIMESTAMP` column has numeric affinity, so SQLite stores a whole
    /// number of seconds as an integer, which never counts as the real the save would bind (the
    /// column is then written, as it always may be).
    static let day = Date(timeIntervalSinceReferenceDate: 86_400.5)
    static let base = UiValues(level: 1.5, label: "Café", note: "n", taken: day, count: 3)

    /// Stored values, then the values an upsert brings: each pair differs (or not) in a way
    /// the comparison must get right.
    static let pairs: [(String, UiValues, UiValues)] = [
        ("nothing changes", base, base),
        (
            "only the unindexed count changes", base,
            UiValues(level: 1.5, label: "Café", note: "n", taken: day, count: 4)
        ),
        ("an indexed double changes", base, UiValues(level: 2.5, label: "Café", note: "n", taken: day, count: 3)),
        (
            "0.0 then -0.0", UiValues(level: 0.0, label: "a", note: nil, taken: day, count: 0),
            UiValues(level: -0.0, label: "a", note: nil, taken: day, count: 0)
        ),
        (
            "-0.0 then 0.0", UiValues(level: -0.0, label: "a", note: nil, taken: day, count: 0),
            UiValues(level: 0.0, label: "a", note: nil, taken: day, count: 0)
        ),
        (
            "a composed and a decomposed é", base,
            UiValues(level: 1.5, label: "Cafe\u{301}", note: "n", taken: day, count: 3)
        ),
        ("text that differs only in case", base, UiValues(level: 1.5, label: "café", note: "n", taken: day, count: 3)),
        ("a note becomes nil", base, UiValues(level: 1.5, label: "Café", note: nil, taken: day, count: 3)),
        (
            "nil becomes an empty note", UiValues(level: 1.5, label: "Café", note: nil, taken: day, count: 3),
            UiValues(level: 1.5, label: "Café", note: "", taken: day, count: 3)
        ),
        (
            "a date a microsecond later", base,
            UiValues(level: 1.5, label: "Café", note: "n", taken: day.addingTimeInterval(1e-6), count: 3)
        ),
        (
            "an integral double, a whole second",
            UiValues(level: 2, label: "", note: "", taken: Date(timeIntervalSinceReferenceDate: 60), count: 0),
            UiValues(level: 2, label: "", note: "", taken: Date(timeIntervalSinceReferenceDate: 60), count: 0)
        ),
    ]

    /// A reading's values as stored, to compare bit for bit (text by its scalars).
    private static func snapshot(_ r: UiReading) -> String {
        "\(r.level.bitPattern) \(Array(r.label.unicodeScalars)) \(r.note.map { Array($0.unicodeScalars) } as Any) \(r.taken.timeIntervalSinceReferenceDate.bitPattern) \(r.count) \(r.site?.name ?? "nil")"
    }

    @Test(
        "An upsert's row reads back as a fresh insert of its values, whichever indexed columns it leaves out (UNQ-10)",
        arguments: StoreKind.allCases, pairs.indices)
    func upsertReadsBackAsAnInsert(_ kind: StoreKind, _ pair: Int) throws {
        let (name, stored, new) = Self.pairs[pair]
        let dir = try ScratchDirectory(prefix: "upsert-indexed")
        let container = try kind.makeContainer(for: [UiReading.self, UiSite.self], in: dir, name: "store")
        let seed = ModelContext(container)
        let site = UiSite(name: "north")
        seed.insert(UiReading(sensor: "s1", stored, site: site))
        try seed.save()
        let before = try #require(try ModelContext(container).fetch(FetchDescriptor<UiReading>()).first)
        let id = before.persistentModelID

        let upsert = ModelContext(container)
        upsert.insert(UiReading(sensor: "s1", new))
        upsert.insert(UiReading(sensor: "fresh", new))
        try upsert.save()

        let rows = try ModelContext(container).fetch(FetchDescriptor<UiReading>(sortBy: [SortDescriptor(\.sensor)]))
        #expect(rows.map(\.sensor) == ["fresh", "s1"], "\(name)")
        let (fresh, upserted) = (rows[0], rows[1])
        // The stored row was updated in place: same key, the new model's values (its nil site too).
        #expect(upserted.persistentModelID == id, "\(name)")
        #expect(Self.snapshot(upserted) == Self.snapshot(fresh), "\(name): \(stored) then \(new)")
        #expect(upserted.site == nil, "\(name)")
    }

    @Test(
        "An upsert's UPDATE leaves out indexed columns it would not change, and makes a new version (UNQ-10, HIS-08)",
        arguments: StoreKind.allCases)
    func updateLeavesOutUnchangedIndexedColumns(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "upsert-indexed")
        let container = try kind.makeContainer(for: [UiReading.self, UiSite.self], in: dir, name: "store")
        let seed = ModelContext(container)
        for i in 0..<3 { seed.insert(UiReading(sensor: "s\(i)", Self.base)) }
        try seed.save()
        let statements = Statements()
        var changed = Self.base
        changed.count = 9
        try statements.record(container) {
            let context = ModelContext(container)
            context.insert(UiReading(sensor: "s0", changed))  // indexed columns unchanged
            var level = changed
            level.level = 7
            context.insert(UiReading(sensor: "s1", level))  // one indexed column changed
            try context.save()
        }
        let updates = statements.sql.filter { $0.hasPrefix("UPDATE \"ZUIREADING\"") }
        #expect(updates.count == 2, "\(statements.sql)")
        // The first leaves out every indexed column (and the unique one it matched on)…
        #expect(updates.first?.contains("\"ZCOUNT\" = ?") == true)
        for column in ["ZLEVEL", "ZLABEL", "ZNOTE", "ZTAKEN", "ZSITE", "ZSENSOR"] {
            #expect(updates.first?.contains("\"\(column)\"") == false, "\(column): \(updates)")
        }
        // …the second writes the indexed column that changed, and only that one.
        #expect(updates.last?.contains("\"ZLEVEL\" = ?") == true, "\(updates)")
        #expect(updates.last?.contains("\"ZLABEL\"") == false, "\(updates)")

        let rows = try ModelContext(container).fetch(FetchDescriptor<UiReading>(sortBy: [SortDescriptor(\.sensor)]))
        #expect(rows.map(\.count) == [9, 9, 3])
        #expect(rows.map(\.level) == [1.5, 7, 1.5])
        // Each upserted row is at version 2, the untouched one at 1; the history records two updates.
        let versions = try container.stack.store.connection.rows(
            "SELECT ZSENSOR, Z_OPT FROM ZUIREADING ORDER BY ZSENSOR")
        #expect(versions == [[.text("s0"), .integer(2)], [.text("s1"), .integer(2)], [.text("s2"), .integer(1)]])
        let history = try ModelContext(container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let last = try #require(history.last)
        #expect(last.changes.count == 2)
        #expect(last.changes.allSatisfy { if case .update = $0 { true } else { false } })
    }

    @Test("A compound unique group's lookup reads the indexed columns too (UNQ-16)", arguments: StoreKind.allCases)
    func compoundGroup(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "upsert-indexed")
        let container = try kind.makeContainer(for: [UiSlot.self], in: dir, name: "store")
        let seed = ModelContext(container)
        seed.insert(UiSlot(room: "A", day: 1, title: "Launch", seats: 10))
        seed.insert(UiSlot(room: "A", day: 2, title: "Launch", seats: 10))
        try seed.save()
        let statements = Statements()
        try statements.record(container) {
            let context = ModelContext(container)
            context.insert(UiSlot(room: "A", day: 1, title: "Launch", seats: 20))
            context.insert(UiSlot(room: "A", day: 2, title: "Review", seats: 30))
            try context.save()
        }
        let updates = statements.sql.filter { $0.hasPrefix("UPDATE \"ZUISLOT\"") }
        #expect(updates.count == 2, "\(statements.sql)")
        #expect(updates.first?.contains("\"ZTITLE\"") == false, "\(updates)")
        #expect(updates.last?.contains("\"ZTITLE\" = ?") == true, "\(updates)")
        let slots = try ModelContext(container).fetch(FetchDescriptor<UiSlot>(sortBy: [SortDescriptor(\.day)]))
        #expect(slots.map(\.title) == ["Launch", "Review"])
        #expect(slots.map(\.seats) == [20, 30])
    }

    @Test("A new model that collapses into a later one leaves the later one's values in the row (UNQ-10)")
    func collapsedIntoLater() throws {
        let dir = try ScratchDirectory(prefix: "upsert-indexed")
        let container = try StoreKind.disk.makeContainer(for: [UiReading.self, UiSite.self], in: dir, name: "store")
        let seed = ModelContext(container)
        seed.insert(UiReading(sensor: "s", Self.base))
        try seed.save()
        let context = ModelContext(container)
        var earlier = Self.base
        earlier.level = 9
        context.insert(UiReading(sensor: "s", earlier))
        context.insert(UiReading(sensor: "s", Self.base))  // the stored values again: wins
        try context.save()
        let rows = try ModelContext(container).fetch(FetchDescriptor<UiReading>())
        #expect(rows.map(\.level) == [1.5])
    }

    @Test(
        "An upserted owner lets go of its stored list, and an upserted member keeps the owner its new model names, in either insertion order (UNQ-14, UNQ-10)",
        arguments: StoreKind.allCases, [true, false])
    func upsertedOwnerAndMember(_ kind: StoreKind, _ ownerFirst: Bool) throws {
        let dir = try ScratchDirectory(prefix: "upsert-indexed")
        let container = try kind.makeContainer(for: [UiFolder.self, UiDoc.self], in: dir, name: "store")
        let seed = ModelContext(container)
        let stored = UiFolder(name: "f")
        seed.insert(stored)
        stored.docs = [UiDoc(title: "d1", size: 1), UiDoc(title: "d2", size: 2)]
        try seed.save()

        let context = ModelContext(container)
        let doc = UiDoc(title: "d1", size: 5)
        let folder = UiFolder(name: "f")
        if ownerFirst {
            context.insert(folder)
            context.insert(doc)
        } else {
            context.insert(doc)
            context.insert(folder)
        }
        doc.folder = folder
        try context.save()

        let check = ModelContext(container)
        let folders = try check.fetch(FetchDescriptor<UiFolder>())
        #expect(folders.map(\.name) == ["f"])
        #expect(folders.first?.docs.map(\.title) == ["d1"], "ownerFirst \(ownerFirst)")
        let docs = try check.fetch(FetchDescriptor<UiDoc>(sortBy: [SortDescriptor(\.title)]))
        #expect(docs.map(\.title) == ["d1", "d2"])
        #expect(docs.map(\.size) == [5, 2])
        #expect(docs.map { $0.folder?.name } == ["f", nil], "ownerFirst \(ownerFirst)")
    }

    @Test(
        "A changed row keeps its update when an upsert takes over a row of another table with the same key (UNQ-10, HIS-08)",
        arguments: StoreKind.allCases)
    func sameKeyInAnotherTable(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "upsert-indexed")
        let container = try kind.makeContainer(for: [UiFolder.self, UiDoc.self], in: dir, name: "store")
        let seed = ModelContext(container)
        seed.insert(UiFolder(name: "f"))
        seed.insert(UiDoc(title: "d", size: 1))
        try seed.save()
        let context = ModelContext(container)
        let doc = try #require(try context.fetch(FetchDescriptor<UiDoc>()).first)
        let folder = try #require(try context.fetch(FetchDescriptor<UiFolder>()).first)
        // Both tables' first rows have key 1.
        #expect(
            try container.stack.store.connection.rows("SELECT Z_PK FROM ZUIDOC UNION ALL SELECT Z_PK FROM ZUIFOLDER")
                == [[.integer(1)], [.integer(1)]])
        doc.size = 9
        context.insert(UiFolder(name: "f"))  // takes over the stored folder, key 1
        try context.save()
        #expect(folder.name == "f")
        let check = ModelContext(container)
        #expect(try check.fetch(FetchDescriptor<UiDoc>()).map(\.size) == [9])
        let last = try #require(try check.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last)
        #expect(last.changes.count == 2, "the folder's upsert and the document's update")
    }

    @Test("An index made after the store opened is found at the next save, by its schema version")
    func indexMadeLater() throws {
        let dir = try ScratchDirectory(prefix: "upsert-indexed")
        let container = try StoreKind.disk.makeContainer(for: [UiReading.self, UiSite.self], in: dir, name: "store")
        let seed = ModelContext(container)
        seed.insert(UiReading(sensor: "s", Self.base))
        try seed.save()
        // Another connection indexes `count`: the container's cached columns are now stale.
        let other = try SQLiteConnection(path: dir.url.appendingPathComponent("store.store").path, mode: .readWrite)
        try other.execute("CREATE INDEX later_count ON ZUIREADING (ZCOUNT)")
        other.close()
        let statements = Statements()
        try statements.record(container) {
            let context = ModelContext(container)
            var same = Self.base
            same.label = "other"
            context.insert(UiReading(sensor: "s", same))
            try context.save()
        }
        let update = try #require(statements.sql.first { $0.hasPrefix("UPDATE \"ZUIREADING\"") })
        #expect(!update.contains("\"ZCOUNT\""), "\(update)")
        #expect(update.contains("\"ZLABEL\" = ?"), "\(update)")
        let rows = try ModelContext(container).fetch(FetchDescriptor<UiReading>())
        #expect(rows.map(\.label) == ["other"])
        #expect(rows.map(\.count) == [3])
    }
}

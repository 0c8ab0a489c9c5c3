import Foundation
import Testing

@testable import OpenSwiftData

@Model final class HiNote {
    @Attribute(.unique) var key: String
    @Attribute(.preserveValueOnDeletion) var title: String
    var body: String
    var pages: Int
    init(key: String, title: String, body: String = "", pages: Int = 1) {
        self.key = key
        self.title = title
        self.body = body
        self.pages = pages
    }
}

@Model final class HiBinder {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \HiSheet.binder) var sheets: [HiSheet] = []
    init(name: String) { self.name = name }
}

@Model final class HiShelf {
    var name: String
    @Relationship(deleteRule: .nullify, inverse: \HiBook.shelf) var books: [HiBook] = []
    init(name: String) { self.name = name }
}

@Model final class HiBook {
    var title: String
    var shelf: HiShelf?
    init(title: String) { self.title = title }
}

@Model final class HiSheet {
    @Attribute(.preserveValueOnDeletion) var label: String
    var binder: HiBinder?
    init(label: String) { self.label = label }
}

@Model class HiShape {
    @Attribute(.preserveValueOnDeletion) var name: String
    var size: Int
    init(name: String, size: Int) {
        self.name = name
        self.size = size
    }
}

@Model final class HiCircle: HiShape {
    var radius: Double
    init(name: String, size: Int, radius: Double) {
        self.radius = radius
        super.init(name: name, size: size)
    }
}

/// Persistent history (Docs/BehaviourReference.md, HIS-*): one transaction per save with changes, in
/// Apple's history tables, read back through `fetchHistory`, on both stores.
@Suite("History")
struct HistoryTests {
    private static let all = HistoryDescriptor<DefaultHistoryTransaction>()

    private func container(
        _ kind: StoreKind, _ dir: ScratchDirectory, _ types: [any PersistentModel.Type] = [HiNote.self]
    ) throws -> ModelContainer {
        try kind.makeContainer(for: types, in: dir)
    }

    @Test(
        "history lives in Apple's tables: one ATRANSACTION row per save, ACHANGE rows with the ZCOLUMNS bitmap, strings once"
    )
    func layout() throws {
        let dir = try ScratchDirectory(prefix: "history-layout")
        let container = try container(.disk, dir)
        let context = ModelContext(container)
        context.author = "importer"
        let note = HiNote(key: "a", title: "t")
        context.insert(note)
        try context.save()
        note.pages = 3
        note.title = "u"
        try context.save()
        let rows = try container.withStoreConnection { db in
            (
                try db.rows(
                    "SELECT Z_ENT, Z_OPT, ZAUTHORTS IS NOT NULL, ZBUNDLEIDTS IS NOT NULL, ZPROCESSIDTS IS NOT NULL FROM ATRANSACTION ORDER BY Z_PK"
                ),
                try db.rows(
                    "SELECT Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, hex(ZCOLUMNS) FROM ACHANGE ORDER BY Z_PK"
                ),
                try db.rows("SELECT ZNAME FROM ATRANSACTIONSTRING ORDER BY Z_PK"),
                try db.rows("SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT")
            )
        }
        #expect(
            rows.0 == [
                [.integer(16002), .null, .integer(1), .integer(1), .integer(1)],
                [.integer(16002), .null, .integer(1), .integer(1), .integer(1)],
            ])
        // HiNote's recorded properties by name: body, key, pages, title → pages and title are bits 2 and 3: 0x30.
        #expect(
            rows.1 == [
                [.integer(16001), .integer(0), .integer(1), .integer(1), .integer(1), .text("")],
                [.integer(16001), .integer(1), .integer(1), .integer(1), .integer(2), .text("30")],
            ])
        // The author, then the bundle identifier and the process name (one string when equal, as on Linux).
        let strings = Set([
            ProcessInfo.processInfo.processName, Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName,
        ])
        #expect(rows.2.first == [.text("importer")] && rows.2.count == 1 + strings.count)
        #expect(
            rows.3 == [
                [.integer(16001), .integer(2)], [.integer(16002), .integer(2)],
                [.integer(16003), .integer(Int64(1 + strings.count))],
            ])
    }

    @Test(
        "HIS-05: an author named as the process is one string; each save's transaction and change keys follow Z_MAX",
        arguments: StoreKind.allCases)
    func authorNamedAsProcess(kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "history-author-process")
        let container = try container(kind, dir)
        let process = ProcessInfo.processInfo.processName
        let context = ModelContext(container)
        context.author = process
        let note = HiNote(key: "a", title: "t")
        context.insert(note)
        try context.save()
        note.title = "u"
        try context.save()
        context.author = "second"
        context.insert(HiNote(key: "b", title: "t"))
        note.pages = 2
        try context.save()
        let rows = try container.withStoreConnection { db in
            (
                try db.rows("SELECT ZNAME FROM ATRANSACTIONSTRING ORDER BY Z_PK"),
                try db.rows("SELECT Z_PK, ZAUTHORTS FROM ATRANSACTION ORDER BY Z_PK"),
                try db.rows("SELECT Z_PK, ZCHANGETYPE, ZTRANSACTIONID FROM ACHANGE ORDER BY Z_PK"),
                try db.rows("SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT")
            )
        }
        let bundle = Bundle.main.bundleIdentifier ?? process
        let names = [process] + (bundle == process ? [] : [bundle]) + ["second"]
        #expect(rows.0 == names.map { [.text($0)] }, "each name once, the author's first")
        #expect(
            rows.1 == [
                [.integer(1), .integer(1)], [.integer(2), .integer(1)], [.integer(3), .integer(Int64(names.count))],
            ])
        // The third save's insert and update: the inserted range's key first, then the update's.
        #expect(
            rows.2 == [
                [.integer(1), .integer(0), .integer(1)], [.integer(2), .integer(1), .integer(2)],
                [.integer(3), .integer(0), .integer(3)], [.integer(4), .integer(1), .integer(3)],
            ])
        #expect(
            rows.3 == [
                [.integer(16001), .integer(4)], [.integer(16002), .integer(3)],
                [.integer(16003), .integer(Int64(names.count))],
            ])
        let history = try ModelContext(container).fetchHistory(Self.all)
        #expect(history.map(\.author) == [process, process, "second"])
    }

    @Test("history an Apple app wrote (swiftdata-resources' rows) reads as the same transactions and changes")
    func appleHistory() throws {
        let vector = try StoreVector.named("swiftdata-resources")
        let dir = try ScratchDirectory(prefix: "history-apple")
        let url = dir.file("default.store")
        do {
            let db = try SQLiteConnection(path: url.path)
            try db.immediateTransaction {
                for statement in vector.ddl { try db.execute(statement) }
                for row in vector.z_primarykey {
                    try db.run(
                        "INSERT INTO Z_PRIMARYKEY VALUES (?, ?, ?, ?)",
                        [
                            .integer(Int64(row.entity)), .text(row.name), .integer(Int64(row.superEntity)),
                            .integer(Int64(row.max)),
                        ])
                }
                var metadata = StoreMetadata(model: vector.storeModel, uuid: UUID())
                metadata.versionHashes = vector.entityHashes
                try db.run(
                    "INSERT INTO Z_METADATA VALUES (1, ?, ?)",
                    [.text(metadata.uuid), .blob(metadata.encodedPropertyList())])
                for (header, rows) in vector.historyRows where header.hasPrefix("A") {
                    let columns = header.replacingOccurrences(of: "hex(ZCOLUMNS)", with: "ZCOLUMNS")
                        .replacingOccurrences(of: "hex(ZQUERYGEN)", with: "ZQUERYGEN")
                    for row in rows {
                        let values = row.map { value -> SQLValue in
                            switch value {
                            case .int(let i): .integer(Int64(i))
                            case .double(let d): .real(d)
                            case .string(let s):
                                s.isEmpty ? .null : (columns.hasPrefix("ACHANGE") ? .blob(Data(hex: s)) : .text(s))
                            case .null: .null
                            }
                        }
                        try db.run(
                            "INSERT INTO \(columns) VALUES (\(Array(repeating: "?", count: values.count).joined(separator: ", ")))",
                            values)
                    }
                }
            }
            db.close()
        }
        let container = try ModelContainer(
            for: ResourcesVectorModels.schema, configurations: ModelConfiguration(url: url))
        let history = try ModelContext(container).fetchHistory(Self.all)
        #expect(history.count == 13)
        #expect(
            history.allSatisfy {
                $0.bundleIdentifier == "com.sdsoftware.ResourcesManager" && $0.processIdentifier == "ResourcesManager"
                    && $0.author == nil
            })
        #expect(history.flatMap(\.changes).count == 19)
        // Change 4: Item 1's craftingRecipe set through the inverse (ZCOLUMNS 80).
        let change4 = try #require(history.flatMap(\.changes).first { $0.changeIdentifier == 4 })
        guard case .update(let u4 as DefaultHistoryUpdate<ResourcesVectorModels.Item>) = change4 else {
            Issue.record("\(change4)")
            return
        }
        #expect(u4.updatedAttributes == [\ResourcesVectorModels.Item.craftingRecipe])
        // Changes 6 and 11: CraftingRecipe 1's requiredComponents (20) and producedItemCount (40).
        let changes = history.flatMap(\.changes)
        let recipeUpdates = changes.compactMap { change -> [PartialKeyPath<ResourcesVectorModels.CraftingRecipe>]? in
            if case .update(let u as DefaultHistoryUpdate<ResourcesVectorModels.CraftingRecipe>) = change {
                return u.updatedAttributes
            }
            return nil
        }
        #expect(recipeUpdates.contains([\ResourcesVectorModels.CraftingRecipe.requiredComponents]))
        #expect(recipeUpdates.contains([\ResourcesVectorModels.CraftingRecipe.producedItemCount]))
        #expect(changes.filter { if case .delete = $0 { true } else { false } }.count == 2)
    }

    // MARK: Review cases: what a demanding user would try

    private func shapes(_ t: DefaultHistoryTransaction?) -> [String] {
        (t?.changes ?? []).map { change in
            let kind =
                switch change {
                case .insert: "insert"
                case .update: "update"
                case .delete: "delete"
                }
            return "\(kind) \(change.changedPersistentIdentifier.entityName)"
        }.sorted()
    }

    @Test(
        "Saves that end with nothing to write record no transaction: inserted and deleted in one save, rolled back (beyond the history suite's HIS-11 case)",
        arguments: StoreKind.allCases)
    func his11InsertDeleteRollback(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "his11-insdel")
        let context = ModelContext(try container(kind, dir))
        let kept = HiNote(key: "k", title: "kept")
        context.insert(kept)
        try context.save()
        let gone = HiNote(key: "g", title: "gone")
        context.insert(gone)
        context.delete(gone)
        try context.save()
        kept.pages = 9
        context.rollback()
        try context.save()
        #expect(try context.fetchHistory(Self.all).count == 1)
        let other = HiNote(key: "o", title: "other")
        context.insert(other)
        let doomed = HiNote(key: "d", title: "doomed")
        context.insert(doomed)
        context.delete(doomed)
        try context.save()
        let last = try context.fetchHistory(Self.all)
        #expect(last.count == 2)
        #expect(last.last?.changes.map(\.changedPersistentIdentifier) == [other.persistentModelID])
    }

    @Test(
        "One save inserting entities interleaved (a subclass sharing its parent's table, a collapse and an upsert among them) numbers each table's rows in insertion order and records one insert per new row (HIS-02, HIS-08, UNQ-10)",
        arguments: StoreKind.allCases)
    func his02Interleaved(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "his02-interleaved")
        let container = try container(
            kind, dir, [HiNote.self, HiBinder.self, HiSheet.self, HiShape.self, HiCircle.self])
        let context = ModelContext(container)
        let stored = HiNote(key: "stored", title: "old")
        context.insert(stored)
        try context.save()
        // A save's bookkeeping remembers the table of the previous model; these alternate.
        let models: [any PersistentModel] = [
            HiNote(key: "a", title: "first a"), HiSheet(label: "sheet 1"), HiShape(name: "s1", size: 1),
            HiCircle(name: "c1", size: 2, radius: 1), HiNote(key: "b", title: "b"), HiSheet(label: "sheet 2"),
            HiCircle(name: "c2", size: 3, radius: 2), HiShape(name: "s2", size: 4),
            HiNote(key: "a", title: "second a"),  // collapses the first "a" (UNQ-10: the later one wins)
            HiNote(key: "stored", title: "new"),  // upserts into the stored row (HIS-08: an update)
        ]
        for m in models { context.insert(m) }
        try context.save()

        let rows = try container.withStoreConnection { db in
            (
                try db.rows("SELECT ZKEY, ZTITLE FROM ZHINOTE ORDER BY Z_PK"),
                try db.rows("SELECT ZLABEL FROM ZHISHEET ORDER BY Z_PK"),
                try db.rows("SELECT ZNAME FROM ZHISHAPE ORDER BY Z_PK")
            )
        }
        #expect(
            rows.0 == [
                [.text("stored"), .text("new")], [.text("b"), .text("b")], [.text("a"), .text("second a")],
            ])
        #expect(rows.1 == [[.text("sheet 1")], [.text("sheet 2")]])
        #expect(rows.2 == [[.text("s1")], [.text("c1")], [.text("c2")], [.text("s2")]])

        let last = try #require(try context.fetchHistory(Self.all).last)
        #expect(
            shapes(last) == [
                "insert HiCircle", "insert HiCircle", "insert HiNote", "insert HiNote", "insert HiShape",
                "insert HiShape", "insert HiSheet", "insert HiSheet", "update HiNote",
            ])
        let inserted = Set(
            last.changes.compactMap { change -> PersistentIdentifier? in
                if case .insert = change { return change.changedPersistentIdentifier }
                return nil
            })
        let expected = Set(models.dropLast().dropFirst().map(\.persistentModelID))
        #expect(inserted == expected)
    }

    @Test(
        "Deleting a fault (never read) keeps its preserved value in the tombstone (the history suite checks tombstones, HIS-03)",
        arguments: StoreKind.allCases)
    func his03Fault(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "his03-fault")
        let container = try container(kind, dir)
        let writer = ModelContext(container)
        let note = HiNote(key: "f", title: "faulted")
        writer.insert(note)
        try writer.save()
        let context = ModelContext(container)
        let fault = context.model(for: note.persistentModelID)
        context.delete(fault)
        try context.save()
        let last = try #require(try context.fetchHistory(Self.all).last)
        let titles = last.changes.compactMap { change -> String? in
            guard case .delete(let d as DefaultHistoryDelete<HiNote>) = change else { return nil }
            return d.tombstone[\HiNote.title] as? String
        }
        #expect(titles == ["faulted"])
    }

    @Test(
        "A cascade delete records a delete, with its tombstone, for every cascaded row (the history suite covers batch deletes, HIS-07)",
        arguments: StoreKind.allCases)
    func his07Cascade(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "his07-cascade")
        let container = try container(kind, dir, [HiBinder.self, HiSheet.self])
        let writer = ModelContext(container)
        let binder = HiBinder(name: "b")
        binder.sheets = [HiSheet(label: "s1"), HiSheet(label: "s2")]
        writer.insert(binder)
        try writer.save()
        let context = ModelContext(container)
        let fresh = try #require(try context.fetch(FetchDescriptor<HiBinder>()).first)
        context.delete(fresh)
        try context.save()
        let last = try #require(try context.fetchHistory(Self.all).last)
        #expect(shapes(last) == ["delete HiBinder", "delete HiSheet", "delete HiSheet"])
        let labels = last.changes.compactMap { change -> String? in
            guard case .delete(let d as DefaultHistoryDelete<HiSheet>) = change else { return nil }
            return d.tombstone[\HiSheet.label] as? String
        }
        #expect(labels.sorted() == ["s1", "s2"])
    }

    @Test(
        "A save deleting more rows than one key batch or one multi-row history insert holds deletes all of them, records each with its tombstone and nullifies their references (HIS-07, DEL-01)",
        arguments: StoreKind.allCases)
    func largeCascadeInBatches(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "his07-batches")
        let container = try container(kind, dir, [HiBinder.self, HiSheet.self])
        let writer = ModelContext(container)
        // 70 binders with 3 sheets each (210 cascaded rows: 3 batches of 64 keys and a rest of
        // 18; 280 change rows: 17 inserts of 16 rows and 8 single ones), and one binder kept.
        for b in 0..<70 {
            let binder = HiBinder(name: "b\(b)")
            binder.sheets = (0..<3).map { HiSheet(label: "b\(b)-s\($0)") }
            writer.insert(binder)
        }
        let kept = HiBinder(name: "kept")
        kept.sheets = [HiSheet(label: "kept-s")]
        writer.insert(kept)
        try writer.save()
        let context = ModelContext(container)
        for binder in try context.fetch(FetchDescriptor<HiBinder>()) where binder.name != "kept" {
            context.delete(binder)
        }
        try context.save()
        let check = ModelContext(container)
        #expect(try check.fetch(FetchDescriptor<HiBinder>()).map(\.name) == ["kept"])
        #expect(try check.fetch(FetchDescriptor<HiSheet>()).map(\.label) == ["kept-s"])
        let last = try #require(try context.fetchHistory(Self.all).last)
        #expect(last.changes.count == 280)
        let labels = last.changes.compactMap { change -> String? in
            guard case .delete(let d as DefaultHistoryDelete<HiSheet>) = change else { return nil }
            return d.tombstone[\HiSheet.label] as? String
        }
        #expect(labels.sorted() == (0..<70).flatMap { b in (0..<3).map { "b\(b)-s\($0)" } }.sorted())
        let binders = last.changes.filter {
            if case .delete(_ as DefaultHistoryDelete<HiBinder>) = $0 { true } else { false }
        }
        #expect(binders.count == 70)
        // Every change has its own key, in order.
        let keys = last.changes.map(\.changeIdentifier)
        #expect(keys == keys.sorted() && Set(keys).count == 280)
    }

    @Test(
        "Deleting more parents than one key batch nullifies every stored reference to them, loaded or not (DEL-01)",
        arguments: StoreKind.allCases)
    func largeNullifyInBatches(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "del-batches")
        let container = try container(kind, dir, [HiShelf.self, HiBook.self])
        let writer = ModelContext(container)
        for s in 0..<150 {
            let shelf = HiShelf(name: "s\(s)")
            shelf.books = [HiBook(title: "t\(s)")]
            writer.insert(shelf)
        }
        try writer.save()
        let context = ModelContext(container)
        let shelves = try context.fetch(FetchDescriptor<HiShelf>(sortBy: [SortDescriptor(\.name)]))
        _ = shelves[0].books  // one list loaded, the others not
        for shelf in shelves.dropLast() { context.delete(shelf) }
        try context.save()
        let check = ModelContext(container)
        #expect(try check.fetchCount(FetchDescriptor<HiShelf>()) == 1)
        let books = try check.fetch(FetchDescriptor<HiBook>())
        #expect(books.count == 150)
        let last = try #require(shelves.last)
        #expect(books.filter { $0.shelf != nil }.map(\.title) == ["t\(last.name.dropFirst())"])
        #expect(try check.fetchCount(FetchDescriptor<HiBook>(predicate: #Predicate { $0.shelf == nil })) == 149)
    }

    @Test(
        "A change made only through inverse maintenance records an update of both rows (the history suite covers many-to-many, HIS-09)",
        arguments: StoreKind.allCases)
    func his09Inverse(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "his09-inverse")
        let context = ModelContext(try container(kind, dir, [HiBinder.self, HiSheet.self]))
        let binder = HiBinder(name: "b")
        let sheet = HiSheet(label: "s")
        context.insert(binder)
        context.insert(sheet)
        try context.save()
        sheet.binder = binder
        try context.save()
        let last = try #require(try context.fetchHistory(Self.all).last)
        #expect(shapes(last) == ["update HiBinder", "update HiSheet"])
        let binderUpdate = last.changes.compactMap { change -> [PartialKeyPath<HiBinder>]? in
            if case .update(let u as DefaultHistoryUpdate<HiBinder>) = change { return u.updatedAttributes }
            return nil
        }
        #expect(binderUpdate == [[\HiBinder.sheets]])
    }

    @Test(
        "Subclass rows record their own entity and inherited properties by the subclass's key paths; a batch delete without subclasses records only base rows (history suite: HIS-07)",
        arguments: StoreKind.allCases)
    func his07Subclasses(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "his07-sub")
        let container = try container(kind, dir, [HiShape.self, HiCircle.self])
        let context = ModelContext(container)
        context.insert(HiShape(name: "square", size: 1))
        let circle = HiCircle(name: "circle", size: 2, radius: 1)
        context.insert(circle)
        try context.save()
        #expect(shapes(try context.fetchHistory(Self.all).last) == ["insert HiCircle", "insert HiShape"])
        circle.radius = 3
        circle.size = 4
        try context.save()
        let update = try context.fetchHistory(Self.all).last?.changes.compactMap {
            change -> [PartialKeyPath<HiCircle>]? in
            if case .update(let u as DefaultHistoryUpdate<HiCircle>) = change { return u.updatedAttributes }
            return nil
        }
        #expect(Set((update ?? []).flatMap { $0 }).contains(\HiCircle.radius))
        // Inherited properties come rooted at the subclass (`\HiCircle.size`, not `\HiShape.size`).
        #expect(Set((update ?? []).flatMap { $0 }) == [\HiCircle.radius, \HiCircle.size])
        try context.delete(model: HiShape.self, includeSubclasses: false)
        try context.save()
        let last = try #require(try context.fetchHistory(Self.all).last)
        #expect(shapes(last) == ["delete HiShape"])
        let names = last.changes.compactMap { change -> String? in
            guard case .delete(let d as DefaultHistoryDelete<HiShape>) = change else { return nil }
            return d.tombstone[\HiShape.name] as? String
        }
        #expect(names == ["square"])
        context.delete(circle)
        try context.save()
        let circleDelete = try context.fetchHistory(Self.all).last?.changes.compactMap { change -> String? in
            guard case .delete(let d as DefaultHistoryDelete<HiCircle>) = change else { return nil }
            return d.tombstone[\HiCircle.name] as? String
        }
        #expect(circleDelete == ["circle"])
        // The rows themselves are complete: the subclass update's bitmap has size and radius
        // (HiCircle's properties by name: name, radius, size → bits 1 and 2: 0x60), and its
        // delete keeps the inherited name in ZTOMBSTONE0.
        if kind == .disk {
            let rows = try container.withStoreConnection { db in
                try db.rows(
                    "SELECT ZCHANGETYPE, hex(ZCOLUMNS), ZTOMBSTONE0 FROM ACHANGE WHERE ZCHANGETYPE > 0 ORDER BY Z_PK")
            }
            #expect(
                rows == [
                    [.integer(1), .text("60"), .null], [.integer(2), .text(""), .text("square")],
                    [.integer(2), .text(""), .text("circle")],
                ])
        }
    }

    @Test(
        "Saves of two contexts on two threads each record their own transaction with their author (the history suite covers authors, HIS-05)",
        arguments: StoreKind.allCases)
    func his05Concurrent(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "his05-concurrent")
        let container = try container(kind, dir)
        let failures = LockedValue<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            let context = ModelContext(container)
            context.author = "worker\(worker)"
            for i in 0..<10 {
                context.insert(HiNote(key: "\(worker)-\(i)", title: "t"))
                do { try context.save() } catch { failures.withLock { $0.append("\(error)") } }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let history = try ModelContext(container).fetchHistory(Self.all)
        #expect(history.count == 20)
        #expect(Set(history.map(\.transactionIdentifier)).count == 20)
        #expect(history.filter { $0.author == "worker0" }.count == 10)
        #expect(Set(history.flatMap(\.changes).map(\.changeIdentifier)).count == 20)
    }

    @Test(
        "inserted rows' changes take the keys Z_PRIMARYKEY hands out, per table in key order: right above ACHANGE's largest, and above a Z_MAX that is ahead of it (HIS-02)",
        arguments: StoreKind.allCases)
    func insertedChangeKeys(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "history-keys")
        let container = try container(kind, dir, [HiShelf.self, HiBook.self])
        func changes() throws -> [[SQLValue]] {
            try container.withStoreConnection { db in
                try db.rows("SELECT Z_PK, ZCHANGETYPE, ZENTITYPK, ZTRANSACTIONID FROM ACHANGE ORDER BY Z_PK")
            }
        }
        func recordedMax() throws -> SQLValue? {
            try container.withStoreConnection { db in
                try db.rows("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16001").first?.first
            }
        }
        let context = ModelContext(container)
        // Two tables in one save: three books, then a shelf (two ranges of new rows).
        for i in 0..<3 { context.insert(HiBook(title: "b\(i)")) }
        context.insert(HiShelf(name: "s"))
        try context.save()
        let first = try changes()
        #expect(first.map { $0[0] } == (1...4).map { SQLValue.integer($0) })
        #expect(first.map { $0[2] } == [.integer(1), .integer(2), .integer(3), .integer(1)])
        #expect(Set(first.map { $0[1] }) == [.integer(0)])
        #expect(try recordedMax() == .integer(4))

        // Z_MAX ahead of the table (as Core Data may leave it after history was deleted): the
        // next keys start above it.
        try container.withStoreConnection { db in
            try db.run("UPDATE Z_PRIMARYKEY SET Z_MAX = 40 WHERE Z_ENT = 16001")
        }
        context.insert(HiBook(title: "b3"))
        context.insert(HiBook(title: "b4"))
        try context.save()
        let second = try changes().dropFirst(4)
        #expect(second.map { $0[0] } == [.integer(41), .integer(42)])
        #expect(second.map { $0[2] } == [.integer(4), .integer(5)])
        #expect(try recordedMax() == .integer(42))

        // And right above the table again.
        context.insert(HiBook(title: "b5"))
        try context.save()
        #expect(try changes().last?[0] == .integer(43))
        #expect(try recordedMax() == .integer(43))
        let history = try ModelContext(container).fetchHistory(Self.all)
        #expect(history.map { $0.changes.count } == [4, 2, 1])
    }
}

extension Data {
    fileprivate init(hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        self.init(bytes)
    }
}

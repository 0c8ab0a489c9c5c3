import Foundation
import Testing
@testable import OpenSwiftData

@Model final class HiNote {
    @Attribute(.unique) var key: String
    @Attribute(.preserveValueOnDeletion) var title: String
    var body: String
    var pages: Int
    init(key: String, title: String, body: String = "", pages: Int = 1) {
        self.key = key; self.title = title; self.body = body; self.pages = pages
    }
}

@Model final class HiBinder {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \HiSheet.binder) var sheets: [HiSheet] = []
    init(name: String) { self.name = name }
}

@Model final class HiSheet {
    @Attribute(.preserveValueOnDeletion) var label: String
    var binder: HiBinder?
    init(label: String) { self.label = label }
}

@Model class HiShape {
    @Attribute(.preserveValueOnDeletion) var name: String
    var size: Int
    init(name: String, size: Int) { self.name = name; self.size = size }
}

@Model final class HiCircle: HiShape {
    var radius: Double
    init(name: String, size: Int, radius: Double) { self.radius = radius; super.init(name: name, size: size) }
}

/// Persistent history (behaviour reference §9): one transaction per save with changes, in
/// Apple's history tables, read back through `fetchHistory`, on both stores.
@Suite("History")
struct HistoryTests {
    private static let all = HistoryDescriptor<DefaultHistoryTransaction>()

    private func container(_ kind: StoreKind, _ dir: ScratchDirectory, _ types: [any PersistentModel.Type] = [HiNote.self]) throws -> ModelContainer {
        try kind.makeContainer(for: types, in: dir)
    }

    @Test("HIS-01: insert, update, delete in three saves are three transactions in order, one change each", arguments: StoreKind.allCases)
    func his01(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "his01")
        let context = ModelContext(try container(kind, dir))
        let note = HiNote(key: "a", title: "first")
        context.insert(note)
        try context.save()
        let id = note.persistentModelID
        note.pages = 2
        try context.save()
        context.delete(note)
        try context.save()
        let history = try context.fetchHistory(Self.all)
        #expect(history.count == 3)
        #expect(history.map(\.transactionIdentifier) == history.map(\.transactionIdentifier).sorted())
        #expect(history.map { $0.changes.count } == [1, 1, 1])
        guard history.count == 3 else { return }
        guard case .insert(let insert) = history[0].changes[0] else { Issue.record("not an insert"); return }
        #expect(insert.changedPersistentIdentifier == id)
        guard case .update(let update as DefaultHistoryUpdate<HiNote>) = history[1].changes[0] else { Issue.record("not an update"); return }
        #expect(update.changedPersistentIdentifier == id)
        #expect(update.updatedAttributes == [\HiNote.pages])
        guard case .delete(let delete) = history[2].changes[0] else { Issue.record("not a delete"); return }
        #expect(delete.changedPersistentIdentifier == id)
        #expect(history.allSatisfy { $0.storeIdentifier == id.storeIdentifier && $0.token.storeIdentifier == id.storeIdentifier })
        #expect(history[0].timestamp <= history[2].timestamp)
        #expect(history[0].processIdentifier == ProcessInfo.processInfo.processName)
    }

    @Test("HIS-02 and HIS-11: two inserts in one save are one transaction; a save without changes records none", arguments: StoreKind.allCases)
    func his02(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "his02")
        let context = ModelContext(try container(kind, dir))
        context.insert(HiNote(key: "a", title: "a"))
        context.insert(HiNote(key: "b", title: "b"))
        try context.save()
        try context.save()
        let history = try context.fetchHistory(Self.all)
        #expect(history.count == 1)
        #expect(history.first?.changes.count == 2)
        #expect(history.first?.changes.allSatisfy { if case .insert = $0 { true } else { false } } == true)
    }

    @Test("HIS-03: a delete's tombstone holds the .preserveValueOnDeletion values only", arguments: StoreKind.allCases)
    func his03(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "his03")
        let context = ModelContext(try container(kind, dir))
        let note = HiNote(key: "k", title: "kept", body: "dropped")
        context.insert(note)
        try context.save()
        context.delete(note)
        try context.save()
        let last = try #require(try context.fetchHistory(Self.all).last)
        guard case .delete(let delete as DefaultHistoryDelete<HiNote>) = last.changes.first else { Issue.record("no delete"); return }
        #expect(delete.tombstone[\HiNote.title] as? String == "kept")
        #expect(delete.tombstone[\HiNote.body] == nil)
        #expect(Array(delete.tombstone).count == 1)
    }

    @Test("HIS-04, HIS-05, HIS-10: token and author filters, latest transaction by sort and limit", arguments: StoreKind.allCases)
    func his04(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "his04")
        let container = try container(kind, dir)
        let app = ModelContext(container), widget = ModelContext(container)
        app.author = "app"
        widget.author = "widget"
        app.insert(HiNote(key: "1", title: "t"))
        try app.save()
        let t1 = try #require(try app.fetchHistory(Self.all).last?.token)
        widget.insert(HiNote(key: "2", title: "t"))
        try widget.save()
        app.insert(HiNote(key: "3", title: "t"))
        try app.save()
        let after = try app.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > t1 }))
        #expect(after.count == 2 && after.allSatisfy { $0.token > t1 })
        let widgets = try app.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.author == "widget" }))
        #expect(widgets.count == 1 && widgets.first?.author == "widget")
        var latest = HistoryDescriptor<DefaultHistoryTransaction>()
        latest.sortBy = [SortDescriptor(\.transactionIdentifier, order: .reverse)]
        latest.fetchLimit = 1
        let newest = try app.fetchHistory(latest)
        #expect(newest.count == 1 && newest.first?.author == "app" && newest.first?.token == after.last?.token)
        // Tokens are Codable: a stored token compares equal after a round trip.
        let decoded = try JSONDecoder().decode(DefaultHistoryToken.self, from: JSONEncoder().encode(t1))
        #expect(decoded == t1)
    }

    @Test("HIS-06: deleteHistory before t2 expires t1; fetching with t2 still works", arguments: StoreKind.allCases)
    func his06(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "his06")
        let context = ModelContext(try container(kind, dir))
        context.insert(HiNote(key: "1", title: "t"))
        try context.save()
        let t1 = try #require(try context.fetchHistory(Self.all).last?.token)
        context.insert(HiNote(key: "2", title: "t"))
        try context.save()
        let t2 = try #require(try context.fetchHistory(Self.all).last?.token)
        context.insert(HiNote(key: "3", title: "t"))
        try context.save()
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token < t2 }))
        _ = expectSwiftDataError(.historyTokenExpired, "t1 was deleted") {
            _ = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > t1 }))
        }
        let rest = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > t2 }))
        #expect(rest.count == 1)
        #expect(try context.fetchHistory(Self.all).count == 2)
    }

    @Test("HIS-07: a batch delete records a delete for every row, tombstones included", arguments: StoreKind.allCases)
    func his07(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "his07")
        let context = ModelContext(try container(kind, dir))
        for i in 0..<5 { context.insert(HiNote(key: "\(i)", title: "n\(i)", pages: i)) }
        try context.save()
        try context.delete(model: HiNote.self, where: #Predicate { $0.pages >= 2 })
        try context.save()
        let last = try #require(try context.fetchHistory(Self.all).last)
        let titles = last.changes.compactMap { change -> String? in
            guard case .delete(let d as DefaultHistoryDelete<HiNote>) = change else { return nil }
            return d.tombstone[\HiNote.title] as? String
        }
        #expect(titles.sorted() == ["n2", "n3", "n4"])
    }

    @Test("HIS-08: an upsert into a stored row is an update of that row, not an insert and a delete", arguments: StoreKind.allCases)
    func his08(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "his08")
        let container = try container(kind, dir)
        let context = ModelContext(container)
        let original = HiNote(key: "same", title: "v1")
        context.insert(original)
        try context.save()
        let id = original.persistentModelID
        let other = ModelContext(container)
        other.insert(HiNote(key: "same", title: "v2"))
        try other.save()
        let last = try #require(try other.fetchHistory(Self.all).last)
        #expect(last.changes.count == 1)
        guard case .update(let update) = last.changes.first else { Issue.record("not an update: \(last.changes)"); return }
        #expect(update.changedPersistentIdentifier == id)
    }

    @Test("HIS-09: many-to-many saves record updates on both sides and fetchHistory reads them", arguments: StoreKind.allCases)
    func his09(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "his09")
        let context = ModelContext(try container(kind, dir, [Product.self, Tag.self]))
        let p = Product(name: "p", price: 1), t = Tag(label: "t")
        context.insert(p)
        context.insert(t)
        try context.save()
        p.tags.append(t)
        try context.save()
        let last = try #require(try context.fetchHistory(Self.all).last)
        let updated = Set(last.changes.compactMap { change -> PersistentIdentifier? in
            if case .update = change { return change.changedPersistentIdentifier }
            return nil
        })
        #expect(updated.contains(p.persistentModelID))
        let productUpdate = last.changes.compactMap { change -> [PartialKeyPath<Product>]? in
            if case .update(let u as DefaultHistoryUpdate<Product>) = change { return u.updatedAttributes }
            return nil
        }.first
        #expect(productUpdate == [\Product.tags])
    }

    @Test("history lives in Apple's tables: one ATRANSACTION row per save, ACHANGE rows with the ZCOLUMNS bitmap, strings once")
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
            (try db.rows("SELECT Z_ENT, Z_OPT, ZAUTHORTS IS NOT NULL, ZBUNDLEIDTS IS NOT NULL, ZPROCESSIDTS IS NOT NULL FROM ATRANSACTION ORDER BY Z_PK"),
             try db.rows("SELECT Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, hex(ZCOLUMNS) FROM ACHANGE ORDER BY Z_PK"),
             try db.rows("SELECT ZNAME FROM ATRANSACTIONSTRING ORDER BY Z_PK"),
             try db.rows("SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT"))
        }
        #expect(rows.0 == [[.integer(16002), .null, .integer(1), .integer(1), .integer(1)],
                           [.integer(16002), .null, .integer(1), .integer(1), .integer(1)]])
        // HiNote's recorded properties by name: body, key, pages, title → pages and title are bits 2 and 3: 0x30.
        #expect(rows.1 == [[.integer(16001), .integer(0), .integer(1), .integer(1), .integer(1), .text("")],
                           [.integer(16001), .integer(1), .integer(1), .integer(1), .integer(2), .text("30")]])
        // The author, then the bundle identifier and the process name (one string when equal, as on Linux).
        let strings = Set([ProcessInfo.processInfo.processName, Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName])
        #expect(rows.2.first == [.text("importer")] && rows.2.count == 1 + strings.count)
        #expect(rows.3 == [[.integer(16001), .integer(2)], [.integer(16002), .integer(2)], [.integer(16003), .integer(Int64(1 + strings.count))]])
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
                    try db.run("INSERT INTO Z_PRIMARYKEY VALUES (?, ?, ?, ?)",
                               [.integer(Int64(row.entity)), .text(row.name), .integer(Int64(row.superEntity)), .integer(Int64(row.max))])
                }
                var metadata = StoreMetadata(model: vector.storeModel, uuid: UUID())
                metadata.versionHashes = vector.entityHashes
                try db.run("INSERT INTO Z_METADATA VALUES (1, ?, ?)", [.text(metadata.uuid), .blob(metadata.encodedPropertyList())])
                for (header, rows) in vector.historyRows where header.hasPrefix("A") {
                    let columns = header.replacingOccurrences(of: "hex(ZCOLUMNS)", with: "ZCOLUMNS").replacingOccurrences(of: "hex(ZQUERYGEN)", with: "ZQUERYGEN")
                    for row in rows {
                        let values = row.map { value -> SQLValue in
                            switch value {
                            case .int(let i): .integer(Int64(i))
                            case .double(let d): .real(d)
                            case .string(let s): s.isEmpty ? .null : (columns.hasPrefix("ACHANGE") ? .blob(Data(hex: s)) : .text(s))
                            case .null: .null
                            }
                        }
                        try db.run("INSERT INTO \(columns) VALUES (\(Array(repeating: "?", count: values.count).joined(separator: ", ")))", values)
                    }
                }
            }
            db.close()
        }
        let container = try ModelContainer(for: ResourcesVectorModels.schema, configurations: ModelConfiguration(url: url))
        let history = try ModelContext(container).fetchHistory(Self.all)
        #expect(history.count == 13)
        #expect(history.allSatisfy { $0.bundleIdentifier == "com.sdsoftware.ResourcesManager" && $0.processIdentifier == "ResourcesManager" && $0.author == nil })
        #expect(history.flatMap(\.changes).count == 19)
        // Change 4: Item 1's craftingRecipe set through the inverse (ZCOLUMNS 80).
        let change4 = try #require(history.flatMap(\.changes).first { $0.changeIdentifier == 4 })
        guard case .update(let u4 as DefaultHistoryUpdate<ResourcesVectorModels.Item>) = change4 else { Issue.record("\(change4)"); return }
        #expect(u4.updatedAttributes == [\ResourcesVectorModels.Item.craftingRecipe])
        // Changes 6 and 11: CraftingRecipe 1's requiredComponents (20) and producedItemCount (40).
        let changes = history.flatMap(\.changes)
        let recipeUpdates = changes.compactMap { change -> [PartialKeyPath<ResourcesVectorModels.CraftingRecipe>]? in
            if case .update(let u as DefaultHistoryUpdate<ResourcesVectorModels.CraftingRecipe>) = change { return u.updatedAttributes }
            return nil
        }
        #expect(recipeUpdates.contains([\ResourcesVectorModels.CraftingRecipe.requiredComponents]))
        #expect(recipeUpdates.contains([\ResourcesVectorModels.CraftingRecipe.producedItemCount]))
        #expect(changes.filter { if case .delete = $0 { true } else { false } }.count == 2)
    }

    // MARK: Review cases: what a demanding user would try

    private func shapes(_ t: DefaultHistoryTransaction?) -> [String] {
        (t?.changes ?? []).map { change in
            let kind = switch change { case .insert: "insert"; case .update: "update"; case .delete: "delete" }
            return "\(kind) \(change.changedPersistentIdentifier.entityName)"
        }.sorted()
    }

    @Test("HIS-11: a model inserted and deleted in the same save, and changes rolled back, record nothing", arguments: StoreKind.allCases)
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

    @Test("HIS-03: deleting a fault (never read) keeps its preserved value in the tombstone", arguments: StoreKind.allCases)
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

    @Test("HIS-07: a cascade delete records a delete, with its tombstone, for every cascaded row", arguments: StoreKind.allCases)
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

    @Test("HIS-09: a change made only through inverse maintenance records an update of both rows", arguments: StoreKind.allCases)
    func his09Inverse(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "his09-inverse")
        let context = ModelContext(try container(kind, dir, [HiBinder.self, HiSheet.self]))
        let binder = HiBinder(name: "b"), sheet = HiSheet(label: "s")
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

    @Test("HIS-07: subclass rows record their own entity; delete(model:where:includeSubclasses: false) records only the base rows", arguments: StoreKind.allCases)
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
        let update = try context.fetchHistory(Self.all).last?.changes.compactMap { change -> [PartialKeyPath<HiCircle>]? in
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
                try db.rows("SELECT ZCHANGETYPE, hex(ZCOLUMNS), ZTOMBSTONE0 FROM ACHANGE WHERE ZCHANGETYPE > 0 ORDER BY Z_PK")
            }
            #expect(rows == [[.integer(1), .text("60"), .null], [.integer(2), .text(""), .text("square")],
                             [.integer(2), .text(""), .text("circle")]])
        }
    }

    @Test("HIS-05: saves of two contexts on two threads each record their own transaction with their author", arguments: StoreKind.allCases)
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
}

private extension Data {
    init(hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        self.init(bytes)
    }
}

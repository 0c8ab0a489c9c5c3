import Foundation
import Testing

@testable import OpenSwiftData

@Model final class ScFolder {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \ScFile.folder) var files: [ScFile] = []
    init(name: String) { self.name = name }
}

@Model final class ScFile {
    @Attribute(.unique) var path: String
    @Attribute(.preserveValueOnDeletion) var label: String
    var size: Int
    var folder: ScFolder?
    init(path: String, label: String, size: Int) {
        self.path = path
        self.label = label
        self.size = size
    }
}

/// The SQL a container ran while a trace was set (the trace's handler is `@Sendable`; the
/// statements arrive on the thread of the save).
final class Statements: @unchecked Sendable {
    var sql: [String] = []
    func record(_ container: ModelContainer, during body: () throws -> Void) throws {
        try container.setSQLTrace { self.sql.append($0.sql) }
        defer { try? container.setSQLTrace(nil) }
        try body()
    }
}

/// A cascade over an unloaded to-many list, which a save carries out in SQL (`SetCascade`),
/// against what the loaded cascade does: the same rows deleted, the same history, the same
/// `didSave` identifiers; and the cases that must still load the list.
@Suite("Cascades in SQL")
struct SetCascadeTests {
    private let models: [any PersistentModel.Type] = [ScFolder.self, ScFile.self]

    /// Two folders with `files` files each, saved; a new context for the deletes.
    private func seeded(_ kind: StoreKind, _ dir: ScratchDirectory, files: Int, name: String = "store") throws
        -> ModelContainer
    {
        let container = try kind.makeContainer(for: models, in: dir, name: name)
        let seed = ModelContext(container)
        for f in ["a", "b"] {
            let folder = ScFolder(name: f)
            folder.files = (0..<files).map { ScFile(path: "\(f)/\($0)", label: "\(f)-\($0)", size: $0) }
            seed.insert(folder)
        }
        try seed.save()
        return container
    }

    /// Folder `name`, fetched in `context` (its list not loaded).
    private func folder(_ name: String, in context: ModelContext) throws -> ScFolder {
        try #require(try context.fetch(FetchDescriptor<ScFolder>(predicate: #Predicate { $0.name == name })).first)
    }

    /// A store named `name` holding folders `f0`… (`folders` of them, `files` files each, keys
    /// in that order), saved; a new context for the deletes, with the folders fetched.
    private func numberedFolders(_ dir: ScratchDirectory, name: String, folders: Int, files: Int) throws -> (
        container: ModelContainer, context: ModelContext, folders: [ScFolder]
    ) {
        let container = try StoreKind.disk.makeContainer(for: models, in: dir, name: name)
        let seed = ModelContext(container)
        for f in 0..<folders {
            let folder = ScFolder(name: "f\(f)")
            folder.files = (0..<files).map { ScFile(path: "f\(f)/\($0)", label: "f\(f)-\($0)", size: $0) }
            seed.insert(folder)
        }
        try seed.save()
        let context = ModelContext(container)
        return (container, context, try context.fetch(FetchDescriptor<ScFolder>()))
    }

    /// What a save of deleting folder `a` (fetched, its list not loaded) did: the files left, the
    /// history's delete labels, the identifiers `didSave` reported.
    private func deleteFolderA(_ context: ModelContext, _ container: ModelContainer) throws -> (
        files: [String], labels: [String], deleted: Set<PersistentIdentifier>
    ) {
        /// The notification is posted on the saving thread (`queue: nil`); the box is for the
        /// observer block's `@Sendable` type.
        final class Reported: @unchecked Sendable {
            var ids: Set<PersistentIdentifier> = []
        }
        let reported = Reported()
        let observer = NotificationCenter.default.addObserver(
            forName: ModelContext.didSave, object: context, queue: nil
        ) { note in
            let ids =
                note.userInfo?[ModelContext.NotificationKey.deletedIdentifiers.rawValue] as? [PersistentIdentifier]
            reported.ids.formUnion(ids ?? [])
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        context.delete(try folder("a", in: context))
        try context.save()
        let files = try ModelContext(container).fetch(FetchDescriptor<ScFile>(sortBy: [SortDescriptor(\.path)]))
        let last = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last)
        let labels = last.changes.compactMap { change -> String? in
            guard case .delete(let d as DefaultHistoryDelete<ScFile>) = change else { return nil }
            return d.tombstone[\ScFile.label] as? String
        }
        return (files.map(\.path), labels, reported.ids)
    }

    /// ``deleteFolderA(_:_:)`` in a new context, with the SQL the save ran.
    private func recordedDeleteOfFolderA(_ container: ModelContainer) throws -> (
        context: ModelContext, sql: [String], files: [String], labels: [String], deleted: Set<PersistentIdentifier>
    ) {
        let context = ModelContext(container)
        let statements = Statements()
        var result: (files: [String], labels: [String], deleted: Set<PersistentIdentifier>)?
        try statements.record(container) { result = try deleteFolderA(context, container) }
        let (files, labels, deleted) = try #require(result)
        return (context, statements.sql, files, labels, deleted)
    }

    @Test(
        "An unloaded cascade list is deleted in SQL: its rows go, each gets a delete with its tombstone, didSave names it (DEL-02, HIS-07)",
        arguments: StoreKind.allCases)
    func unloadedListInSQL(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "set-cascade")
        let container = try seeded(kind, dir, files: 70)
        let (context, sql, files, labels, deleted) = try recordedDeleteOfFolderA(container)
        // The files were deleted by their folder key, never read as models nor as rows (their
        // keys came from the delete itself).
        #expect(sql.contains { $0.hasPrefix("DELETE FROM \"ZSCFILE\" WHERE \"ZFOLDER\" IN (?") })
        #expect(!sql.contains { $0.hasPrefix("SELECT \"ZFOLDER\", \"Z_PK\"") })
        #expect(!sql.contains { $0.contains("t.\"ZFOLDER\" = ?") })  // the list's load
        // No file refers to the folder any more: its key column is not cleared afterwards.
        #expect(!sql.contains { $0.hasPrefix("UPDATE \"ZSCFILE\" SET \"ZFOLDER\" = NULL") })
        #expect(files == (0..<70).map { "b/\($0)" })  // SortDescriptor(\.path): numbers by value (FET-06)
        #expect(labels == (0..<70).map { "a-\($0)" })  // in key order, after the folder's delete
        #expect(deleted.count == 71)
        #expect(deleted.filter { $0.entityName == "ScFile" }.count == 70)
        #expect(deleted.allSatisfy { $0.storeIdentifier != nil })
        // The identifiers are the deleted rows': none of them exists any more.
        for id in deleted where id.entityName == "ScFile" {
            #expect(context.model(for: id).isDeleted)
        }
        // A new file may take a deleted one's unique path in the next save.
        context.insert(ScFile(path: "a/3", label: "again", size: 1))
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<ScFile>()) == 71)
    }

    @Test(
        "The SQL cascade and the loaded one leave the same rows and record the same history (DEL-02, HIS-07)",
        arguments: StoreKind.allCases)
    func sameAsLoaded(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "set-cascade-same")
        let inSQL = try seeded(kind, dir, files: 5, name: "sql")
        let loaded = try seeded(kind, dir, files: 5, name: "loaded")
        let sql = try deleteFolderA(ModelContext(inSQL), inSQL)
        // A registered file makes the save load the list (the model must read as deleted).
        let context = ModelContext(loaded)
        let registered = try #require(
            try context.fetch(FetchDescriptor<ScFile>(predicate: #Predicate { $0.path == "a/2" })).first)
        let statements = Statements()
        var result: (files: [String], labels: [String], deleted: Set<PersistentIdentifier>)?
        try statements.record(loaded) { result = try deleteFolderA(context, loaded) }
        let viaModels = try #require(result)
        #expect(!statements.sql.contains { $0.hasPrefix("DELETE FROM \"ZSCFILE\" WHERE \"ZFOLDER\"") })
        #expect(statements.sql.contains { $0.contains("t.\"ZFOLDER\" = ?") })
        #expect(registered.isDeleted == false)  // removed by the save: its row is gone
        #expect(
            try ModelContext(loaded).fetchCount(FetchDescriptor<ScFile>(predicate: #Predicate { $0.path == "a/2" }))
                == 0)
        #expect(sql.files == viaModels.files)
        #expect(sql.labels.sorted() == viaModels.labels.sorted())
        #expect(sql.deleted.map(\.entityName).sorted() == viaModels.deleted.map(\.entityName).sorted())
    }

    @Test(
        "A fetch between the delete and the save does not see the cascaded models; a rollback keeps them (DEL-02)",
        arguments: StoreKind.allCases)
    func pendingSemanticsKept(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "set-cascade-pending")
        let container = try seeded(kind, dir, files: 3)
        let context = ModelContext(container)
        let a = try folder("a", in: context)
        context.delete(a)
        #expect(try context.fetchCount(FetchDescriptor<ScFile>()) == 3)
        context.rollback()
        #expect(try context.fetchCount(FetchDescriptor<ScFile>()) == 6)
        context.delete(a)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<ScFile>()) == 3)
    }

    @Test(
        "A new file linked to the deleted folder in memory goes with it: its class's new models make the save load the list (DEL-02)",
        arguments: StoreKind.allCases)
    func newModelLinkedInMemory(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "set-cascade-new")
        let container = try seeded(kind, dir, files: 3)
        let context = ModelContext(container)
        let a = try folder("a", in: context)
        let extra = ScFile(path: "a/new", label: "new", size: 9)
        extra.folder = a
        context.insert(extra)
        context.delete(a)
        try context.save()
        let paths = try ModelContext(container).fetch(FetchDescriptor<ScFile>()).map(\.path)
        #expect(Set(paths) == ["b/0", "b/1", "b/2"])
    }

    @Test(
        "Under the strict merge policy the list is loaded, so each deleted row's version is checked (DEL-02)",
        arguments: StoreKind.allCases)
    func strictPolicyLoads(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "set-cascade-strict")
        var config =
            kind == .memory
            ? ModelConfiguration(isStoredInMemoryOnly: true) : ModelConfiguration(url: dir.file("strict.store"))
        config.mergePolicy = .error
        let container = try ModelContainer(for: ScFolder.self, ScFile.self, configurations: config)
        let seed = ModelContext(container)
        let folder = ScFolder(name: "a")
        folder.files = [ScFile(path: "a/0", label: "a-0", size: 0)]
        seed.insert(folder)
        try seed.save()
        let context = ModelContext(container)
        let statements = Statements()
        try statements.record(container) {
            context.delete(try self.folder("a", in: context))
            try context.save()
        }
        #expect(statements.sql.contains { $0.contains("t.\"ZFOLDER\" = ?") })
        #expect(!statements.sql.contains { $0.hasPrefix("DELETE FROM \"ZSCFILE\" WHERE \"ZFOLDER\"") })
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<ScFile>()) == 0)
    }

    @Test(
        "Change rows that SQLite keys at random (ACHANGE's largest key at the top of Int64): the cascade still deletes every row, records each, and didSave names each (HIS-07, DEL-02)"
    )
    func changeKeysAtTheTop() throws {
        let dir = try ScratchDirectory(prefix: "set-cascade-top")
        let container = try seeded(.disk, dir, files: 5)
        // A change row (another tool's) one below the top: the folder's change row takes the
        // last key, and SQLite picks the cascaded rows' keys at random.
        let raw = try SQLiteConnection(path: dir.file("store.store").path)
        try raw.run(
            "INSERT INTO ACHANGE (Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID) VALUES (?, 16001, 0, 1, 1, 1)",
            [.integer(Int64.max - 1)])
        raw.close()
        let (context, sql, files, labels, deleted) = try recordedDeleteOfFolderA(container)
        #expect(sql.contains { $0.hasPrefix("DELETE FROM \"ZSCFILE\" WHERE \"ZFOLDER\" IN (?") })
        #expect(files == (0..<5).map { "b/\($0)" })
        #expect(Set(labels) == Set((0..<5).map { "a-\($0)" }))
        #expect(deleted.filter { $0.entityName == "ScFile" }.count == 5)
        for id in deleted where id.entityName == "ScFile" {
            #expect(context.model(for: id).isDeleted)
        }
    }

    @Test("A batch of keys is bound to the shortest list that holds it: 1, 4, 16 or 64 placeholders (256 for a lookup)")
    func keyListLengths() {
        let sql = KeyListSQL { "DELETE FROM \"ZT\" WHERE \"Z_PK\" IN \($0)" }
        let lengths = [1, 2, 3, 4, 5, 15, 16, 17, 63, 64].map { sql.forBatch(of: $0).length }
        #expect(lengths == [1, 4, 4, 4, 16, 16, 16, 64, 64, 64])
        #expect(sql.forBatch(of: 1).sql.text == "DELETE FROM \"ZT\" WHERE \"Z_PK\" IN (?)")
        #expect(sql.forBatch(of: 3).sql.text == "DELETE FROM \"ZT\" WHERE \"Z_PK\" IN (?, ?, ?, ?)")
        #expect(StoreWriter.keyBatchSize == 64)
        // A uniqueness lookup's lists go on to 256 values.
        let lookup = KeyListSQL(lengths: KeyListSQL.lookupLengths) {
            "SELECT \"Z_PK\" FROM \"ZT\" WHERE \"ZA\" IN \($0)"
        }
        #expect([1, 16, 17, 64, 65, 256].map { lookup.forBatch(of: $0).length } == [1, 16, 64, 64, 256, 256])
        #expect(lookup.longest == 256)
    }

    @Test(
        "Deleting 1 to 130 folders in one save: each batch of parents takes the shortest list that holds it, every folder and file goes, every delete is recorded with its tombstone (DEL-02, HIS-07)",
        arguments: [1, 2, 4, 5, 16, 17, 64, 65, 130])
    func batchesOfEverySize(_ count: Int) throws {
        let dir = try ScratchDirectory(prefix: "set-cascade-batches")
        // Three more folders than are deleted, two files each.
        let (container, context, folders) = try numberedFolders(dir, name: "store", folders: count + 3, files: 2)
        for folder in folders.prefix(count) { context.delete(folder) }
        let statements = Statements()
        try statements.record(container) { try context.save() }

        // Parents in runs of up to 64, each bound to the shortest list that holds it.
        var expected = Array(repeating: 64, count: count / 64)
        if count % 64 != 0 { expected.append(KeyListSQL.keyLengths.first { $0 >= count % 64 }!) }
        let placeholders = { (prefix: String, from: String?) in
            statements.sql.filter { sql in sql.hasPrefix(prefix) && from.map { sql.contains($0) } ?? true }
                .map { $0.filter { $0 == "?" }.count }
        }
        #expect(placeholders("DELETE FROM \"ZSCFILE\" WHERE \"ZFOLDER\" IN (", nil) == expected)
        #expect(placeholders("DELETE FROM \"ZSCFOLDER\" WHERE \"Z_PK\" IN (", nil) == expected)
        // Their history in SQL: one more placeholder, the transaction.
        #expect(placeholders("INSERT INTO ACHANGE", "FROM \"ZSCFILE\"") == expected.map { $0 + 1 })

        let check = ModelContext(container)
        let left = try check.fetch(FetchDescriptor<ScFolder>()).map(\.name).sorted()
        #expect(left == (count..<(count + 3)).map { "f\($0)" }.sorted())
        let files = try check.fetch(FetchDescriptor<ScFile>()).map(\.path).sorted()
        #expect(files == (count..<(count + 3)).flatMap { f in (0..<2).map { "f\(f)/\($0)" } }.sorted())
        let last = try #require(try check.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last)
        let labels = last.changes.compactMap { change -> String? in
            guard case .delete(let d as DefaultHistoryDelete<ScFile>) = change else { return nil }
            return d.tombstone[\ScFile.label] as? String
        }
        #expect(labels.sorted() == (0..<count).flatMap { f in (0..<2).map { "f\(f)-\($0)" } }.sorted())
        let folderDeletes = last.changes.filter { change in
            if case .delete(let d) = change { return d.changedPersistentIdentifier.entityName == "ScFolder" }
            return false
        }
        #expect(folderDeletes.count == count)
    }

    /// The delete change rows of the newest history transaction of the store file `url`, in
    /// key order, without their keys; and whether `Z_MAX` of `CHANGE` is `ACHANGE`'s largest key.
    private func deleteChangeRows(_ url: URL) throws -> (rows: [[SQLValue]], maxRecorded: Bool) {
        let raw = try SQLiteConnection(path: url.path, mode: .readOnly)
        defer { raw.close() }
        let rows = try raw.rows(
            """
            SELECT Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS, ZTOMBSTONE0 FROM ACHANGE
            WHERE ZCHANGETYPE = 2 AND ZTRANSACTIONID = (SELECT max(Z_PK) FROM ATRANSACTION) ORDER BY Z_PK
            """)
        let max = try raw.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16001")
        return (rows, max == (try raw.scalar("SELECT max(Z_PK) FROM ACHANGE")))
    }

    @Test(
        "A save of deletes only records its cascades' deletes in SQL, with the rows, order, tombstones and keys of the recording in Swift (HIS-07, DEL-02)"
    )
    func historyRecordedInSQL() throws {
        let dir = try ScratchDirectory(prefix: "set-cascade-history")
        var results: [(rows: [[SQLValue]], maxRecorded: Bool)] = []
        var traces: [[String]] = []
        for name in ["sql", "swift"] {
            // 70 folders (more than one statement's 64 parents), 3 files each.
            let (container, context, folders) = try numberedFolders(dir, name: name, folders: 70, files: 3)
            // Parents' keys ascending, then descending: the cascades' order is the deletes'.
            for folder in folders.prefix(60) + folders.dropFirst(60).reversed() { context.delete(folder) }
            // A new model makes the save record its history at the end, in Swift.
            if name == "swift" { context.insert(ScFolder(name: "new")) }
            let statements = Statements()
            try statements.record(container) { try context.save() }
            traces.append(statements.sql)
            results.append(try deleteChangeRows(dir.file("\(name).store")))
            // The next save's change keys follow.
            context.insert(ScFile(path: "after", label: "after", size: 0))
            try context.save()
            #expect(try deleteChangeRows(dir.file("\(name).store")).maxRecorded)
        }
        let recordsInSQL = { (sql: [String]) in
            sql.contains { $0.hasPrefix("INSERT INTO ACHANGE") && $0.contains("FROM \"ZSCFILE\"") }
        }
        #expect(recordsInSQL(traces[0]))
        #expect(!recordsInSQL(traces[1]))
        #expect(results[0].rows.count == 70 + 210)
        #expect(results[0].rows == results[1].rows)
        #expect(results[0].maxRecorded && results[1].maxRecorded)
    }
}

import Foundation
import OpenSwiftDataTesting
import Testing

@testable import OpenSwiftData

/// What the `migrations` conformance suite (MIG-01…11, run on both stores by
/// `ConformanceTests`) does not check: the migrated file's layout, key allocation, history,
/// the refusals' messages, and the working copy's clean-up. The models are the suite's.
@Suite("Migrations")
struct MigrationTests {
    let dir: ScratchDirectory

    init() throws { dir = try ScratchDirectory(prefix: "migration") }

    /// A V1 store with three voyages (two named "Lisbon") and a port.
    func writeV1Store(_ name: String = "voyages.store") throws -> URL {
        let url = dir.file(name)
        let container = try ModelContainer(
            for: Schema(versionedSchema: ConformanceVoyagesV1.self),
            configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let port = ConformanceVoyagesV1.Port(code: "LIS")
        context.insert(port)
        context.insert(ConformanceVoyagesV1.Voyage(name: "Lisbon", start: day(1), legacy: 7, port: port))
        context.insert(ConformanceVoyagesV1.Voyage(name: "Porto", start: day(2), legacy: 8))
        context.insert(ConformanceVoyagesV1.Voyage(name: "Lisbon", start: day(3), legacy: 9, port: port))
        try context.save()
        return url
    }

    /// The first column of every row of `sql` on the file at `url`.
    func integers(_ url: URL, _ sql: String) throws -> [Int64] {
        let db = try SQLiteConnection(path: url.path, mode: .readOnly)
        defer { db.close() }
        return try db.rows(sql).compactMap { if case .integer(let n)? = $0.first { n } else { nil } }
    }

    /// Every `CREATE` statement of a store, sorted: the layout, independent of the data.
    func ddl(_ url: URL) throws -> [String] {
        let db = try SQLiteConnection(path: url.path, mode: .readOnly)
        defer { db.close() }
        return try db.rows("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL").compactMap {
            if case .text(let s)? = $0.first { s } else { nil }
        }.sorted()
    }

    @Test(
        "A migrated store has a new store's layout and metadata, keeps its keys, and is not migrated again (values: the migrations suite, MIG-01…05)"
    )
    func lightweight() throws {
        let url = try writeV1Store()
        let container = try ModelContainer(
            for: ConformanceVoyagesV2.Voyage.self, migrationPlan: ConformanceVoyagesPlanV2.self,
            configurations: ModelConfiguration(url: url))
        #expect(container.appliedMigrationStages == ["lightweight 1.0.0 → 2.0.0"])
        #expect(container.migrationWarnings.isEmpty)
        // The migrated file is exactly what a new V2 store is, apart from its rows.
        let fresh = dir.file("fresh.store")
        _ = try ModelContainer(
            for: Schema(versionedSchema: ConformanceVoyagesV2.self), configurations: ModelConfiguration(url: fresh))
        #expect(try ddl(url) == ddl(fresh))
        let metadata = try StoreMetadata.read(contentsOf: url)
        #expect(metadata.versionHashes == (try StoreMetadata.read(contentsOf: fresh)).versionHashes)
        #expect(metadata.versionIdentifiers == ["2.0.0"])
        // Keys are never reused: Z_MAX is carried over, so a new row gets the next key.
        #expect(try integers(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Voyage'") == [3])
        let context = ModelContext(container)
        context.insert(ConformanceVoyagesV2.Voyage(name: "Faro", startDate: day(4)))
        try context.save()
        #expect(try integers(url, "SELECT Z_PK FROM ZVOYAGE ORDER BY Z_PK") == [1, 2, 3, 4])
        // Reopening finds the store at V2: nothing runs again.
        let again = try ModelContainer(
            for: ConformanceVoyagesV2.Voyage.self, migrationPlan: ConformanceVoyagesPlanV2.self,
            configurations: ModelConfiguration(url: url))
        #expect(again.appliedMigrationStages.isEmpty)
    }

    @Test("A failed migration leaves no working copy behind (the store itself: the migrations suite, MIG-11)")
    func failingStage() throws {
        let url = try writeV1Store()
        do {
            _ = try ModelContainer(
                for: ConformanceVoyagesV2.Voyage.self, migrationPlan: ConformanceVoyagesFailingPlan.self,
                configurations: ModelConfiguration(url: url))
            Issue.record("a throwing willMigrate did not fail the open")
        } catch let error as SwiftDataError {
            #expect(error.message.contains("willMigrate"))
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).filter {
            $0.contains("migrating")
        }
        #expect(leftovers.isEmpty)
    }

    @Test(
        "A migration waits for the store's write lock: while another connection writes, the open fails and nothing changes"
    )
    func migrationTakesTheWriteLock() throws {
        let url = try writeV1Store()
        let writer = try SQLiteConnection(path: url.path, mode: .readWrite)
        defer { writer.close() }
        try writer.execute("BEGIN IMMEDIATE")
        try writer.run("UPDATE ZVOYAGE SET ZLEGACY = 70 WHERE Z_PK = 1")
        do {
            _ = try ModelContainer(
                for: ConformanceVoyagesV2.Voyage.self, migrationPlan: ConformanceVoyagesPlanV2.self,
                configurations: ModelConfiguration(url: url))
            Issue.record("migrated while another connection held the write lock")
        } catch let error as SwiftDataError {
            #expect(error.code == SwiftDataError.storeError.code)
            #expect(error.message.contains("the migration did not start"))
        }
        // The other writer's change commits; the migration then carries it over.
        try writer.execute("COMMIT")
        let container = try ModelContainer(
            for: Schema(versionedSchema: ConformanceVoyagesV1.self), configurations: ModelConfiguration(url: url))
        #expect(
            try ModelContext(container).fetch(FetchDescriptor<ConformanceVoyagesV1.Voyage>()).map(\.legacy).sorted()
                == [8, 9, 70])
        let migrated = try ModelContainer(
            for: ConformanceVoyagesV2.Voyage.self, migrationPlan: ConformanceVoyagesPlanV2.self,
            configurations: ModelConfiguration(url: url))
        #expect(migrated.appliedMigrationStages == ["lightweight 1.0.0 → 2.0.0"])
        #expect(try integers(url, "SELECT count(*) FROM ZVOYAGE") == [3])
        let db = try SQLiteConnection(path: url.path, mode: .readOnly)
        defer { db.close() }
        #expect(try db.scalar("PRAGMA journal_mode") == .text("wal"), "the migrated store stays in WAL mode")
    }

    /// Files named as a killed migration of the store at `url` leaves them (a working copy and
    /// its `-wal` and `-shm`), and one of another store's, which must stay.
    func leaveKilledMigrationScratch(beside url: URL) throws -> (mine: [String], other: String) {
        let fm = FileManager.default
        let work = ".\(url.lastPathComponent).migrating-\(UUID().uuidString)"
        try fm.copyItem(at: url, to: dir.url.appendingPathComponent(work))
        for suffix in ["-wal", "-shm"] {
            #expect(
                fm.createFile(atPath: dir.url.appendingPathComponent(work + suffix).path, contents: Data([1, 2, 3])))
        }
        let other = ".other.store.migrating-\(UUID().uuidString)"
        #expect(fm.createFile(atPath: dir.url.appendingPathComponent(other).path, contents: Data([1])))
        return ([work, work + "-wal", work + "-shm"], other)
    }

    /// The names in the scratch directory that contain `.migrating-`.
    func scratchNames() throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).filter { $0.contains(".migrating-") })
    }

    @Test("A killed migration's working copy and its -wal and -shm are removed by the next migration (MIG-26)")
    func killedMigrationScratchRemovedByMigration() throws {
        let url = try writeV1Store()
        let left = try leaveKilledMigrationScratch(beside: url)
        #expect(try scratchNames() == Set(left.mine + [left.other]))
        let container = try ModelContainer(
            for: ConformanceVoyagesV2.Voyage.self, migrationPlan: ConformanceVoyagesPlanV2.self,
            configurations: ModelConfiguration(url: url))
        #expect(container.appliedMigrationStages == ["lightweight 1.0.0 → 2.0.0"])
        #expect(try scratchNames() == [left.other])
    }

    @Test("A store already migrated when its migration was killed loses the leftover copy on its next open (MIG-26)")
    func killedMigrationScratchRemovedWhenCurrent() throws {
        let url = try writeV1Store()
        let plan = ConformanceVoyagesPlanV2.self
        _ = try ModelContainer(
            for: ConformanceVoyagesV2.Voyage.self, migrationPlan: plan, configurations: ModelConfiguration(url: url))
        let left = try leaveKilledMigrationScratch(beside: url)
        // Read-only: the files stay (nothing is written through such a configuration).
        _ = try ModelContainer(
            for: ConformanceVoyagesV2.Voyage.self, migrationPlan: plan,
            configurations: ModelConfiguration(url: url, allowsSave: false))
        #expect(try scratchNames() == Set(left.mine + [left.other]))
        let container = try ModelContainer(
            for: ConformanceVoyagesV2.Voyage.self, migrationPlan: plan, configurations: ModelConfiguration(url: url))
        #expect(container.appliedMigrationStages.isEmpty)
        #expect(try scratchNames() == [left.other])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<ConformanceVoyagesV2.Voyage>()) == 3)
    }

    @Test("A plan without a stage from the store's version infers the step (MIG-23)")
    func missingStage() throws {
        let url = try writeV1Store()
        let container = try ModelContainer(
            for: ConformanceVoyagesV2.Voyage.self, migrationPlan: ConformanceVoyagesNoStagePlan.self,
            configurations: ModelConfiguration(url: url))
        #expect(container.appliedMigrationStages == ["lightweight 1.0.0 → 2.0.0 (inferred)"])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<ConformanceVoyagesV2.Voyage>()) == 3)
    }

    @Test("A store of none of the plan's versions throws unknownSchema naming what differs")
    func unknownVersion() throws {
        let url = dir.file("other.store")
        _ = try ModelContainer(
            for: Schema(versionedSchema: ConformanceVehiclesV1.self), configurations: ModelConfiguration(url: url))
        do {
            _ = try ModelContainer(
                for: ConformanceVoyagesV2.Voyage.self, migrationPlan: ConformanceVoyagesPlanV2.self,
                configurations: ModelConfiguration(url: url))
            Issue.record("an unrelated store opened")
        } catch let error as SwiftDataError {
            #expect(error.code == SwiftDataError.unknownSchema.code)
            #expect(error.message.contains("Vehicle"))
        }
    }

    @Test("A store that needs migrating cannot be opened with allowsSave: false")
    func readOnlyNeedsMigration() throws {
        let url = try writeV1Store()
        #expect(throws: SwiftDataError.loadIssueModelContainer) {
            _ = try ModelContainer(
                for: ConformanceVoyagesV2.Voyage.self, migrationPlan: ConformanceVoyagesPlanV2.self,
                configurations: ModelConfiguration(url: url, allowsSave: false))
        }
    }

    @Test("History survives a migration: transactions stay, changes point at the renumbered entities")
    func historyKept() throws {
        let url = try writeV1Store()
        let container = try ModelContainer(
            for: Schema(versionedSchema: ConformanceVoyagesV3.self), migrationPlan: ConformanceVoyagesPlanV3.self,
            configurations: ModelConfiguration(url: url))
        let history = try ModelContext(container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        // The V1 save, willMigrate's dedupe save and didMigrate's save.
        #expect(history.count == 3)
        let inserted = history[0].changes.compactMap { change -> PersistentIdentifier? in
            if case .insert(let i) = change { return i.changedPersistentIdentifier } else { return nil }
        }
        #expect(inserted.count == 4)
        #expect(Set(inserted.map(\.entityName)) == ["Voyage", "Port"])
    }
}

// MARK: Relationships and composites across a renumbering

/// A book's size: a composite attribute (one column per element).
struct ShelfSize: Codable, Hashable, Sendable {
    var width: Double
    var height: Double
}

/// Version 1: shelves and books many-to-many, books with one-way tags, a composite size.
enum LibraryV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Shelf.self, Book.self, Tag.self] }

    @Model final class Shelf {
        var label: String
        @Relationship(inverse: \Book.shelves) var books: [Book] = []
        init(label: String) { self.label = label }
    }

    @Model final class Book {
        var title: String
        var size: ShelfSize
        var shelves: [Shelf] = []
        var tags: [Tag] = []
        init(title: String, size: ShelfSize) {
            self.title = title
            self.size = size
        }
    }

    @Model final class Tag {
        var word: String
        init(word: String) { self.word = word }
    }
}

/// Version 2: a new entity `Album` sorts first, so every entity number shifts (join table and
/// one-way key names change with them); `books` and `tags` are renamed with `originalName`.
enum LibraryV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Album.self, Shelf.self, Book.self, Tag.self] }

    @Model final class Album {
        var name: String
        init(name: String) { self.name = name }
    }

    @Model final class Shelf {
        var label: String
        @Relationship(originalName: "books", inverse: \Book.shelves) var volumes: [Book] = []
        init(label: String) { self.label = label }
    }

    @Model final class Book {
        var title: String
        var size: ShelfSize
        var shelves: [Shelf] = []
        @Relationship(originalName: "tags") var labels: [Tag] = []
        init(title: String, size: ShelfSize) {
            self.title = title
            self.size = size
        }
    }

    @Model final class Tag {
        var word: String
        init(word: String) { self.word = word }
    }
}

enum LibraryPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [LibraryV1.self, LibraryV2.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: LibraryV1.self, toVersion: LibraryV2.self)] }
}

extension MigrationTests {
    @Test("Renumbered entities keep many-to-many links, one-way to-many keys and composite values")
    func renumberedRelationships() throws {
        let url = dir.file("library.store")
        do {
            let v1 = try ModelContainer(
                for: Schema(versionedSchema: LibraryV1.self), configurations: ModelConfiguration(url: url))
            let context = ModelContext(v1)
            let top = LibraryV1.Shelf(label: "top")
            let bottom = LibraryV1.Shelf(label: "bottom")
            let atlas = LibraryV1.Book(title: "Atlas", size: ShelfSize(width: 30, height: 40))
            let novel = LibraryV1.Book(title: "Novel", size: ShelfSize(width: 12, height: 19))
            [top, bottom].forEach(context.insert)
            [atlas, novel].forEach(context.insert)
            top.books = [atlas, novel]
            bottom.books = [atlas]
            atlas.tags = [LibraryV1.Tag(word: "maps"), LibraryV1.Tag(word: "big")]
            novel.tags = [LibraryV1.Tag(word: "fiction")]
            try context.save()
        }
        let before = try StoreMetadata.read(contentsOf: url)
        let container = try ModelContainer(
            for: Schema(versionedSchema: LibraryV2.self), migrationPlan: LibraryPlan.self,
            configurations: ModelConfiguration(url: url))
        // Album takes number 1: Book, Shelf and Tag move from 1, 2, 3 to 2, 3, 4.
        #expect(["Album", "Book", "Shelf", "Tag"].map { container.storeNames.entityNumber($0) } == [1, 2, 3, 4])
        let context = ModelContext(container)
        let shelves = try context.fetch(FetchDescriptor<LibraryV2.Shelf>(sortBy: [SortDescriptor(\.label)]))
        #expect(shelves.map(\.label) == ["bottom", "top"])
        #expect(shelves.map { $0.volumes.map(\.title).sorted() } == [["Atlas"], ["Atlas", "Novel"]])
        let books = try context.fetch(FetchDescriptor<LibraryV2.Book>(sortBy: [SortDescriptor(\.title)]))
        #expect(books.map { $0.labels.map(\.word).sorted() } == [["big", "maps"], ["fiction"]])
        #expect(books.map(\.size) == [ShelfSize(width: 30, height: 40), ShelfSize(width: 12, height: 19)])
        #expect(books.map { $0.shelves.map(\.label).sorted() } == [["bottom", "top"], ["top"]])
        // The layout is a new V2 store's, with the join table and key columns renamed.
        let fresh = dir.file("library-fresh.store")
        _ = try ModelContainer(
            for: Schema(versionedSchema: LibraryV2.self), configurations: ModelConfiguration(url: fresh))
        #expect(try ddl(url) == ddl(fresh))
        #expect(try StoreMetadata.read(contentsOf: url).uuid == before.uuid, "the store keeps its identifier")
        // Saving through the migrated store works as on a new one.
        books[1].labels.append(LibraryV2.Tag(word: "paperback"))
        context.insert(LibraryV2.Album(name: "Maps of the world"))
        try context.save()
        let reread = ModelContext(container)
        let novel = try reread.fetch(FetchDescriptor<LibraryV2.Book>(predicate: #Predicate { $0.title == "Novel" }))
        #expect(novel.first?.labels.map(\.word).sorted() == ["fiction", "paperback"])
    }
}

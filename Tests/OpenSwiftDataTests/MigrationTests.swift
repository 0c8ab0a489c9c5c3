import CSQLite
import Foundation
import Testing
@testable import OpenSwiftData

/// Schema migrations through `SchemaMigrationPlan` (MIG-01…11), on store files. Serialized:
/// the custom stage logs what its closures saw into one shared log.
@Suite("Migrations", .serialized)
struct MigrationTests {
    let dir = TemporaryDirectory("migration")

    /// A V1 store with three voyages (two named "Lisbon") and a port.
    func writeV1Store(_ name: String = "voyages.store") throws -> URL {
        let url = dir.file(name)
        let container = try ModelContainer(for: Schema(versionedSchema: VoyagesV1.self),
                                           configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let port = VoyagesV1.Port(code: "LIS")
        context.insert(port)
        context.insert(VoyagesV1.Voyage(name: "Lisbon", start: day(1), legacy: 7, port: port))
        context.insert(VoyagesV1.Voyage(name: "Porto", start: day(2), legacy: 8))
        context.insert(VoyagesV1.Voyage(name: "Lisbon", start: day(3), legacy: 9, port: port))
        try context.save()
        return url
    }

    /// The store's content, to prove a failed open left it alone: the main file's bytes and the
    /// WAL's (a read-only look may leave an empty WAL where there was none; both mean no frames).
    func snapshot(_ url: URL) throws -> [Data] {
        let fm = FileManager.default
        return try ["", "-wal"].map { suffix in
            fm.fileExists(atPath: url.path + suffix) ? try Data(contentsOf: URL(fileURLWithPath: url.path + suffix)) : Data()
        }
    }

    func columns(_ url: URL, _ table: String) throws -> [String] {
        let db = try SQLiteConnection(path: url.path, mode: .readOnly)
        defer { db.close() }
        return try db.rows("SELECT name FROM pragma_table_info(?)", [.text(table)]).compactMap {
            if case .text(let s)? = $0.first { s } else { nil }
        }
    }

    /// Every `CREATE` statement of a store, sorted: the layout, independent of the data.
    func ddl(_ url: URL) throws -> [String] {
        let db = try SQLiteConnection(path: url.path, mode: .readOnly)
        defer { db.close() }
        return try db.rows("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL").compactMap {
            if case .text(let s)? = $0.first { s } else { nil }
        }.sorted()
    }

    @Test("MIG-01 MIG-02 MIG-03 MIG-05 lightweight V1 → V2: added optional nil, added default 0, renamed values kept, removed column gone")
    func lightweight() throws {
        let url = try writeV1Store()
        let container = try ModelContainer(for: VoyagesV2.Voyage.self, migrationPlan: VoyagesPlanV2.self,
                                           configurations: ModelConfiguration(url: url))
        #expect(container.appliedMigrationStages == ["lightweight 1.0.0 → 2.0.0"])
        #expect(container.migrationWarnings.isEmpty)
        let voyages = try ModelContext(container).fetch(FetchDescriptor<VoyagesV2.Voyage>(sortBy: [SortDescriptor(\.startDate)]))
        #expect(voyages.map(\.name) == ["Lisbon", "Porto", "Lisbon"])
        #expect(voyages.map(\.note) == [nil, nil, nil])                 // MIG-01
        #expect(voyages.map(\.count) == [0, 0, 0])                      // MIG-02
        #expect(voyages.map(\.startDate) == [day(1), day(2), day(3)])   // MIG-03
        #expect(voyages.map { $0.harbour?.code } == ["LIS", nil, "LIS"]) // relationship originalName
        let table = container.storeNames.table("Voyage") ?? ""
        #expect(!(try columns(url, table)).contains("ZLEGACY"))         // MIG-05
        #expect(try columns(url, table).contains("ZSTARTDATE"))
        // The migrated file is exactly what a new V2 store is, apart from its rows.
        let fresh = dir.file("fresh.store")
        _ = try ModelContainer(for: Schema(versionedSchema: VoyagesV2.self), configurations: ModelConfiguration(url: fresh))
        #expect(try ddl(url) == ddl(fresh))
        let metadata = try StoreMetadata.read(contentsOf: url)
        #expect(metadata.versionHashes == (try StoreMetadata.read(contentsOf: fresh)).versionHashes)
        #expect(metadata.versionIdentifiers == ["2.0.0"])
        // Keys are never reused: a new row gets a key above every migrated one.
        let context = ModelContext(container)
        let added = VoyagesV2.Voyage(name: "Faro", startDate: day(4))
        context.insert(added)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<VoyagesV2.Voyage>()) == 4)
        // Reopening finds the store at V2: nothing runs again.
        let again = try ModelContainer(for: VoyagesV2.Voyage.self, migrationPlan: VoyagesPlanV2.self,
                                       configurations: ModelConfiguration(url: url))
        #expect(again.appliedMigrationStages.isEmpty)
    }

    @Test("MIG-04 a rename without originalName drops the values and warns")
    func renameWithoutOriginalName() throws {
        let url = try writeV1Store()
        let container = try ModelContainer(for: VoyagesRenamedV2.Voyage.self, migrationPlan: VoyagesRenamedPlan.self,
                                           configurations: ModelConfiguration(url: url))
        let voyages = try ModelContext(container).fetch(FetchDescriptor<VoyagesRenamedV2.Voyage>())
        #expect(voyages.count == 3)
        #expect(voyages.allSatisfy { $0.startedOn == nil })
        #expect(Set(voyages.map(\.legacy)) == [7, 8, 9])
        #expect(container.migrationWarnings.count == 1)
        #expect(container.migrationWarnings.first?.contains("@Attribute(originalName: \"start_date\")") == true)
    }

    @Test("MIG-06 custom stage: willMigrate sees V2 models, the schema changes, didMigrate sees V3 models")
    func customStage() throws {
        let v2 = try writeV1Store()
        _ = try ModelContainer(for: VoyagesV2.Voyage.self, migrationPlan: VoyagesPlanV2.self,
                               configurations: ModelConfiguration(url: v2))
        _ = MigrationLog.shared.take()
        let container = try ModelContainer(for: Schema(versionedSchema: VoyagesV3.self), migrationPlan: VoyagesPlanV3.self,
                                           configurations: ModelConfiguration(url: v2))
        // Order: willMigrate (3 V2 voyages, deduplicated to 2), then the schema change (the
        // unique index needs the duplicates gone), then didMigrate (2 V3 voyages).
        #expect(MigrationLog.shared.take() == ["willMigrate: 3 V2 voyages", "didMigrate: 2 V3 voyages"])
        #expect(container.appliedMigrationStages == ["custom 2.0.0 → 3.0.0"])
        let voyages = try ModelContext(container).fetch(FetchDescriptor<VoyagesV3.Voyage>(sortBy: [SortDescriptor(\.name)]))
        #expect(voyages.map(\.name) == ["Lisbon", "Porto"])
        #expect(voyages.map(\.rating) == [5, 5])   // didMigrate's unsaved change was saved
        #expect(voyages.first?.startDate == day(1))
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<VoyagesV3.Crew>()) == 0)
    }

    @Test("MIG-07 a V1 store runs V1→V2 then V2→V3; a V2 store runs only V2→V3")
    func multiStep() throws {
        let v1 = try writeV1Store("v1.store")
        _ = MigrationLog.shared.take()
        let fromV1 = try ModelContainer(for: Schema(versionedSchema: VoyagesV3.self), migrationPlan: VoyagesPlanV3.self,
                                        configurations: ModelConfiguration(url: v1))
        #expect(fromV1.appliedMigrationStages == ["lightweight 1.0.0 → 2.0.0", "custom 2.0.0 → 3.0.0"])
        #expect(MigrationLog.shared.take() == ["willMigrate: 3 V2 voyages", "didMigrate: 2 V3 voyages"])
        #expect(try ModelContext(fromV1).fetch(FetchDescriptor<VoyagesV3.Voyage>()).map(\.startDate).sorted() == [day(1), day(2)])

        let v2 = try writeV1Store("v2.store")
        _ = try ModelContainer(for: VoyagesV2.Voyage.self, migrationPlan: VoyagesPlanV2.self,
                               configurations: ModelConfiguration(url: v2))
        let fromV2 = try ModelContainer(for: Schema(versionedSchema: VoyagesV3.self), migrationPlan: VoyagesPlanV3.self,
                                        configurations: ModelConfiguration(url: v2))
        #expect(fromV2.appliedMigrationStages == ["custom 2.0.0 → 3.0.0"])
        _ = MigrationLog.shared.take()
    }

    @Test("MIG-08 a store newer than the app's models throws backwardMigration and is not modified")
    func backward() throws {
        let url = try writeV1Store()
        _ = try ModelContainer(for: Schema(versionedSchema: VoyagesV3.self), migrationPlan: VoyagesPlanV3.self,
                               configurations: ModelConfiguration(url: url))
        _ = MigrationLog.shared.take()
        let before = try snapshot(url)
        // The plan knows V3 but the app's models are V2.
        #expect(throws: SwiftDataError.backwardMigration) {
            _ = try ModelContainer(for: VoyagesV2.Voyage.self, migrationPlan: VoyagesPlanV3.self,
                                   configurations: ModelConfiguration(url: url))
        }
        // The plan does not know V3 at all: the store's recorded version is newer.
        do {
            _ = try ModelContainer(for: VoyagesV2.Voyage.self, migrationPlan: VoyagesPlanV2.self,
                                   configurations: ModelConfiguration(url: url))
            Issue.record("opening a V3 store with V1/V2 models succeeded")
        } catch let error as SwiftDataError {
            #expect(error.code == SwiftDataError.backwardMigration.code)
            #expect(error.message.contains("3.0.0"))
        }
        #expect(try snapshot(url) == before)
    }

    @Test("MIG-09 a type change as a lightweight stage throws, naming entity, attribute and types; the store is unchanged")
    func typeChange() throws {
        let url = try writeV1Store()
        let before = try snapshot(url)
        do {
            _ = try ModelContainer(for: VoyagesRetypedV2.Voyage.self, migrationPlan: VoyagesRetypedPlan.self,
                                   configurations: ModelConfiguration(url: url))
            Issue.record("an Int → String change migrated silently")
        } catch let error as SwiftDataError {
            #expect(error.code == SwiftDataError.incompatibleSchema.code)
            #expect(error.entityName == "Voyage")
            #expect(error.propertyName == "legacy")
            #expect(error.message.contains("changes type from Int to String"))
        }
        #expect(try snapshot(url) == before)
        // Still a V1 store.
        let v1 = try ModelContainer(for: Schema(versionedSchema: VoyagesV1.self), configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(v1).fetchCount(FetchDescriptor<VoyagesV1.Voyage>()) == 3)
    }

    @Test("MIG-10 subclasses added to a flat base: existing rows fetch as the base class")
    func addedSubclasses() throws {
        let url = dir.file("vehicles.store")
        do {
            let v1 = try ModelContainer(for: Schema(versionedSchema: VehiclesV1.self), configurations: ModelConfiguration(url: url))
            let context = ModelContext(v1)
            context.insert(VehiclesV1.Vehicle(plate: "AB-12"))
            context.insert(VehiclesV1.Vehicle(plate: "CD-34"))
            try context.save()
        }
        let container = try ModelContainer(for: Schema(versionedSchema: VehiclesV2.self), migrationPlan: VehiclesPlan.self,
                                           configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let vehicles = try context.fetch(FetchDescriptor<VehiclesV2.Vehicle>(sortBy: [SortDescriptor(\.plate)]))
        #expect(vehicles.map(\.plate) == ["AB-12", "CD-34"])
        #expect(vehicles.allSatisfy { type(of: $0) == VehiclesV2.Vehicle.self })
        #expect(try context.fetchCount(FetchDescriptor<VehiclesV2.Car>()) == 0)
        context.insert(VehiclesV2.Car(plate: "EF-56", seats: 2))
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<VehiclesV2.Car>()).map(\.seats) == [2])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<VehiclesV2.Vehicle>()) == 3)
    }

    @Test("MIG-11 a failing willMigrate makes the container throw and leaves the store as it was")
    func failingStage() throws {
        let url = try writeV1Store()
        let before = try snapshot(url)
        do {
            _ = try ModelContainer(for: VoyagesV2.Voyage.self, migrationPlan: VoyagesFailingPlan.self,
                                   configurations: ModelConfiguration(url: url))
            Issue.record("a throwing willMigrate did not fail the open")
        } catch let error as SwiftDataError {
            #expect(error.message.contains("willMigrate"))
            #expect(error.underlying is VoyagesFailingPlan.Refused)
        }
        #expect(try snapshot(url) == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).filter { $0.contains("migrating") }
        #expect(leftovers.isEmpty)
        let v1 = try ModelContainer(for: Schema(versionedSchema: VoyagesV1.self), configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(v1).fetchCount(FetchDescriptor<VoyagesV1.Voyage>()) == 3)
    }

    @Test("CFG-05 a non-optional attribute added without a default is refused with what to do")
    func requiredWithoutDefault() throws {
        let url = try writeV1Store()
        let before = try snapshot(url)
        do {
            _ = try ModelContainer(for: VoyagesRequiredV2.Voyage.self, migrationPlan: VoyagesRequiredPlan.self,
                                   configurations: ModelConfiguration(url: url))
            Issue.record("a required attribute without a default was added to existing rows")
        } catch let error as SwiftDataError {
            #expect(error.propertyName == "captain")
            #expect(error.message.contains("without a default value"))
        }
        #expect(try snapshot(url) == before)
    }

    @Test("A plan without a stage from the store's version says which stage to add")
    func missingStage() throws {
        let url = try writeV1Store()
        do {
            _ = try ModelContainer(for: VoyagesV2.Voyage.self, migrationPlan: VoyagesNoStagePlan.self,
                                   configurations: ModelConfiguration(url: url))
            Issue.record("a plan without stages migrated")
        } catch let error as SwiftDataError {
            #expect(error.code == SwiftDataError.loadIssueModelContainer.code)
            #expect(error.message.contains(".lightweight(fromVersion: VoyagesV1.self, toVersion: VoyagesV2.self)"))
        }
    }

    @Test("A store of none of the plan's versions throws unknownSchema naming what differs")
    func unknownVersion() throws {
        let url = dir.file("other.store")
        _ = try ModelContainer(for: Schema(versionedSchema: VehiclesV1.self), configurations: ModelConfiguration(url: url))
        do {
            _ = try ModelContainer(for: VoyagesV2.Voyage.self, migrationPlan: VoyagesPlanV2.self,
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
            _ = try ModelContainer(for: VoyagesV2.Voyage.self, migrationPlan: VoyagesPlanV2.self,
                                   configurations: ModelConfiguration(url: url, allowsSave: false))
        }
    }

    @Test("HIS-01 history survives a migration: transactions stay, changes point at the renumbered entities")
    func historyKept() throws {
        let url = try writeV1Store()
        let container = try ModelContainer(for: Schema(versionedSchema: VoyagesV3.self), migrationPlan: VoyagesPlanV3.self,
                                           configurations: ModelConfiguration(url: url))
        _ = MigrationLog.shared.take()
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

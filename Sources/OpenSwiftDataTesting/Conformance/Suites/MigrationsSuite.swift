import Foundation
import OpenSwiftData

extension ConformanceSuite {
    /// Schema migrations: lightweight and custom stages, multi-step plans, refusals, and a
    /// failed stage leaving the store as it was (MIG-01…11, CFG-05), and the migrations inferred
    /// without a plan or for a step the plan has no stage for (MIG-20, 21, 23, 24).
    ///
    /// Migrations happen to files, so every case writes an older store file first and opens it
    /// through a plan; on the in-memory store kind the migrated file is then loaded into an
    /// in-memory container (`restore(from:)`) and the checks run there.
    public static var migrations: ConformanceSuite {
        ConformanceSuite(
            name: "migrations", title: "schema migrations: lightweight and custom stages, multi-step plans, refusals",
            cases: [
                ConformanceCase(
                    suite: "migrations", id: "MIG-01", title: "an added optional attribute is nil in migrated rows"
                ) { check in
                    let migrated = try check.migrate(
                        try check.voyagesV1(), to: ConformanceVoyagesV2.self, plan: ConformanceVoyagesPlanV2.self)
                    let voyages = try check.voyages(ConformanceVoyagesV2.Voyage.self, in: migrated.container)
                    try check.expectEqual(voyages.map(\.name), ["Lisbon", "Porto", "Lisbon"], "names kept")
                    try check.expectEqual(voyages.map(\.note), [nil, nil, nil], "note of migrated rows")
                    try check.expectEqual(migrated.stages, ["lightweight 1.0.0 → 2.0.0"], "stages run")
                },
                ConformanceCase(
                    suite: "migrations", id: "MIG-02",
                    title: "an added attribute with a default holds the default in migrated rows"
                ) { check in
                    let migrated = try check.migrate(
                        try check.voyagesV1(), to: ConformanceVoyagesV2.self, plan: ConformanceVoyagesPlanV2.self)
                    let voyages = try check.voyages(ConformanceVoyagesV2.Voyage.self, in: migrated.container)
                    try check.expectEqual(voyages.map(\.count), [0, 0, 0], "count of migrated rows")
                },
                ConformanceCase(
                    suite: "migrations", id: "MIG-03",
                    title: "a rename with originalName keeps the values (attribute and relationship)"
                ) { check in
                    let migrated = try check.migrate(
                        try check.voyagesV1(), to: ConformanceVoyagesV2.self, plan: ConformanceVoyagesPlanV2.self)
                    let voyages = try check.voyages(ConformanceVoyagesV2.Voyage.self, in: migrated.container)
                    try check.expectEqual(
                        voyages.map(\.startDate), ConformanceCheck.voyageDates, "startDate (was start_date)")
                    try check.expectEqual(voyages.map { $0.harbour?.code }, ["LIS", nil, "LIS"], "harbour (was port)")
                    try check.expectEqual(migrated.warnings, [], "warnings")
                },
                ConformanceCase(
                    suite: "migrations", id: "MIG-04", title: "a rename without originalName drops the values and warns"
                ) { check in
                    let migrated = try check.migrate(
                        try check.voyagesV1(), to: ConformanceVoyagesRenamedV2.self,
                        plan: ConformanceVoyagesRenamedPlan.self)
                    let voyages = try check.voyages(ConformanceVoyagesRenamedV2.Voyage.self, in: migrated.container)
                    try check.expectEqual(voyages.map(\.startedOn), [nil, nil, nil], "startedOn of migrated rows")
                    try check.expectEqual(voyages.map(\.legacy), [7, 8, 9], "untouched attribute")
                    try check.expect(
                        migrated.warnings.count == 1 && migrated.warnings[0].contains("originalName: \"start_date\""),
                        "one warning naming originalName: \"start_date\"", actual: "\(migrated.warnings)")
                },
                ConformanceCase(
                    suite: "migrations", id: "MIG-05",
                    title: "a removed attribute's column is gone and the rest is kept"
                ) { check in
                    let migrated = try check.migrate(
                        try check.voyagesV1(), to: ConformanceVoyagesV2.self, plan: ConformanceVoyagesPlanV2.self)
                    let columns = try check.columns(of: "Voyage", in: migrated.container)
                    try check.expect(!columns.contains("ZLEGACY"), "no ZLEGACY column", actual: "\(columns)")
                    try check.expect(
                        columns.contains("ZNAME") && columns.contains("ZSTARTDATE"), "ZNAME and ZSTARTDATE",
                        actual: "\(columns)")
                },
                ConformanceCase(
                    suite: "migrations", id: "MIG-06",
                    title: "custom stage: willMigrate on V2 models, the schema change, didMigrate on V3 models"
                ) { check in
                    let url = try check.voyagesV1()
                    _ = try check.migrate(url, to: ConformanceVoyagesV2.self, plan: ConformanceVoyagesPlanV2.self)
                    _ = ConformanceMigrationLog.shared.take(in: check.scratch.url)
                    let migrated = try check.migrate(
                        url, to: ConformanceVoyagesV3.self, plan: ConformanceVoyagesPlanV3.self)
                    // willMigrate sees 3 V2 voyages and removes a duplicate name; the schema change
                    // (a unique name) needs that; didMigrate sees 2 V3 voyages.
                    try check.expectEqual(
                        ConformanceMigrationLog.shared.take(in: check.scratch.url),
                        ["willMigrate: 3 V2 voyages", "didMigrate: 2 V3 voyages"], "what the closures saw, in order")
                    try check.expectEqual(migrated.stages, ["custom 2.0.0 → 3.0.0"], "stages run")
                    let voyages = try check.voyages(ConformanceVoyagesV3.Voyage.self, in: migrated.container)
                    try check.expectEqual(voyages.map(\.name), ["Lisbon", "Porto"], "names after deduplication")
                    try check.expectEqual(
                        voyages.map(\.rating), [5, 5], "rating set by didMigrate (saved by the stage)")
                    try check.expectEqual(
                        try ModelContext(migrated.container).fetchCount(FetchDescriptor<ConformanceVoyagesV3.Crew>()),
                        0,
                        "rows of the added entity")
                },
                ConformanceCase(
                    suite: "migrations", id: "MIG-07",
                    title: "a V1 store runs V1→V2 then V2→V3; a V2 store runs only V2→V3"
                ) { check in
                    let v1 = try check.voyagesV1(name: "v1")
                    let fromV1 = try check.migrate(
                        v1, to: ConformanceVoyagesV3.self, plan: ConformanceVoyagesPlanV3.self)
                    try check.expectEqual(
                        fromV1.stages, ["lightweight 1.0.0 → 2.0.0", "custom 2.0.0 → 3.0.0"], "stages from V1")
                    try check.expectEqual(
                        try check.voyages(ConformanceVoyagesV3.Voyage.self, in: fromV1.container).map(\.startDate),
                        [ConformanceCheck.voyageDates[0], ConformanceCheck.voyageDates[1]], "dates through both stages")
                    let v2 = try check.voyagesV1(name: "v2")
                    _ = try check.migrate(v2, to: ConformanceVoyagesV2.self, plan: ConformanceVoyagesPlanV2.self)
                    let fromV2 = try check.migrate(
                        v2, to: ConformanceVoyagesV3.self, plan: ConformanceVoyagesPlanV3.self)
                    try check.expectEqual(fromV2.stages, ["custom 2.0.0 → 3.0.0"], "stages from V2")
                    _ = ConformanceMigrationLog.shared.take(in: check.scratch.url)
                },
                ConformanceCase(
                    suite: "migrations", id: "MIG-08",
                    title: "a store newer than the app's models throws backwardMigration and is not modified"
                ) { check in
                    let url = try check.voyagesV1()
                    _ = try check.migrate(url, to: ConformanceVoyagesV3.self, plan: ConformanceVoyagesPlanV3.self)
                    _ = ConformanceMigrationLog.shared.take(in: check.scratch.url)
                    let before = try ConformanceCheck.content(of: url)
                    try check.expectError(SwiftDataError.backwardMigration, "V2 models, a plan that knows V3") {
                        try check.migrate(url, to: ConformanceVoyagesV2.self, plan: ConformanceVoyagesPlanV3.self)
                    }
                    let error = try check.expectError(
                        SwiftDataError.backwardMigration, "V2 models, a plan that only knows V1 and V2"
                    ) {
                        try check.migrate(url, to: ConformanceVoyagesV2.self, plan: ConformanceVoyagesPlanV2.self)
                    }
                    try check.expect(
                        error.message.contains("3.0.0"), "the message names the store's version 3.0.0",
                        actual: error.message)
                    try check.expect(try ConformanceCheck.content(of: url) == before, "the store file is unchanged")
                },
                ConformanceCase(
                    suite: "migrations", id: "MIG-09",
                    title: "a type change as a lightweight stage throws and changes nothing"
                ) { check in
                    let url = try check.voyagesV1()
                    let before = try ConformanceCheck.content(of: url)
                    let error = try check.expectError(SwiftDataError.incompatibleSchema, "Int → String as lightweight")
                    {
                        try check.migrate(
                            url, to: ConformanceVoyagesRetypedV2.self, plan: ConformanceVoyagesRetypedPlan.self)
                    }
                    try check.expectEqual(error.entityName, "Voyage", "the error's entity")
                    try check.expectEqual(error.propertyName, "legacy", "the error's property")
                    try check.expect(
                        error.message.contains("from Int to String"), "the message names both types",
                        actual: error.message)
                    try check.expect(try ConformanceCheck.content(of: url) == before, "the store file is unchanged")
                },
                ConformanceCase(
                    suite: "migrations", id: "MIG-10",
                    title: "subclasses added to a flat base: existing rows fetch as the base class"
                ) { check in
                    let url = check.storeFile("vehicles")
                    do {
                        let v1 = try ModelContainer(
                            for: Schema(versionedSchema: ConformanceVehiclesV1.self),
                            configurations: ModelConfiguration(url: url))
                        let context = ModelContext(v1)
                        context.insert(ConformanceVehiclesV1.Vehicle(plate: "AB-12"))
                        context.insert(ConformanceVehiclesV1.Vehicle(plate: "CD-34"))
                        try context.save()
                    }
                    let migrated = try check.migrate(
                        url, to: ConformanceVehiclesV2.self, plan: ConformanceVehiclesPlan.self)
                    let context = ModelContext(migrated.container)
                    let vehicles = try context.fetch(
                        FetchDescriptor<ConformanceVehiclesV2.Vehicle>(sortBy: [SortDescriptor(\.plate)]))
                    try check.expectEqual(vehicles.map(\.plate), ["AB-12", "CD-34"], "plates")
                    try check.expect(
                        vehicles.allSatisfy { type(of: $0) == ConformanceVehiclesV2.Vehicle.self },
                        "every row is a plain Vehicle",
                        actual: "\(vehicles.map { type(of: $0) })")
                    try check.expectEqual(
                        try context.fetchCount(FetchDescriptor<ConformanceVehiclesV2.Car>()), 0, "cars")
                    context.insert(ConformanceVehiclesV2.Car(plate: "EF-56", seats: 2))
                    try context.save()
                    try check.expectEqual(
                        try ModelContext(migrated.container).fetch(FetchDescriptor<ConformanceVehiclesV2.Car>()).map(
                            \.seats),
                        [2], "a new subclass row saves")
                },
                ConformanceCase(
                    suite: "migrations", id: "MIG-11",
                    title: "a throwing willMigrate fails the open and leaves the store as it was"
                ) { check in
                    let url = try check.voyagesV1()
                    let before = try ConformanceCheck.content(of: url)
                    let error = try check.expectError(
                        SwiftDataError.loadIssueModelContainer, "a stage whose willMigrate throws"
                    ) {
                        try check.migrate(url, to: ConformanceVoyagesV2.self, plan: ConformanceVoyagesFailingPlan.self)
                    }
                    try check.expect(
                        error.underlying is ConformanceVoyagesFailingPlan.Refused,
                        "the stage's own error is the underlying error",
                        actual: "\(String(describing: error.underlying))")
                    try check.expect(try ConformanceCheck.content(of: url) == before, "the store file is unchanged")
                    let v1 = try ModelContainer(
                        for: Schema(versionedSchema: ConformanceVoyagesV1.self),
                        configurations: ModelConfiguration(url: url))
                    try check.expectEqual(
                        try ModelContext(v1).fetchCount(FetchDescriptor<ConformanceVoyagesV1.Voyage>()), 3,
                        "V1 rows still there")
                },
                ConformanceCase(
                    suite: "migrations", id: "MIG-20",
                    title:
                        "without a plan, a store of changed models is migrated by inference: new optional nil, new defaulted at its default"
                ) { check in
                    let migrated = try check.migrate(try check.voyagesV1(), to: ConformanceVoyagesV2.self, plan: nil)
                    let voyages = try check.voyages(ConformanceVoyagesV2.Voyage.self, in: migrated.container)
                    try check.expectEqual(voyages.map(\.name), ["Lisbon", "Porto", "Lisbon"], "names kept")
                    try check.expectEqual(voyages.map(\.note), [nil, nil, nil], "added optional")
                    try check.expectEqual(voyages.map(\.count), [0, 0, 0], "added with a default")
                    try check.expectEqual(migrated.stages, ["inferred lightweight"], "stages run")
                },
                ConformanceCase(
                    suite: "migrations", id: "MIG-21",
                    title: "without a plan, removed attributes go and originalName renames keep their values"
                ) { check in
                    let migrated = try check.migrate(try check.voyagesV1(), to: ConformanceVoyagesV2.self, plan: nil)
                    let voyages = try check.voyages(ConformanceVoyagesV2.Voyage.self, in: migrated.container)
                    try check.expectEqual(
                        voyages.map(\.startDate), ConformanceCheck.voyageDates, "startDate (was start_date)")
                    try check.expectEqual(voyages.map { $0.harbour?.code }, ["LIS", nil, "LIS"], "harbour (was port)")
                    let columns = try check.columns(of: "Voyage", in: migrated.container)
                    try check.expect(
                        !columns.contains("ZLEGACY"), "the removed legacy column is gone", actual: "\(columns)")
                },
                ConformanceCase(
                    suite: "migrations", id: "MIG-23",
                    title: "a plan with no stage from the store's version infers the lightweight step"
                ) { check in
                    let migrated = try check.migrate(
                        try check.voyagesV1(), to: ConformanceVoyagesV2.self, plan: ConformanceVoyagesNoStagePlan.self)
                    let voyages = try check.voyages(ConformanceVoyagesV2.Voyage.self, in: migrated.container)
                    try check.expectEqual(voyages.map(\.count), [0, 0, 0], "added with a default")
                    try check.expectEqual(migrated.stages, ["lightweight 1.0.0 → 2.0.0 (inferred)"], "stages run")
                },
                ConformanceCase(
                    suite: "migrations", id: "MIG-24",
                    title:
                        "without a plan, a type change throws incompatibleSchema naming the property; the store is unchanged"
                ) { check in
                    let url = try check.voyagesV1()
                    let before = try ConformanceCheck.content(of: url)
                    let error = try check.expectError(SwiftDataError.incompatibleSchema, "Int → String without a plan")
                    {
                        try ModelContainer(
                            for: Schema(versionedSchema: ConformanceVoyagesRetypedV2.self),
                            configurations: ModelConfiguration(url: url))
                    }
                    try check.expectEqual(error.propertyName, "legacy", "the error's property")
                    try check.expect(
                        error.message.contains("Migrations article"), "the message points to the Migrations article",
                        actual: error.message)
                    try check.expect(try ConformanceCheck.content(of: url) == before, "the store file is unchanged")
                },
                ConformanceCase(
                    suite: "migrations", id: "CFG-05",
                    title:
                        "a store of other models opened read-only, or a required attribute without a default, throws and changes nothing"
                ) { check in
                    let url = try check.voyagesV1()
                    let before = try ConformanceCheck.content(of: url)
                    try check.expectError(SwiftDataError.incompatibleSchema, "V2 models, read-only, without a plan") {
                        try ModelContainer(
                            for: Schema(versionedSchema: ConformanceVoyagesV2.self),
                            configurations: ModelConfiguration(url: url, allowsSave: false))
                    }
                    let error = try check.expectError(
                        SwiftDataError.incompatibleSchema, "a required attribute without a default"
                    ) {
                        try check.migrate(
                            url, to: ConformanceVoyagesRequiredV2.self, plan: ConformanceVoyagesRequiredPlan.self)
                    }
                    try check.expectEqual(error.propertyName, "captain", "the error's property")
                    try check.expect(try ConformanceCheck.content(of: url) == before, "the store file is unchanged")
                },
            ])
    }
}

extension ConformanceCheck {
    /// The start dates of the three voyages ``voyagesV1(name:)`` writes, in order.
    static let voyageDates = [1, 2, 3].map { Date(timeIntervalSinceReferenceDate: Double($0) * 86_400) }

    /// A store file `name.store` in the case's scratch directory (not created).
    package func storeFile(_ name: String) -> URL { scratch.url.appendingPathComponent("\(name).store") }

    /// Writes a ``ConformanceVoyagesV1`` store: voyages Lisbon, Porto, Lisbon (two from port LIS),
    /// `legacy` 7, 8, 9. Returns its URL.
    func voyagesV1(name: String = "voyages") throws -> URL {
        let url = storeFile(name)
        let container = try ModelContainer(
            for: Schema(versionedSchema: ConformanceVoyagesV1.self),
            configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let port = ConformanceVoyagesV1.Port(code: "LIS")
        context.insert(port)
        let d = ConformanceCheck.voyageDates
        context.insert(ConformanceVoyagesV1.Voyage(name: "Lisbon", start: d[0], legacy: 7, port: port))
        context.insert(ConformanceVoyagesV1.Voyage(name: "Porto", start: d[1], legacy: 8))
        context.insert(ConformanceVoyagesV1.Voyage(name: "Lisbon", start: d[2], legacy: 9, port: port))
        try context.save()
        return url
    }

    /// Opens the store file at `url` with `version`'s models through `plan` (migrating the file;
    /// `nil`: no plan, an inferred migration)
    /// and returns a container of this check's store kind holding the result, with the stages
    /// that ran and their warnings. On disk that is the migrating container itself; in memory, a
    /// new in-memory container restored from the migrated file.
    package func migrate(
        _ url: URL, to version: any VersionedSchema.Type, plan: (any SchemaMigrationPlan.Type)?
    ) throws
        -> (container: ModelContainer, stages: [String], warnings: [String])
    {
        let schema = Schema(versionedSchema: version)
        let disk = try ModelContainer(for: schema, migrationPlan: plan, configurations: [ModelConfiguration(url: url)])
        guard store == .memory else { return (disk, disk.appliedMigrationStages, disk.migrationWarnings) }
        let memory = try ModelContainer(for: schema, configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        try memory.restore(from: url)
        return (memory, disk.appliedMigrationStages, disk.migrationWarnings)
    }

    /// Every `T` in `container`, in the order they were inserted (by identifier).
    func voyages<T: PersistentModel>(_ type: T.Type, in container: ModelContainer) throws -> [T] {
        try ModelContext(container).fetch(FetchDescriptor<T>()).sorted { $0.persistentModelID < $1.persistentModelID }
    }

    /// The column names of `entity`'s table in the container's saved content (a backup of it,
    /// so both store kinds are read the same way).
    func columns(of entity: String, in container: ModelContainer) throws -> [String] {
        containerCount += 1
        let copy = scratch.url.appendingPathComponent("columns\(containerCount).sqlite")
        try container.backup(to: copy)
        let db = try SQLiteConnection(path: copy.path, mode: .readOnly)
        defer { db.close() }
        guard let table = container.storeNames.table(entity) else { return [] }
        return try db.rows("SELECT name FROM pragma_table_info(?)", [.text(table)]).compactMap {
            if case .text(let name)? = $0.first { name } else { nil }
        }
    }

    /// The store's content: the main file's bytes and its WAL's (a read-only look may leave an
    /// empty WAL where there was none; both mean no frames).
    static func content(of url: URL) throws -> [Data] {
        try ["", "-wal"].map { suffix in
            let path = url.path + suffix
            return FileManager.default.fileExists(atPath: path)
                ? try Data(contentsOf: URL(fileURLWithPath: path)) : Data()
        }
    }
}

import Foundation

/// Owns a schema and its store, and hands out contexts.
///
/// ```swift
/// let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
/// let context = ModelContext(container)
/// ```
public final class ModelContainer: @unchecked Sendable {
    /// Everything the container's contexts and models share. They hold this rather than the
    /// container, so releasing the container frees it and its ``mainContext``, and the store's
    /// connection closes once the last context and model using it are gone.
    let stack: ContainerStack
    /// The container's schema.
    public var schema: Schema { stack.schema }
    /// The configurations the container was created with (one is synthesised if none given).
    public var configurations: [ModelConfiguration] { stack.configurations }
    /// The migration plan, if any.
    public var migrationPlan: (any SchemaMigrationPlan.Type)? { stack.migrationPlan }
    var store: SQLiteStore { stack.store }
    var mapping: StoreMapping { stack.mapping }
    var queryCache: QueryCache { stack.queryCache }

    /// What opening the store migrated: the stages that ran and the warnings they gave.
    private var migrationReport = SchemaMigrator.Outcome()
    /// The migration stages that ran when this container opened its store, oldest first, e.g.
    /// `["lightweight 1.0.0 → 2.0.0", "custom 2.0.0 → 3.0.0"]` (a step without a stage in the
    /// plan: `"lightweight 1.0.0 → 3.0.0 (inferred)"`; without a plan: `["inferred
    /// lightweight"]`); empty when the store was new or already at the container's version.
    /// An OpenSwiftData addition.
    public var appliedMigrationStages: [String] { migrationReport.stages }
    /// Warnings from those stages, such as an attribute that looks renamed without
    /// `originalName` (its values were dropped, MIG-04). Also written to standard error.
    public var migrationWarnings: [String] { migrationReport.warnings }
    /// Warnings about values a save stored other than as given: a `Decimal` rounded to the
    /// double its `DECIMAL` column holds (``ModelConfiguration/refusesInexactDecimals`` refuses
    /// it instead). One per property, the first rounded value named, in the order they
    /// happened; each is also written to standard error. An OpenSwiftData addition.
    public var storageWarnings: [String] { stack.storageWarnings }

    private var _mainContext: ModelContext?
    private var _lastOperationFailure: OperationFailure?
    private let contextLock = NSLock()

    /// A container for the given schema and configurations.
    ///
    /// With a `migrationPlan`, a store file written with an older version of the plan's schemas
    /// is migrated to the container's first, stage by stage, as one change (see
    /// ``SchemaMigrationPlan``; a step without a stage is inferred). Without one, a store
    /// written with other models is migrated by an inferred lightweight migration, as SwiftData
    /// does: added, removed and renamed (`originalName`) properties and entities, relaxed
    /// optionality, delete rules, new uniqueness constraints and indexes. A change that cannot
    /// be inferred (a type change, …) throws `.incompatibleSchema` naming each property, and
    /// a configuration with `allowsSave: false` never migrates.
    ///
    /// With several configurations, each is a store of its own and each model lives in the one
    /// whose `schema` lists it (a configuration without a `schema` takes the models no other
    /// lists); see "Several configurations in one container" in the storage-layout article.
    ///
    /// - Throws: ``SwiftDataError`` when the schema is invalid or the store cannot be opened:
    ///   `.notADatabase`, `.corruptStore`, `.incompatibleSchema`, `.unknownSchema`,
    ///   `.backwardMigration`, `.loadIssueModelContainer` (also for configurations that
    ///   cannot work together, naming the model or file), `.storeError`; a failing migration
    ///   stage's error. The store file is never modified by a failed open. With
    ///   `allowsSave: false` the file is opened read-only and must exist.
    public init(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: [ModelConfiguration]
    ) throws {
        if let error = schema.buildError { throw error }
        let configs = configurations.isEmpty ? [ModelConfiguration()] : configurations
        for config in configs {
            if let cs = config.schema {
                for e in cs.entities where schema.entitiesByName[e.name] == nil {
                    throw SwiftDataError(
                        SwiftDataError.configurationSchemaNotFoundInContainerSchema.code,
                        "the configuration \"\(config.name)\" has \(e.name), which the container's schema lacks",
                        entityName: e.name)
                }
            }
        }
        try ModelContainer.checkSubclassesListed(schema)
        // Which configuration stores which entities: all of them when there is one.
        let schemas = try ModelContainer.storeSchemas(schema, configs)
        if configs.count > 1, migrationPlan != nil {
            throw SwiftDataError(
                SwiftDataError.loadIssueModelContainer.code,
                "a migration plan with several configurations is not supported yet; migrate each store with a container of one configuration (ModelContainer(for:migrationPlan:configurations:) with that store's schema), then open them together",
                url: configs.first?.url)
        }
        var stores: [SQLiteStore] = []
        var migration = SchemaMigrator.Outcome()
        do {
            for (config, storeSchema) in zip(configs, schemas) {
                let mapping = try StoreMapping(schema: storeSchema)
                // A store written with an older version of the plan's schema is migrated first.
                if let migrationPlan, !config.isStoredInMemoryOnly {
                    migration = try SchemaMigrator(
                        plan: migrationPlan, target: mapping, url: config.url,
                        allowsSave: config.allowsSave
                    ).migrateIfNeeded()
                }
                // A configuration that never saves opens its file read-only, so it cannot change it.
                let open = {
                    try SQLiteStore(
                        url: config.isStoredInMemoryOnly ? nil : config.url, mapping: mapping,
                        readOnly: !config.allowsSave)
                }
                do {
                    stores.append(try open())
                } catch let e as SwiftDataError
                    where e.code == SwiftDataError.incompatibleSchema.code && migrationPlan == nil
                    && !config.isStoredInMemoryOnly
                {
                    // Other models and no plan: an inferred lightweight migration, then the open again.
                    guard
                        let inferred = try SchemaMigrator(
                            plan: nil, target: mapping, url: config.url, allowsSave: config.allowsSave
                        ).inferIfNeeded()
                    else { throw e }
                    migration.stages += inferred.stages
                    migration.warnings += inferred.warnings
                    stores.append(try open())
                }
            }
            // A save of several stores that a dying process left in some of them only is
            // undone where it is (StoreCoordination) before anything reads the stores.
            if !FaultInjection.isActive(.multiStoreUnprotected) {
                try StoreCoordination.repair(ContainerStack.coordinatedStores(configs, stores))
            }
        } catch {
            // The stores opened so far close (nothing was written through them).
            for store in stores { store.connection.close() }
            throw error
        }
        stack = ContainerStack(schema: schema, configurations: configs, migrationPlan: migrationPlan, stores: stores)
        migrationReport = migration
        // OPENSWIFTDATA_SQL_LOG=1: print every statement from here on (ModelContainer+SQLTrace).
        try installEnvironmentSQLLog()
    }

    /// A container over an existing stack: what ``ModelContext/container`` returns for a
    /// context whose container was released while the context lives on.
    init(stack: ContainerStack) {
        self.stack = stack
    }

    /// A container for the given schema and configurations.
    public convenience init(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: ModelConfiguration...
    ) throws {
        try self.init(for: schema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// A container for the given model types (and the models they reach).
    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: ModelConfiguration...
    ) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// A container for the given model types and an array of configurations.
    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: [ModelConfiguration]
    ) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// The container's main context; it autosaves (SwiftData's default for `mainContext`).
    ///
    /// It lives as long as the container. It does not keep the container alive: keep the
    /// container (as apps do) rather than only its main context.
    public var mainContext: ModelContext {
        contextLock.withLock {
            if let c = _mainContext { return c }
            let c = ModelContext(mainOf: self)
            c.autosaveEnabled = true
            _mainContext = c
            return c
        }
    }

    /// Deletes every model in the store, keeping it usable (CFG-06).
    ///
    /// This cannot throw (SwiftData's signature). The rows go in one transaction per store, so a
    /// failure (a closed or read-only store, I/O) deletes nothing of that store (with several
    /// configurations, the stores before it are already emptied); it is posted as ``operationDidFail``
    /// with an ``OperationFailure`` (``OperationFailure/Operation/deleteAllData``), logged to
    /// standard error, and kept in ``lastOperationFailure``.
    public func deleteAllData() {
        do {
            for store in stack.stores { try store.deleteAllData() }
        } catch {
            let e =
                error as? SwiftDataError
                ?? SwiftDataError(
                    SwiftDataError.storeError.code, "the store's rows could not be deleted; nothing was deleted",
                    url: configurations.first?.url, underlying: error)
            let failure = OperationFailure(.deleteAllData, e)
            contextLock.withLock { _lastOperationFailure = failure }
            failure.log()
            NotificationCenter.default.post(
                name: ModelContainer.operationDidFail, object: self,
                userInfo: [OperationFailure.userInfoKey: failure])
        }
    }

    /// The last failure of an operation of this container that cannot throw
    /// (``deleteAllData()``), or `nil`.
    public var lastOperationFailure: OperationFailure? { contextLock.withLock { _lastOperationFailure } }

    /// Deletes the container's store files (the main file, `-wal` and `-shm`; every
    /// configuration's), as SwiftData's
    /// `erase()` does; an in-memory store is emptied instead.
    ///
    /// ```swift
    /// try container.erase()
    /// ```
    /// The store's connection is closed first, then the files are removed; nothing else ever held
    /// them open. Afterwards, for an on-disk store, every fetch or save through this container and
    /// its existing contexts throws ``SwiftDataError/storeError``, and models already loaded keep
    /// the values they had; create a new container to start over (it creates a new, empty file).
    /// An in-memory container stays usable, with no rows. Other containers or processes that have
    /// the same file open are not affected by the close, but see the files disappear.
    ///
    /// - Throws: ``SwiftDataError/storeError`` when a file cannot be deleted (the store is closed
    ///   by then).
    public func erase() throws {
        for store in stack.stores { try store.erase() }
    }

    /// Throws for an operation that works on one store when the container has several.
    func requireOneStore(_ operation: String) throws {
        guard stack.stores.count > 1 else { return }
        throw SwiftDataError(
            SwiftDataError.loadIssueModelContainer.code,
            "\(operation) works on a container of one configuration, and this one has \(stack.stores.count) (\(configurations.map(\.name).joined(separator: ", "))); open the store with a container of its own configuration for it"
        )
    }

    /// The schema each configuration's store holds. With one configuration, the container's whole
    /// schema. With several, a configuration with a `schema` stores those models (and the
    /// subclasses of the container's schema below them, which share their table); one
    /// configuration without a `schema` stores every model no other configuration lists. Each
    /// model lives in exactly one store, so a relationship never crosses stores: a
    /// configuration's schema includes the models its models reach.
    ///
    /// - Throws: `.loadIssueModelContainer` naming the model and configurations when a model is
    ///   in two configurations or in none, when two configurations have no schema, or when two
    ///   share a file.
    static func storeSchemas(_ schema: Schema, _ configs: [ModelConfiguration]) throws -> [Schema] {
        guard configs.count > 1 else { return [schema] }
        func problem(_ message: String, _ entity: String? = nil) -> SwiftDataError {
            SwiftDataError(SwiftDataError.loadIssueModelContainer.code, message, entityName: entity)
        }
        var files: [String: String] = [:]
        for c in configs where !c.isStoredInMemoryOnly {
            let path = c.url.standardizedFileURL.path
            if let other = files[path] {
                throw problem(
                    "the configurations \"\(other)\" and \"\(c.name)\" both use the file \(path); give each its own URL"
                )
            }
            files[path] = c.name
        }
        let open = configs.indices.filter { configs[$0].schema == nil }
        if open.count > 1 {
            throw problem(
                "the configurations \"\(configs[open[0]].name)\" and \"\(configs[open[1]].name)\" have no schema, so both would store every model; give all but one a schema listing its models"
            )
        }
        // Root entity name → configuration index.
        var owner: [String: Int] = [:]
        for (i, c) in configs.enumerated() {
            guard let cs = c.schema else { continue }
            for e in cs.entities {
                let root = e.layout.root.name
                if let j = owner[root], j != i {
                    throw problem(
                        "\(e.name) is in the schemas of both configurations \"\(configs[j].name)\" and \"\(c.name)\"; each model is stored in one configuration (a configuration's schema also includes the models its models' relationships reach)",
                        e.name)
                }
                owner[root] = i
            }
        }
        var types: [[any PersistentModel.Type]] = Array(repeating: [], count: configs.count)
        for e in schema.entities {
            guard let i = owner[e.layout.root.name] ?? open.first else {
                let names = configs.map { "\"\($0.name)\"" }.joined(separator: ", ")
                throw problem(
                    "\(e.name) is in the container's schema but in none of its configurations (\(names)); add it to one configuration's schema, or give one configuration no schema to store the rest",
                    e.name)
            }
            types[i].append(e.layout.type)
        }
        return types.map { Schema($0, version: schema.version) }
    }

    /// A subclass listed in the schema needs its superclass; a superclass does not need its
    /// subclasses, but a relationship typed as a subclass does (INH-20).
    private static func checkSubclassesListed(_ schema: Schema) throws {
        for e in schema.entities {
            if let sup = e.layout.superLayout, schema.entity(forLayout: sup) == nil {
                throw SwiftDataError(
                    SwiftDataError.unknownSchema.code,
                    "\(e.name) is a subclass of \(sup.name), which is not in the schema",
                    entityName: e.name)
            }
        }
    }
}

/// What a container's contexts and models share: the schema, configurations, stores, mappings
/// and query cache. Contexts and models hold this, never the container itself, so nothing they
/// hold keeps a released container (or its main context) alive.
///
/// A container has one store per configuration; each entity lives in exactly one of them (see
/// ``ModelContainer/storeSchemas(_:_:)``), so every per-entity question (its table, its store,
/// whether it may be saved) is answered by the entity's store. With one configuration, which is
/// almost every container, that is ``store``.
final class ContainerStack: @unchecked Sendable {
    let schema: Schema
    let configurations: [ModelConfiguration]
    let migrationPlan: (any SchemaMigrationPlan.Type)?
    /// One store per configuration, in the configurations' order.
    let stores: [SQLiteStore]
    /// The first configuration's store (the only one, almost always).
    let store: SQLiteStore
    /// The first store's mapping.
    let mapping: StoreMapping
    /// The writable on-disk stores, in the configurations' order: those a save of several
    /// stores locks and ``StoreCoordination`` keeps in step.
    let coordinatedStores: [SQLiteStore]

    /// The stores of `configurations` that are on disk and allow saving, in order.
    static func coordinatedStores(_ configurations: [ModelConfiguration], _ stores: [SQLiteStore]) -> [SQLiteStore] {
        zip(configurations, stores).filter { $0.0.allowsSave && $0.1.url != nil }.map(\.1)
    }

    /// The index in ``stores`` of every entity's store, by its root class; empty with one store.
    private let route: [ObjectIdentifier: Int]
    /// Translated fetches by query shape, shared by every context (see ``QueryCache``).
    let queryCache = QueryCache()
    /// How fetches order strings unless their descriptor says (the first configuration's style;
    /// with several, each entity's configuration's, see ``ModelContext/stringSortStyle(of:)``).
    let stringSortStyle: StringSortStyle
    /// ``ModelContainer/storageWarnings`` and the `Entity.property` names they cover, under
    /// ``warningLock`` (saves of several contexts report from their own threads).
    private var warnings: (lines: [String], properties: Set<String>) = ([], [])
    private let warningLock = NSLock()

    /// The storage warnings so far (``ModelContainer/storageWarnings``).
    var storageWarnings: [String] { warningLock.withLock { warnings.lines } }

    /// Adds `line` unless `property` has a warning already; returns whether it was added.
    func addStorageWarning(_ line: String, property: String) -> Bool {
        warningLock.withLock {
            guard warnings.properties.insert(property).inserted else { return false }
            warnings.lines.append(line)
            return true
        }
    }

    init(
        schema: Schema, configurations: [ModelConfiguration], migrationPlan: (any SchemaMigrationPlan.Type)?,
        stores: [SQLiteStore]
    ) {
        self.schema = schema
        self.configurations = configurations
        self.migrationPlan = migrationPlan
        self.stores = stores
        store = stores[0]
        mapping = stores[0].mapping
        coordinatedStores = Self.coordinatedStores(configurations, stores)
        var route: [ObjectIdentifier: Int] = [:]
        if stores.count > 1 {
            for (index, store) in stores.enumerated() {
                for table in store.mapping.tables { route[ObjectIdentifier(table.root.type)] = index }
            }
        }
        self.route = route
        stringSortStyle = configurations.first?.stringSortStyle ?? .natural
    }

    /// The index in ``stores`` of the store holding `layout`'s rows, or `nil` for an entity
    /// outside the container's schema.
    func storeIndex(for layout: ModelLayout) -> Int? {
        if stores.count == 1 { return mapping.table(for: layout) != nil ? 0 : nil }
        return route[ObjectIdentifier(layout.root.type)]
    }

    /// The store holding `layout`'s rows.
    func store(for layout: ModelLayout) -> SQLiteStore? {
        if stores.count == 1 { return store }
        return route[ObjectIdentifier(layout.root.type)].map { stores[$0] }
    }

    /// The store whose mapping has `table`.
    func store(of table: StoreMapping.Table) -> SQLiteStore {
        if stores.count == 1 { return store }
        return stores.first { $0.mapping === table.mapping } ?? store
    }

    /// The store whose mapping is `mapping`.
    func store(of mapping: StoreMapping) -> SQLiteStore {
        if stores.count == 1 { return store }
        return stores.first { $0.mapping === mapping } ?? store
    }

    /// The store with this identifier (`Z_UUID`), if it is one of the container's.
    func store(identifiedBy identifier: String) -> SQLiteStore? {
        stores.first { $0.identifier == identifier }
    }

    /// The configuration of the store holding `layout`'s rows.
    func configuration(for layout: ModelLayout) -> ModelConfiguration {
        configurations[storeIndex(for: layout) ?? 0]
    }

    /// The configuration of the store with this mapping.
    func configuration(of mapping: StoreMapping) -> ModelConfiguration {
        configurations[stores.firstIndex { $0.mapping === mapping } ?? 0]
    }

    /// `layout`'s table in its store.
    func table(for layout: ModelLayout) -> StoreMapping.Table? {
        if stores.count == 1 { return mapping.table(for: layout) }
        return route[ObjectIdentifier(layout.root.type)].flatMap { stores[$0].mapping.table(for: layout) }
    }

    /// How `layout`'s relationship `slot` is stored (see ``StoreMapping/storage(of:slot:)``).
    func storage(of layout: ModelLayout, slot: Int) -> StoreMapping.RelationshipStorage? {
        store(for: layout)?.mapping.storage(of: layout, slot: slot)
    }

    /// See ``StoreMapping/ownsKeysOnDestination(_:slot:)``.
    func ownsKeysOnDestination(_ layout: ModelLayout, slot: Int) -> Bool {
        store(for: layout)?.mapping.ownsKeysOnDestination(layout, slot: slot) ?? false
    }
}

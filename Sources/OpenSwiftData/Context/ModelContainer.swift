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
    /// `["lightweight 1.0.0 → 2.0.0", "custom 2.0.0 → 3.0.0"]`; empty when the store was new or
    /// already at the container's version. An OpenSwiftData addition.
    public var appliedMigrationStages: [String] { migrationReport.stages }
    /// Warnings from those stages, such as an attribute that looks renamed without
    /// `originalName` (its values were dropped, MIG-04). Also written to standard error.
    public var migrationWarnings: [String] { migrationReport.warnings }

    private var _mainContext: ModelContext?
    private var _lastOperationFailure: OperationFailure?
    private let contextLock = NSLock()

    /// A container for the given schema and configurations.
    ///
    /// With a `migrationPlan`, a store file written with an older version of the plan's schemas
    /// is migrated to the container's first, stage by stage, as one change (see
    /// ``SchemaMigrationPlan``); without one, a store written with other models throws
    /// `.incompatibleSchema` naming what differs (SwiftData would try an inferred lightweight
    /// migration; here a change of model is always declared).
    ///
    /// - Throws: ``SwiftDataError`` when the schema is invalid or the store cannot be opened:
    ///   `.notADatabase`, `.corruptStore`, `.incompatibleSchema`, `.unknownSchema`,
    ///   `.backwardMigration`, `.loadIssueModelContainer`, `.storeError`; a failing migration
    ///   stage's error. The store file is never modified by a failed open. With
    ///   `allowsSave: false` the file is opened read-only and must exist.
    public init(for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
                configurations: [ModelConfiguration]) throws {
        if let error = schema.buildError { throw error }
        let configs = configurations.isEmpty ? [ModelConfiguration()] : configurations
        if configs.count > 1 {
            throw SwiftDataError(SwiftDataError.loadIssueModelContainer.code,
                                 "several configurations in one container are not supported yet; create one container per store")
        }
        let config = configs[0]
        if let cs = config.schema {
            for e in cs.entities where schema.entitiesByName[e.name] == nil {
                throw SwiftDataError(SwiftDataError.configurationSchemaNotFoundInContainerSchema.code,
                                     "the configuration's schema has \(e.name), which the container's schema lacks",
                                     entityName: e.name)
            }
        }
        try ModelContainer.checkSubclassesListed(schema)
        let mapping = try StoreMapping(schema: schema)
        // A store written with an older version of the plan's schema is migrated first.
        var migration = SchemaMigrator.Outcome()
        if let migrationPlan, !config.isStoredInMemoryOnly {
            migration = try SchemaMigrator(plan: migrationPlan, target: mapping, url: config.url,
                                           allowsSave: config.allowsSave).migrateIfNeeded()
        }
        // A configuration that never saves opens its file read-only, so it cannot change it.
        let store = try SQLiteStore(url: config.isStoredInMemoryOnly ? nil : config.url, mapping: mapping,
                                    readOnly: !config.allowsSave)
        stack = ContainerStack(schema: schema, configurations: configs, migrationPlan: migrationPlan,
                               store: store, mapping: mapping)
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
    public convenience init(for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
                            configurations: ModelConfiguration...) throws {
        try self.init(for: schema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// A container for the given model types (and the models they reach).
    public convenience init(for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
                            configurations: ModelConfiguration...) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// A container for the given model types and an array of configurations.
    public convenience init(for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
                            configurations: [ModelConfiguration]) throws {
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
    /// This cannot throw (SwiftData's signature). The rows go in one transaction, so a failure
    /// (a closed or read-only store, I/O) deletes nothing; it is posted as ``operationDidFail``
    /// with an ``OperationFailure`` (``OperationFailure/Operation/deleteAllData``), logged to
    /// standard error, and kept in ``lastOperationFailure``.
    public func deleteAllData() {
        do {
            try store.deleteAllData()
        } catch {
            let e = error as? SwiftDataError
                ?? SwiftDataError(SwiftDataError.storeError.code, "the store's rows could not be deleted; nothing was deleted",
                                  url: configurations.first?.url, underlying: error)
            let failure = OperationFailure(.deleteAllData, e)
            contextLock.withLock { _lastOperationFailure = failure }
            failure.log()
            NotificationCenter.default.post(name: ModelContainer.operationDidFail, object: self,
                                            userInfo: [OperationFailure.userInfoKey: failure])
        }
    }

    /// The last failure of an operation of this container that cannot throw
    /// (``deleteAllData()``), or `nil`.
    public var lastOperationFailure: OperationFailure? { contextLock.withLock { _lastOperationFailure } }

    /// Deletes the container's store files (the main file, `-wal` and `-shm`), as SwiftData's
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
        try store.erase()
    }

    /// A subclass listed in the schema needs its superclass; a superclass does not need its
    /// subclasses, but a relationship typed as a subclass does (INH-20).
    private static func checkSubclassesListed(_ schema: Schema) throws {
        for e in schema.entities {
            if let sup = e.layout.superLayout, schema.entity(forLayout: sup) == nil {
                throw SwiftDataError(SwiftDataError.unknownSchema.code,
                                     "\(e.name) is a subclass of \(sup.name), which is not in the schema",
                                     entityName: e.name)
            }
        }
    }
}

/// What a container's contexts and models share: the schema, configurations, store, mapping and
/// query cache. Contexts and models hold this, never the container itself, so nothing they hold
/// keeps a released container (or its main context) alive.
final class ContainerStack: @unchecked Sendable {
    let schema: Schema
    let configurations: [ModelConfiguration]
    let migrationPlan: (any SchemaMigrationPlan.Type)?
    let store: SQLiteStore
    let mapping: StoreMapping
    /// Translated fetches by query shape, shared by every context (see ``QueryCache``).
    let queryCache = QueryCache()
    /// Whether saves may write (the configuration's `allowsSave`).
    let allowsSave: Bool
    /// How saves resolve conflicts with other writers (the configuration's merge policy).
    let mergePolicy: ModelConfiguration.MergePolicy
    /// How fetches order strings unless their descriptor says (the configuration's style).
    let stringSortStyle: StringSortStyle

    init(schema: Schema, configurations: [ModelConfiguration], migrationPlan: (any SchemaMigrationPlan.Type)?,
         store: SQLiteStore, mapping: StoreMapping) {
        self.schema = schema
        self.configurations = configurations
        self.migrationPlan = migrationPlan
        self.store = store
        self.mapping = mapping
        allowsSave = configurations.first?.allowsSave ?? true
        mergePolicy = configurations.first?.mergePolicy ?? .mergeByPropertyObjectTrump
        stringSortStyle = configurations.first?.stringSortStyle ?? .lexical
    }
}

import Foundation

/// Owns a schema and its store, and hands out contexts.
///
/// ```swift
/// let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
/// let context = ModelContext(container)
/// ```
public final class ModelContainer: @unchecked Sendable {
    /// The container's schema.
    public let schema: Schema
    /// The configurations the container was created with (one is synthesised if none given).
    public let configurations: [ModelConfiguration]
    /// The migration plan, if any.
    public let migrationPlan: (any SchemaMigrationPlan.Type)?
    let store: SQLiteStore
    let mapping: StoreMapping
    /// Translated fetches by query shape, shared by every context (see ``QueryCache``).
    let queryCache = QueryCache()
    var allowsSave: Bool { configurations.first?.allowsSave ?? true }
    /// How saves resolve conflicts with other writers (the configuration's merge policy).
    var mergePolicy: ModelConfiguration.MergePolicy { configurations.first?.mergePolicy ?? .mergeByPropertyObjectTrump }

    private var _mainContext: ModelContext?
    private let contextLock = NSLock()

    /// A container for the given schema and configurations.
    ///
    /// - Throws: ``SwiftDataError`` when the schema is invalid or the store cannot be opened:
    ///   `.notADatabase`, `.corruptStore`, `.incompatibleSchema`, `.unknownSchema`,
    ///   `.loadIssueModelContainer`, `.storeError`. The store file is never modified by a failed
    ///   open. With `allowsSave: false` the file is opened read-only and must exist.
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
        self.schema = schema
        self.configurations = configs
        self.migrationPlan = migrationPlan
        try ModelContainer.checkSubclassesListed(schema)
        mapping = try StoreMapping(schema: schema)
        // A configuration that never saves opens its file read-only, so it cannot change it.
        store = try SQLiteStore(url: config.isStoredInMemoryOnly ? nil : config.url, mapping: mapping,
                                readOnly: !config.allowsSave)
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
    public var mainContext: ModelContext {
        contextLock.withLock {
            if let c = _mainContext { return c }
            let c = ModelContext(self)
            c.autosaveEnabled = true
            _mainContext = c
            return c
        }
    }

    /// Deletes every model in the store, keeping it usable (CFG-06).
    public func deleteAllData() {
        try? store.deleteAllData()
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

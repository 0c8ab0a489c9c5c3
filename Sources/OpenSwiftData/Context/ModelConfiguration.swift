import Foundation

/// Where and how a container stores its models.
///
/// ```swift
/// ModelConfiguration(isStoredInMemoryOnly: true)                      // a private in-memory store
/// ModelConfiguration(url: URL(fileURLWithPath: "/tmp/trips.store"))  // an SQLite file
/// ModelConfiguration("Trips", schema: Schema([Trip.self]), allowsSave: false)
/// ```
/// With no URL, an on-disk store lives at ``defaultDirectory``/`<name>.store`, where the
/// directory is `$OPENSWIFTDATA_STORE_DIR` if set, else `$XDG_DATA_HOME/OpenSwiftData`, else
/// `$HOME/.local/share/OpenSwiftData` (Apple's equivalent is Application Support).
public struct ModelConfiguration: Hashable, Sendable, Identifiable {
    /// CloudKit databases: accepted for source compatibility; Linux has no CloudKit.
    public struct CloudKitDatabase: Hashable, Sendable {
        let name: String
        /// Let the system decide (no sync on Linux).
        public static let automatic = CloudKitDatabase(name: "automatic")
        /// No CloudKit sync.
        public static let none = CloudKitDatabase(name: "none")
        /// A private CloudKit container: accepted and ignored on Linux.
        public static func `private`(_ container: String) -> CloudKitDatabase { CloudKitDatabase(name: container) }
    }
    /// App-group containers: accepted for source compatibility and ignored.
    public struct GroupContainer: Hashable, Sendable {
        let name: String
        /// The default.
        public static let automatic = GroupContainer(name: "automatic")
        /// No group container.
        public static let none = GroupContainer(name: "none")
        /// A named app group: ignored on Linux.
        public static func identifier(_ id: String) -> GroupContainer { GroupContainer(name: id) }
    }

    /// The configuration's name (also the default file name).
    public let name: String
    /// The models this configuration stores; `nil` means the container's whole schema.
    public let schema: Schema?
    /// Whether the store lives only in memory.
    public let isStoredInMemoryOnly: Bool
    /// Whether `save()` may write to the store.
    public let allowsSave: Bool
    /// The store file (for in-memory stores, a placeholder URL that is never opened).
    public let url: URL
    /// The CloudKit database setting (ignored on Linux).
    public let cloudKitDatabase: CloudKitDatabase
    /// What a save does with a model that another context or process changed since this
    /// context read it (an OpenSwiftData addition; see ``MergePolicy``). Default:
    /// ``MergePolicy/mergeByPropertyObjectTrump``, SwiftData's behaviour.
    ///
    /// ```swift
    /// var strict = ModelConfiguration(url: storeURL)
    /// strict.mergePolicy = .error   // a save based on a stale read throws .mergeConflict
    /// ```
    public var mergePolicy: MergePolicy = .mergeByPropertyObjectTrump
    /// How fetches order `String` sort keys when neither the sort descriptor
    /// (`SortDescriptor(\.name, comparator: .lexical)`) nor the fetch descriptor
    /// (``FetchDescriptor/stringSortStyle``) says: ``StringSortStyle/natural`` (the default,
    /// Finder-like, as Apple's default `localizedStandard` comparator) or
    /// ``StringSortStyle/lexical`` (Swift's `<`, which an index on the column can serve). An
    /// OpenSwiftData addition.
    ///
    /// ```swift
    /// var config = ModelConfiguration(isStoredInMemoryOnly: true)
    /// config.stringSortStyle = .lexical   // SortDescriptor(\.name): "User 10" before "User 2"
    /// ```
    public var stringSortStyle: StringSortStyle = .natural
    /// Whether a save refuses a `Decimal` that its `DECIMAL` column cannot keep exactly (more
    /// significant digits than a 64-bit double keeps, such as `Decimal(UInt64.max)`) with
    /// ``SwiftDataError/invalidValue`` naming the entity and property, writing nothing. An
    /// OpenSwiftData addition; default `false`: the value is stored rounded to the nearest double,
    /// as Apple's store keeps it, and the rounding is reported once per property
    /// (``ModelContainer/storageWarnings``, standard error).
    ///
    /// ```swift
    /// var config = ModelConfiguration(url: storeURL)
    /// config.refusesInexactDecimals = true   // a save of Decimal(UInt64.max) throws .invalidValue
    /// ```
    public var refusesInexactDecimals: Bool = false

    /// How a save resolves a conflict with a newer version of a row in the store.
    ///
    /// Every row carries a version (`Z_OPT`: 1 when inserted, +1 on every update). A context
    /// remembers the version it read; at save, a changed or deleted model whose row has a
    /// different version in the store was changed by someone else in the meantime.
    public enum MergePolicy: String, Hashable, Sendable, CaseIterable {
        /// Core Data's `NSMergeByPropertyObjectTrumpMergePolicy`, which SwiftData uses: the
        /// properties this context changed overwrite the store's, the other properties keep the
        /// store's newer values (the in-memory model is refreshed with them), and a delete
        /// wins. A read-modify-write of the same property by two writers keeps the last one.
        case mergeByPropertyObjectTrump
        /// Core Data's `NSErrorMergePolicy`: a save that would overwrite or delete a row changed
        /// since it was read throws ``SwiftDataError/mergeConflict`` naming the models, writes
        /// nothing, and keeps the context's pending changes. Fetch again (or `rollback()`),
        /// re-apply the change and save.
        case error
    }
    /// A unique identifier of this configuration.
    public var id: String { name + "|" + url.path + (isStoredInMemoryOnly ? "|memory" : "") }

    /// A configuration at the default location, or in memory.
    public init(
        _ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false,
        allowsSave: Bool = true, groupContainer: GroupContainer = .automatic,
        cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        let n = name ?? "default"
        self.name = n
        self.schema = schema
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        self.cloudKitDatabase = cloudKitDatabase
        self.url =
            isStoredInMemoryOnly
            ? URL(fileURLWithPath: "/dev/null")
            : ModelConfiguration.defaultDirectory.appendingPathComponent("\(n).store")
    }

    /// A configuration for a store file at `url`.
    public init(
        _ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true,
        cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        self.name = name ?? url.deletingPathExtension().lastPathComponent
        self.schema = schema
        self.isStoredInMemoryOnly = false
        self.allowsSave = allowsSave
        self.cloudKitDatabase = cloudKitDatabase
        self.url = url
    }

    /// A configuration for the given model types.
    @_disfavoredOverload
    public init(for forTypes: any PersistentModel.Type..., isStoredInMemoryOnly: Bool = false) {
        self.init(nil, schema: Schema(forTypes), isStoredInMemoryOnly: isStoredInMemoryOnly)
    }

    /// Where stores without a URL live: `$OPENSWIFTDATA_STORE_DIR`, else
    /// `$XDG_DATA_HOME/OpenSwiftData`, else `$HOME/.local/share/OpenSwiftData` (relative values
    /// of these variables are ignored, as the XDG specification requires).
    public static var defaultDirectory: URL { defaultDirectory(in: ProcessInfo.processInfo.environment) }

    /// ``defaultDirectory`` for the given environment.
    package static func defaultDirectory(in environment: [String: String]) -> URL {
        if let dir = environment["OPENSWIFTDATA_STORE_DIR"], !dir.isEmpty { return URL(fileURLWithPath: dir) }
        return UserDirectories(environment: environment).dataHome.appendingPathComponent("OpenSwiftData")
    }

    /// Configurations are equal when name, location and options are.
    public static func == (a: ModelConfiguration, b: ModelConfiguration) -> Bool {
        a.id == b.id && a.allowsSave == b.allowsSave && a.mergePolicy == b.mergePolicy
            && a.stringSortStyle == b.stringSortStyle && a.refusesInexactDecimals == b.refusesInexactDecimals
    }
    /// Hashes the identifier.
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

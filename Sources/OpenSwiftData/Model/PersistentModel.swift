import Foundation
import Observation

/// A class whose instances a ``ModelContext`` persists; the ``Model()`` macro writes the
/// conformance. Equality and hashing are by object identity.
/// Like Apple's, it refines `SendableMetatype`: a model class (not its instances) may cross actors,
/// as in `ModelContainer(for: Trip.self)` from any isolation.
public protocol PersistentModel: AnyObject, Observable, Hashable, Identifiable, SendableMetatype {
    /// The model's backing storage: property values, identity, state and context.
    var persistentBackingData: BackingData { get set }
    /// The persisted properties this class declares (a subclass lists only its own).
    static var schemaMetadata: [Schema.PropertyMetadata] { get }
    /// `#Unique` and `#Index` declarations of this class.
    static var _$entityConstraints: _EntityConstraints { get }
    /// Every persisted property's key path rooted at the class this is called on, inherited
    /// properties included (`\Sub.name`, not `\Base.name`), by property name. The ``Model()``
    /// macro writes it; used where a key path must be the subclass's own (history).
    static func _$rootedKeyPaths() -> [String: AnyKeyPath]
    /// Creates an instance over loaded backing data (used when the store materialises a row).
    init(backingData: BackingData)
    /// Moves values that a subclass initialiser stored before `super.init` into the backing data.
    func _$absorbPendingValues()
}

extension PersistentModel {
    /// No `#Unique` or `#Index` declarations.
    public static var _$entityConstraints: _EntityConstraints { _EntityConstraints() }
    /// Nothing to absorb.
    public func _$absorbPendingValues() {}
    /// No rooted key paths: the metadata's own key paths are used.
    public static func _$rootedKeyPaths() -> [String: AnyKeyPath] { [:] }

    /// The model's identifier: temporary until first saved.
    public var persistentModelID: PersistentIdentifier {
        persistentBackingData.persistentModelID(of: self)
    }
    /// The identifier, for `Identifiable`.
    public var id: PersistentIdentifier { persistentModelID }
    /// The context the model is registered in, or `nil`.
    public var modelContext: ModelContext? { persistentBackingData.context }
    /// Whether the model is marked for deletion: true between `delete` and the save, false after
    /// the save removed it (as SwiftData reports; `modelContext` is then `nil`), and true for
    /// the stand-in ``ModelContext/model(for:)`` returns for a row that no longer exists.
    public var isDeleted: Bool { persistentBackingData.reportsDeleted }
    /// Whether the model has unsaved changes (including being newly inserted).
    public var hasChanges: Bool { persistentBackingData.hasChanges }

    /// Reads a property through its key path (SwiftData's `getValue(forKey:)`).
    public func getValue<Value>(forKey keyPath: KeyPath<Self, Value>) -> Value { self[keyPath: keyPath] }
    /// Writes a property through its key path (SwiftData's `setValue(forKey:to:)`).
    public func setValue<Value>(forKey keyPath: ReferenceWritableKeyPath<Self, Value>, to newValue: Value) {
        self[keyPath: keyPath] = newValue
    }

    /// Models are equal when they are the same object.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs === rhs }
    /// Hashes the object identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

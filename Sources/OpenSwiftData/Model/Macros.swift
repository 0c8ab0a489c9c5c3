import Observation

/// Turns a class into a persistent model stored by a ``ModelContainer``.
///
/// ```swift
/// @Model final class Trip {
///     @Attribute(.unique) var name: String
///     var start: Date
///     @Relationship(deleteRule: .cascade) var stops: [Stop] = []
///     init(name: String, start: Date) { self.name = name; self.start = start }
/// }
/// ```
///
/// Every stored property becomes an accessor over slot-indexed backing storage (so a get or set
/// is an array access), the class conforms to ``PersistentModel`` and `Observable`, and static
/// schema metadata is generated. `@Transient` and computed properties stay plain. A subclass of a
/// model is marked `@Model` too and becomes a sub-entity stored in its root's table.
@attached(
    member, conformances: PersistentModel, Observable,
    names: named(persistentBackingData), named(init), named(schemaMetadata),
    named(_$entityConstraints), named(_$absorbPendingValues), named(_$rootedKeyPaths), arbitrary)
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel, Observable)
public macro Model() = #externalMacro(module: "OpenSwiftDataMacros", type: "ModelMacro")

/// Implementation detail of ``Model()``: makes one stored property an accessor over the model's
/// backing storage. Not for direct use.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_$))
public macro _PersistedProperty(_ slot: Int, _ owner: String) =
    #externalMacro(module: "OpenSwiftDataMacros", type: "PersistedPropertyMacro")

/// Customises how an attribute of a ``Model()`` class is stored.
///
/// ```swift
/// @Attribute(.unique) var email: String
/// @Attribute(.externalStorage) var photo: Data?
/// @Attribute(originalName: "title") var name: String
/// ```
@attached(peer)
public macro Attribute(
    _ options: Schema.Attribute.Option..., originalName: String? = nil,
    hashModifier: String? = nil
) =
    #externalMacro(module: "OpenSwiftDataMacros", type: "AttributeMacro")

/// Declares a relationship's delete rule, inverse and cardinality bounds.
///
/// ```swift
/// @Relationship(deleteRule: .cascade, inverse: \Word.category) var words: [Word] = []
/// ```
@attached(peer)
public macro Relationship(
    _ options: Schema.Relationship.Option...,
    deleteRule: Schema.Relationship.DeleteRule = .nullify,
    minimumModelCount: Int? = 0, maximumModelCount: Int? = 0,
    originalName: String? = nil, inverse: AnyKeyPath? = nil,
    hashModifier: String? = nil
) =
    #externalMacro(module: "OpenSwiftDataMacros", type: "RelationshipMacro")

/// Keeps a stored property of a ``Model()`` class out of the store.
///
/// A transient property needs a default value; it is reset to that default when the model is
/// loaded from the store.
@attached(peer)
public macro Transient() = #externalMacro(module: "OpenSwiftDataMacros", type: "TransientMacro")

/// Declares uniqueness constraints: each argument is one group of key paths whose values
/// together must be unique. Inserting a model that collides with a stored one updates it (upsert).
///
/// ```swift
/// #Unique<Person>([\.id], [\.givenName, \.familyName])
/// ```
@freestanding(declaration)
public macro Unique<T>(_ constraints: [PartialKeyPath<T>]...) =
    #externalMacro(module: "OpenSwiftDataMacros", type: "UniqueMacro")

/// Declares indexes: each argument is one index over one or more key paths.
///
/// ```swift
/// #Index<Product>([\.name], [\.category, \.price])
/// ```
@freestanding(declaration)
public macro Index<T>(_ indices: [PartialKeyPath<T>]...) =
    #externalMacro(module: "OpenSwiftDataMacros", type: "IndexMacro")

/// Makes an actor a ``ModelActor`` with its own ``ModelContext`` on a container.
///
/// ```swift
/// @ModelActor
/// actor Importer {
///     func importNames(_ names: [String]) throws {
///         for name in names { modelContext.insert(Tag(name: name)) }
///         try modelContext.save()
///     }
/// }
/// try await Importer(modelContainer: container).importNames(["a", "b"])
/// ```
///
/// Generates `modelContainer`, `modelExecutor`, `init(modelContainer:)` (a new context on the
/// container, run by a ``DefaultSerialModelExecutor``), `unownedExecutor` (the actor runs on that
/// executor) and the ``ModelActor`` conformance.
@attached(member, names: named(modelExecutor), named(modelContainer), named(init), named(unownedExecutor))
@attached(extension, conformances: ModelActor)
public macro ModelActor() = #externalMacro(module: "OpenSwiftDataMacros", type: "ModelActorMacro")

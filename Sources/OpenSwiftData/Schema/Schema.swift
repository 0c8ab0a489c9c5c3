import Foundation

/// The set of model classes a container stores, with their properties, relationships,
/// constraints and inheritance.
///
/// ```swift
/// let schema = Schema([Trip.self, BusinessTrip.self, Traveler.self])
/// schema.entitiesByName["Trip"]?.subentities.map(\.name)   // ["BusinessTrip"]
/// ```
/// Models reachable through relationships are added automatically (CFG-04); subclasses are not
/// discovered and must be listed (INH-20).
public final class Schema: @unchecked Sendable, CustomStringConvertible {
    /// A schema version, as in `VersionedSchema.versionIdentifier`.
    public struct Version: Hashable, Codable, Sendable, Comparable, CustomStringConvertible {
        /// The major version.
        public var major: Int
        /// The minor version.
        public var minor: Int
        /// The patch version.
        public var patch: Int
        /// Creates a version.
        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }
        /// `major.minor.patch`.
        public var description: String { "\(major).\(minor).\(patch)" }
        /// Compares major, then minor, then patch.
        public static func < (a: Version, b: Version) -> Bool {
            (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
        }
    }

    /// The entities, in the order the types were given (related models after them).
    public let entities: [Entity]
    /// Entities by name.
    public let entitiesByName: [String: Entity]
    /// The schema's version.
    public let version: Version
    /// The error found while building the schema, reported when a container is created.
    let buildError: SwiftDataError?
    let layouts: [ModelLayout]

    /// A schema of the given model types (and the models their relationships reach).
    public convenience init(_ types: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) {
        self.init(types: types, version: version)
    }

    /// A schema of the given model types.
    public convenience init(_ types: any PersistentModel.Type..., version: Version = Version(1, 0, 0)) {
        self.init(types: types, version: version)
    }

    /// The schema of a versioned schema: its models and version identifier.
    public convenience init(versionedSchema: any VersionedSchema.Type) {
        self.init(types: versionedSchema.models, version: versionedSchema.versionIdentifier)
    }

    private init(types: [any PersistentModel.Type], version: Version) {
        self.version = version
        var layouts: [ModelLayout] = []
        var seen = Set<ObjectIdentifier>()
        var error: SwiftDataError?
        var queue = types
        var explicit = Set(types.map { ObjectIdentifier($0) })
        while !queue.isEmpty {
            let t = queue.removeFirst()
            guard seen.insert(ObjectIdentifier(t)).inserted else { continue }
            do {
                let l = try ModelLayout.of(t)
                layouts.append(l)
                for slot in l.slots { if let target = slot.target { queue.append(target) } }
                if let sup = l.superLayout, !explicit.contains(ObjectIdentifier(sup.type)) {
                    // A listed subclass brings its superclasses along.
                    explicit.insert(ObjectIdentifier(sup.type))
                    queue.append(sup.type)
                }
            } catch let e as SwiftDataError {
                error = error ?? e
            } catch let other {
                error = error ?? SwiftDataError(SwiftDataError.unknownSchema.code, "\(other)")
            }
        }
        self.layouts = layouts
        for l in layouts {
            for slot in l.relationshipSlots where l.ownSlots.contains(slot) {
                if let (il, islot) = l.inverse(of: slot) {
                    l.slots[slot].relationship?.inverseName = il.slots[islot].name
                }
            }
        }
        var byType: [ObjectIdentifier: Entity] = [:]
        var entities: [Entity] = []
        for l in layouts {
            let e = Entity(layout: l)
            byType[ObjectIdentifier(l.type)] = e
            entities.append(e)
        }
        for e in entities {
            if let sup = e.layout.superLayout {
                if let se = byType[ObjectIdentifier(sup.type)] {
                    e.superentity = se
                    se.subentities.append(e)
                }
            }
        }
        var byName: [String: Entity] = [:]
        for e in entities {
            if byName[e.name] != nil, error == nil {
                error = SwiftDataError(
                    SwiftDataError.unknownSchema.code,
                    "two model classes are named \(e.name); entity names must be unique",
                    entityName: e.name)
            }
            byName[e.name] = e
        }
        self.entities = entities
        self.entitiesByName = byName
        self.buildError = error
    }

    /// The entity of a model type, if the schema contains it.
    public func entity<T: PersistentModel>(for type: T.Type) -> Entity? {
        entities.first { ObjectIdentifier($0.layout.type) == ObjectIdentifier(type) }
    }

    func entity(forLayout layout: ModelLayout) -> Entity? {
        entities.first { $0.layout === layout }
    }

    /// One line per entity.
    public var description: String {
        entities.map(\.description).joined(separator: "\n")
    }

    /// One model class of a schema.
    public final class Entity: @unchecked Sendable, Hashable, CustomStringConvertible {
        let layout: ModelLayout
        /// The entity name: the class name.
        public var name: String { layout.name }
        /// Stored attributes, inherited ones included, in declaration order.
        public var attributes: [Attribute] { layout.slots.compactMap(\.attribute) }
        /// Relationships, inherited ones included, in declaration order.
        public var relationships: [Relationship] { layout.slots.compactMap(\.relationship) }
        /// Stored attributes, inherited ones included, by property name.
        public var attributesByName: [String: Attribute] {
            Dictionary(attributes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        }
        /// Relationships, inherited ones included, by property name.
        public var relationshipsByName: [String: Relationship] {
            Dictionary(relationships.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        }
        /// Attributes and relationships, in declaration order.
        public var properties: [any SchemaProperty] {
            layout.slots.map { ($0.attribute as (any SchemaProperty)?) ?? $0.relationship! }
        }
        /// Groups of property names that must be unique together (`#Unique`, `.unique`).
        public var uniquenessConstraints: [[String]] { layout.uniquenessConstraints }
        /// Indexes as lists of property names (`#Index`).
        public var indices: [[String]] { layout.indices }
        /// The superclass entity, if this entity is a subclass.
        public internal(set) weak var superentity: Entity?
        /// The direct subclass entities listed in the schema.
        public internal(set) var subentities: [Entity] = []
        /// The superclass entity's name.
        public var superentityName: String? { layout.superLayout?.name }

        init(layout: ModelLayout) { self.layout = layout }

        /// `Name: Super { properties }`.
        public var description: String {
            let sup = superentityName.map { ": \($0)" } ?? ""
            return "\(name)\(sup) { " + properties.map(\.description).joined(separator: "; ") + " }"
        }
        /// Entities are equal when they describe the same class.
        public static func == (a: Entity, b: Entity) -> Bool { a.layout === b.layout }
        /// Hashes the class identity.
        public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(layout)) }
    }
}

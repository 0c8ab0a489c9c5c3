import Foundation

/// A model as Core Data sees it: entities with their attributes (type codes, flags, composite
/// elements, derivations), relationships (destination, inverse, counts, delete rule) and
/// constraints — everything the version hashes and Apple's table layout are computed from.
///
/// Layer-neutral: no model classes, no SQL. Built from a ``Schema`` (`StoreModel(schema)`) or, in
/// tests, from the model description recorded in a real store (`vectors.json`).
/// ```swift
/// let model = StoreModel(schema)
/// model.versionHashes["Item"]          // 32 bytes, as NSStoreModelVersionHashes holds them
/// let layout = try StoreLayout(model)  // ZITEM, Z_PRIMARYKEY, … and every CREATE statement
/// ```
/// An entity lists only the properties it declares; ``allAttributes(of:)`` and
/// ``allRelationships(of:)`` add the inherited ones (Core Data copies them into sub-entities).
struct StoreModel: Hashable, Sendable {
    /// The entities, in no particular order (numbering and hashing sort them by name).
    var entities: [Entity]
    /// `NSStoreModelVersionIdentifiers`: SwiftData writes the schema version (`["1.0.0"]`).
    var versionIdentifiers: [String]

    /// A model of `entities`.
    init(entities: [Entity], versionIdentifiers: [String] = []) {
        self.entities = entities
        self.versionIdentifiers = versionIdentifiers
    }

    /// The entity called `name`.
    func entity(named name: String) -> Entity? { entities.first { $0.name == name } }

    /// The names of `name`'s direct sub-entities, sorted like `NSString compare:`.
    func subentities(of name: String) -> [String] {
        StoreModel.sorted(entities.filter { $0.superentity == name }.map(\.name))
    }

    /// `name` and its superentities, the root last.
    func lineage(of name: String) -> [Entity] {
        var out: [Entity] = []
        var next: String? = name
        while let n = next, let e = entity(named: n), !out.contains(where: { $0.name == n }) {
            out.append(e)
            next = e.superentity
        }
        return out
    }

    /// The root of `name`'s inheritance hierarchy (the entity whose table it shares).
    func root(of name: String) -> String { lineage(of: name).last?.name ?? name }

    /// Attributes of `name`, inherited ones first.
    func allAttributes(of name: String) -> [Attribute] { lineage(of: name).reversed().flatMap(\.attributes) }

    /// Relationships of `name`, inherited ones first.
    func allRelationships(of name: String) -> [Relationship] { lineage(of: name).reversed().flatMap(\.relationships) }

    /// The relationship `name` of `entity` or of one of its superentities.
    func relationship(_ name: String, of entity: String) -> Relationship? {
        allRelationships(of: entity).first { $0.name == name }
    }

    /// `names` in the order of `NSString compare:` — UTF-16 code units, which is plain byte
    /// order for ASCII names. Version hashes and entity numbers both use this order.
    static func sorted(_ names: [String]) -> [String] { names.sorted(by: precedes) }

    /// Whether `a` sorts before `b` like `NSString compare:` (UTF-16 code units).
    static func precedes(_ a: String, _ b: String) -> Bool { a.utf16.lexicographicallyPrecedes(b.utf16) }
}

extension StoreModel {
    /// Core Data's attribute type codes (`NSAttributeType`), as stored in the model and mixed
    /// into attribute version hashes as a little-endian `Int32`.
    enum AttributeType: Int32, Hashable, Sendable, CaseIterable {
        case undefined = 0
        /// `Int16`.
        case integer16 = 100
        /// `Int32`.
        case integer32 = 200
        /// `Int` / `Int64`.
        case integer64 = 300
        /// `Decimal`, stored in a `DECIMAL` column as a REAL.
        case decimal = 400
        /// `Double`.
        case double = 500
        /// `Float`.
        case float = 600
        /// `String`.
        case string = 700
        /// `Bool`, stored as 0 or 1.
        case boolean = 800
        /// `Date`, stored as REAL seconds since 2001-01-01 00:00 UTC.
        case date = 900
        /// `Data`.
        case binaryData = 1000
        /// `UUID`, stored as 16 bytes.
        case uuid = 1100
        /// `URL`, stored as its string.
        case uri = 1200
        /// A value converted to bytes by a value transformer.
        case transformable = 1800
        /// An object ID (not used in stores).
        case objectID = 2000
        /// A composite: SwiftData's Codable structs and enums, one column per element.
        case composite = 2100
    }

    /// What deleting the owner does to the destination (`NSDeleteRule`, as Core Data numbers it).
    enum DeleteRule: Int, Hashable, Sendable {
        case noAction = 0
        case nullify = 1
        case cascade = 2
        case deny = 3
    }

    /// One entity, with the properties it declares itself.
    struct Entity: Hashable, Sendable {
        /// The entity name (SwiftData: the class name).
        var name: String
        /// `NSClassNameForEntity`, if recorded.
        var className: String?
        /// Whether instances of exactly this entity cannot exist.
        var isAbstract: Bool = false
        /// The parent entity's name.
        var superentity: String?
        /// `versionHashModifier`: a salt mixed into the entity hash.
        var versionHashModifier: String?
        /// Groups of property names unique together (`#Unique`, `@Attribute(.unique)`), declared here.
        var uniquenessConstraints: [[String]] = []
        /// Fetch indexes declared here (`#Index`); they do not change the hash.
        var indexes: [Index] = []
        /// Attributes declared here.
        var attributes: [Attribute] = []
        /// Relationships declared here.
        var relationships: [Relationship] = []
        /// Fetched properties declared here: transient, no column, not in the hash.
        var fetchedProperties: [String] = []
    }

    /// A fetch index (`NSFetchIndexDescription`) over some properties.
    struct Index: Hashable, Sendable {
        /// The index name; the SQLite index is `Z_<Entity>_<name>`.
        var name: String
        /// The indexed properties, in order.
        var propertyNames: [String]

        /// The index SwiftData makes for `#Index` (a binary index): named
        /// `SwiftDataIndexOnBinary` + the property names run together.
        ///
        /// ```swift
        /// Index.swiftData(["cocktailName", "collectionName"]).name
        /// // "SwiftDataIndexOnBinarycocktailNamecollectionName"
        /// ```
        static func swiftData(_ propertyNames: [String]) -> Index {
            Index(name: "SwiftDataIndexOnBinary" + propertyNames.joined(), propertyNames: propertyNames)
        }
    }

    /// An attribute; a composite's elements are attributes too.
    struct Attribute: Hashable, Sendable {
        /// The property name (for an element, the element's key).
        var name: String
        /// The type code.
        var type: AttributeType
        /// Whether the value may be nil.
        var isOptional: Bool = false
        /// Whether the value is never stored (no column, not in the entity hash).
        var isTransient: Bool = false
        /// Whether the value cannot be set (derived attributes are read-only).
        var isReadOnly: Bool = false
        /// `allowsExternalBinaryDataStorage` (`.externalStorage`).
        var allowsExternalStorage: Bool = false
        /// `.preserveValueOnDeletion`: the value is kept in history after a delete.
        var preservesValueOnDeletion: Bool = false
        /// `versionHashModifier`.
        var versionHashModifier: String?
        /// A composite's elements, in declaration order (their columns follow this order).
        var elements: [Attribute] = []
        /// A derived attribute's expression; it still has a column (kept up to date by triggers).
        var derivation: Derivation?
        /// The value transformer's name, for a transformable.
        var valueTransformerName: String?
        /// Whether a composite stands for an enum (`userInfo["EnumType"]` in SwiftData's model).
        var isEnumeration: Bool = false

        /// A derived attribute's expression (`NSDerivedAttributeDescription`).
        struct Derivation: Hashable, Sendable {
            /// The derivation expression's text, as `NSExpression` prints it (`count:(pages)`).
            var expression: String
            /// The filtering predicate's text, if any.
            var filter: String?
        }

        /// Whether this is a composite (type 2100).
        var isComposite: Bool { type == .composite }
    }

    /// A relationship.
    struct Relationship: Hashable, Sendable {
        /// The property name.
        var name: String
        /// The destination entity's name.
        var destination: String
        /// The inverse relationship's name (on the destination), if there is one.
        var inverse: String?
        /// The least number of destination objects (0: no bound).
        var minCount: Int = 0
        /// The most destination objects: 1 for a to-one, 0 (or a negative value) for no bound.
        var maxCount: Int = 1
        /// Whether a to-many keeps an order.
        var isOrdered: Bool = false
        /// Whether the relationship may be empty.
        var isOptional: Bool = true
        /// Whether it is never stored.
        var isTransient: Bool = false
        /// Whether it cannot be set.
        var isReadOnly: Bool = false
        /// The delete rule (not part of the hash).
        var deleteRule: DeleteRule = .nullify
        /// `versionHashModifier`.
        var versionHashModifier: String?

        /// Core Data's rule: a relationship is to-many unless its maximum count is exactly 1.
        var isToMany: Bool { maxCount != 1 }
    }
}

extension StoreModel.AttributeType {
    /// The Swift type an attribute of this type holds, for messages (`Int`, `Date`, `composite`).
    var swiftName: String {
        switch self {
        case .integer16: "Int16"
        case .integer32: "Int32"
        case .integer64: "Int"
        case .decimal: "Decimal"
        case .double: "Double"
        case .float: "Float"
        case .string: "String"
        case .boolean: "Bool"
        case .date: "Date"
        case .binaryData: "Data"
        case .uuid: "UUID"
        case .uri: "URL"
        case .transformable: "transformable"
        case .objectID: "objectID"
        case .composite: "composite"
        case .undefined: "undefined"
        }
    }
}

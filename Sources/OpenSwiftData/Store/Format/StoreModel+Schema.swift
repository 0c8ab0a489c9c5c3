import Foundation

extension StoreModel {
    /// The model SwiftData builds from `schema`'s `@Model` classes (store-format README §5):
    /// the entity name is the class name; a property's Swift type gives its type code; an
    /// `Optional` attribute or relationship is optional and anything else is not (`[Model]?`,
    /// the CloudKit-style to-many, is an optional to-many; `[Model]` is not); `@Attribute(.unique)` and
    /// `#Unique` become uniqueness constraints and `#Index` a `SwiftDataIndexOnBinary…` index;
    /// `.externalStorage`, `.preserveValueOnDeletion`, `.ephemeral` (transient) and
    /// `hashModifier:` set their flags; the version identifier is the schema's version.
    ///
    /// ```swift
    /// let model = StoreModel(Schema([Item.self, CraftingRecipe.self, Component.self]))
    /// model.versionHashes == storedMetadata.versionHashes   // the store was written by this model
    /// ```
    /// Verified against the `swiftdata-resources`, `swiftdata-cart` and `swiftdata-cocktails`
    /// stores (equal entity hashes). Where the mapping is a guess, ``attribute(_:codec:)`` and
    /// ``relationship(_:)`` say so.
    init(_ schema: Schema) {
        self.init(
            entities: schema.entities.map(StoreModel.entity(from:)),
            versionIdentifiers: [schema.version.description])
    }

    /// One entity: the class's own (not inherited) properties and constraints.
    static func entity(from entity: Schema.Entity) -> Entity {
        let layout = entity.layout
        var out = Entity(name: entity.name, className: entity.name, superentity: entity.superentityName)
        out.uniquenessConstraints = layout.uniquenessGroupsWithOwner.filter { $0.owner === layout }.map(\.names)
        out.indexes = layout.type._$entityConstraints.indices.map(Index.swiftData)
        for slot in layout.slots[layout.ownSlots] {
            if let attribute = slot.attribute, let codec = slot.codec {
                out.attributes.append(self.attribute(attribute, codec: codec))
            } else if let relationship = slot.relationship {
                out.relationships.append(self.relationship(relationship))
            }
        }
        return out
    }

    /// One attribute. Standard types take the codes of README §3; a raw-value enum is a
    /// composite with one element named after the property and typed by the raw value (as the
    /// cocktails vector shows); a `Codable` struct is a composite whose elements are found by
    /// ``CompositeProbe`` (all elements optional, as in every vector).
    ///
    /// Guesses (no vector shows them): `Int8`/`UInt8` → Integer 16, `UInt16` → Integer 32,
    /// `UInt32`/`UInt`/`UInt64` → Integer 64; arrays, sets, dictionaries, `.codable` values and
    /// Codable types that are not keyed structs (enums with associated values) → binary data
    /// (1000) in one column; `let` properties are not read-only.
    static func attribute(_ a: Schema.Attribute, codec: AttributeCodec) -> Attribute {
        var out = Attribute(name: a.name, type: .binaryData, isOptional: a.isOptional, isTransient: a.isTransient)
        out.allowsExternalStorage = a.options.contains(.externalStorage)
        out.preservesValueOnDeletion = a.options.contains(.preserveValueOnDeletion)
        out.versionHashModifier = a.hashModifier
        switch codec.kind {
        case .transformable:
            out.type = .transformable
            for option in a.options {
                if case .transformable(let name) = option.kind { out.valueTransformerName = name }
            }
        case .native:
            out.type = AttributeType.native(codec.storedType) ?? .binaryData
        case .rawValue:
            out.type = .composite
            out.isEnumeration = true
            out.elements = [
                Attribute(name: a.name, type: CompositeProbe.elementType(codec.storedType), isOptional: true)
            ]
        case .json:
            if !a.options.contains(.codable), !(codec.storedType is any _CodableCollection.Type),
                let decodable = codec.storedType as? any Decodable.Type,
                let elements = CompositeProbe.elements(of: decodable)
            {
                out.type = .composite
                out.elements = elements
            }
        }
        return out
    }

    /// One relationship: a to-one has maximum count 1 and minimum 0 (also when not optional, as
    /// in the cocktails vector); a to-many takes `minimumModelCount`/`maximumModelCount` (0: no
    /// bound). Relationships are never ordered (SwiftData arrays are unordered).
    static func relationship(_ r: Schema.Relationship) -> Relationship {
        let rule: DeleteRule =
            switch r.deleteRule {
            case .nullify: .nullify
            case .cascade: .cascade
            case .deny: .deny
            case .noAction: .noAction
            }
        return Relationship(
            name: r.name, destination: r.destination, inverse: r.inverseName,
            minCount: r.isToOneRelationship ? 0 : (r.minimumModelCount ?? 0),
            maxCount: r.isToOneRelationship ? 1 : (r.maximumModelCount ?? 0),
            isOrdered: false, isOptional: r.isOptional,
            deleteRule: rule, versionHashModifier: r.hashModifier)
    }
}

extension StoreModel.AttributeType {
    /// The code of a standard Swift value type (README §3; the unsigned and 8-bit integers are
    /// guesses), or `nil` for any other type.
    ///
    /// ```swift
    /// StoreModel.AttributeType.native(Date.self)   // .date (900)
    /// ```
    static func native(_ type: Any.Type) -> Self? {
        switch type {
        case is Int.Type, is Int64.Type: .integer64
        case is Int32.Type: .integer32
        case is Int16.Type: .integer16
        case is Int8.Type, is UInt8.Type: .integer16
        case is UInt16.Type: .integer32
        case is UInt32.Type, is UInt.Type, is UInt64.Type: .integer64
        case is Bool.Type: .boolean
        case is Double.Type: .double
        case is Float.Type: .float
        case is Decimal.Type: .decimal
        case is Date.Type: .date
        case is String.Type: .string
        case is URL.Type: .uri
        case is UUID.Type: .uuid
        case is Data.Type: .binaryData
        default: nil
        }
    }
}

/// Arrays, sets and dictionaries: stored whole (binary data), never as composites.
protocol _CodableCollection {}
extension Array: _CodableCollection {}
extension Set: _CodableCollection {}
extension Dictionary: _CodableCollection {}

import Foundation

@testable import OpenSwiftData

/// One real store from `Tests/Vectors/store-format/vectors.json`: the model it recorded, its
/// metadata plist, its DDL and its `Z_PRIMARYKEY` rows.
struct StoreVector: Decodable, Sendable {
    /// The vectors' names, for parameterised tests.
    static let names = [
        "swiftdata-resources", "swiftdata-cart", "swiftdata-cocktails",
        "coredata-inheritance", "coredata-abstract-derived", "coredata-self-many-to-many",
    ]

    private static let loaded = Result<[String: StoreVector], any Error> {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Vectors/store-format/vectors.json")
        return try JSONDecoder().decode([String: StoreVector].self, from: Data(contentsOf: url))
    }

    /// The vector called `name`.
    static func named(_ name: String) throws -> StoreVector {
        guard let vector = try loaded.get()[name] else { throw Missing(name: name) }
        return vector
    }

    struct Missing: Error { let name: String }

    let ddl: [String]
    let metadata: Metadata
    let model: [String: Entity]
    let z_primarykey: [PrimaryKeyRow]
    let history_rows: [String: [[Scalar]]]?

    /// A value of a row in `history_rows`.
    enum Scalar: Decodable, Sendable {
        case int(Int)
        case double(Double)
        case string(String)
        case null
        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() {
                self = .null
            } else if let i = try? c.decode(Int.self) {
                self = .int(i)
            } else if let d = try? c.decode(Double.self) {
                self = .double(d)
            } else {
                self = .string(try c.decode(String.self))
            }
        }
    }

    /// The history rows the vector holds: `"<TABLE> (<columns>)"` → rows, in table order.
    var historyRows: [(String, [[Scalar]])] {
        (history_rows ?? [:]).filter { !$0.key.hasPrefix("entity rows") }.sorted { $0.key < $1.key }.map {
            ($0.key, $0.value)
        }
    }

    struct Metadata: Decodable, Sendable {
        let NSPersistenceFrameworkVersion: Int
        let NSPersistenceMaximumFrameworkVersion: Int?
        let NSStoreModelVersionHashes: [String: String]
        let NSStoreModelVersionHashesDigest: String?
        let NSStoreModelVersionChecksumKey: String?
        let NSStoreModelVersionHashesVersion: Int
        let NSStoreModelVersionIdentifiers: [String]
        let NSStoreType: String
        let _NSAutoVacuumLevel: String
    }

    struct Entity: Decodable, Sendable {
        let name: String
        let abstract: Bool
        let className: String?
        let superentity: String?
        let uniques: [[String]]
        let vhm: String?
        let properties: [String: Property]
    }

    struct Property: Decodable, Sendable {
        let cls: String
        let name: String
        let optional: Bool
        let transient: Bool
        let readonly: Bool
        let ordered: Bool
        let vhm: String?
        let attributeType: Int32?
        let external: Bool?
        let preserveOnDelete: Bool?
        let elements: [Property]?
        let derivationFormat: String?
        let filterFormat: String?
        let transformer: String?
        let userInfo: UserInfo?
        let dest: String?
        let inverse: String?
        let maxCount: Int?
        let minCount: Int?
        let deleteRule: Int?

        struct UserInfo: Decodable, Sendable { let EnumType: Bool? }
    }

    struct PrimaryKeyRow: Decodable, Sendable, Equatable {
        let entity: Int, name: String, superEntity: Int, max: Int
        init(from decoder: any Decoder) throws {
            var c = try decoder.unkeyedContainer()
            entity = try c.decode(Int.self)
            name = try c.decode(String.self)
            superEntity = try c.decode(Int.self)
            max = try c.decode(Int.self)
        }
    }

    /// Whether the store has the persistent-history tables.
    var hasHistory: Bool { ddl.contains { $0.hasPrefix("CREATE TABLE ATRANSACTION ") } }

    /// The hash of each entity, as bytes.
    var entityHashes: [String: Data] {
        metadata.NSStoreModelVersionHashes.mapValues { hex in
            Data(
                stride(from: 0, to: hex.count, by: 2).map { i in
                    let start = hex.index(hex.startIndex, offsetBy: i)
                    return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
                })
        }
    }

    /// The model the store recorded, as a ``StoreModel``: each entity keeps only the
    /// properties it declares (Core Data copies inherited ones into sub-entities).
    ///
    /// The recorded models carry no fetch indexes; `#Index` declarations known from the DDL
    /// (the cocktails app's `Z_Cocktail_SwiftDataIndexOnBinary…` indexes) are added here.
    var storeModel: StoreModel {
        let entities = model.values.map { e -> StoreModel.Entity in
            let inherited = Set(e.superentity.flatMap { model[$0]?.properties.keys }.map(Array.init) ?? [])
            var out = StoreModel.Entity(
                name: e.name, className: e.className, isAbstract: e.abstract,
                superentity: e.superentity, versionHashModifier: e.vhm,
                uniquenessConstraints: e.uniques)
            for p in e.properties.values where !inherited.contains(p.name) {
                switch p.cls {
                case "NSRelationshipDescription":
                    out.relationships.append(
                        StoreModel.Relationship(
                            name: p.name, destination: p.dest!, inverse: p.inverse, minCount: p.minCount!,
                            maxCount: p.maxCount!,
                            isOrdered: p.ordered, isOptional: p.optional, isTransient: p.transient,
                            isReadOnly: p.readonly,
                            deleteRule: StoreModel.DeleteRule(rawValue: p.deleteRule!)!, versionHashModifier: p.vhm))
                case "NSFetchedPropertyDescription":
                    out.fetchedProperties.append(p.name)
                default:
                    out.attributes.append(StoreVector.attribute(p))
                }
            }
            if e.name == "Cocktail" {
                out.indexes = [["cocktailName"], ["collectionName"], ["cocktailName", "collectionName"]].map(
                    StoreModel.Index.swiftData)
            }
            return out
        }
        let identifiers = metadata.NSStoreModelVersionIdentifiers
        return StoreModel(entities: entities, versionIdentifiers: identifiers)
    }

    static func attribute(_ p: Property) -> StoreModel.Attribute {
        var a = StoreModel.Attribute(
            name: p.name, type: StoreModel.AttributeType(rawValue: p.attributeType!)!,
            isOptional: p.optional, isTransient: p.transient, isReadOnly: p.readonly,
            allowsExternalStorage: p.external ?? false,
            preservesValueOnDeletion: p.preserveOnDelete ?? false, versionHashModifier: p.vhm)
        a.elements = (p.elements ?? []).map(attribute)
        if let expression = p.derivationFormat {
            a.derivation = .init(expression: expression, filter: p.filterFormat)
        }
        a.valueTransformerName = p.transformer
        a.isEnumeration = p.userInfo?.EnumType ?? false
        return a
    }
}

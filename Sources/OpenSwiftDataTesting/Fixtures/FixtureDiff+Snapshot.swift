import Foundation
import OpenSwiftData

/// One store file as ``FixtureDiff`` reads it: its description (`StoreFileDescription`), each
/// entity's properties from its table's columns (named by a schema where one is given), its
/// uniqueness constraints and its join tables, over an open read-only connection.
struct StoreSnapshot {
    /// A column of an entity table, as the diff names and prints it.
    struct Property {
        /// The schema's property name (`name`, `author.person` for a composite's element), or
        /// the column name when no schema claims the column.
        var name: String
        /// The column.
        var column: String
        /// The column's declared type (`INTEGER`, `VARCHAR`, `TIMESTAMP`, …).
        var declaredType: String
        /// The schema's Swift type (`String`, `Date`, `Item` for a to-one), when known.
        var swiftType: String?
        /// The schema's optionality, when known.
        var isOptional: Bool?
        /// Whether the column holds a to-one relationship's key (`Z_PK` of the destination).
        var isKey: Bool
        /// The destination entity of a key, when a schema names it.
        var destination: String?
        /// The column holding the destination's `Z_ENT` per row (`Z3_SHELF` beside `ZSHELF`),
        /// when the destination has sub-entities.
        var entityColumn: String?
        /// The entity that declares the property (the table's root when no schema says).
        var owner: String

        /// The type as the schema change prints it: `Int (INTEGER)`, or the declared type alone.
        var typeText: String { swiftType.map { "\($0) (\(declaredType))" } ?? declaredType }
    }

    /// An entity of the file (history entities left out).
    struct Entity {
        /// `Z_PRIMARYKEY`'s row for it.
        var description: StoreFileDescription.Entity
        /// Its version hash in hex, when `Z_METADATA` has one.
        var versionHash: String?
        /// The columns of its table that hold its values, in column order (inherited included;
        /// `Z_PK`, `Z_ENT`, `Z_OPT` and the `Z<n>_` entity columns left out).
        var properties: [Property]
        /// Its uniqueness constraints as property names, each sorted, the groups sorted.
        var uniqueness: [[String]]
    }

    /// A many-to-many join table.
    struct JoinTable {
        /// `Z_<n><NAME>`.
        var name: String
        /// Its columns (`Z_<n><INVERSE>`, `Z_<m><NAME>`).
        var columns: [String]
        /// The entity each column's keys belong to (from the `Z_<n>` prefix), by column.
        var entities: [String: String]
        /// The entity named by the table's `Z_<n>` prefix (the side whose relationship it stores).
        var owner: String
        /// Its row count.
        var rows: Int
    }

    /// The file as the caller named it.
    let path: String
    /// The open read-only connection.
    let db: SQLiteConnection
    let url: URL
    /// The entities by name.
    let entities: [String: Entity]
    /// Entity names by `Z_ENT`.
    let entityNames: [Int: String]
    /// The join tables by name.
    let joinTables: [String: JoinTable]

    /// Reads `url` (read-only) with `StoreFileDescription` and its tables' columns.
    init(contentsOf url: URL, schema: Schema?) throws {
        let description = try StoreFileDescription(contentsOf: url)
        let db = try FixtureFile.openReadOnly(url, purpose: .store)
        self.url = url
        self.db = db
        path = description.path
        do {
            let modelEntities = description.entities.filter { $0.number < 16000 }
            let entityNames = Dictionary(modelEntities.map { ($0.number, $0.name) }, uniquingKeysWith: { a, _ in a })
            self.entityNames = entityNames
            let names = try schema.map { try StoreNames($0) }
            var entities: [String: Entity] = [:]
            var columnsByTable: [String: [(name: String, type: String)]] = [:]
            for entity in modelEntities {
                guard let table = entity.table else { continue }
                if columnsByTable[table] == nil { columnsByTable[table] = try Self.columns(of: table, db, url) }
            }
            for entity in modelEntities {
                let columns = entity.table.flatMap { columnsByTable[$0] } ?? []
                let properties = Self.properties(
                    of: entity, columns: columns, all: modelEntities, indexes: description.indexes,
                    schema: schema, names: names)
                let uniqueness = Self.uniqueness(
                    of: entity, properties: properties, all: modelEntities, indexes: description.indexes,
                    schema: schema)
                entities[entity.name] = Entity(
                    description: entity, versionHash: description.metadata.versionHashes[entity.name],
                    properties: properties, uniqueness: uniqueness)
            }
            self.entities = entities
            var joins: [String: JoinTable] = [:]
            for table in description.tables where Self.entityNumber(prefixing: table.name) != nil {
                let columns = try Self.columns(of: table.name, db, url).map(\.name)
                guard !columns.contains("Z_ENT"), let number = Self.entityNumber(prefixing: table.name) else {
                    continue
                }
                var owners: [String: String] = [:]
                for column in columns {
                    owners[column] = Self.entityNumber(prefixing: column).flatMap { entityNames[$0] }
                }
                joins[table.name] = JoinTable(
                    name: table.name, columns: columns, entities: owners,
                    owner: entityNames[number] ?? table.name, rows: table.rows)
            }
            joinTables = joins
        } catch {
            db.close()
            throw error
        }
    }

    /// Closes the connection.
    func close() { db.close() }

    /// The `n` of a name starting `Z_<n>` (a join table or one of its columns), else `nil`.
    static func entityNumber(prefixing name: String) -> Int? {
        guard name.hasPrefix("Z_") else { return nil }
        let digits = name.dropFirst(2).prefix { $0.isASCII && $0.isNumber }
        return digits.isEmpty ? nil : Int(digits)
    }

    /// The `n` of a to-one's entity column `Z<n>_<NAME>`, with the key column `Z<NAME>` it goes with.
    static func entityColumn(_ name: String) -> (number: Int, keyColumn: String)? {
        guard name.hasPrefix("Z"), !name.hasPrefix("Z_") else { return nil }
        let digits = name.dropFirst().prefix { $0.isASCII && $0.isNumber }
        let rest = name.dropFirst(1 + digits.count)
        guard !digits.isEmpty, rest.hasPrefix("_"), let number = Int(digits) else { return nil }
        return (number, "Z" + rest.dropFirst())
    }

    /// A table's columns and declared types, in declaration order.
    static func columns(of table: String, _ db: SQLiteConnection, _ url: URL) throws -> [(name: String, type: String)] {
        try FixtureFile.reading(url, purpose: .store) {
            try db.rows("SELECT name, type FROM pragma_table_info(?) ORDER BY cid", [.text(table)]).compactMap { row in
                guard case .text(let name) = row[0] else { return nil }
                let type: String = if case .text(let t) = row[1] { t.uppercased() } else { "" }
                return (name, type)
            }
        }
    }

    /// `entity` and its ancestors, the entity first.
    static func lineage(_ entity: StoreFileDescription.Entity, in all: [StoreFileDescription.Entity]) -> [String] {
        var out = [entity.name]
        var parent = entity.parent
        while let name = parent, !out.contains(name) {
            out.append(name)
            parent = all.first { $0.name == name }?.parent
        }
        return out
    }

    /// The columns of `entity`'s table as its properties, named by `schema` where it claims them.
    private static func properties(
        of entity: StoreFileDescription.Entity, columns: [(name: String, type: String)],
        all: [StoreFileDescription.Entity], indexes: [StoreFileDescription.Index], schema: Schema?,
        names: StoreNames?
    ) -> [Property] {
        let lineage = lineage(entity, in: all)
        let root = lineage.last ?? entity.name
        let table = entity.table ?? ""
        let keyIndexed = Set(
            indexes.filter {
                $0.table == table && $0.columns.count == 1 && $0.name == "\(table)_\($0.columns[0])_INDEX"
            }
            .map { $0.columns[0] })
        let entityColumns = Dictionary(
            columns.compactMap { column in entityColumn(column.name).map { ($0.keyColumn, column.name) } },
            uniquingKeysWith: { a, _ in a })
        let claims = schemaClaims(lineage: lineage, schema: schema, names: names)
        var out: [Property] = []
        for column in columns
        where !["Z_PK", "Z_ENT", "Z_OPT"].contains(column.name) && entityColumn(column.name) == nil {
            var property = Property(
                name: column.name, column: column.name, declaredType: column.type,
                isKey: keyIndexed.contains(column.name) && column.type == "INTEGER",
                entityColumn: entityColumns[column.name], owner: root)
            if let claim = claims[column.name] {
                property.name = claim.name
                property.swiftType = claim.swiftType
                property.isOptional = claim.isOptional
                property.destination = claim.destination
                property.isKey = property.isKey || claim.destination != nil
                property.owner = claim.owner
            } else if claimedBySibling(column.name, lineage: lineage, schema: schema, names: names) {
                // A column of a sibling entity sharing the table: not this entity's value.
                continue
            }
            out.append(property)
        }
        return out
    }

    /// What `schema` says of the columns of `lineage`'s entities: the property each column
    /// stores, its Swift type, optionality, destination and declaring entity.
    private static func schemaClaims(lineage: [String], schema: Schema?, names: StoreNames?) -> [String: Claim] {
        guard let schema, let names else { return [:] }
        var claims: [String: Claim] = [:]
        // Root first, so a property is owned by the highest entity declaring it.
        for entityName in lineage.reversed() {
            guard let entity = schema.entitiesByName[entityName] else { continue }
            for attribute in entity.attributes where !attribute.isTransient {
                let type = typeName(attribute.valueType)
                if let column = names.column(entityName, attribute.name) {
                    if claims[column] == nil {
                        claims[column] = Claim(
                            name: attribute.name, swiftType: type, isOptional: attribute.isOptional,
                            destination: nil, owner: entityName)
                    }
                } else {
                    for (element, column) in names.elementColumns(entityName, attribute.name)
                    where claims[column] == nil {
                        claims[column] = Claim(
                            name: "\(attribute.name).\(element)", swiftType: nil, isOptional: true, destination: nil,
                            owner: entityName)
                    }
                }
            }
            for relationship in entity.relationships where relationship.isToOneRelationship {
                guard let column = names.column(entityName, relationship.name), claims[column] == nil else { continue }
                claims[column] = Claim(
                    name: relationship.name, swiftType: relationship.destination, isOptional: relationship.isOptional,
                    destination: relationship.destination, owner: entityName)
            }
        }
        return claims
    }

    /// Whether an entity outside `lineage` (a sibling sharing the table) stores `column`.
    private static func claimedBySibling(_ column: String, lineage: [String], schema: Schema?, names: StoreNames?)
        -> Bool
    {
        guard let schema, let names, let root = lineage.last else { return false }
        return schema.entities.contains { entity in
            guard !lineage.contains(entity.name), names.table(entity.name) == names.table(root) else { return false }
            return entity.attributes.contains {
                names.column(entity.name, $0.name) == column
                    || names.elementColumns(entity.name, $0.name).values.contains(column)
            } || entity.relationships.contains { names.column(entity.name, $0.name) == column }
        }
    }

    /// What a schema says of one column.
    struct Claim {
        var name: String
        var swiftType: String?
        var isOptional: Bool
        var destination: String?
        var owner: String
    }

    /// A Swift type's name without `Optional`: `Optional<String>` → `String`.
    static func typeName(_ type: Any.Type) -> String {
        var name = String(describing: type)
        while name.hasPrefix("Optional<"), name.hasSuffix(">") {
            name = String(name.dropFirst("Optional<".count).dropLast())
        }
        return name
    }

    /// `entity`'s uniqueness constraints as property names: the schema's when it has the entity,
    /// else the store's unique indexes `Z_<Entity>_UNIQUE_…` of the entity and its ancestors.
    private static func uniqueness(
        of entity: StoreFileDescription.Entity, properties: [Property], all: [StoreFileDescription.Entity],
        indexes: [StoreFileDescription.Index], schema: Schema?
    ) -> [[String]] {
        let byColumn = Dictionary(properties.map { ($0.column, $0.name) }, uniquingKeysWith: { a, _ in a })
        if let declared = schema?.entitiesByName[entity.name] {
            let names = Set(properties.map(\.name))
            return declared.uniquenessConstraints.filter { $0.allSatisfy(names.contains) }.map { $0.sorted() }.sorted {
                $0.lexicographicallyPrecedes($1)
            }
        }
        let lineage = lineage(entity, in: all)
        let groups = indexes.filter { index in
            index.unique && index.table == entity.table
                && lineage.contains { index.name.hasPrefix("Z_\($0)_UNIQUE_") }
        }
        .compactMap { index -> [String]? in
            let names = index.columns.compactMap { byColumn[$0] }
            return names.count == index.columns.count ? names.sorted() : nil
        }
        return Array(Set(groups)).sorted { $0.lexicographicallyPrecedes($1) }
    }
}

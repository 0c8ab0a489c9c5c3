import Foundation

/// A schema's entities as a store lays them out, for tools that rewrite a store file with plain
/// SQL (`harness fixtures subset`, say): each entity's table and `Z_ENT` numbers, its attributes'
/// columns and types, and where each relationship's keys live. Read from the same layout the
/// library creates stores with, so the names match Apple-written stores too.
///
/// ```swift
/// let graph = try StoreGraph(Schema([Item.self, Tag.self]))
/// graph.entity(named: "Item")?.table                  // "ZITEM"
/// graph.entity(named: "Item")?.toOnes.first?.keyColumn // "ZOWNER"
/// ```
package struct StoreGraph: Sendable {
    /// One entity and where its values and keys live.
    package struct Entity: Sendable {
        /// The entity name.
        package var name: String
        /// Its `Z_ENT`.
        package var number: Int
        /// The table its rows live in (its inheritance root's).
        package var table: String
        /// Its own `Z_ENT` and its sub-entities': the rows a fetch of the entity returns.
        package var kindNumbers: [Int]
        /// Its attributes, inherited ones included, by name.
        package var attributes: [Attribute]
        /// Its to-one relationships, inherited ones included, by name.
        package var toOnes: [ToOne]
        /// Its to-many relationships without inverse, whose keys live on the destination's table.
        package var oneWayToManys: [OneWayToMany]
    }

    /// An attribute and its column.
    package struct Attribute: Sendable {
        /// The property name.
        package var name: String
        /// Its column; `nil` for a composite (one column per element) or a transient attribute.
        package var column: String?
        /// The Swift type's name as Core Data types it: `String`, `URL`, `Int`, `Double`, `Date`, …
        package var typeName: String
        /// Whether the values are strings in the store (`String`).
        package var isString: Bool
        /// Whether a uniqueness constraint (`@Attribute(.unique)`, `#Unique`) names it.
        package var isUnique: Bool
    }

    /// A to-one relationship: its key column on the owner's table.
    package struct ToOne: Sendable {
        /// The property name.
        package var name: String
        /// The destination entity.
        package var destination: String
        /// The column holding the destination's `Z_PK`.
        package var keyColumn: String
        /// The column holding the destination's `Z_ENT` (when the destination has sub-entities).
        package var entityColumn: String?
        /// Whether it may be `nil`; a required one must point at a row.
        package var isOptional: Bool
    }

    /// A to-many relationship without inverse: a column of the destination's table holds the
    /// owner's `Z_PK`.
    package struct OneWayToMany: Sendable {
        /// The property name.
        package var name: String
        /// The destination entity.
        package var destination: String
        /// The destination's table.
        package var table: String
        /// The column of that table holding the owner's `Z_PK`.
        package var keyColumn: String
    }

    /// A many-to-many relationship's join table.
    package struct Join: Sendable {
        /// The entity whose relationship names the table.
        package var entity: String
        /// That relationship.
        package var relationship: String
        /// Its destination entity.
        package var destination: String
        /// The join table.
        package var table: String
        /// The column holding `entity`'s `Z_PK`s.
        package var ownerColumn: String
        /// The column holding the destination's `Z_PK`s.
        package var destinationColumn: String
    }

    /// The entities in `Z_ENT` order.
    package let entities: [Entity]
    /// The many-to-many join tables.
    package let joins: [Join]
    /// Every entity's version hash, as a store written for the schema records it in `Z_METADATA`.
    package let versionHashes: [String: Data]

    /// The layout of `schema`.
    ///
    /// - Throws: ``SwiftDataError/unknownSchema`` when the schema cannot be laid out.
    package init(_ schema: Schema) throws {
        let layout = try StoreNames(schema).layout
        let model = layout.model
        entities = layout.entities.map { StoreGraph.entity($0, layout: layout) }
        joins = layout.joinTables.map { join in
            Join(
                entity: join.entity, relationship: join.relationship,
                destination: model.relationship(join.relationship, of: join.entity)?.destination ?? join.entity,
                table: join.name, ownerColumn: join.ownerColumn, destinationColumn: join.destinationColumn)
        }
        versionHashes = model.versionHashes
    }

    /// The entity called `name`.
    package func entity(named name: String) -> Entity? { entities.first { $0.name == name } }

    private static func entity(_ e: StoreLayout.EntityLayout, layout: StoreLayout) -> Entity {
        let model = layout.model
        var kinds: [Int] = []
        var pending = [e.name]
        while let next = pending.popLast() {
            if let number = layout.entity(named: next)?.number { kinds.append(number) }
            pending += model.subentities(of: next)
        }
        let unique = Set(model.lineage(of: e.name).flatMap { $0.uniquenessConstraints.flatMap { $0 } })
        let attributes = model.allAttributes(of: e.name).filter { !$0.isTransient }.map { a -> Attribute in
            var column: String? = nil
            if case .column(let c)? = e.properties[a.name] { column = c }
            return Attribute(
                name: a.name, column: column, typeName: a.type.swiftName, isString: a.type == .string,
                isUnique: unique.contains(a.name))
        }
        var toOnes: [ToOne] = []
        var oneWay: [OneWayToMany] = []
        for r in model.allRelationships(of: e.name) {
            switch e.properties[r.name] {
            case .toOne(let key, let entityColumn)?:
                toOnes.append(
                    ToOne(
                        name: r.name, destination: r.destination, keyColumn: key, entityColumn: entityColumn,
                        isOptional: r.isOptional))
            case .toManyWithoutInverse(let table, let key)?:
                oneWay.append(OneWayToMany(name: r.name, destination: r.destination, table: table, keyColumn: key))
            default: break
            }
        }
        return Entity(
            name: e.name, number: e.number, table: e.table, kindNumbers: kinds.sorted(),
            attributes: attributes.sorted { $0.name < $1.name }, toOnes: toOnes.sorted { $0.name < $1.name },
            oneWayToManys: oneWay.sorted { $0.name < $1.name })
    }
}

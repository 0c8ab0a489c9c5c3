import Foundation

/// The SQLite names a schema's models get in a store — Apple's layout (store-format README
/// §3) — for code that reads or writes a store with plain SQL: raw-SQLite baselines, `sqlite3`
/// sessions, migrations written by hand.
///
/// ```swift
/// let names = try StoreNames(Schema([Item.self, Tag.self]))
/// names.table("Item")                 // "ZITEM"
/// names.column("Item", "name")        // "ZNAME"
/// names.entityNumber("Item")          // 1 (Z_ENT)
/// names.declaredIndexes("Item")       // ["Z_Item_SwiftDataIndexOnBinaryname"]
/// ```
/// The names depend only on the schema, so a container's ``ModelContainer/storeNames`` and a
/// `StoreNames` built from the same schema agree.
public struct StoreNames: Sendable {
    let layout: StoreLayout
    private let declared: [String: [String]]
    private let attributeColumns: [String: [String: String]]

    /// The names for `schema`.
    ///
    /// - Throws: ``SwiftDataError/unknownSchema`` when the schema cannot be laid out (a
    ///   relationship to a model outside it, an ordered relationship).
    public init(_ schema: Schema) throws {
        try self.init(mapping: StoreMapping(schema: schema))
    }

    init(mapping: StoreMapping) {
        layout = mapping.layout
        var declared: [String: [String]] = [:]
        for entity in layout.model.entities {
            declared[entity.name] = entity.indexes.map { "Z_\(entity.name)_\($0.name)" }
        }
        self.declared = declared
        var columns: [String: [String: String]] = [:]
        for entity in layout.entities {
            for (property, storage) in entity.properties {
                switch storage {
                case .column(let c): columns[entity.name, default: [:]][property] = c
                case .toOne(let key, _): columns[entity.name, default: [:]][property] = key
                case .composite(let elements) where elements.count == 1:
                    columns[entity.name, default: [:]][property] = elements[0].column
                default: break
                }
            }
        }
        attributeColumns = columns
    }

    /// The table holding `entity`'s rows (its inheritance root's, `Z<ROOT>`), or `nil` for an
    /// entity not in the schema.
    public func table(_ entity: String) -> String? { layout.entity(named: entity)?.table }

    /// The column of an attribute or to-one relationship of `entity` (`Z<PROPERTY>`; a to-one's
    /// key column), or `nil` when the property has no single column (a to-many, a transient
    /// property, a composite with several elements) or does not exist.
    public func column(_ entity: String, _ property: String) -> String? { attributeColumns[entity]?[property] }

    /// The columns of a composite attribute (a `Codable` struct), one per element, by element.
    public func elementColumns(_ entity: String, _ property: String) -> [String: String] {
        guard case .composite(let elements)? = layout.entity(named: entity)?.properties[property] else { return [:] }
        return Dictionary(uniqueKeysWithValues: elements.map { ($0.element, $0.column) })
    }

    /// `entity`'s `Z_ENT` number.
    public func entityNumber(_ entity: String) -> Int? { layout.entity(named: entity)?.number }

    /// The names of the indexes `#Index` declares on `entity` (an ``IndexStrategy`` drops or
    /// restores these).
    public func declaredIndexes(_ entity: String) -> [String] { declared[entity] ?? [] }

    /// The name ``IndexStrategy/custom(_:)`` gives an index on `properties` of `entity`.
    public func customIndex(_ entity: String, _ properties: [String]) -> String? {
        guard let table = table(entity) else { return nil }
        let columns = properties.compactMap { column(entity, $0) }
        guard columns.count == properties.count else { return nil }
        return "\(table)_custom_\(columns.joined(separator: "_"))"
    }

    /// The persistent-history tables every SwiftData store has (`ATRANSACTION`, `ACHANGE`,
    /// `ATRANSACTIONSTRING`): store bookkeeping, not the models' data.
    public static let historyTables: Set<String> = ["ATRANSACTION", "ACHANGE", "ATRANSACTIONSTRING"]

    /// Every `CREATE` statement of a new store, in order: entity, join, metadata and history
    /// tables, then indexes (the declared fetch indexes included), then triggers.
    public var createStatements: [String] { layout.statements }
}

extension ModelContainer {
    /// The SQLite names of this container's models in its store (see ``StoreNames``).
    ///
    /// ```swift
    /// try container.withStoreConnection { db in
    ///     try db.scalar("SELECT count(*) FROM \(container.storeNames.table("Item")!)")
    /// }
    /// ```
    public var storeNames: StoreNames { StoreNames(mapping: mapping) }
}

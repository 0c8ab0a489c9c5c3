import Foundation

/// One index in a container's store, as ``ModelContainer/storeIndexes()`` lists it.
///
/// ```swift
/// for index in try container.storeIndexes() { print(index.name, index.properties, index.role, index.sizeBytes ?? 0) }
/// ```
public struct StoreIndex: Sendable, Equatable, Codable, CustomStringConvertible {
    /// Why the index exists.
    public enum Role: String, Sendable, Codable {
        /// Part of the store's layout that a strategy never drops: relationship keys, entity
        /// columns, join tables.
        case required
        /// Enforces `@Attribute(.unique)` / `#Unique`; a strategy drops it only when asked
        /// (``ModelContainer/UniqueIndexPolicy/drop``).
        case unique
        /// A secondary index: `#Index`, or one an ``IndexStrategy`` created.
        case secondary
    }

    /// The index's name in the store.
    public var name: String
    /// The table it indexes.
    public var table: String
    /// The indexed columns, in order.
    public var columns: [String]
    /// The entity owning the table (the inheritance root), or the table name for a join table.
    public var entity: String
    /// The indexed properties, in order (a column that is no property, e.g. the entity column,
    /// keeps its column name).
    public var properties: [String]
    /// Why the index exists.
    public var role: Role
    /// Bytes of the index's pages (SQLite's `dbstat`), or `nil` where SQLite lacks `dbstat`.
    public var sizeBytes: Int?

    /// Creates a value.
    public init(
        name: String, table: String, columns: [String], entity: String, properties: [String],
        role: Role, sizeBytes: Int?
    ) {
        self.name = name
        self.table = table
        self.columns = columns
        self.entity = entity
        self.properties = properties
        self.role = role
        self.sizeBytes = sizeBytes
    }

    /// `Entity(a, b) [role]`.
    public var description: String { "\(entity)(\(properties.joined(separator: ", "))) [\(role.rawValue)]" }
}

extension ModelContainer {
    /// What ``applyIndexStrategy(_:uniqueIndexes:)`` does with the indexes of unique attributes.
    public enum UniqueIndexPolicy: String, Sendable, Codable {
        /// Keep them (and re-create any an earlier `.drop` removed).
        case keep
        /// Drop them too. A save still upserts a new model onto the stored row with its unique
        /// values (the save looks the values up, as it always does), but SQLite no longer rejects
        /// an update that gives two rows the same value: for measuring, on a copy, not for apps.
        case drop
    }

    /// Every index in the store with its role and size, ordered by table and name.
    ///
    /// Roles are derived from the schema, not from names: an index the schema's own layout
    /// creates is `required` (or `unique`), any other is `secondary`. Sizes come from
    /// `SELECT sum(pgsize) FROM dbstat WHERE name = ?`.
    /// - Throws: ``SwiftDataError/storeError`` when the store cannot be read.
    public func storeIndexes() throws -> [StoreIndex] {
        try requireOneStore("storeIndexes()")
        return try mapped { try store.withConnection { db in try indexes(db) } }
    }

    /// Replaces the store's secondary indexes with `strategy`'s, and drops or keeps the unique
    /// ones as `uniqueIndexes` says, in one transaction; returns the indexes afterwards.
    ///
    /// ```swift
    /// try container.applyIndexStrategy(.none, uniqueIndexes: .drop)   // measure "without" an index on a unique email
    /// try container.applyIndexStrategy(.declared, uniqueIndexes: .keep)
    /// ```
    /// - Throws: ``SwiftDataError/unknownSchema`` naming an unknown entity or property,
    ///   ``SwiftDataError/storeError`` when SQLite refuses a change (nothing is changed then).
    @discardableResult
    public func applyIndexStrategy(_ strategy: IndexStrategy, uniqueIndexes: UniqueIndexPolicy) throws -> [StoreIndex] {
        try requireOneStore("applyIndexStrategy(_:uniqueIndexes:)")
        let create = try strategyStatements(strategy)
        return try mapped {
            try store.withConnection { db in
                try db.immediateTransactionMapped {
                    let layoutIndexes = try schemaLayoutIndexes()
                    for index in try indexes(db) {
                        if index.role == .secondary || (index.role == .unique && uniqueIndexes == .drop) {
                            try db.execute("DROP INDEX \(quoteIdentifier(index.name))")
                        }
                    }
                    if uniqueIndexes == .keep {
                        let present = Set(try indexNames(db))
                        for (name, entry) in layoutIndexes where entry.unique && !present.contains(name) {
                            try db.execute(entry.sql)
                        }
                    }
                    for statement in create { try db.execute(statement) }
                }
                return try indexes(db)
            }
        }
    }

    /// The `CREATE INDEX` statements of `strategy`.
    func strategyStatements(_ strategy: IndexStrategy) throws -> [String] {
        switch strategy {
        case .none: return []
        case .declared: return mapping.declaredIndexDDL
        case .custom(let sets):
            var create: [String] = []
            for entity in sets.keys.sorted() {
                for group in sets[entity]! {
                    let (table, cols) = try mapping.indexColumns(entity: entity, properties: group)
                    create.append(StoreMapping.indexStatement(table: table.name, columns: cols, kind: "custom"))
                }
            }
            return create
        }
    }

    /// The indexes the schema's layout itself creates (name → unique?, SQL), found by running
    /// the layout's DDL on a scratch in-memory database, so no index name is assumed here.
    func schemaLayoutIndexes() throws -> [String: (unique: Bool, sql: String)] {
        let scratch = try SQLiteConnection(path: ":memory:", mode: .inMemory)
        defer { scratch.close() }
        for statement in mapping.ddl where !statement.hasPrefix("--") { try scratch.execute(statement) }
        var result: [String: (unique: Bool, sql: String)] = [:]
        for row in try scratch.rows("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL") {
            guard case .text(let name) = row[0], case .text(let sql) = row[1] else { continue }
            let unique = try scratch.scalar(
                "SELECT \"unique\" FROM pragma_index_list((SELECT tbl_name FROM sqlite_master WHERE name = ?)) WHERE name = ?",
                [.text(name), .text(name)])
            result[name] = (unique == .integer(1), sql)
        }
        return result
    }

    private func indexNames(_ db: SQLiteConnection) throws -> [String] {
        try db.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").compactMap {
            if case .text(let n) = $0[0] { n } else { nil }
        }
    }

    /// The store's indexes through `db` (held by the caller).
    func indexes(_ db: SQLiteConnection) throws -> [StoreIndex] {
        let layoutIndexes = try schemaLayoutIndexes()
        // A feature probe, not a swallowed failure: SQLite built without SQLITE_ENABLE_DBSTAT_VTAB
        // refuses to prepare this, and sizes are then reported as unknown (nil), never 0.
        // try?: a feature probe; a failed prepare means this SQLite has no dbstat table.
        let hasDBStat = (try? db.prepare("SELECT 1 FROM dbstat LIMIT 0")) != nil
        var result: [StoreIndex] = []
        let rows = try db.rows(
            "SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY tbl_name, name")
        for row in rows {
            guard case .text(let name) = row[0], case .text(let tableName) = row[1] else { continue }
            // The persistent-history tables' indexes are the store's, not the models'.
            guard !StoreNames.historyTables.contains(tableName) else { continue }
            let columns = try db.rows("SELECT name FROM pragma_index_info(?) ORDER BY seqno", [.text(name)]).map {
                if case .text(let c) = $0[0] { c } else { "?" }
            }
            let table = mapping.tables.first { $0.name == tableName }
            let root = table?.root
            let properties = columns.map { column -> String in
                guard let table else { return column }
                for e in table.entities {
                    if let slot = table.slotColumns[ObjectIdentifier(e.type)]?.first(where: { $0.value == column })?.key
                    {
                        return e.slots[slot].name
                    }
                }
                return column
            }
            let role: StoreIndex.Role
            if let entry = layoutIndexes[name] { role = entry.unique ? .unique : .required } else { role = .secondary }
            var size: Int?
            if hasDBStat,
                case .integer(let bytes)? = try db.scalar(
                    "SELECT sum(pgsize) FROM dbstat WHERE name = ?", [.text(name)])
            {
                size = Int(bytes)
            }
            result.append(
                StoreIndex(
                    name: name, table: tableName, columns: columns, entity: root?.name ?? tableName,
                    properties: properties, role: role, sizeBytes: size))
        }
        return result
    }

    /// Runs `body`, turning an escaping ``SQLiteError`` into ``SwiftDataError/storeError``.
    private func mapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let e as SQLiteError {
            throw SwiftDataError(
                SwiftDataError.storeError.code, "the store's indexes could not be read or changed",
                sql: e.sql, underlying: e)
        }
    }
}

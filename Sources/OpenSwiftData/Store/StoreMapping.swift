import Foundation

/// Quotes an SQL identifier: `"name"` with embedded quotes doubled.
func quoteIdentifier(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// How a schema maps to SQLite tables (DESIGN §5): one table per inheritance root with an
/// integer primary key `Z_PK` and an entity column `Z_ENT`; subclass columns are NULL for other
/// classes; to-one relationships are foreign-key columns; to-many relationships with a to-one
/// inverse use the other side's column; many-to-many and one-way to-many use a join table.
final class StoreMapping: @unchecked Sendable {
    /// How one relationship slot is stored.
    enum RelationshipStorage {
        /// A foreign-key column in this entity's table.
        case foreignKey(column: String)
        /// A foreign-key column in the target's table, pointing back at this row.
        case inverseForeignKey(table: Table, column: String)
        /// Rows of a join table: this side's key in `ownColumn`, the target's in `otherColumn`.
        case joinTable(name: String, ownColumn: String, otherColumn: String)
    }

    /// One root table.
    final class Table: @unchecked Sendable {
        let root: ModelLayout
        let name: String
        /// Entities stored in this table (root first), with their `Z_ENT` values.
        var entities: [ModelLayout] = []
        /// The mapping holding this table (relationship storage for predicate subqueries).
        weak var mapping: StoreMapping?
        var entityIDs: [ObjectIdentifier: Int64] = [:]
        /// Attribute and foreign-key columns in table order.
        var columns: [String] = []
        var columnTypes: [String] = []
        /// For each entity: its slot → column name, for slots that have a column.
        var slotColumns: [ObjectIdentifier: [Int: String]] = [:]
        /// For each entity: how to read a `SELECT Z_PK, Z_ENT, <columns>` row into slots.
        var decodePlans: [ObjectIdentifier: [ColumnRead]] = [:]
        /// `"Z_PK", "Z_ENT", "c1", …, "Z_OPT"` with the table alias `t`.
        var selectList: String = ""
        /// `SELECT <selectList> FROM <table> t WHERE t."Z_PK" = ?`: one row by key.
        var selectByKeySQL: String { "SELECT \(selectList) FROM \(quoteIdentifier(name)) t WHERE t.\"Z_PK\" = ?" }
        /// `SELECT <selectList> FROM <table> t WHERE t."Z_PK" IN (?, …)` with `count` placeholders.
        func selectByKeysSQL(_ count: Int) -> String {
            "SELECT \(selectList) FROM \(quoteIdentifier(name)) t WHERE t.\"Z_PK\" IN (\(Array(repeating: "?", count: count).joined(separator: ", ")))"
        }
        /// `SELECT <selectList> FROM <table> t WHERE t.<column> = ? ORDER BY t."Z_PK"`: the rows
        /// whose key column `column` holds a given key (a to-many through its inverse's column).
        func selectByColumnSQL(_ column: String) -> String {
            "SELECT \(selectList) FROM \(quoteIdentifier(name)) t WHERE t.\(quoteIdentifier(column)) = ? ORDER BY t.\"Z_PK\""
        }
        /// `SELECT <selectList> FROM <table> t JOIN <join> j ON j.<other> = t."Z_PK" WHERE j.<own> = ?
        /// ORDER BY t."Z_PK"`: this table's rows paired with a given key in a join table.
        func selectThroughJoinSQL(_ join: String, own: String, other: String) -> String {
            "SELECT \(selectList) FROM \(quoteIdentifier(name)) t JOIN \(quoteIdentifier(join)) j ON j.\(quoteIdentifier(other)) = t.\"Z_PK\" WHERE j.\(quoteIdentifier(own)) = ? ORDER BY t.\"Z_PK\""
        }
        /// `t."Z_ENT" IN (…)` restricting a query to `layout` and its subclasses, or `nil` when
        /// every entity of the table is one of them (no condition needed).
        func entityCondition(kindOf layout: ModelLayout, alias: String = "t") -> String? {
            guard entities.count > 1 else { return nil }
            let ids = entityIDs(kindOf: layout)
            guard ids.count < entities.count else { return nil }
            return "\(alias).\"Z_ENT\" IN (\(ids.map(String.init).joined(separator: ", ")))"
        }
        /// The index of `Z_OPT` (the row's version) in ``selectList``: after every column.
        var versionColumn: Int32 { Int32(columns.count + 2) }

        struct ColumnRead {
            let slot: Int
            let column: Int32
            let codec: AttributeCodec?
        }

        func plan(_ layout: ModelLayout) -> [ColumnRead] { decodePlans[ObjectIdentifier(layout.type)] ?? [] }

        /// One uniqueness group as the store checks it at save (`ModelContext+Upsert.swift`).
        struct UniqueGroup {
            /// A stable name for the group: its column names.
            let key: String
            /// A number unique to this (table, columns) group across the mapping.
            let id: Int
            /// How to read the group's values from a model.
            let reads: [ColumnRead]
            /// `SELECT "Z_PK", "Z_ENT" FROM <table> WHERE c1 = ? AND … [AND "Z_ENT" IN (…)]`.
            let lookupSQL: String
            /// For a one-column group: `SELECT c, "Z_PK", "Z_ENT" FROM <table> WHERE c IN (?, …)`
            /// with ``batchSize`` parameters, so a save looks up many new models at once.
            let batchLookupSQL: String?
            /// Parameters in ``batchLookupSQL``.
            static let batchSize = 256
        }
        /// Uniqueness groups per entity.
        var uniqueGroups: [ObjectIdentifier: [UniqueGroup]] = [:]
        /// Entities and their per-slot readers indexed by `Z_ENT`, for the row-decoding loop.
        var entitiesByID: [ModelLayout?] = []
        var slotReadersByID: [[SlotReader]] = []

        /// How to fill one slot from a row: a column through a codec, a foreign-key column, or
        /// nothing (`column < 0`: to-many relationships and ephemeral attributes).
        struct SlotReader {
            let column: Int32
            let codec: AttributeCodec?
        }

        init(root: ModelLayout) {
            self.root = root
            self.name = root.name
        }

        func entityID(_ layout: ModelLayout) -> Int64? { entityIDs[ObjectIdentifier(layout.type)] }
        func layout(forEntityID id: Int64) -> ModelLayout? {
            id >= 0 && id < entitiesByID.count ? entitiesByID[Int(id)] : nil
        }
        func column(_ layout: ModelLayout, _ slot: Int) -> String? { slotColumns[ObjectIdentifier(layout.type)]?[slot] }
        /// `Z_ENT` values of `layout` and every listed subclass.
        func entityIDs(kindOf layout: ModelLayout) -> [Int64] {
            entities.filter { $0.isKind(of: layout) }.compactMap { entityID($0) }
        }
    }

    let tables: [Table]
    /// How many distinct uniqueness groups the schema has (``Table/UniqueGroup/id`` < this).
    private(set) var uniqueGroupCount = 0
    private var tableByRoot: [ObjectIdentifier: Table] = [:]
    private var relationshipStorage: [String: RelationshipStorage] = [:]
    /// The statements that create the store's tables, unique indexes and relationship indexes,
    /// in order; also the schema fingerprint kept in `Z_METADATA` (data compatibility).
    private(set) var ddl: [String] = []
    /// The `#Index` declarations as `CREATE INDEX` statements. They are a performance choice,
    /// not part of the fingerprint: an index strategy may replace them (``IndexStrategy``).
    private(set) var declaredIndexDDL: [String] = []

    init(schema: Schema) throws {
        var tables: [Table] = []
        var byRoot: [ObjectIdentifier: Table] = [:]
        for layout in schema.layouts {
            let root = layout.root
            let table: Table
            if let t = byRoot[ObjectIdentifier(root.type)] { table = t } else {
                table = Table(root: root)
                byRoot[ObjectIdentifier(root.type)] = table
                tables.append(table)
            }
            table.entities.append(layout)
        }
        for table in tables {
            // Root first, then the rest by name, so entity ids are stable.
            table.entities.sort { a, b in
                if a === table.root { return true }
                if b === table.root { return false }
                return a.name < b.name
            }
            for (i, e) in table.entities.enumerated() { table.entityIDs[ObjectIdentifier(e.type)] = Int64(i + 1) }
        }
        self.tables = tables
        self.tableByRoot = byRoot
        for table in tables { table.mapping = self }
        try assignColumns(schema)
        var groupIDs: [String: Int] = [:]
        for table in tables {
            table.selectList = (["Z_PK", "Z_ENT"] + table.columns + ["Z_OPT"]).map { "t." + quoteIdentifier($0) }.joined(separator: ", ")
            for e in table.entities {
                var reads: [Table.ColumnRead] = []
                for s in e.slots {
                    guard let c = table.column(e, s.index), let i = table.columns.firstIndex(of: c) else { continue }
                    reads.append(Table.ColumnRead(slot: s.index, column: Int32(i + 2), codec: s.codec))
                }
                table.decodePlans[ObjectIdentifier(e.type)] = reads
            }
            for e in table.entities {
                var groups: [Table.UniqueGroup] = []
                let reads = table.plan(e)
                for (names, owner) in e.uniquenessGroupsWithOwner {
                    let groupReads = names.compactMap { n in e.slotByName[n].flatMap { s in reads.first { $0.slot == s } } }
                    guard groupReads.count == names.count else { continue }
                    let cols = groupReads.map { table.columns[Int($0.column) - 2] }
                    var sql = "SELECT \"Z_PK\", \"Z_ENT\" FROM \(quoteIdentifier(table.name)) WHERE "
                        + cols.map { "\(quoteIdentifier($0)) = ?" }.joined(separator: " AND ")
                    let kinds = table.entityIDs(kindOf: owner)
                    if kinds.count < table.entities.count {
                        sql += " AND \"Z_ENT\" IN (\(kinds.map(String.init).joined(separator: ", ")))"
                    }
                    var batch: String?
                    if cols.count == 1 {
                        batch = "SELECT \(quoteIdentifier(cols[0])), \"Z_PK\", \"Z_ENT\" FROM \(quoteIdentifier(table.name)) WHERE \(quoteIdentifier(cols[0])) IN ("
                            + Array(repeating: "?", count: Table.UniqueGroup.batchSize).joined(separator: ", ") + ")"
                        if kinds.count < table.entities.count {
                            batch! += " AND \"Z_ENT\" IN (\(kinds.map(String.init).joined(separator: ", ")))"
                        }
                    }
                    let groupKey = table.name + "|" + cols.joined(separator: ",")
                    let id = groupIDs[groupKey] ?? groupIDs.count
                    groupIDs[groupKey] = id
                    groups.append(Table.UniqueGroup(key: cols.joined(separator: ","), id: id, reads: groupReads, lookupSQL: sql,
                                                    batchLookupSQL: batch))
                }
                table.uniqueGroups[ObjectIdentifier(e.type)] = groups
            }
            table.entitiesByID = [nil] + table.entities
            table.slotReadersByID = [[]] + table.entities.map { e in
                var readers = Array(repeating: Table.SlotReader(column: -1, codec: nil), count: e.slots.count)
                for read in table.plan(e) { readers[read.slot] = Table.SlotReader(column: read.column, codec: read.codec) }
                return readers
            }
        }
        uniqueGroupCount = groupIDs.count
        buildDDL()
        buildReferenceCaches()
    }

    func table(for layout: ModelLayout) -> Table? { tableByRoot[ObjectIdentifier(layout.root.type)] }

    func storage(of layout: ModelLayout, slot: Int) -> RelationshipStorage? {
        relationshipStorage[key(layout.slots[slot])]
    }

    private func key(_ slot: ModelLayout.Slot) -> String { "\(String(reflecting: slot.declaringType)).\(slot.name)" }

    private func assignColumns(_ schema: Schema) throws {
        for table in tables {
            // Column names: the property name, or Entity_name when two classes of one tree
            // declare different properties under one name.
            var declared: [String: [ModelLayout.Slot]] = [:]
            var order: [ModelLayout.Slot] = []
            for e in table.entities {
                for s in e.slots where ObjectIdentifier(s.declaringType) == ObjectIdentifier(e.type) {
                    order.append(s)
                    declared[s.name, default: []].append(s)
                }
            }
            var slotColumn: [String: String] = [:]
            for s in order {
                guard needsColumn(s) else { continue }
                var column = s.name
                if (declared[s.name]?.count ?? 0) > 1 {
                    column = "\(String(describing: s.declaringType))_\(s.name)"
                }
                if ["Z_PK", "Z_ENT", "Z_OPT"].contains(column.uppercased()) { column = "_" + column }
                slotColumn[key(s)] = column
                table.columns.append(column)
                table.columnTypes.append(columnType(s))
            }
            for e in table.entities {
                var map: [Int: String] = [:]
                for s in e.slots { if let c = slotColumn[key(s)] { map[s.index] = c } }
                table.slotColumns[ObjectIdentifier(e.type)] = map
                for s in e.slots where s.isRelationship {
                    let storage = try relationshipStorageFor(e, s, slotColumn)
                    relationshipStorage[key(s)] = storage
                }
            }
        }
    }

    private func needsColumn(_ s: ModelLayout.Slot) -> Bool {
        switch s.kind {
        case .attribute: return !s.isEphemeral
        case .toMany: return false
        case .toOne: return ownsForeignKey(s)
        }
    }

    private func columnType(_ s: ModelLayout.Slot) -> String {
        if let c = s.codec { return c.columnType }
        return "INTEGER"
    }

    /// A to-one side owns the column unless its inverse is also to-one and sorts first.
    private func ownsForeignKey(_ s: ModelLayout.Slot) -> Bool {
        guard case .toOne = s.kind else { return false }
        guard let owner = try? ModelLayout.of(s.declaringType), let (il, islot) = owner.inverse(of: s.index) else { return true }
        let inv = il.slots[islot]
        if inv.isToMany { return true }
        return (owner.name, s.name) <= (String(describing: inv.declaringType), inv.name)
    }

    private func relationshipStorageFor(_ e: ModelLayout, _ s: ModelLayout.Slot,
                                        _ slotColumn: [String: String]) throws -> RelationshipStorage {
        guard let target = s.target, let targetLayout = try? ModelLayout.of(target),
              let targetTable = table(for: targetLayout) else {
            throw SwiftDataError(SwiftDataError.unknownSchema.code,
                                 "relationship '\(s.name)' targets \(s.target.map { String(describing: $0) } ?? "?"), which is not in the schema",
                                 entityName: e.name, propertyName: s.name)
        }
        let owner = (try? ModelLayout.of(s.declaringType)) ?? e
        let inverse = owner.inverse(of: s.index)
        if case .toOne = s.kind {
            if let c = slotColumn[key(s)] { return .foreignKey(column: c) }
            // The to-one inverse owns the column.
            let inv = inverse!.layout.slots[inverse!.slot]
            return .inverseForeignKey(table: targetTable, column: columnName(inv, in: targetTable))
        }
        if let (il, islot) = inverse, !il.slots[islot].isToMany {
            let inv = il.slots[islot]
            return .inverseForeignKey(table: targetTable, column: columnName(inv, in: targetTable))
        }
        // Join table, named after the side that sorts first so both sides agree.
        var a = (owner.name, s.name)
        if let (il, islot) = inverse {
            let b = (String(describing: il.slots[islot].declaringType), il.slots[islot].name)
            if b < a {
                a = b
                return .joinTable(name: "Z_\(a.0)_\(a.1)", ownColumn: "target_pk", otherColumn: "source_pk")
            }
        }
        return .joinTable(name: "Z_\(a.0)_\(a.1)", ownColumn: "source_pk", otherColumn: "target_pk")
    }

    private var inboundCache: [ObjectIdentifier: [(Table, String)]] = [:]
    private var joinCache: [ObjectIdentifier: [(String, String)]] = [:]

    /// Foreign-key columns (in any table) that point at rows of `table`; a deleted row's
    /// references are cleared through them (`UPDATE … SET fk = NULL WHERE fk = ?`).
    func inboundForeignKeys(to table: Table) -> [(Table, String)] {
        inboundCache[ObjectIdentifier(table)] ?? []
    }

    /// Join tables with a column holding keys of `table`'s rows.
    func joinTables(touching table: Table) -> [(String, String)] {
        joinCache[ObjectIdentifier(table)] ?? []
    }

    private func buildReferenceCaches() {
        for table in tables {
            var inbound: [(Table, String)] = []
            var seen = Set<String>()
            for t in tables {
                for e in t.entities {
                    for slot in e.relationshipSlots {
                        guard case .foreignKey(let column)? = storage(of: e, slot: slot),
                              let target = e.slots[slot].target, let tl = try? ModelLayout.of(target),
                              self.table(for: tl) === table, seen.insert(t.name + "." + column).inserted else { continue }
                        inbound.append((t, column))
                    }
                }
            }
            inboundCache[ObjectIdentifier(table)] = inbound
            var joins: [(String, String)] = []
            var seenJoins = Set<String>()
            for e in table.entities {
                for slot in e.relationshipSlots {
                    guard case .joinTable(let name, let own, _)? = storage(of: e, slot: slot),
                          seenJoins.insert(name + own).inserted else { continue }
                    joins.append((name, own))
                }
            }
            joinCache[ObjectIdentifier(table)] = joins
        }
    }

    /// `CREATE INDEX IF NOT EXISTS "<table>_<kind>_<c1>_<c2>" ON "<table>" ("c1", "c2")`.
    static func indexStatement(table: String, columns: [String], kind: String) -> String {
        "CREATE INDEX IF NOT EXISTS \(quoteIdentifier("\(table)_\(kind)_\(columns.joined(separator: "_"))")) ON \(quoteIdentifier(table)) (\(columns.map(quoteIdentifier).joined(separator: ", ")))"
    }

    /// The column names of `properties` of entity `entity`, or an error naming what is unknown.
    func indexColumns(entity: String, properties: [String]) throws -> (Table, [String]) {
        guard let table = tables.first(where: { $0.entities.contains { $0.name == entity } }),
              let layout = table.entities.first(where: { $0.name == entity }) else {
            throw SwiftDataError(SwiftDataError.unknownSchema.code, "no entity named \(entity) in the schema", entityName: entity)
        }
        var cols: [String] = []
        for p in properties {
            guard let slot = layout.slotByName[p], let c = table.column(layout, slot) else {
                throw SwiftDataError(SwiftDataError.unknownSchema.code,
                                     "\(entity).\(p) is not a stored attribute or to-one relationship; it cannot be indexed",
                                     entityName: entity, propertyName: p)
            }
            cols.append(c)
        }
        return (table, cols)
    }

    private func columnName(_ slot: ModelLayout.Slot, in table: Table) -> String {
        for e in table.entities { if let c = table.column(e, slot.index), ObjectIdentifier(e.slots[slot.index].declaringType) == ObjectIdentifier(slot.declaringType) { return c } }
        return slot.name
    }

    private func buildDDL() {
        var statements: [String] = []
        var joinTables = Set<String>()
        for table in tables {
            let q = quoteIdentifier(table.name)
            var cols = ["\"Z_PK\" INTEGER PRIMARY KEY", "\"Z_ENT\" INTEGER NOT NULL"]
            for (c, t) in zip(table.columns, table.columnTypes) { cols.append("\(quoteIdentifier(c)) \(t)") }
            // The row's version (Core Data's optimistic-locking column): 1 when inserted, +1 on
            // every update; a save compares it with the version its context read.
            cols.append("\"Z_OPT\" INTEGER NOT NULL DEFAULT 1")
            statements.append("CREATE TABLE \(q) (\(cols.joined(separator: ", ")))")
            if table.entities.count > 1 {
                statements.append("CREATE INDEX \(quoteIdentifier(table.name + "_Z_ENT")) ON \(q) (\"Z_ENT\")")
            }
            var seenGroups = Set<[String]>()
            for e in table.entities {
                for (i, group) in e.uniquenessConstraints.enumerated() {
                    let cols = group.compactMap { n in e.slotByName[n].flatMap { table.column(e, $0) } }
                    guard cols.count == group.count, seenGroups.insert(["u"] + cols).inserted else { continue }
                    statements.append("CREATE UNIQUE INDEX \(quoteIdentifier("\(table.name)_unique_\(cols.joined(separator: "_"))_\(i)")) ON \(q) (\(cols.map(quoteIdentifier).joined(separator: ", ")))")
                }
                for group in e.indices {
                    let cols = group.compactMap { n in e.slotByName[n].flatMap { table.column(e, $0) } }
                    guard !cols.isEmpty, seenGroups.insert(["i"] + cols).inserted else { continue }
                    declaredIndexDDL.append(StoreMapping.indexStatement(table: table.name, columns: cols, kind: "index"))
                }
                for s in e.slots where s.isRelationship {
                    if case .foreignKey(let c)? = storage(of: e, slot: s.index), seenGroups.insert(["f", c]).inserted {
                        statements.append("CREATE INDEX \(quoteIdentifier("\(table.name)_fk_\(c)")) ON \(q) (\(quoteIdentifier(c)))")
                    }
                    if case .joinTable(let name, _, _)? = storage(of: e, slot: s.index), joinTables.insert(name).inserted {
                        statements.append("CREATE TABLE \(quoteIdentifier(name)) (\"source_pk\" INTEGER NOT NULL, \"target_pk\" INTEGER NOT NULL, PRIMARY KEY (\"source_pk\", \"target_pk\")) WITHOUT ROWID")
                        statements.append("CREATE INDEX \(quoteIdentifier(name + "_target")) ON \(quoteIdentifier(name)) (\"target_pk\")")
                    }
                }
            }
        }
        // Entity ids are part of the layout a store depends on.
        for table in tables {
            for e in table.entities {
                statements.append("-- entity \(e.name) = \(table.entityID(e)!) in \(table.name)")
            }
        }
        ddl = statements
    }
}

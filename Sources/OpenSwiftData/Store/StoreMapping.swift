import Foundation

/// Quotes an SQL identifier: `"name"` with embedded quotes doubled.
func quoteIdentifier(_ name: String) -> String {
    // Save paths build statements per row: skip Foundation's search-and-replace (the common
    // case, a name without a quote, costs a byte scan).
    guard name.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + name + "\"" }
    return "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// How a schema maps to SQLite tables: Apple's layout (``StoreLayout``, store-format README
/// §3) — one `Z<ROOT>` table per inheritance root with `Z_PK`, `Z_ENT` (the entity number,
/// global across the store), `Z_OPT` and a `Z<PROPERTY>` column per attribute (one per element
/// of a composite); a to-one is a key column (both sides of a one-to-one keep one); a to-many
/// with a to-one inverse reads the other side's column; a to-many without inverse keeps its
/// owner's key in a `Z<n><NAME>` column on the destination's table; many-to-many uses a
/// `Z_<n><NAME>` join table. This type turns that layout into what the context reads and
/// writes per model class: column reads per slot, relationship storage and uniqueness lookups.
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
        /// The columns entities read, in ``selectList`` order (a composite's elements adjacent).
        /// Written while the mapping is built, read by every fetch (``versionColumn``).
        var columns: [String] = []
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
        /// `SELECT <selectList> FROM <table> t WHERE t."Z_PK" BETWEEN ? AND ? ORDER BY t."Z_PK"`: a run of
        /// keys, in key order.
        var selectByKeyRangeSQL: String {
            "SELECT \(selectList) FROM \(quoteIdentifier(name)) t WHERE t.\"Z_PK\" BETWEEN ? AND ? ORDER BY t.\"Z_PK\""
        }
        /// `SELECT <selectList> FROM <table> t WHERE t.<column> = ? ORDER BY t."Z_PK"`: the rows
        /// whose key column `column` holds a given key (a to-many through its inverse's column).
        func selectByColumnSQL(_ column: String) -> String {
            relationshipSQL(column) {
                "SELECT \(selectList) FROM \(quoteIdentifier(name)) t WHERE t.\(quoteIdentifier(column)) = ? ORDER BY t.\"Z_PK\""
            }
        }
        /// `SELECT <selectList> FROM <table> t JOIN <join> j ON j.<other> = t."Z_PK" WHERE j.<own> = ?
        /// ORDER BY t."Z_PK"`: this table's rows paired with a given key in a join table.
        func selectThroughJoinSQL(_ join: String, own: String, other: String) -> String {
            relationshipSQL("\(join)\u{0}\(own)\u{0}\(other)") {
                "SELECT \(selectList) FROM \(quoteIdentifier(name)) t JOIN \(quoteIdentifier(join)) j ON j.\(quoteIdentifier(other)) = t.\"Z_PK\" WHERE j.\(quoteIdentifier(own)) = ? ORDER BY t.\"Z_PK\""
            }
        }
        /// A relationship load's SQL, built once per key: loading a to-many relationship runs it
        /// for every owner. The table is shared by the container's contexts, hence the lock.
        private func relationshipSQL(_ key: String, _ build: () -> String) -> String {
            relationshipSQLs.value(key, build)
        }
        private let relationshipSQLs = Memo<String, String>()
        /// A statement over a batch of keys (``KeyListSQL``), named by `key`, `build` writing it
        /// for a list the first time a save needs it; kept with the table, as
        /// ``relationshipSQL(_:_:)``'s.
        func keyListSQL(_ key: String, _ build: (String) -> String) -> KeyListSQL {
            keyListSQLs.value(key) { KeyListSQL(build) }
        }
        private let keyListSQLs = Memo<String, KeyListSQL>()
        /// The table's indexed columns as last read from the store (``StoreWriter/indexedColumns(_:)``).
        var indexedColumns: IndexedColumns? {
            get {
                indexedColumnsLock.lock()
                defer { indexedColumnsLock.unlock() }
                return indexedColumnsCache
            }
            set {
                indexedColumnsLock.lock()
                defer { indexedColumnsLock.unlock() }
                indexedColumnsCache = newValue
            }
        }
        private let indexedColumnsLock = NSLock()
        private var indexedColumnsCache: IndexedColumns?
        /// `t."Z_ENT" IN (…)` restricting a query to `layout` and its subclasses, or `nil` when
        /// every entity of the table is one of them (no condition needed).
        func entityCondition(kindOf layout: ModelLayout, alias: String = "t") -> String? {
            guard entities.count > 1 else { return nil }
            let ids =
                FaultInjection.isActive(.baseFetchOmitsSubclasses)
                ? [entityID(layout)].compactMap { $0 } : entityIDs(kindOf: layout)
            guard ids.count < entities.count else { return nil }
            return "\(alias).\"Z_ENT\" IN (\(ids.map(String.init).joined(separator: ", ")))"
        }
        /// The index of `Z_OPT` (the row's version) in ``selectList``: after every column.
        var versionColumn: Int32 { Int32(columns.count + 2) }

        /// One slot's column (or run of columns) in ``selectList`` and how to read or write it.
        struct ColumnRead {
            /// What the column holds.
            enum Role { case value, foreignKey, foreignEntity }
            let slot: Int
            /// The (first) column's index in ``selectList``.
            let column: Int32
            let codec: AttributeCodec?
            /// ``Role/value``: an attribute; ``Role/foreignKey``: a to-one's destination
            /// `Z_PK`; ``Role/foreignEntity``: the destination's `Z_ENT` (`Z<n>_<NAME>`, when
            /// the destination has sub-entities).
            var role: Role = .value
            /// How many adjacent columns: a composite's elements, else 1.
            var width: Int = 1
            /// A composite attribute's element codec.
            var composite: CompositeColumns? = nil
        }

        func plan(_ layout: ModelLayout) -> [ColumnRead] { decodePlans[ObjectIdentifier(layout.type)] ?? [] }

        /// One uniqueness group as the store checks it at save (``UniquenessResolution``).
        /// A class, not a struct: a save passes each new model's groups around, and a class is
        /// one reference count where the struct's strings and array were four.
        final class UniqueGroup {
            /// A stable name for the group: its column names.
            let key: String
            /// A number unique to this (table, columns) group across the mapping.
            let id: Int
            /// How to read the group's values from a model.
            let reads: [ColumnRead]
            /// `SELECT 1 FROM <table> LIMIT 1`: whether the table has any row to look up.
            let anyRowSQL: StatementSQL
            /// The lookups reading no column after `Z_OPT`.
            let plain: Lookup
            /// ``plain``'s batched lookup: `nil` unless the group has one column.
            var batchLookupSQL: KeyListSQL? { plain.batchSQL }
            /// The lookup's SQL from ` FROM` on (``lookup(reading:in:)``).
            private let from: String
            /// A one-column group's column, quoted, and its batched lookup's SQL from ` FROM` on,
            /// split around its `IN` list.
            private let batchColumn: String
            private let batchFrom: (head: String, tail: String)?

            /// A group's lookups, reading `columns` after `Z_OPT` (``IndexedColumns``).
            struct Lookup: Sendable {
                /// `SELECT "Z_PK", "Z_ENT", "Z_OPT"[, …] FROM <table> WHERE c1 = ? AND … [AND "Z_ENT" IN (…)]`.
                let sql: StatementSQL
                /// For a one-column group: `SELECT c, "Z_PK", "Z_ENT", "Z_OPT"[, …] FROM <table>
                /// WHERE c IN (?, …)`, so a save looks up its new models' values a batch at a
                /// time, each batch in the shortest list of ``KeyListSQL/lookupLengths`` that holds
                /// it (one new model: `IN (?)`, which SQLite runs as `c = ?`).
                let batchSQL: KeyListSQL?
                /// The columns read after `Z_OPT`, as indexes into the table's ``selectList``.
                let columns: [Int32]
            }

            init(
                key: String, id: Int, reads: [ColumnRead], from: String, batchColumn: String,
                batchFrom: (head: String, tail: String)?, anyRowSQL: StatementSQL
            ) {
                self.key = key
                self.id = id
                self.reads = reads
                self.from = from
                self.batchColumn = batchColumn
                self.batchFrom = batchFrom
                self.anyRowSQL = anyRowSQL
                self.plain = Lookup(
                    sql: StatementSQL("SELECT \"Z_PK\", \"Z_ENT\", \"Z_OPT\"" + from),
                    batchSQL: Self.batchSQL(batchColumn, "", batchFrom), columns: [])
            }

            /// A one-column group's batched lookup reading `extra` after `Z_OPT`.
            private static func batchSQL(
                _ column: String, _ extra: String, _ from: (head: String, tail: String)?
            ) -> KeyListSQL? {
                from.map { from in
                    KeyListSQL(lengths: KeyListSQL.lookupLengths) {
                        "SELECT \(column), \"Z_PK\", \"Z_ENT\", \"Z_OPT\"\(extra)" + from.head + $0 + from.tail
                    }
                }
            }

            /// The lookups reading `columns` of `table` after `Z_OPT`.
            func lookup(reading columns: [Int32], in table: Table) -> Lookup {
                let extra = columns.map { ", " + quoteIdentifier(table.columns[Int($0) - 2]) }.joined()
                return Lookup(
                    sql: StatementSQL("SELECT \"Z_PK\", \"Z_ENT\", \"Z_OPT\"\(extra)" + from),
                    batchSQL: Self.batchSQL(batchColumn, extra, batchFrom), columns: columns)
            }
        }
        /// Uniqueness groups per entity.
        var uniqueGroups: [ObjectIdentifier: [UniqueGroup]] = [:]
        /// Entities indexed by `Z_ENT`, for the row-decoding loop (read on every fetch; written
        /// only while the mapping is built, before any fetch can see the table).
        var entitiesByID: [ModelLayout?] = []
        /// How the table's rows are read into models and models written into rows (read on
        /// every fetch and save; written only while the mapping is built).
        var codec = RowCodec()

        /// `DELETE FROM <table> WHERE "Z_PK" IN (?, …)`, built once (a save deletes its rows of
        /// the table in batches).
        let deleteByKeysSQL: KeyListSQL
        /// `DELETE FROM <table> WHERE "Z_PK" = ? AND "Z_OPT" = ?` (the `.error` merge policy).
        let deleteByKeyAndVersionSQL: String

        /// The table's largest key (0 when it is empty) and the largest key `Z_PRIMARYKEY`
        /// records for the entity `?` (``StoreWriter/largestKey(of:)``).
        let largestKeySQL: StatementSQL

        init(root: ModelLayout, name: String) {
            self.root = root
            self.name = name
            deleteByKeysSQL = KeyListSQL { "DELETE FROM \(quoteIdentifier(name)) WHERE \"Z_PK\" IN \($0)" }
            deleteByKeyAndVersionSQL = "DELETE FROM \(quoteIdentifier(name)) WHERE \"Z_PK\" = ? AND \"Z_OPT\" = ?"
            versionByKeySQL = StatementSQL("SELECT \"Z_OPT\" FROM \(quoteIdentifier(name)) WHERE \"Z_PK\" = ?")
            largestKeySQL = StatementSQL(
                "SELECT (SELECT coalesce(max(\"Z_PK\"), 0) FROM \(quoteIdentifier(name))), (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?)"
            )
        }

        /// The `INSERT`s of new rows of entity `entity`, whose column reads are `reads` (its
        /// ``plan(_:)``): written the first time a save inserts one, then kept with the table,
        /// so a save of one new model builds no SQL.
        func insertSQL(entity: Int64, reads: [ColumnRead]) -> InsertSQL {
            insertSQLs.value(entity) { InsertSQL(table: self, entity: entity, reads: reads) }
        }
        private let insertSQLs = Memo<Int64, InsertSQL>()

        /// The `UPDATE` of the columns `reads` write and of `Z_OPT` (``StoreWriter/updateStatement(_:reads:checkingVersion:)``),
        /// `build` writing it the first time these columns are updated; a save that changes the
        /// same properties of many models (or of one model, save after save) builds it once.
        func updateSQL(
            _ reads: [ColumnRead], checkingVersion: Bool, build: () -> String
        ) -> StatementSQL {
            let key = UpdateKey(columns: reads.map(\.column), checkingVersion: checkingVersion)
            return updateSQLs.value(key) { StatementSQL(build()) }
        }
        /// What an `UPDATE` of ``updateSQL(_:checkingVersion:build:)`` depends on: the columns
        /// (the first of each read, whose width the table fixes) and the version check.
        private struct UpdateKey: Hashable {
            let columns: [Int32]
            let checkingVersion: Bool
        }
        private let updateSQLs = Memo<UpdateKey, StatementSQL>()
        /// `SELECT "Z_OPT" FROM <table> WHERE "Z_PK" = ?`: a row's version, read after an
        /// update that did not check it.
        let versionByKeySQL: StatementSQL

        /// The column names `reads` write, in order (a composite's one per element).
        func columnNames(_ reads: [ColumnRead]) -> [String] {
            reads.flatMap { read in columns[(Int(read.column) - 2)..<(Int(read.column) - 2 + read.width)] }
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
    /// The model as the store records it (entity version hashes, `Z_METADATA`).
    let model: StoreModel
    /// Apple's layout of ``model``: every table, column, index and entity number.
    let layout: StoreLayout
    /// How many distinct uniqueness groups the schema has (``Table/UniqueGroup/id`` < this).
    private(set) var uniqueGroupCount = 0
    private var tableByRoot: [ObjectIdentifier: Table] = [:]
    private var relationshipStorage: [SlotKey: RelationshipStorage] = [:]
    /// Relationship slots (by ``key(_:)``) stored as a key column the owner holds on the
    /// destination's rows with no to-one inverse maintaining it (`Z<n><NAME>`): a save writes it.
    private var ownerKeySlots: Set<SlotKey> = []
    /// Every `CREATE` statement of a new store except the `#Index` fetch indexes, in
    /// ``StoreLayout/statements`` order.
    private(set) var ddl: [String] = []
    /// The `#Index` declarations as `CREATE INDEX` statements (`Z_<Entity>_SwiftDataIndexOn…`).
    /// They are a performance choice: an index strategy may replace them (``IndexStrategy``).
    private(set) var declaredIndexDDL: [String] = []
    /// What history records of each model class (``StoreMapping/HistoryInfo``).
    var historyInfos: [ObjectIdentifier: HistoryInfo] = [:]
    /// The model classes by entity number (`Z_ENT`, `ACHANGE.ZENTITY`).
    var layoutsByEntityNumber: [Int64: ModelLayout] = [:]

    init(schema: Schema) throws {
        let model = StoreModel(schema)
        let layout = try StoreLayout(model)
        self.model = model
        self.layout = layout
        var byName: [String: ModelLayout] = [:]
        for l in schema.layouts { byName[l.name] = l }
        var tables: [Table] = []
        var byRoot: [ObjectIdentifier: Table] = [:]
        for t in layout.tables {
            guard let root = byName[t.root] else { continue }
            let table = Table(root: root, name: t.name)
            table.entities = t.entities.compactMap { byName[$0] }
            for e in table.entities {
                table.entityIDs[ObjectIdentifier(e.type)] = Int64(layout.entity(named: e.name)?.number ?? 0)
            }
            byRoot[ObjectIdentifier(root.type)] = table
            tables.append(table)
        }
        self.tables = tables
        self.tableByRoot = byRoot
        for table in tables { table.mapping = self }
        try assignColumns(layout)
        var groupIDs: [String: Int] = [:]
        for table in tables {
            table.selectList = (["Z_PK", "Z_ENT"] + table.columns + ["Z_OPT"]).map { "t." + quoteIdentifier($0) }
                .joined(separator: ", ")
            for e in table.entities {
                table.uniqueGroups[ObjectIdentifier(e.type)] = Self.uniqueGroups(of: e, in: table, ids: &groupIDs)
            }
            let largest = Int(table.entityIDs.values.max() ?? 0)
            table.entitiesByID = Array(repeating: nil, count: largest + 1)
            for e in table.entities {
                if let id = table.entityID(e) { table.entitiesByID[Int(id)] = e }
            }
            table.codec = RowCodec(table: table)
        }
        uniqueGroupCount = groupIDs.count
        buildDDL(layout)
        buildReferenceCaches()
        buildHistoryInfo()
    }

    /// The uniqueness groups the store checks for entity `e` of `table` at save (its own and
    /// its superclasses'), each numbered by `ids` (one number per table and columns).
    private static func uniqueGroups(of e: ModelLayout, in table: Table, ids: inout [String: Int]) -> [Table
        .UniqueGroup]
    {
        var groups: [Table.UniqueGroup] = []
        let reads = table.plan(e).filter { $0.role != .foreignEntity }
        for (names, owner) in e.uniquenessGroupsWithOwner {
            let groupReads = names.compactMap { n in
                e.slotByName[n].flatMap { s in reads.first { $0.slot == s } }
            }
            // A composite cannot be compared as one value; its unique index still holds.
            guard groupReads.count == names.count, groupReads.allSatisfy({ $0.width == 1 }) else { continue }
            let cols = groupReads.map { table.columns[Int($0.column) - 2] }
            var from =
                " FROM \(quoteIdentifier(table.name)) WHERE "
                + cols.map { "\(quoteIdentifier($0)) = ?" }.joined(separator: " AND ")
            let kinds = table.entityIDs(kindOf: owner)
            if kinds.count < table.entities.count {
                from += " AND \"Z_ENT\" IN (\(kinds.map(String.init).joined(separator: ", ")))"
            }
            var batch: (head: String, tail: String)?
            if cols.count == 1 {
                let kindsFilter =
                    kinds.count < table.entities.count
                    ? " AND \"Z_ENT\" IN (\(kinds.map(String.init).joined(separator: ", ")))" : ""
                batch = (" FROM \(quoteIdentifier(table.name)) WHERE \(quoteIdentifier(cols[0])) IN ", kindsFilter)
            }
            let groupKey = table.name + "|" + cols.joined(separator: ",")
            let id = ids[groupKey] ?? ids.count
            ids[groupKey] = id
            groups.append(
                Table.UniqueGroup(
                    key: cols.joined(separator: ","), id: id, reads: groupReads, from: from,
                    batchColumn: quoteIdentifier(cols[0]), batchFrom: batch,
                    anyRowSQL: StatementSQL("SELECT 1 FROM \(quoteIdentifier(table.name)) LIMIT 1")))
        }
        return groups
    }

    func table(for layout: ModelLayout) -> Table? { tableByRoot[ObjectIdentifier(layout.root.type)] }

    func storage(of layout: ModelLayout, slot: Int) -> RelationshipStorage? {
        relationshipStorage[key(layout.slots[slot])]
    }

    /// A relationship slot by its declaring class and name (one per property, shared by subclasses).
    private struct SlotKey: Hashable {
        let type: ObjectIdentifier
        let name: String
    }

    /// Looked up for every deleted or saved model with relationships, so it hashes a type
    /// identity and a name, never a `String(reflecting:)` of the type (which walks a `Mirror`).
    private func key(_ slot: ModelLayout.Slot) -> SlotKey {
        SlotKey(type: ObjectIdentifier(slot.declaringType), name: slot.name)
    }

    /// Reads Apple's layout (``StoreLayout``) into per-entity column reads and relationship
    /// storage. The select list orders the columns so that a composite's element columns are
    /// adjacent (its codec reads them as one run); `CREATE TABLE` keeps Core Data's order.
    private func assignColumns(_ layout: StoreLayout) throws {
        for table in tables {
            var position: [String: Int] = [:]
            func column(_ name: String) -> Int32 {
                if let i = position[name] { return Int32(i + 2) }
                position[name] = table.columns.count
                table.columns.append(name)
                return Int32(table.columns.count + 1)
            }
            for e in table.entities {
                guard let entity = layout.entity(named: e.name) else { continue }
                var reads: [Table.ColumnRead] = []
                var map: [Int: String] = [:]
                for s in e.slots {
                    guard let (slotReads, name) = try Self.columnReads(s, of: e, entity, layout, column: column) else {
                        continue
                    }
                    reads += slotReads
                    map[s.index] = name
                }
                table.decodePlans[ObjectIdentifier(e.type)] = reads
                table.slotColumns[ObjectIdentifier(e.type)] = map
            }
        }
        assignRelationshipStorage(layout)
    }

    /// The column reads of slot `s` of `e` (stored as `entity` in `layout`) and the name of its
    /// (first) column, `nil` for a slot without a column. `column` gives a column's index in the
    /// table's select list, adding it on first use.
    private static func columnReads(
        _ s: ModelLayout.Slot, of e: ModelLayout, _ entity: StoreLayout.EntityLayout, _ layout: StoreLayout,
        column: (String) -> Int32
    ) throws -> ([Table.ColumnRead], String)? {
        switch entity.properties[s.name] {
        case .column(let c)?:
            guard let codec = s.codec else { return nil }
            return ([Table.ColumnRead(slot: s.index, column: column(c), codec: codec)], c)
        case .composite(let elements)?:
            guard let codec = s.codec, let first = elements.first else { return nil }
            if elements.count == 1, codec.kind != .json {
                // A raw-value enum: one element, named after the property.
                return ([Table.ColumnRead(slot: s.index, column: column(first.column), codec: codec)], first.column)
            }
            let start = column(first.column)
            for (i, element) in elements.enumerated().dropFirst() where column(element.column) != start + Int32(i) {
                throw SwiftDataError(
                    SwiftDataError.unknownSchema.code,
                    "the composite \(e.name).\(s.name) shares a column with another property; it cannot be stored",
                    entityName: e.name, propertyName: s.name)
            }
            let attribute = layout.model.lineage(of: e.name).lazy
                .compactMap { $0.attributes.first { $0.name == s.name } }.first
            let composite = CompositeColumns(
                codec: codec, elements: attribute?.elements.filter { !$0.isTransient } ?? [])
            let read = Table.ColumnRead(
                slot: s.index, column: start, codec: codec, width: elements.count, composite: composite)
            return ([read], first.column)
        case .toOne(let key, let entityColumn)?:
            var reads = [Table.ColumnRead(slot: s.index, column: column(key), codec: nil, role: .foreignKey)]
            if let entityColumn {
                reads.append(
                    Table.ColumnRead(slot: s.index, column: column(entityColumn), codec: nil, role: .foreignEntity))
            }
            return (reads, key)
        default:
            return nil
        }
    }

    /// Reads how each relationship of `layout` is stored (``RelationshipStorage``).
    private func assignRelationshipStorage(_ layout: StoreLayout) {
        for table in tables {
            for e in table.entities {
                guard let entity = layout.entity(named: e.name) else { continue }
                for s in e.slots where s.isRelationship {
                    guard let storage = entity.properties[s.name] else { continue }
                    let slotKey = self.key(s)
                    switch storage {
                    case .toOne(let key, _):
                        relationshipStorage[slotKey] = .foreignKey(column: key)
                    case .toManyThroughInverse(let name, let key), .toManyWithoutInverse(let name, let key):
                        guard let target = self.tables.first(where: { $0.name == name }) else { continue }
                        relationshipStorage[slotKey] = .inverseForeignKey(table: target, column: key)
                        if case .toManyWithoutInverse = storage { ownerKeySlots.insert(slotKey) }
                    case .manyToMany(let join, let own, let other):
                        relationshipStorage[slotKey] = .joinTable(name: join, ownColumn: own, otherColumn: other)
                    default:
                        break
                    }
                }
            }
        }
    }

    /// Whether the to-many `slot` of `layout` is stored as a key column on the destination's
    /// rows that nothing else writes (a to-many without inverse, `Z<n><NAME>`): a save sets it
    /// on the rows added to the list and clears it on the rows removed.
    func ownsKeysOnDestination(_ layout: ModelLayout, slot: Int) -> Bool {
        ownerKeySlots.contains(key(layout.slots[slot]))
    }

    /// A shape of the history statements a save writes change rows with
    /// (``historySQL(_:_:)``).
    enum HistorySQLKey: Hashable {
        /// The change rows of a range of new rows of table `table` (an `INSERT … SELECT`),
        /// with explicit keys or SQLite's.
        case insertedRange(table: String, keyed: Bool)
        /// `rows` change rows in one `INSERT … VALUES`, with explicit keys or SQLite's, and
        /// `tombstones` tombstone columns.
        case changes(keyed: Bool, tombstones: Int, rows: Int)
    }

    /// The history statement of shape `key`, `build` writing it the first time a save needs
    /// it: a save of a few models then builds no history SQL. Shared by the container's
    /// contexts, hence the lock.
    func historySQL(_ key: HistorySQLKey, _ build: () -> String) -> StatementSQL {
        historySQLs.value(key) { StatementSQL(build()) }
    }
    private let historySQLs = Memo<HistorySQLKey, StatementSQL>()

    private var detachCache: [ObjectIdentifier: [Detach]] = [:]

    /// One statement of ``detachStatements(to:)``.
    struct Detach {
        /// The statement, over a batch of keys (``StoreWriter/runForKeys(_:_:)``).
        let sql: KeyListSQL
        /// The key column it sets to NULL; `nil` for a join table's `DELETE`.
        let clears: StoreWriter.KeyColumn?
    }

    /// The statements that clear every stored reference to the rows of `table` whose keys are
    /// bound, built once: a save runs them for its deleted rows.
    ///
    /// ```sql
    /// UPDATE "ZWORD" SET "ZCATEGORY" = NULL WHERE "ZCATEGORY" IN (?, …)
    /// DELETE FROM "Z_1TAGS" WHERE "Z_1PRODUCTS" IN (?, …)
    /// ```
    func detachStatements(to table: Table) -> [Detach] {
        detachCache[ObjectIdentifier(table)] ?? []
    }

    private func buildReferenceCaches() {
        for table in tables {
            var inbound: [(Table, String)] = []
            var seen = Set<String>()
            for t in tables {
                for e in t.entities {
                    for slot in e.relationshipSlots {
                        guard case .foreignKey(let column)? = storage(of: e, slot: slot),
                            let target = e.slots[slot].target, let tl = ModelLayout.known(target),
                            self.table(for: tl) === table, seen.insert(t.name + "." + column).inserted
                        else { continue }
                        inbound.append((t, column))
                    }
                }
            }
            // Key columns a one-way to-many keeps on its destinations hold owners' keys.
            for e in table.entities {
                for slot in e.relationshipSlots where ownsKeysOnDestination(e, slot: slot) {
                    guard case .inverseForeignKey(let t, let column)? = storage(of: e, slot: slot),
                        seen.insert(t.name + "." + column).inserted
                    else { continue }
                    inbound.append((t, column))
                }
            }
            var joins: [(String, String)] = []
            var seenJoins = Set<String>()
            for e in table.entities {
                for slot in e.relationshipSlots {
                    guard case .joinTable(let name, let own, _)? = storage(of: e, slot: slot),
                        seenJoins.insert(name + own).inserted
                    else { continue }
                    joins.append((name, own))
                }
            }
            detachCache[ObjectIdentifier(table)] =
                inbound.map { other, column in
                    Detach(
                        sql: KeyListSQL {
                            "UPDATE \(quoteIdentifier(other.name)) SET \(quoteIdentifier(column)) = NULL WHERE \(quoteIdentifier(column)) IN \($0)"
                        },
                        clears: StoreWriter.KeyColumn(table: ObjectIdentifier(other), column: column))
                }
                + joins.map { name, column in
                    Detach(
                        sql: KeyListSQL {
                            "DELETE FROM \(quoteIdentifier(name)) WHERE \(quoteIdentifier(column)) IN \($0)"
                        },
                        clears: nil)
                }
        }
    }

    /// `CREATE INDEX IF NOT EXISTS "<table>_<kind>_<c1>_<c2>" ON "<table>" ("c1", "c2")`.
    static func indexStatement(table: String, columns: [String], kind: String) -> String {
        "CREATE INDEX IF NOT EXISTS \(quoteIdentifier("\(table)_\(kind)_\(columns.joined(separator: "_"))")) ON \(quoteIdentifier(table)) (\(columns.map(quoteIdentifier).joined(separator: ", ")))"
    }

    /// The column names of `properties` of entity `entity`, or an error naming what is unknown.
    func indexColumns(entity: String, properties: [String]) throws -> (Table, [String]) {
        guard let table = tables.first(where: { $0.entities.contains { $0.name == entity } }),
            let layout = table.entities.first(where: { $0.name == entity })
        else {
            throw SwiftDataError(
                SwiftDataError.unknownSchema.code, "no entity named \(entity) in the schema", entityName: entity)
        }
        var cols: [String] = []
        for p in properties {
            guard let slot = layout.slotByName[p], let c = table.column(layout, slot) else {
                throw SwiftDataError(
                    SwiftDataError.unknownSchema.code,
                    "\(entity).\(p) is not a stored attribute or to-one relationship; it cannot be indexed",
                    entityName: entity, propertyName: p)
            }
            cols.append(c)
        }
        return (table, cols)
    }

    private func buildDDL(_ layout: StoreLayout) {
        var declared = Set<String>()
        for name in layout.model.entities.map(\.name) {
            for index in layout.model.entity(named: name)?.indexes ?? [] { declared.insert("Z_\(name)_\(index.name)") }
        }
        for statement in layout.statements {
            if statement.hasPrefix("CREATE INDEX "),
                let name = statement.dropFirst("CREATE INDEX ".count).split(separator: " ").first.map(String.init),
                declared.contains(name)
            {
                declaredIndexDDL.append(statement)
            } else {
                ddl.append(statement)
            }
        }
    }
}

extension StoreMapping {
    /// The `INSERT`s of new rows of one entity: of one row and of ``rowsPerBatch`` rows.
    ///
    /// ```sql
    /// INSERT OR FAIL INTO "ZTRIP" ("Z_PK", "Z_ENT", "Z_OPT", "ZNAME", …) VALUES (?, 3, 1, ?, …)[, (?, 3, 1, ?, …) …]
    /// ```
    /// Parameters of row `r` (from 0), from `r` × ``parametersPerRow`` + 1: the key, then one
    /// per column of the entity's reads, in order (a composite read has one per element).
    struct InsertSQL {
        /// One row's.
        let single: StatementSQL
        /// ``rowsPerBatch`` rows' (the same as ``single`` when that is one).
        let batched: StatementSQL
        /// ``StoreWriter/rowsPerInsert``, fewer when a row has so many parameters that more
        /// would pass 999 (SQLite's limit before 3.32).
        let rowsPerBatch: Int
        /// The parameters of one row: its key, then one per column.
        let parametersPerRow: Int32

        init(table: Table, entity: Int64, reads: [Table.ColumnRead]) {
            let names = table.columnNames(reads)
            let cols = (["Z_PK", "Z_ENT", "Z_OPT"] + names).map(quoteIdentifier)
            let row =
                "(" + (["?", String(entity), "1"] + Array(repeating: "?", count: names.count)).joined(separator: ", ")
                + ")"
            // `OR FAIL`: a row that fails a constraint stops the statement and leaves the rows
            // before it in place, for the save's rollback to undo with the rest. SQLite then
            // keeps no statement journal of the pages a multi-row statement changes (with the
            // default `ABORT`, a copy of every page before its first change in each statement,
            // a temporary file for a store on disk).
            let head = "INSERT OR FAIL INTO \(quoteIdentifier(table.name)) (\(cols.joined(separator: ", "))) VALUES "
            let perRow = 1 + names.count
            rowsPerBatch = max(1, min(StoreWriter.rowsPerInsert, 999 / perRow))
            parametersPerRow = Int32(perRow)
            single = StatementSQL(head + row)
            batched = StatementSQL(head + Array(repeating: row, count: rowsPerBatch).joined(separator: ", "))
        }
    }
}

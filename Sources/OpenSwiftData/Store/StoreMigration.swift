import Foundation

/// Rewrites a store from one model version's layout to another's, inside the caller's
/// transaction: the schema change of a migration stage (lightweight, or between a custom stage's
/// `willMigrate` and `didMigrate`).
///
/// What it does, as Core Data's inferred (lightweight) mapping does:
/// - entities are matched by name; an entity the new model lacks is dropped with its rows, a
///   new entity starts empty; `Z_ENT` numbers are reassigned as the new model numbers them
///   (rows, to-one entity columns, `Z_PRIMARYKEY` and history are renumbered);
/// - a property is matched by its name in the old model, which is the new declaration's
///   `originalName` (`@Attribute(originalName:)`, `@Relationship(originalName:)`); without it, a
///   rename is a removal and an addition (the old values are dropped);
/// - a new attribute is NULL when optional, its declared default otherwise; an attribute that
///   becomes non-optional takes its default where the old value was NULL;
/// - relationships keep their keys (to-one keys, one-way to-many keys, join tables);
/// - delete rules, indexes and uniqueness constraints are whatever the new layout declares.
///
/// It refuses, before writing anything, what a lightweight migration cannot do without losing or
/// inventing data: an attribute whose type changes (MIG-09), a new non-optional attribute without
/// a default when rows exist, an attribute made non-optional with NULLs and no default, and a
/// relationship whose destination entity changes.
///
/// ```sql
/// ALTER TABLE ZTRIP RENAME TO OSDMIG_ZTRIP;
/// CREATE TABLE ZTRIP ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCOUNT INTEGER, ZNAME VARCHAR );
/// INSERT INTO ZTRIP (Z_PK, Z_ENT, Z_OPT, ZCOUNT, ZNAME)
///   SELECT Z_PK, CASE Z_ENT WHEN 1 THEN 2 END, Z_OPT, CASE WHEN Z_ENT IN (1) THEN ? END, ZNAME
///   FROM OSDMIG_ZTRIP WHERE Z_ENT IN (1);
/// DROP TABLE OSDMIG_ZTRIP;
/// ```
struct StoreMigration {
    /// The layout the store has now (its model is ``StoreLayout/model``): a plan version's, or
    /// the one ``InferredSource`` reconstructs from the store.
    let old: StoreLayout
    /// The layout it gets.
    let new: StoreMapping
    /// `1.0.0 → 2.0.0`, for messages.
    let stageName: String
    /// Tables of the store that neither layout describes (the join tables of relationships an
    /// inferred migration removes); dropped with the old layout's tables.
    var obsoleteTables: [String] = []

    private static let prefix = "OSDMIG_"
    /// Tables every store has whatever its model; kept as they are.
    private static let fixedTables: Set<String> = [
        "Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE", "ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING",
    ]

    /// One `INSERT … SELECT` of the new layout's data.
    private struct Copy {
        var sql: String
        var arguments: [SQLValue]
        /// The new table, and the `SELECT` (over the renamed old table) that fills it.
        var table: StoreLayout.Table?
        var select: String = ""
    }

    /// Migrates the store behind `db` (in the caller's transaction).
    ///
    /// - Throws: ``SwiftDataError/incompatibleSchema`` naming the entity and property a
    ///   lightweight migration cannot convert; SQLite errors as ``SQLiteError``.
    func run(on db: SQLiteConnection) throws {
        let copies = try plan(db)
        let oldTables = old.tables.map(\.name) + old.joinTables.map(\.name)
        // Indexes and triggers first: their names are reused by the new layout.
        let quotedOld = oldTables.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }.joined(
            separator: ", ")
        if !oldTables.isEmpty {
            let rows = try db.rows(
                "SELECT type, name FROM sqlite_master WHERE type IN ('index', 'trigger') AND sql IS NOT NULL AND tbl_name IN (\(quotedOld))"
            )
            for row in rows {
                guard case .text(let type)? = row.first, case .text(let name) = row[1] else { continue }
                try db.execute("DROP \(type == "index" ? "INDEX" : "TRIGGER") \(quoteIdentifier(name))")
            }
        }
        let existing = try Set(
            db.rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { row -> String? in
                if case .text(let s)? = row.first { s } else { nil }
            })
        for name in oldTables where existing.contains(name) {
            try db.execute(
                "ALTER TABLE \(quoteIdentifier(name)) RENAME TO \(quoteIdentifier(StoreMigration.prefix + name))")
        }
        for statement in new.layout.statements
        where !StoreMigration.fixedTables.contains(StoreMigration.table(of: statement)) {
            try db.execute(statement)
        }
        for copy in copies {
            do {
                try db.run(copy.sql, copy.arguments)
            } catch let e as SQLiteError where e.code == .constraint {
                let duplicates =
                    copy.table.map { duplicateRows(db, table: $0, select: copy.select, copy.arguments) } ?? []
                throw SwiftDataError(
                    SwiftDataError.uniqueConstraintViolation.code,
                    "migration \(stageName): the existing rows break a uniqueness constraint of the new model"
                        + (duplicates.isEmpty ? "" : " (\(duplicates.joined(separator: "; ")))")
                        + "; remove the duplicates in a custom stage's willMigrate. The store was not modified.",
                    entityName: copy.table?.root, underlying: e)
            }
        }
        for name in oldTables where existing.contains(name) {
            try db.execute("DROP TABLE \(quoteIdentifier(StoreMigration.prefix + name))")
        }
        for name in obsoleteTables where existing.contains(name) && !oldTables.contains(name) {
            try db.execute("DROP TABLE \(quoteIdentifier(name))")
        }
        // The archived model Core Data caches in the store describes the old model: the new
        // one is not cached (as in a store OpenSwiftData creates).
        if existing.contains("Z_MODELCACHE") { try db.run("DELETE FROM Z_MODELCACHE") }
        try renumberPrimaryKeys(db)
        try migrateHistory(db)
        try writeMetadata(db)
    }

    // MARK: Planning

    /// The copy statements, computed (and every refusal thrown) before anything is written.
    private func plan(_ db: SQLiteConnection) throws -> [Copy] {
        var copies: [Copy] = []
        var refusals: [SwiftDataError] = []
        for table in new.layout.tables {
            if let copy = try plan(table, db, refusals: &refusals) { copies.append(copy) }
        }
        for join in new.layout.joinTables {
            do {
                if let copy = try plan(join) { copies.append(copy) }
            } catch let e as SwiftDataError where e.code == SwiftDataError.incompatibleSchema.code {
                refusals.append(e)
            }
        }
        guard let first = refusals.first else { return copies }
        if refusals.count == 1 { throw first }
        throw SwiftDataError(
            SwiftDataError.incompatibleSchema.code,
            "migration \(stageName): \(refusals.count) changes cannot be made; the store was not modified:\n  "
                + refusals.map { $0.message }.joined(separator: "\n  "),
            entityName: first.entityName, propertyName: first.propertyName)
    }

    /// The old entity layout called `name` when it lives in `table` of the old layout.
    private func oldEntity(_ name: String, in table: String) -> StoreLayout.EntityLayout? {
        guard let e = old.entity(named: name), e.table == table else { return nil }
        return e
    }

    /// The copy filling `table`; what cannot be migrated is added to `refusals` instead.
    private func plan(
        _ table: StoreLayout.Table, _ db: SQLiteConnection, refusals: inout [SwiftDataError]
    ) throws -> Copy? {
        guard let source = old.entity(named: table.root)?.table else { return nil }
        // Entities stored in both versions, in this table: old Z_ENT → new Z_ENT.
        var renumber: [(old: Int, new: Int)] = []
        for name in table.entities {
            guard let o = oldEntity(name, in: source), let n = new.layout.entity(named: name) else { continue }
            renumber.append((o.number, n.number))
        }
        guard !renumber.isEmpty else { return nil }
        let kept = renumber.map { String($0.old) }.joined(separator: ", ")
        let from = quoteIdentifier(StoreMigration.prefix + source)
        let rowCounts = try entityRowCounts(db, table: quoteIdentifier(source), kept: kept)
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        var exprs = [
            "Z_PK", "CASE Z_ENT " + renumber.map { "WHEN \($0.old) THEN \($0.new)" }.joined(separator: " ") + " END",
            "Z_OPT",
        ]
        var arguments: [SQLValue] = []
        for column in table.columns {
            columns.append(column.name)
            do {
                let (expr, args) = try expression(
                    for: column, sourceTable: source, from: from, rowCounts: rowCounts, db: db)
                exprs.append(expr)
                arguments += args
            } catch let e as SwiftDataError where e.code == SwiftDataError.incompatibleSchema.code {
                refusals.append(e)
                exprs.append("NULL")
            }
        }
        let select =
            "SELECT " + zip(exprs, columns).map { "\($0) AS \(quoteIdentifier($1))" }.joined(separator: ", ")
            + " FROM \(from) WHERE Z_ENT IN (\(kept))"
        let sql =
            "INSERT INTO \(quoteIdentifier(table.name)) (\(columns.map(quoteIdentifier).joined(separator: ", "))) "
            + select
        return Copy(sql: sql, arguments: arguments, table: table, select: select)
    }

    /// The rows of the copy into `table` that break a uniqueness constraint of the new model,
    /// for the error: `Item.name: Z_PK 1, 4 share 'Plank'`, at most three groups per constraint.
    /// Best effort: a query that fails names nothing.
    private func duplicateRows(
        _ db: SQLiteConnection, table: StoreLayout.Table, select: String, _ arguments: [SQLValue]
    ) -> [String] {
        var out: [String] = []
        for entity in table.entities {
            guard let declared = new.model.entity(named: entity), let layout = new.layout.entity(named: entity) else {
                continue
            }
            for constraint in declared.uniquenessConstraints {
                let columns = constraint.compactMap { property -> String? in
                    switch layout.properties[property] {
                    case .column(let c)?, .toOne(let c, _)?: c
                    default: nil
                    }
                }
                guard columns.count == constraint.count, !columns.isEmpty else { continue }
                let quoted = columns.map(quoteIdentifier)
                let sql =
                    "SELECT group_concat(Z_PK, ', '), \(quoted.joined(separator: ", ")) FROM (\(select)) WHERE "
                    + quoted.map { "\($0) IS NOT NULL" }.joined(separator: " AND ")
                    + " GROUP BY \(quoted.joined(separator: ", ")) HAVING count(*) > 1 LIMIT 3"
                // try?: the error being built is about the constraint; its detail is optional.
                for row in (try? db.rows(sql, arguments)) ?? [] {
                    guard case .text(let keys)? = row.first else { continue }
                    let values = row.dropFirst().map(StoreMigration.describe).joined(separator: ", ")
                    out.append("\(entity).\(constraint.joined(separator: "+")): Z_PK \(keys) share \(values)")
                }
            }
        }
        return out
    }

    /// A stored value for a message: text quoted, numbers as they are, blobs by size.
    private static func describe(_ value: SQLValue) -> String {
        switch value {
        case .text(let t): "'\(t)'"
        case .integer(let i): "\(i)"
        case .real(let r): "\(r)"
        case .blob(let b): "\(b.count) bytes"
        case .null: "NULL"
        }
    }

    /// Rows per old `Z_ENT` in the old table (planning runs before it is renamed).
    private func entityRowCounts(_ db: SQLiteConnection, table: String, kept: String) throws -> [Int: Int] {
        let rows = try db.rows("SELECT Z_ENT, count(*) FROM \(table) WHERE Z_ENT IN (\(kept)) GROUP BY Z_ENT")
        var out: [Int: Int] = [:]
        for row in rows { if case .integer(let e)? = row.first, case .integer(let n) = row[1] { out[Int(e)] = Int(n) } }
        return out
    }

    /// The new declaration of `property` of `entity` (its slot in the new models).
    private func newSlot(_ entity: String, _ property: String) -> ModelLayout.Slot? {
        guard let layout = StoreMigration.layout(entity, in: new) else { return nil }
        return layout.slotByName[property].map { layout.slots[$0] }
    }

    private static func layout(_ entity: String, in mapping: StoreMapping) -> ModelLayout? {
        for table in mapping.tables { if let l = table.entities.first(where: { $0.name == entity }) { return l } }
        return nil
    }

    /// The name `property` of `entity` had in the old model.
    private func originalName(_ entity: String, _ property: String) -> String {
        guard let slot = newSlot(entity, property), !FaultInjection.isActive(.migrationIgnoresOriginalName) else {
            return property
        }
        return slot.attribute?.originalName ?? slot.relationship?.originalName ?? property
    }

    /// The SQL expression (over the renamed old table) that fills `column`, and its arguments.
    private func expression(
        for column: StoreLayout.Column, sourceTable: String, from: String,
        rowCounts: [Int: Int], db: SQLiteConnection
    ) throws -> (String, [SQLValue]) {
        switch column.role {
        case .attribute(let entity, let name):
            return try attributeExpression(
                entity: entity, name: name, element: nil, sourceTable: sourceTable,
                from: from, rowCounts: rowCounts, db: db)
        case .element(let entity, let name, let element):
            return try attributeExpression(
                entity: entity, name: name, element: element, sourceTable: sourceTable,
                from: from, rowCounts: rowCounts, db: db)
        case .toOneKey(let entity, let name):
            guard case .toOne(let key, _)? = try oldRelationship(entity, name, sourceTable: sourceTable) else {
                return ("NULL", [])
            }
            return (quoteIdentifier(key), [])
        case .toOneEntity(let entity, let name):
            guard case .toOne(let key, let entityColumn)? = try oldRelationship(entity, name, sourceTable: sourceTable),
                let destination = new.model.relationship(name, of: entity)?.destination
            else { return ("NULL", []) }
            if let entityColumn {
                let cases = old.entities.compactMap { o -> String? in
                    guard let n = new.layout.entity(named: o.name) else { return nil }
                    return "WHEN \(o.number) THEN \(n.number)"
                }
                return cases.isEmpty
                    ? ("NULL", []) : ("CASE \(quoteIdentifier(entityColumn)) \(cases.joined(separator: " ")) END", [])
            }
            // The destination had no sub-entities: every key points at the destination itself.
            guard let number = new.layout.entity(named: destination)?.number else { return ("NULL", []) }
            return ("CASE WHEN \(quoteIdentifier(key)) IS NULL THEN NULL ELSE \(number) END", [])
        case .toManyKey(let entity, let name):
            // A one-way to-many's key, or the to-one inverse key it had before losing that inverse.
            switch try oldRelationship(entity, name, sourceTable: nil) {
            case .toManyWithoutInverse(let table, let key)?, .toManyThroughInverse(let table, let key)?:
                return table == sourceTable ? (quoteIdentifier(key), []) : ("NULL", [])
            default: return ("NULL", [])
            }
        }
    }

    /// Where the old model kept relationship `name` of `entity` (looked up by its original
    /// name), or `nil` when it had none; throws when the destination changed.
    private func oldRelationship(_ entity: String, _ name: String, sourceTable: String?) throws -> StoreLayout
        .PropertyStorage?
    {
        let original = originalName(entity, name)
        guard let oldEntity = old.entity(named: entity),
            sourceTable == nil || oldEntity.table == sourceTable,
            let oldRelationship = old.model.relationship(original, of: entity),
            let newRelationship = new.model.relationship(name, of: entity)
        else { return nil }
        guard oldRelationship.destination == newRelationship.destination,
            oldRelationship.isToMany == newRelationship.isToMany
        else {
            throw refusal(
                entity, name,
                "changes from \(oldRelationship.isToMany ? "to-many" : "to-one") \(oldRelationship.destination) to \(newRelationship.isToMany ? "to-many" : "to-one") \(newRelationship.destination); a lightweight migration cannot move its links. Add a new relationship and copy the links in a custom stage"
            )
        }
        let storage = oldEntity.properties[original]
        if let storage, let now = new.layout.entity(named: entity)?.properties[name] {
            try checkLinksMove(entity, name, from: storage, to: now)
        }
        return storage
    }

    /// Throws when a to-many's links would have to move between a join table and a key column:
    /// a many-to-many pair that loses its inverse (or a pair of one-way relationships that gains
    /// one) keeps its links in another shape that a lightweight migration cannot fill.
    private func checkLinksMove(
        _ entity: String, _ name: String, from old: StoreLayout.PropertyStorage, to new: StoreLayout.PropertyStorage
    ) throws {
        func isJoin(_ s: StoreLayout.PropertyStorage) -> Bool {
            if case .manyToMany = s { return true }
            return false
        }
        guard isJoin(old) != isJoin(new) else { return }
        let shape = { (s: StoreLayout.PropertyStorage) in
            isJoin(s) ? "a many-to-many pair (a join table)" : "a relationship without a many-to-many inverse"
        }
        throw refusal(
            entity, name,
            "was stored as \(shape(old)) and is now \(shape(new)); a lightweight migration cannot move its links. Declare `inverse:` as the store's model did, or copy the links in a custom stage"
        )
    }

    private func attributeExpression(
        entity: String, name: String, element: String?, sourceTable: String, from: String,
        rowCounts: [Int: Int], db: SQLiteConnection
    ) throws -> (String, [SQLValue]) {
        guard let newAttribute = new.model.allAttributes(of: entity).first(where: { $0.name == name }) else {
            return ("NULL", [])
        }
        let original = originalName(entity, name)
        // The entities whose rows have this attribute, by old and new number.
        let kinds = new.layout.entities.filter { e in new.model.lineage(of: e.name).contains { $0.name == entity } }
        let oldNumbers = kinds.compactMap { oldEntity($0.name, in: sourceTable)?.number }
        let rows = oldNumbers.reduce(0) { $0 + (rowCounts[$1] ?? 0) }
        let isOptional =
            newAttribute.isOptional
            && (element == nil || newAttribute.elements.first { $0.name == element }?.isOptional ?? true)
        var sourceColumn: String?
        var oldIsOptional = true
        if let oldEntity = oldEntity(entity, in: sourceTable),
            let oldAttribute = old.model.allAttributes(of: entity).first(where: { $0.name == original })
        {
            try checkType(entity: entity, name: name, old: oldAttribute, new: newAttribute)
            switch oldEntity.properties[original] {
            case .column(let c)?: sourceColumn = c
            case .composite(let elements)?:
                sourceColumn = elements.first { $0.element == element }?.column
            default: break
            }
            oldIsOptional = oldAttribute.isOptional
        }
        let defaultValue = try encodedDefault(entity: entity, name: name, element: element)
        // In the copy's SELECT, Z_ENT is the old table's (old numbers).
        let within = "Z_ENT IN (\(oldNumbers.isEmpty ? "NULL" : oldNumbers.map(String.init).joined(separator: ", ")))"
        if let sourceColumn {
            let quoted = quoteIdentifier(sourceColumn)
            guard !isOptional, oldIsOptional || element != nil else {
                return (FaultInjection.isActive(.migrationDropsOptionalValues) ? "NULL" : quoted, [])
            }
            // Non-optional now: NULLs take the default, or refuse.
            if let defaultValue, defaultValue != .null {
                return ("CASE WHEN \(within) THEN coalesce(\(quoted), ?) ELSE \(quoted) END", [defaultValue])
            }
            if rows > 0, oldIsOptional, element == nil,
                case .integer(let nulls)? = try db.scalar(
                    "SELECT count(*) FROM \(quoteIdentifier(sourceTable)) WHERE \(within) AND \(quoted) IS NULL"),
                nulls > 0
            {
                throw refusal(
                    entity, name,
                    "becomes non-optional, \(nulls) row\(nulls == 1 ? " has" : "s have") no value and it has no default value; give it a default (var \(name): T = …) or fill the values in a custom stage's willMigrate"
                )
            }
            return (quoted, [])
        }
        if let defaultValue, defaultValue != .null, !oldNumbers.isEmpty,
            !FaultInjection.isActive(.migrationIgnoresDefault)
        {
            return ("CASE WHEN \(within) THEN ? END", [defaultValue])
        }
        if !isOptional, rows > 0, element == nil {
            let renamed = original != name ? " (its original name \(original) is not in the old model either)" : ""
            throw refusal(
                entity, name,
                "is added as a non-optional attribute without a default value\(renamed), and \(rows) existing row\(rows == 1 ? "" : "s") would have no value; make it optional, give it a default (var \(name): T = …), or add @Attribute(originalName:) if it was renamed"
            )
        }
        return ("NULL", [])
    }

    /// Refuses a type change: SwiftData's lightweight migration cannot convert values (MIG-09).
    private func checkType(entity: String, name: String, old: StoreModel.Attribute, new: StoreModel.Attribute) throws {
        func shape(_ a: StoreModel.Attribute) -> String {
            if a.isComposite {
                return "composite {"
                    + a.elements.map { "\($0.name): \($0.type.swiftName)" }.joined(separator: ", ") + "}"
            }
            if let t = a.valueTransformerName { return "transformable (\(t))" }
            return a.type.swiftName
        }
        let before = shape(old)
        let after = shape(new)
        guard before != after else { return }
        throw refusal(
            entity, name,
            "changes type from \(before) to \(after); a lightweight migration cannot convert stored values. Use a custom stage: add a new attribute, copy converted values in didMigrate, remove the old one in a later version"
        )
    }

    /// The declared default of an attribute (or of one composite element), as stored.
    private func encodedDefault(entity: String, name: String, element: String?) throws -> SQLValue? {
        guard let layout = StoreMigration.layout(entity, in: new), let slot = layout.slotByName[name],
            let value = layout.slots[slot].defaultValue, let table = new.table(for: layout),
            let read = table.plan(layout).first(where: { $0.slot == slot })
        else { return nil }
        if let element {
            guard let composite = read.composite,
                let index = composite.elements.firstIndex(where: { $0.name == element })
            else { return nil }
            return try composite.encode(value)[index]
        }
        return try read.codec?.encode(value)
    }

    private func refusal(_ entity: String, _ property: String, _ reason: String) -> SwiftDataError {
        SwiftDataError(
            SwiftDataError.incompatibleSchema.code,
            "migration \(stageName): \(entity).\(property) \(reason). The store was not modified.",
            entityName: entity, propertyName: property)
    }

    private func plan(_ join: StoreLayout.JoinTable) throws -> Copy? {
        guard
            case .manyToMany(let oldJoin, let own, let other)? = try oldRelationship(
                join.entity, join.relationship, sourceTable: nil)
        else { return nil }
        let sql =
            "INSERT INTO \(quoteIdentifier(join.name)) (\(quoteIdentifier(join.ownerColumn)), \(quoteIdentifier(join.destinationColumn))) "
            + "SELECT \(quoteIdentifier(own)), \(quoteIdentifier(other)) FROM \(quoteIdentifier(StoreMigration.prefix + oldJoin))"
        return Copy(sql: sql, arguments: [])
    }

    /// The table a `CREATE TABLE`, `CREATE INDEX … ON` or `CREATE TRIGGER … ON` statement is about.
    static func table(of statement: String) -> String {
        let words = statement.split(separator: " ", omittingEmptySubsequences: true)
        if statement.hasPrefix("CREATE TABLE "), words.count > 2 { return String(words[2]) }
        if let on = words.firstIndex(of: "ON"), on + 1 < words.count {
            return String(words[on + 1].prefix { $0 != "(" })
        }
        return ""
    }

    // MARK: Metadata, keys and history

    /// `Z_PRIMARYKEY`: one row per new entity, keeping each entity's `Z_MAX` (keys are never
    /// reused); the history rows stay.
    private func renumberPrimaryKeys(_ db: SQLiteConnection) throws {
        var maxByName: [String: Int64] = [:]
        for row in try db.rows("SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT < 16000") {
            if case .text(let name)? = row.first, case .integer(let max) = row[1] { maxByName[name] = max }
        }
        try db.run("DELETE FROM Z_PRIMARYKEY WHERE Z_ENT < 16000")
        let present = Set(
            try db.rows("SELECT Z_ENT FROM Z_PRIMARYKEY").compactMap { row -> Int in
                if case .integer(let n)? = row.first { Int(n) } else { -1 }
            })
        for row in new.layout.primaryKeyRows where !present.contains(row.entity) {
            var max = maxByName[row.name] ?? 0
            if row.superEntity == 0, row.entity < 16000, let table = new.layout.table(of: row.name),
                case .integer(let largest)? = try db.scalar("SELECT max(Z_PK) FROM \(quoteIdentifier(table.name))")
            {
                max = Swift.max(max, largest)
            }
            try db.run(
                StoreLayout.insertPrimaryKeySQL,
                [.integer(Int64(row.entity)), .text(row.name), .integer(Int64(row.superEntity)), .integer(max)])
        }
    }

    /// History: changes of removed entities go, the others are renumbered, and their `ZCOLUMNS`
    /// bitmaps and tombstone values follow the properties to their new positions.
    private func migrateHistory(_ db: SQLiteConnection) throws {
        let tables = Set(
            try db.rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { row -> String? in
                if case .text(let s)? = row.first { s } else { nil }
            })
        guard tables.contains("ACHANGE") else { return }
        let pairs = old.entities.compactMap { o -> (StoreLayout.EntityLayout, StoreLayout.EntityLayout)? in
            new.layout.entity(named: o.name).map { (o, $0) }
        }
        let kept = pairs.map { String($0.0.number) }.joined(separator: ", ")
        try db.run("DELETE FROM ACHANGE WHERE ZENTITY < 16000" + (kept.isEmpty ? "" : " AND ZENTITY NOT IN (\(kept))"))
        if !pairs.isEmpty, pairs.contains(where: { $0.0.number != $0.1.number }) {
            let cases = pairs.map { "WHEN \($0.0.number) THEN \($0.1.number)" }.joined(separator: " ")
            try db.run("UPDATE ACHANGE SET ZENTITY = CASE ZENTITY \(cases) ELSE ZENTITY END WHERE ZENTITY < 16000")
        }
        // Tombstone columns the new model needs.
        let have = try db.rows("SELECT name FROM pragma_table_info('ACHANGE') WHERE name LIKE 'ZTOMBSTONE%'").count
        for i in have..<max(have, new.model.maximumTombstoneCount) {
            try db.execute("ALTER TABLE ACHANGE ADD COLUMN ZTOMBSTONE\(i)")
        }
        for (o, n) in pairs {
            let oldProps = old.model.historyProperties(of: o.name)
            let newProps = new.model.historyProperties(of: n.name)
            let bitOfOriginal = Dictionary(
                newProps.enumerated().map { (originalName(n.name, $0.element), $0.offset) },
                uniquingKeysWith: { a, _ in a })
            let moves = oldProps.enumerated().map { bitOfOriginal[$0.element] }
            if moves != Array(0..<oldProps.count).map({ Optional($0) }) || oldProps.count != newProps.count {
                for row in try db.rows(
                    "SELECT Z_PK, ZCOLUMNS FROM ACHANGE WHERE ZENTITY = ? AND ZCOLUMNS IS NOT NULL",
                    [.integer(Int64(n.number))])
                {
                    guard case .integer(let pk)? = row.first, case .blob(let bitmap) = row[1] else { continue }
                    var bytes = [UInt8](repeating: 0, count: max(1, (newProps.count + 7) / 8))
                    for (byteIndex, byte) in bitmap.enumerated() {
                        for i in 0..<8 where byte & (UInt8(0x80) >> UInt8(i)) != 0 {
                            let oldBit = byteIndex * 8 + i
                            guard oldBit < moves.count, let newBit = moves[oldBit] else { continue }
                            bytes[newBit / 8] |= UInt8(0x80) >> UInt8(newBit % 8)
                        }
                    }
                    try db.run("UPDATE ACHANGE SET ZCOLUMNS = ? WHERE Z_PK = ?", [.blob(Data(bytes)), .integer(pk)])
                }
            }
            let oldTombs = old.model.tombstoneAttributes(of: o.name)
            let newTombs = new.model.tombstoneAttributes(of: n.name)
            let sources = newTombs.map { name in oldTombs.firstIndex(of: originalName(n.name, name)) }
            guard sources != Array(0..<newTombs.count).map({ Optional($0) }) || oldTombs.count != newTombs.count else {
                continue
            }
            let total = max(have, new.model.maximumTombstoneCount)
            guard total > 0 else { continue }
            let assignments = (0..<total).map { i -> String in
                let source = i < sources.count ? sources[i] : nil
                return "ZTOMBSTONE\(i) = " + (source.map { "ZTOMBSTONE\($0)" } ?? "NULL")
            }
            try db.run(
                "UPDATE ACHANGE SET \(assignments.joined(separator: ", ")) WHERE ZENTITY = ?",
                [.integer(Int64(n.number))])
        }
    }

    /// `Z_METADATA`: the new model's hashes, digest, checksum and version; the UUID and every
    /// other entry stay.
    private func writeMetadata(_ db: SQLiteConnection) throws {
        guard let row = try db.rows("SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1").first,
            case .blob(let plist) = row[1]
        else {
            throw SwiftDataError(SwiftDataError.corruptStore.code, "the store has no Z_METADATA row to update")
        }
        let uuid: String = if case .text(let t) = row[0] { t } else { "" }
        var metadata = try StoreMetadata(propertyList: plist, uuid: uuid)
        let fresh = StoreMetadata(model: new.model, uuid: UUID())
        metadata.versionHashes = fresh.versionHashes
        metadata.versionHashesVersion = fresh.versionHashesVersion
        metadata.versionHashesDigest = fresh.versionHashesDigest
        metadata.versionChecksum = fresh.versionChecksum
        metadata.versionIdentifiers = fresh.versionIdentifiers
        try db.run("UPDATE Z_METADATA SET Z_PLIST = ? WHERE Z_VERSION = 1", [.blob(metadata.encodedPropertyList())])
    }
}

extension StoreMigration {
    /// Likely renames without `originalName` (MIG-04): an entity that loses an attribute and
    /// gains one of the same type with a similar name (``looksRenamed(_:_:)``). The old values
    /// are dropped, as SwiftData drops them; the warning says how to keep them.
    func warnings() -> [String] {
        var out: [String] = []
        for entity in new.model.entities {
            guard let before = old.model.entity(named: entity.name) else { continue }
            let originals = Set(entity.attributes.map { originalName(entity.name, $0.name) })
            let removed = before.attributes.filter { !$0.isTransient && !originals.contains($0.name) }
            let added = entity.attributes.filter { a in
                !a.isTransient && !before.attributes.contains { $0.name == originalName(entity.name, a.name) }
            }
            for gone in removed {
                for new in added where new.type == gone.type && StoreMigration.looksRenamed(gone.name, new.name) {
                    out.append(
                        "migration \(stageName): \(entity.name).\(gone.name) was removed and \(entity.name).\(new.name) added with the same type; their values were not carried over. If it is a rename, declare @Attribute(originalName: \"\(gone.name)\") on \(new.name) in the new version."
                    )
                }
            }
        }
        return out
    }

    /// Whether two property names look like one renamed: equal, or one containing the other, or
    /// sharing their first four characters, once lower-cased without `_` (`start_date` and
    /// `startedOn`, `title` and `subtitle`; not `legacy` and `count`).
    static func looksRenamed(_ a: String, _ b: String) -> Bool {
        let x = a.lowercased().replacingOccurrences(of: "_", with: "")
        let y = b.lowercased().replacingOccurrences(of: "_", with: "")
        if x.contains(y) || y.contains(x) { return true }
        return x.count >= 4 && y.count >= 4 && x.prefix(4) == y.prefix(4)
    }
}

import Foundation

/// A save's access to the store, inside the save's one `BEGIN IMMEDIATE` transaction: every
/// statement a save runs, named by what it does. The context decides *what* to write (which
/// models, which values, in which order); this type owns *how* (the SQL).
///
/// Obtained through ``SQLiteStore/write(_:)``, which commits when the body returns and rolls
/// back when it throws.
struct StoreWriter {
    let db: SQLiteConnection
    let mapping: StoreMapping

    // MARK: Deletes

    /// Keys per statement of the batched key statements (deletes, reference clearing): the
    /// longest `IN` list of ``KeyListSQL/keyLengths``.
    static let keyBatchSize = KeyListSQL.keyLengths[KeyListSQL.keyLengths.count - 1]

    /// Runs `sql`, whose only parameters are the placeholders of its `IN (?, …)` list, over
    /// `keys`: one run per batch of up to ``keyBatchSize``, each with the shortest list that
    /// holds it (``KeyListSQL/forBatch(of:)``). A statement per key would pay SQLite's
    /// per-statement work (cursors opened and closed on the table and every index, the program
    /// halted and reset) for every deleted row.
    func runForKeys(_ sql: KeyListSQL, _ keys: [Int64]) throws {
        try forEachBatch(of: keys, sql, bind: { try $0.bind($1, at: $2) }) { try $0.execute() }
    }

    /// Runs `sql` once per batch of up to its ``KeyListSQL/longest`` of `values`, each bound by
    /// `bind` to the shortest list that holds it (``KeyListSQL/forBatch(of:)``), passing the
    /// bound statement to `run`; the statement is reset after each batch.
    private func forEachBatch<T>(
        of values: [T], _ sql: KeyListSQL, bind: (SQLiteStatement, T, Int32) throws -> Void,
        _ run: (SQLiteStatement) throws -> Void
    ) throws {
        for start in stride(from: 0, to: values.count, by: sql.longest) {
            let batch = values[start..<min(start + sql.longest, values.count)]
            let (text, length) = sql.forBatch(of: batch.count)
            let stmt = try db.cachedStatement(text)
            defer { stmt.reset() }
            try StoreWriter.bindBatch(batch, size: length) { try bind(stmt, $0, $1) }
            try run(stmt)
        }
    }

    /// Binds `batch` (not empty, at most `size` values) to parameters 1…`size` through `bind`;
    /// the placeholders after it repeat its last value, so a statement keeps one shape (an `IN`
    /// list reads each row once).
    static func bindBatch<T>(_ batch: ArraySlice<T>, size: Int, _ bind: (T, Int32) throws -> Void) throws {
        let drop = batch.count > 1 && FaultInjection.isActive(.keyBatchDropsLast) ? 2 : 1
        for i in 0..<size { try bind(batch[min(batch.startIndex + i, batch.endIndex - drop)], Int32(i + 1)) }
    }

    /// Deletes rows of `table` by key, in batches.
    ///
    /// ```sql
    /// DELETE FROM "ZTRIP" WHERE "Z_PK" IN (?, ?, …)
    /// ```
    func deleteRows(_ table: StoreMapping.Table, keys: [Int64]) throws {
        try runForKeys(table.deleteByKeysSQL, keys)
    }

    /// Deletes one row only if it still has `version` (strict merge policy); returns whether
    /// it was deleted.
    ///
    /// ```sql
    /// DELETE FROM "ZTRIP" WHERE "Z_PK" = ? AND "Z_OPT" = ?
    /// ```
    func deleteRow(_ table: StoreMapping.Table, pk: Int64, ifVersion version: Int64) throws -> Bool {
        try db.run(table.deleteByKeyAndVersionSQL, [.integer(pk), .integer(version)])
        return db.changes > 0
    }

    /// The statements that delete `table`'s rows by key column `column` (the cascades over
    /// unloaded lists, ``ModelContext/deleteSetCascades(_:history:)``), for up to
    /// ``keyBatchSize`` parent keys at a time, reading each row's parent, key and the values of
    /// `columns` (its tombstone) first. Prepared once per save and class; run per batch of
    /// parents.
    ///
    /// ```sql
    /// SELECT "ZBINDER", "Z_PK", "ZLABEL" FROM "ZSHEET" WHERE "ZBINDER" IN (?, …) ORDER BY "ZBINDER", "Z_PK"
    /// DELETE FROM "ZSHEET" WHERE "ZBINDER" IN (?, …)
    /// ```
    func keyColumnDelete(_ table: StoreMapping.Table, column: String, reading columns: [String]) throws
        -> KeyColumnDelete
    {
        let parent = quoteIdentifier(column)
        let name = quoteIdentifier(table.name)
        let select = table.keyListSQL((["SELECT", column] + columns).joined(separator: "\u{0}")) { list in
            let read = ([column, "Z_PK"] + columns).map(quoteIdentifier).joined(separator: ", ")
            return "SELECT \(read) FROM \(name) WHERE \(parent) IN \(list) ORDER BY \(parent), \"Z_PK\""
        }
        let delete = table.keyListSQL("DELETE\u{0}" + column) { "DELETE FROM \(name) WHERE \(parent) IN \($0)" }
        return KeyColumnDelete(db: db, select: select, delete: delete, width: columns.count)
    }

    /// Clears every stored reference to deleted rows of `table`: other rows' keys pointing at
    /// them become NULL and their join-table pairs go. (Their versions are not bumped: the
    /// rows' own values did not change, and a context holding them unlinks them in memory itself.)
    ///
    /// ```sql
    /// UPDATE "ZWORD" SET "ZCATEGORY" = NULL WHERE "ZCATEGORY" IN (?, …)
    /// DELETE FROM "Z_1TAGS" WHERE "Z_1PRODUCTS" IN (?, …)
    /// ```
    /// The key columns in `emptied` are left alone: they hold none of `keys` (the save's
    /// cascades in SQL deleted every row that did).
    func detachReferences(to table: StoreMapping.Table, keys: [Int64], except emptied: Set<KeyColumn> = []) throws {
        for detach in mapping.detachStatements(to: table) {
            if let column = detach.clears, emptied.contains(column) { continue }
            try runForKeys(detach.sql, keys)
        }
    }

    /// Lets go of the stored to-many members of row `pk` that an upsert's new model leaves out
    /// (UNQ-14: its lists replace the stored ones), once the save has written every row:
    /// children's keys to the row are set to `NULL`, but for the rows `kept(slot)` names (the
    /// new model's members; children are never deleted), and the row's join-table pairs are
    /// removed (the new model's own are written next).
    ///
    /// ```sql
    /// UPDATE "ZGADGET" SET "ZOWNER" = NULL WHERE "ZOWNER" = ?     -- the new list is empty
    /// SELECT "Z_PK" FROM "ZGADGET" WHERE "ZOWNER" = ?             -- else: who holds the row,
    /// UPDATE "ZGADGET" SET "ZOWNER" = NULL WHERE "Z_PK" IN (?, …) -- and those not kept
    /// DELETE FROM "Z_1CLUBS" WHERE "Z_1MEMBERS" = ?
    /// ```
    func detachStoredMembers(of layout: ModelLayout, pk: Int64, keeping kept: (Int) -> Set<Int64>) throws {
        for slot in layout.relationshipSlots where layout.slots[slot].isToMany {
            switch mapping.storage(of: layout, slot: slot) {
            case .inverseForeignKey(let table, let column)?:
                let name = quoteIdentifier(table.name)
                let key = quoteIdentifier(column)
                let keep = kept(slot)
                if keep.isEmpty {
                    try db.run("UPDATE \(name) SET \(key) = NULL WHERE \(key) = ?", [.integer(pk)])
                    continue
                }
                let holders = try db.rows("SELECT \"Z_PK\" FROM \(name) WHERE \(key) = ?", [.integer(pk)])
                let leaving = holders.compactMap { row -> Int64? in
                    guard case .integer(let holder)? = row.first, !keep.contains(holder) else { return nil }
                    return holder
                }
                try runForKeys(
                    table.keyListSQL("CLEAR\u{0}" + column) {
                        "UPDATE \(name) SET \(key) = NULL WHERE \"Z_PK\" IN \($0)"
                    },
                    leaving)
            case .joinTable(let name, let own, _)?:
                try db.run("DELETE FROM \(quoteIdentifier(name)) WHERE \(quoteIdentifier(own)) = ?", [.integer(pk)])
            default:
                break
            }
        }
    }

    /// A key column of a table (the detach statements that clear one).
    struct KeyColumn: Hashable {
        let table: ObjectIdentifier
        let column: String
    }

    /// Commits the save's transaction so far and opens the next one, a few milliseconds later:
    /// what ``InjectedFault/splitSave`` does between a save's inserts and its updates.
    ///
    /// ```sql
    /// COMMIT
    /// BEGIN IMMEDIATE
    /// ```
    func commitAndContinue() throws {
        try db.execute("COMMIT")
        usleep(5_000)
        try db.execute("BEGIN IMMEDIATE")
    }

    // MARK: Keys

    /// The largest key ever handed out for `table`'s hierarchy: `Z_PRIMARYKEY.Z_MAX` of its
    /// root entity (Core Data keeps it there, so a deleted row's key is never reused), or the
    /// table's largest key if that is larger (a store some other writer filled). A value that
    /// is not an integer (another tool's) counts as 0.
    ///
    /// ```sql
    /// SELECT (SELECT coalesce(max("Z_PK"), 0) FROM "ZTRIP"), (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?)
    /// ```
    func largestKey(of table: StoreMapping.Table) throws -> Int64 {
        let root: SQLValue = table.entityID(table.root).map { .integer($0) } ?? .null
        let (largest, recorded) = try integerPair(table.largestKeySQL, [root])
        return max(largest ?? 0, recorded ?? 0)
    }

    /// The two columns of the one row `sql` returns, each `nil` unless it is an integer.
    func integerPair(_ sql: StatementSQL, _ arguments: [SQLValue] = []) throws -> (Int64?, Int64?) {
        let stmt = try db.cachedStatement(sql)
        defer { stmt.reset() }
        try stmt.bind(arguments)
        guard try stmt.step() else { return (nil, nil) }
        return (stmt.integerIfPresent(at: 0), stmt.integerIfPresent(at: 1))
    }

    /// Records `pk` as the largest key handed out for `table`'s hierarchy.
    ///
    /// ```sql
    /// UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?
    /// ```
    func recordLargestKey(_ pk: Int64, of table: StoreMapping.Table) throws {
        guard let root = table.entityID(table.root) else { return }
        try db.run(StoreWriter.recordLargestKeySQL, [.integer(pk), .integer(root)])
    }

    /// `UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?`.
    static let recordLargestKeySQL = StatementSQL("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?")

    // MARK: Uniqueness

    /// A stored row a uniqueness lookup found: its key, entity and version (`nil` when its
    /// `Z_OPT` is NULL), and the indexed columns the lookup read (``IndexedColumns``).
    struct UniqueMatch {
        let pk: Int64
        let ent: Int64
        let version: Int64?
        /// The indexed columns the lookup read (`nil` when none).
        let stored: StoredRow?
    }

    /// The match in `stmt`'s row: `"Z_PK"`, `"Z_ENT"` and `"Z_OPT"` from column `first` on,
    /// then the indexed `columns`.
    private static func match(_ stmt: SQLiteStatement, from first: Int32, columns: [Int32]) -> UniqueMatch {
        UniqueMatch(
            pk: stmt.int64(at: first), ent: stmt.int64(at: first + 1),
            version: stmt.isNull(at: first + 2) ? nil : stmt.int64(at: first + 2),
            stored: columns.isEmpty
                ? nil
                : StoredRow(
                    columns: columns, values: (0..<Int32(columns.count)).map { StoredColumn(stmt, at: first + 3 + $0) })
        )
    }

    /// Stored rows whose values of one uniqueness group equal `values`, with the columns of
    /// `indexed` the group does not match on.
    ///
    /// ```sql
    /// SELECT "Z_PK", "Z_ENT", "Z_OPT"[, "ZSCORE", …] FROM "ZUSER" WHERE "ZID" = ? [AND "Z_ENT" IN (…)]
    /// ```
    func rows(
        matching group: StoreMapping.Table.UniqueGroup, _ values: [SQLValue], indexed: IndexedColumns?
    ) throws -> [UniqueMatch] {
        let lookup = indexed?.lookup(group) ?? group.plain
        let stmt = try db.cachedStatement(lookup.sql)
        defer { stmt.reset() }
        try stmt.bind(values)
        var rows: [UniqueMatch] = []
        while try stmt.step() { rows.append(StoreWriter.match(stmt, from: 0, columns: lookup.columns)) }
        return rows
    }

    /// Stored rows whose one-column group value is any of `values`, looked up in batches of up
    /// to 256 values, each in the shortest list that holds it (``KeyListSQL/lookupLengths``: a
    /// save of one new model looks it up through `IN (?)`), with the columns of `indexed` other
    /// than the group's (asked for only when the table has a row); `found` gets each value as
    /// stored and the row that holds it.
    ///
    /// ```sql
    /// SELECT "ZEMAIL", "Z_PK", "Z_ENT", "Z_OPT"[, "ZSCORE", …] FROM "ZUSER" WHERE "ZEMAIL" IN (?, ?, …)
    /// ```
    ///
    /// A table with no row at all (a batch insert into a new store, a fixture being generated)
    /// is found so by one `SELECT 1 FROM "ZUSER" LIMIT 1`, and nothing is looked up.
    func rows(
        matching group: StoreMapping.Table.UniqueGroup, anyOf values: [SQLValue],
        indexed: () throws -> IndexedColumns?, found: (SQLValue, UniqueMatch) -> Void
    ) throws {
        guard group.batchLookupSQL != nil else { return }
        if values.count > 1 {
            let any = try db.cachedStatement(group.anyRowSQL)
            defer { any.reset() }
            guard try any.step() else { return }
        }
        let lookup = try indexed()?.lookup(group) ?? group.plain
        guard let sql = lookup.batchSQL else { return }
        let columns = lookup.columns
        try forEachBatch(of: values, sql, bind: { try $0.bind($1, at: $2) }) { stmt in
            while try stmt.step() { found(stmt.value(at: 0), StoreWriter.match(stmt, from: 1, columns: columns)) }
        }
    }

    // MARK: Rows

    /// Rows per multi-row `INSERT` of ``insertStatements(_:reads:entity:count:)`` (fewer when a row has
    /// so many parameters that more would pass 999, SQLite's limit before 3.32).
    static let rowsPerInsert = 16

    /// The prepared `INSERT`s for new rows of one entity (``insertStatements(_:reads:entity:count:)``).
    struct InsertStatements {
        /// One row's.
        let single: RowStatement
        /// ``rowsPerBatch`` rows' (`nil` when that is one, or when there are fewer rows to insert).
        let batched: RowStatement?
        let rowsPerBatch: Int
        /// The parameters of one row: its key, then one per column of the reads.
        let parametersPerRow: Int32
    }

    /// Prepared `INSERT`s for `count` new rows of entity `entity`, whose column reads are
    /// `reads` (the entity's ``StoreMapping/Table/plan(_:)``): of one row, and of
    /// ``rowsPerInsert`` rows when there are that many (``StoreMapping/InsertSQL``). Bind each
    /// row's values through ``RowStatement/row(_:parametersPerRow:)``, then ``RowStatement/run(_:)``.
    func insertStatements(
        _ table: StoreMapping.Table, reads: [StoreMapping.Table.ColumnRead], entity: Int64, count: Int
    ) throws -> InsertStatements {
        let sql = table.insertSQL(entity: entity, reads: reads)
        let single = RowStatement(try db.cachedStatement(sql.single), firstValue: 2)
        let batched =
            sql.rowsPerBatch > 1 && count >= sql.rowsPerBatch
            ? RowStatement(try db.cachedStatement(sql.batched), firstValue: 2) : nil
        return InsertStatements(
            single: single, batched: batched, rowsPerBatch: sql.rowsPerBatch, parametersPerRow: sql.parametersPerRow)
    }

    /// Sets `reads`' columns of row `pk` of `table` to `NULL`, without a new version: a row
    /// giving up unique values frees them before the save writes the rows that take them (NULL
    /// never collides), and its update later in the save writes its new values.
    ///
    /// ```sql
    /// UPDATE "ZBADGE" SET "ZCODE" = NULL WHERE "Z_PK" = ?
    /// ```
    func clearColumns(_ table: StoreMapping.Table, _ reads: [StoreMapping.Table.ColumnRead], of pk: Int64) throws {
        let sets = table.columnNames(reads).map { "\(quoteIdentifier($0)) = NULL" }
        try db.run(
            "UPDATE \(quoteIdentifier(table.name)) SET \(sets.joined(separator: ", ")) WHERE \"Z_PK\" = ?",
            [.integer(pk)])
    }

    /// A prepared `UPDATE` of some columns of one row that makes a new version of it; with
    /// `checkingVersion`, only a row still at the version read. Run it with
    /// ``RowStatement/runUpdate(_:key:knownVersion:)``, which gives the new version.
    ///
    /// ```sql
    /// UPDATE "ZTRIP" SET "ZNAME" = ?, "Z_OPT" = coalesce("Z_OPT", 0) + 1 WHERE "Z_PK" = ? [AND "Z_OPT" = ?]
    /// SELECT "Z_OPT" FROM "ZTRIP" WHERE "Z_PK" = ?  -- unchecked: the new version
    /// ```
    /// Parameters: one per column of `reads` in order, then the key, then (checked) the version.
    ///
    /// Not `… RETURNING "Z_OPT"`: SQLite collects returned rows in an ephemeral table that it
    /// creates and drops on every run (about 20,000 instructions, several times the update).
    func updateStatement(
        _ table: StoreMapping.Table, reads: [StoreMapping.Table.ColumnRead],
        checkingVersion: Bool
    ) throws -> RowStatement {
        func build(bump: Int) -> String {
            let sets =
                table.columnNames(reads).map { "\(quoteIdentifier($0)) = ?" }
                + ["\"Z_OPT\" = coalesce(\"Z_OPT\", 0) + \(bump)"]
            return "UPDATE \(quoteIdentifier(table.name)) SET \(sets.joined(separator: ", ")) WHERE \"Z_PK\" = ?"
                + (checkingVersion ? " AND \"Z_OPT\" = ?" : "")
        }
        // The fault's statement is not kept with the table's.
        let sql =
            FaultInjection.isActive(.versionNotBumped)
            ? StatementSQL(build(bump: 0))
            : table.updateSQL(reads, checkingVersion: checkingVersion) { build(bump: 1) }
        let version = checkingVersion ? nil : try db.cachedStatement(table.versionByKeySQL)
        return RowStatement(try db.cachedStatement(sql), firstValue: 1, versionQuery: version)
    }

    // MARK: Keys held by destinations

    /// Points row `pk` of `table` at `owner` through a one-way to-many's key column
    /// (`Z<n><NAME>`): the row joins the owner's list (and leaves any other owner's).
    ///
    /// ```sql
    /// UPDATE "ZITEM" SET "Z3ITEMS" = ? WHERE "Z_PK" = ?
    /// ```
    func setOwnerKey(_ table: StoreMapping.Table, column: String, owner: Int64, on pk: Int64) throws {
        try db.run(
            "UPDATE \(quoteIdentifier(table.name)) SET \(quoteIdentifier(column)) = ? WHERE \"Z_PK\" = ?",
            [.integer(owner), .integer(pk)])
    }

    /// Takes row `pk` of `table` out of `owner`'s one-way to-many (only if it is still there).
    ///
    /// ```sql
    /// UPDATE "ZITEM" SET "Z3ITEMS" = NULL WHERE "Z_PK" = ? AND "Z3ITEMS" = ?
    /// ```
    func clearOwnerKey(_ table: StoreMapping.Table, column: String, owner: Int64, on pk: Int64) throws {
        try db.run(
            "UPDATE \(quoteIdentifier(table.name)) SET \(quoteIdentifier(column)) = NULL WHERE \"Z_PK\" = ? AND \(quoteIdentifier(column)) = ?",
            [.integer(pk), .integer(owner)])
    }

    // MARK: Join tables

    /// Removes one pair from a join table.
    ///
    /// ```sql
    /// DELETE FROM "Z_1TAGS" WHERE "Z_1PRODUCTS" = ? AND "Z_2TAGS" = ?
    /// ```
    func unlink(_ name: String, own ownColumn: String, _ own: Int64, other otherColumn: String, _ other: Int64) throws {
        try db.run(
            "DELETE FROM \(quoteIdentifier(name)) WHERE \(quoteIdentifier(ownColumn)) = ? AND \(quoteIdentifier(otherColumn)) = ?",
            [.integer(own), .integer(other)])
    }

    /// Adds one pair to a join table (a pair already there stays one pair).
    ///
    /// ```sql
    /// INSERT OR IGNORE INTO "Z_1TAGS" ("Z_1PRODUCTS", "Z_2TAGS") VALUES (?, ?)
    /// ```
    func link(_ name: String, own ownColumn: String, _ own: Int64, other otherColumn: String, _ other: Int64) throws {
        try db.run(
            "INSERT OR IGNORE INTO \(quoteIdentifier(name)) (\(quoteIdentifier(ownColumn)), \(quoteIdentifier(otherColumn))) VALUES (?, ?)",
            [.integer(own), .integer(other)])
    }
}

/// A prepared row-writing statement (insert or update) reused for many rows of one shape.
///
/// Bind a row's values with ``bind(_:at:)`` (0-based value positions, as the statement that
/// made it documents), its key with ``bindKey(_:at:)``, then ``run(_:)`` or
/// ``runUpdate(_:key:knownVersion:)``; the statement is reset for the next row (by
/// ``SQLiteStatement/execute()``), keeping its bindings: every run binds every parameter that
/// changes from row to row again.
struct RowStatement {
    private let stmt: SQLiteStatement
    private let firstValue: Int32
    /// An unchecked update's `SELECT "Z_OPT" … WHERE "Z_PK" = ?`.
    private let versionQuery: SQLiteStatement?

    init(_ stmt: SQLiteStatement, firstValue: Int32, versionQuery: SQLiteStatement? = nil) {
        self.stmt = stmt
        self.firstValue = firstValue
        self.versionQuery = versionQuery
    }

    /// The statement bound and run.
    var statement: SQLiteStatement { stmt }

    /// The statement whose value positions are those of row `row` of a multi-row `INSERT`
    /// (``StoreWriter/insertStatements(_:reads:entity:count:)``), each row `parametersPerRow` parameters on.
    func row(_ row: Int, parametersPerRow: Int32) -> RowStatement {
        row == 0
            ? self
            : RowStatement(stmt, firstValue: firstValue + Int32(row) * parametersPerRow, versionQuery: versionQuery)
    }

    /// Binds the value of the `index`-th read.
    func bind(_ value: SQLValue, at index: Int) throws {
        try stmt.bind(value, at: firstValue + Int32(index))
    }

    /// Binds an integer as the value of the `index`-th read.
    @inline(__always)
    func bindInteger(_ value: Int64, at index: Int) throws {
        try stmt.bind(value, at: firstValue + Int32(index))
    }

    /// Binds a double as the value of the `index`-th read.
    @inline(__always)
    func bindReal(_ value: Double, at index: Int) throws {
        try stmt.bind(value, at: firstValue + Int32(index))
    }

    /// Binds text as the value of the `index`-th read.
    func bindText(_ value: String, at index: Int) throws {
        try stmt.bindText(value, at: firstValue + Int32(index))
    }

    /// Binds an integer at a 1-based parameter position (keys, entity numbers, versions).
    func bindKey(_ value: Int64, at parameter: Int32) throws {
        try stmt.bind(value, at: parameter)
    }

    /// Runs the statement; a uniqueness failure becomes ``SwiftDataError/uniqueConstraintViolation``
    /// naming `entityName`, another constraint's ``SwiftDataError/constraintViolation``.
    func run(_ entityName: String) throws {
        // `execute()` leaves the statement reset, its bindings kept, also when it throws.
        do {
            try stmt.execute()
        } catch let e as SQLiteError where e.code == .constraint {
            throw constraintError(e, entityName)
        }
    }

    /// Runs an update (``StoreWriter/updateStatement(_:reads:checkingVersion:)``) of row
    /// `key`: the row's new version, or `nil` when no row matched (it is gone, or — checked —
    /// no longer at the version checked). `knownVersion` is the version the row is at before
    /// the update when that is known: the one a checking statement checks, or the one an
    /// upsert's lookup read in this transaction. The new version is then that plus one, and
    /// nothing is read back; otherwise it is read back by key.
    ///
    /// - Throws: ``SwiftDataError/corruptStore`` when the row's version is at `Int64.max`;
    ///   a constraint's error (``SQLiteError/saveError(entityName:sql:)``).
    func runUpdate(_ entityName: String, key: Int64, knownVersion: Int64?) throws -> Int64? {
        do {
            try stmt.execute()
        } catch let e as SQLiteError where e.code == .constraint {
            throw constraintError(e, entityName)
        }
        guard stmt.connection.changes > 0 else { return nil }
        // The row was at `knownVersion`, and the update added one.
        if let knownVersion {
            let (next, overflow) = knownVersion.addingReportingOverflow(1)
            if overflow { throw versionExhausted(entityName, key: key) }
            return next
        }
        guard let query = versionQuery else { return nil }
        defer { query.reset() }
        try query.bind(key, at: 1)
        guard try query.step() else { return nil }
        // SQLite's `Z_OPT + 1` past Int64.max gives a REAL, which reads back as Int64.max.
        let version = query.int64(at: 0)
        if version == Int64.max { throw versionExhausted(entityName, key: key) }
        return version
    }

    /// ``SwiftDataError/corruptStore`` for an update of row `key` whose version (`Z_OPT`) is at
    /// the top of `Int64` (a value another tool wrote): it has no next version. The save rolls
    /// back.
    private func versionExhausted(_ entityName: String, key: Int64) -> SwiftDataError {
        SwiftDataError(
            SwiftDataError.corruptStore.code,
            "the row version (Z_OPT) of the \(entityName) with Z_PK \(key) is at \(Int64.max) (a value another tool "
                + "wrote), so the row cannot be updated; nothing was written and the context keeps its pending changes",
            entityName: entityName, sql: stmt.sql)
    }

    private func constraintError(_ e: SQLiteError, _ entityName: String) -> SwiftDataError {
        e.saveError(entityName: entityName, sql: stmt.sql)
    }
}

/// ``StoreWriter/keyColumnDelete(_:column:reading:)``'s statements.
struct KeyColumnDelete {
    fileprivate let db: SQLiteConnection
    fileprivate let select: KeyListSQL
    fileprivate let delete: KeyListSQL
    /// How many columns after the parent and the key `select` reads.
    fileprivate let width: Int

    /// Deletes the rows whose key column holds one of `parents` (at most
    /// ``StoreWriter/keyBatchSize``), first passing each one's parent, key and read columns to
    /// `row`, by parent and then by key. One statement of each kind for all of them: SQLite's
    /// per-statement work (cursors opened on the table and each of its indexes, the program
    /// halted and reset) is paid once per batch, not per parent.
    func run(_ parents: [Int64], _ row: (Int64, Int64, [SQLValue]) throws -> Void) throws {
        guard !parents.isEmpty else { return }
        let select = try bound(self.select, parents)
        defer { select.reset() }
        var found = false
        while try select.step() {
            found = true
            let values = width == 0 ? [] : (0..<width).map { select.value(at: Int32($0 + 2)) }
            try row(select.int64(at: 0), select.int64(at: 1), values)
        }
        guard found else { return }
        let delete = try bound(self.delete, parents)
        defer { delete.reset() }
        try delete.execute()
    }

    /// Deletes the rows of `table` whose key column holds one of `parents` (at most
    /// ``StoreWriter/keyBatchSize``) without reading them first; returns their keys, in the
    /// order SQLite deleted them (``SQLiteConnection/deletedKeys(in:during:)``).
    func delete(_ parents: [Int64], of table: String) throws -> [Int64] {
        guard !parents.isEmpty else { return [] }
        let delete = try bound(self.delete, parents)
        defer { delete.reset() }
        return try db.deletedKeys(in: table) { try delete.execute() }
    }

    /// The statement of `sql` whose list holds `parents`, with them bound.
    private func bound(_ sql: KeyListSQL, _ parents: [Int64]) throws -> SQLiteStatement {
        let (text, length) = sql.forBatch(of: parents.count)
        let stmt = try db.cachedStatement(text)
        try StoreWriter.bindBatch(parents[...], size: length) { try stmt.bind($0, at: $1) }
        return stmt
    }
}

/// SQL with one `IN (?, …)` list of keys or values, written once for each list length of
/// ``lengths``: a batch is bound to the shortest list that holds it, the placeholders after its
/// values repeating its last (an `IN` list reads each row once). SQLite prepares a statement in
/// time proportional to its list's length, and probes the table or index once per placeholder
/// at every run, repeated values included: a save that deletes one model would otherwise pay
/// for 64 keys in every statement that removes it and its references.
struct KeyListSQL {
    /// The list lengths of statements over keys (deletes, reference clearing, a cascade's
    /// history), shortest first; the last is ``StoreWriter/keyBatchSize``.
    static let keyLengths = [1, 4, 16, 64]
    /// The list lengths of a save's uniqueness lookups, shortest first. A batch insert looks up
    /// thousands of values, and each run of a statement costs SQLite about 13k instructions
    /// beside its values (the list's table built and dropped, the program reset): 256 values a
    /// run cost 1 % less than 64 over a 10k-row upsert.
    static let lookupLengths = [1, 4, 16, 64, 256]

    /// This SQL's list lengths, shortest first.
    let lengths: [Int]
    /// The SQL for each length of ``lengths``, in that order.
    let texts: [StatementSQL]

    /// The longest list: the most values a batch holds.
    var longest: Int { lengths[lengths.count - 1] }

    /// `sql` with each list length's `(?, …)` in place of its argument.
    init(lengths: [Int] = KeyListSQL.keyLengths, _ sql: (String) -> String) {
        self.lengths = lengths
        texts = lengths.map { n in
            StatementSQL(sql("(" + Array(repeating: "?", count: n).joined(separator: ", ") + ")"))
        }
    }

    /// The statement for a batch of `count` values (1 to ``longest``) and its list's length.
    func forBatch(of count: Int) -> (sql: StatementSQL, length: Int) {
        precondition(count >= 1 && count <= longest, "a batch of \(count) values")
        var i = 0
        while lengths[i] < count { i += 1 }
        return (texts[i], lengths[i])
    }
}

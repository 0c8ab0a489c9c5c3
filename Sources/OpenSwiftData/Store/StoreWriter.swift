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

    /// Deletes one row; with `version`, only if the row still has that version (strict merge
    /// policy). Returns whether a row was deleted.
    ///
    /// ```sql
    /// DELETE FROM "Trip" WHERE "Z_PK" = ? [AND "Z_OPT" = ?]
    /// ```
    func deleteRow(_ table: StoreMapping.Table, pk: Int64, ifVersion version: Int64?) throws -> Bool {
        if let version {
            try db.run("DELETE FROM \(quoteIdentifier(table.name)) WHERE \"Z_PK\" = ? AND \"Z_OPT\" = ?",
                       [.integer(pk), .integer(version)])
        } else {
            try db.run("DELETE FROM \(quoteIdentifier(table.name)) WHERE \"Z_PK\" = ?", [.integer(pk)])
        }
        return db.changes > 0
    }

    /// Clears every stored reference to a deleted row: other rows' keys pointing at it become
    /// NULL and its join-table pairs go. (Their versions are not bumped: the rows' own values
    /// did not change, and a context holding them unlinks them in memory itself.)
    ///
    /// ```sql
    /// UPDATE "Word" SET "category" = NULL WHERE "category" = ?
    /// DELETE FROM "Z_Product_tags" WHERE "Z_1PRODUCT" = ?
    /// ```
    func detachReferences(to table: StoreMapping.Table, pk: Int64) throws {
        for (other, column) in mapping.inboundForeignKeys(to: table) {
            try db.run("UPDATE \(quoteIdentifier(other.name)) SET \(quoteIdentifier(column)) = NULL WHERE \(quoteIdentifier(column)) = ?",
                       [.integer(pk)])
        }
        for (name, column) in mapping.joinTables(touching: table) {
            try db.run("DELETE FROM \(quoteIdentifier(name)) WHERE \(quoteIdentifier(column)) = ?", [.integer(pk)])
        }
    }

    /// Clears the stored to-many relationships of row `pk` before an upsert writes the new
    /// model's: children are detached (never deleted), join-table pairs removed (UNQ-14).
    func detachStoredToMany(of layout: ModelLayout, pk: Int64) throws {
        for slot in layout.relationshipSlots where layout.slots[slot].isToMany {
            switch mapping.storage(of: layout, slot: slot) {
            case .inverseForeignKey(let table, let column)?:
                try db.run("UPDATE \(quoteIdentifier(table.name)) SET \(quoteIdentifier(column)) = NULL WHERE \(quoteIdentifier(column)) = ?",
                           [.integer(pk)])
            case .joinTable(let name, let own, _)?:
                try db.run("DELETE FROM \(quoteIdentifier(name)) WHERE \(quoteIdentifier(own)) = ?", [.integer(pk)])
            default:
                break
            }
        }
    }

    // MARK: Keys

    /// The largest key ever handed out for `table`: above both the table's largest key and the
    /// largest recorded, so a deleted row's identifier is never reused.
    ///
    /// ```sql
    /// SELECT coalesce(max("Z_PK"), 0) FROM "Trip"
    /// SELECT value FROM "Z_METADATA" WHERE key = 'maxpk.Trip'
    /// ```
    func largestKey(of table: StoreMapping.Table) throws -> Int64 {
        var start: Int64 = 0
        if case .integer(let n)? = try db.scalar("SELECT coalesce(max(\"Z_PK\"), 0) FROM \(quoteIdentifier(table.name))") {
            start = n
        }
        if case .text(let t)? = try db.scalar("SELECT value FROM \"Z_METADATA\" WHERE key = ?", [.text("maxpk." + table.name)]),
           let n = Int64(t) {
            start = max(start, n)
        }
        return start
    }

    /// Records `pk` as the largest key handed out for `table`.
    func recordLargestKey(_ pk: Int64, of table: StoreMapping.Table) throws {
        try db.run("INSERT OR REPLACE INTO \"Z_METADATA\" (key, value) VALUES (?, ?)",
                   [.text("maxpk." + table.name), .text(String(pk))])
    }

    // MARK: Uniqueness

    /// Stored rows whose values of one uniqueness group equal `values`.
    ///
    /// ```sql
    /// SELECT "Z_PK", "Z_ENT" FROM "User" WHERE "id" = ? [AND "Z_ENT" IN (…)]
    /// ```
    func rows(matching group: StoreMapping.Table.UniqueGroup, _ values: [SQLValue]) throws -> [(pk: Int64, ent: Int64)] {
        let lookup = try db.cachedStatement(group.lookupSQL)
        defer { lookup.reset() }
        try lookup.bind(values)
        var rows: [(pk: Int64, ent: Int64)] = []
        while try lookup.step() { rows.append((lookup.int64(at: 0), lookup.int64(at: 1))) }
        return rows
    }

    /// Stored rows whose one-column group value is any of `values`, looked up
    /// ``StoreMapping/Table/UniqueGroup/batchSize`` values per statement; `found` gets each
    /// (value, key, entity).
    ///
    /// ```sql
    /// SELECT "email", "Z_PK", "Z_ENT" FROM "User" WHERE "email" IN (?, ?, …)
    /// ```
    func rows(matching group: StoreMapping.Table.UniqueGroup, anyOf values: [SQLValue],
              found: (SQLValue, Int64, Int64) -> Void) throws {
        guard let sql = group.batchLookupSQL else { return }
        let stmt = try db.cachedStatement(sql)
        defer { stmt.reset() }
        let size = StoreMapping.Table.UniqueGroup.batchSize
        for start in stride(from: 0, to: values.count, by: size) {
            let end = min(start + size, values.count)
            // Unused placeholders repeat the last value: the statement keeps one shape.
            for i in 0..<size { try stmt.bind(values[min(start + i, end - 1)], at: Int32(i + 1)) }
            while try stmt.step() { found(stmt.value(at: 0), stmt.int64(at: 1), stmt.int64(at: 2)) }
            stmt.reset()
        }
    }

    // MARK: Rows

    /// A prepared `INSERT` for new rows of one entity; bind each row's values, then ``RowStatement/run(_:)``.
    ///
    /// ```sql
    /// INSERT INTO "Trip" ("Z_PK", "Z_ENT", "name", …) VALUES (?, ?, ?, …)   -- Z_OPT defaults to 1
    /// ```
    /// Parameters: 1 the key, 2 the entity, then one per read in `reads` order.
    func insertStatement(_ table: StoreMapping.Table, reads: [StoreMapping.Table.ColumnRead]) throws -> RowStatement {
        let cols = (["Z_PK", "Z_ENT"] + reads.map { table.columns[Int($0.column) - 2] }).map(quoteIdentifier)
        let sql = "INSERT INTO \(quoteIdentifier(table.name)) (\(cols.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: cols.count).joined(separator: ", ")))"
        return RowStatement(try db.cachedStatement(sql), firstValue: 3)
    }

    /// A prepared `UPDATE` of some columns of one row that makes a new version of it and
    /// returns that version; with `checkingVersion`, only a row still at the version read.
    ///
    /// ```sql
    /// UPDATE "Trip" SET "name" = ?, "Z_OPT" = "Z_OPT" + 1 WHERE "Z_PK" = ? [AND "Z_OPT" = ?] RETURNING "Z_OPT"
    /// ```
    /// Parameters: one per read in `reads` order, then the key, then (checked) the version.
    func updateStatement(_ table: StoreMapping.Table, reads: [StoreMapping.Table.ColumnRead],
                         checkingVersion: Bool) throws -> RowStatement {
        let sets = reads.map { "\(quoteIdentifier(table.columns[Int($0.column) - 2])) = ?" } + ["\"Z_OPT\" = \"Z_OPT\" + 1"]
        let sql = "UPDATE \(quoteIdentifier(table.name)) SET \(sets.joined(separator: ", ")) WHERE \"Z_PK\" = ?"
            + (checkingVersion ? " AND \"Z_OPT\" = ?" : "") + " RETURNING \"Z_OPT\""
        return RowStatement(try db.cachedStatement(sql), firstValue: 1)
    }

    // MARK: Join tables

    /// Removes one pair from a join table.
    ///
    /// ```sql
    /// DELETE FROM "Z_Product_tags" WHERE "Z_1PRODUCT" = ? AND "Z_2TAG" = ?
    /// ```
    func unlink(_ name: String, own ownColumn: String, _ own: Int64, other otherColumn: String, _ other: Int64) throws {
        try db.run("DELETE FROM \(quoteIdentifier(name)) WHERE \(quoteIdentifier(ownColumn)) = ? AND \(quoteIdentifier(otherColumn)) = ?",
                   [.integer(own), .integer(other)])
    }

    /// Adds one pair to a join table (a pair already there stays one pair).
    ///
    /// ```sql
    /// INSERT OR IGNORE INTO "Z_Product_tags" ("Z_1PRODUCT", "Z_2TAG") VALUES (?, ?)
    /// ```
    func link(_ name: String, own ownColumn: String, _ own: Int64, other otherColumn: String, _ other: Int64) throws {
        try db.run("INSERT OR IGNORE INTO \(quoteIdentifier(name)) (\(quoteIdentifier(ownColumn)), \(quoteIdentifier(otherColumn))) VALUES (?, ?)",
                   [.integer(own), .integer(other)])
    }
}

/// A prepared row-writing statement (insert or update) reused for many rows of one shape.
///
/// Bind a row's values with ``bind(_:at:)`` (0-based value positions, as the statement that
/// made it documents), its key with ``bindKey(_:at:)``, then ``run(_:)`` or
/// ``runReturningVersion(_:)``; the statement is reset for the next row.
struct RowStatement {
    private let stmt: SQLiteStatement
    private let firstValue: Int32

    init(_ stmt: SQLiteStatement, firstValue: Int32) {
        self.stmt = stmt
        self.firstValue = firstValue
    }

    /// Binds the value of the `index`-th read.
    func bind(_ value: SQLValue, at index: Int) throws {
        try stmt.bind(value, at: firstValue + Int32(index))
    }

    /// Binds an integer at a 1-based parameter position (keys, entity numbers, versions).
    func bindKey(_ value: Int64, at parameter: Int32) {
        stmt.bind(value, at: parameter)
    }

    /// Runs the statement; a uniqueness failure becomes ``SwiftDataError/uniqueConstraintViolation``
    /// naming `entityName`.
    func run(_ entityName: String) throws {
        defer { stmt.reset() }
        do {
            try stmt.execute()
        } catch let e as SQLiteError where e.code == .constraint {
            throw constraintError(e, entityName)
        }
    }

    /// Runs an `… RETURNING "Z_OPT"` statement: the row's new version, or `nil` when no row matched.
    func runReturningVersion(_ entityName: String) throws -> Int64? {
        defer { stmt.reset() }
        do {
            guard try stmt.step() else { return nil }
            let version = stmt.int64(at: 0)
            while try stmt.step() {}
            return version
        } catch let e as SQLiteError where e.code == .constraint {
            throw constraintError(e, entityName)
        }
    }

    private func constraintError(_ e: SQLiteError, _ entityName: String) -> SwiftDataError {
        SwiftDataError(SwiftDataError.uniqueConstraintViolation.code,
                       "a \(entityName) collides with a stored one on a unique attribute (\(e.message)); nothing was saved",
                       entityName: entityName, sql: stmt.sql, underlying: e)
    }
}

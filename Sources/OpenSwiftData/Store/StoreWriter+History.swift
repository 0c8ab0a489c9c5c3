import Foundation

/// One `ACHANGE` row a save records.
struct HistoryChangeRow {
    /// `ZCHANGETYPE`: 0 insert, 1 update, 2 delete.
    enum Kind: Int64 {
        case insert = 0
        case update = 1
        case delete = 2
    }
    let kind: Kind
    /// `ZENTITY`: the row's entity number.
    let entity: Int64
    /// `ZENTITYPK`: the row's key.
    let key: Int64
    /// `ZCOLUMNS`: an update's bitmap of changed properties (`nil` for inserts and deletes).
    let columns: Data?
    /// `ZTOMBSTONE0…`: a delete's preserved values.
    let tombstone: [SQLValue]
}

/// How a save records the deletes of the cascades it carries out in SQL (``SetCascade``): in
/// the transaction `transaction`, whose other change rows are already written, the related rows
/// of up to ``StoreWriter/keyBatchSize`` parents go to `ACHANGE` in one `INSERT … SELECT`
/// before their `DELETE`s, ordered by parent key and then by key, without a `Z_PK` (SQLite
/// gives them the keys right above the change rows before them). They are the rows
/// ``StoreWriter/recordTransaction(author:bundle:process:timestamp:insertedRanges:changes:tombstoneColumns:)``
/// writes for cascaded rows, with the same columns and values, and no Swift value per row.
struct CascadeHistory {
    /// The history transaction's key (`ZTRANSACTIONID`).
    let transaction: Int64
    /// The related class's entity number (`ZENTITY`).
    let entity: Int64
    /// The related rows' columns copied to `ZTOMBSTONE0…`, in order (at most as many as
    /// `ACHANGE` has).
    let tombstones: [String]

    /// The statement: parameter 1 the transaction, then a batch of parent keys; written once
    /// per table, parent column and class.
    ///
    /// ```sql
    /// INSERT INTO ACHANGE (Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZTOMBSTONE0)
    /// SELECT 16001, NULL, 2, 3, "Z_PK", ?, "ZLABEL" FROM "ZSHEET" WHERE "ZBINDER" IN (?, …) ORDER BY "ZBINDER", "Z_PK"
    /// ```
    func insertSQL(table: StoreMapping.Table, column: String) -> KeyListSQL {
        let key = (["ACHANGE", column, String(entity)] + tombstones).joined(separator: "\u{0}")
        return table.keyListSQL(key) { list in
            let targets = tombstones.indices.map { ", ZTOMBSTONE\($0)" }.joined()
            let sources = tombstones.map { ", " + quoteIdentifier($0) }.joined()
            let parent = quoteIdentifier(column)
            return
                "INSERT INTO ACHANGE (Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID\(targets)) SELECT 16001, NULL, "
                + "\(HistoryChangeRow.Kind.delete.rawValue), \(entity), \"Z_PK\", ?\(sources) FROM \(quoteIdentifier(table.name)) "
                + "WHERE \(parent) IN \(list) ORDER BY \(parent), \"Z_PK\""
        }
    }
}

extension StoreWriter {
    /// Records the deletes of the rows of `table` whose key column `column` holds one of
    /// `parents` (at most ``keyBatchSize``, in ascending order), as ``CascadeHistory`` says.
    func recordCascadeDeletes(
        _ recording: CascadeHistory, table: StoreMapping.Table, column: String, parents: [Int64]
    ) throws {
        guard !parents.isEmpty else { return }
        let (sql, length) = recording.insertSQL(table: table, column: column).forBatch(of: parents.count)
        let stmt = try db.cachedStatement(sql)
        defer { stmt.reset() }
        try stmt.bind(recording.transaction, at: 1)
        try StoreWriter.bindBatch(parents[...], size: length) { try stmt.bind($0, at: $1 + 1) }
        try stmt.execute()
    }

    /// Records `ACHANGE`'s largest key as the largest handed out, after change rows were
    /// inserted without a key (``CascadeHistory``).
    ///
    /// ```sql
    /// UPDATE Z_PRIMARYKEY SET Z_MAX = max(Z_MAX, (SELECT max(Z_PK) FROM ACHANGE)) WHERE Z_ENT = 16001
    /// ```
    func recordLargestChangeKey() throws {
        try db.run(
            "UPDATE Z_PRIMARYKEY SET Z_MAX = max(coalesce(Z_MAX, 0), coalesce((SELECT max(Z_PK) FROM ACHANGE), 0)) WHERE Z_ENT = 16001"
        )
    }

    /// Records one transaction and its changes in the history tables, inside the save's
    /// transaction, as Core Data does (store-format README §4): the author, bundle and process
    /// names go to `ATRANSACTIONSTRING` once and are referenced from `ZAUTHORTS`, `ZBUNDLEIDTS`,
    /// `ZPROCESSIDTS`; `Z_OPT` is NULL in history rows; keys come from `Z_PRIMARYKEY.Z_MAX`
    /// (16001 `CHANGE`, 16002 `TRANSACTION`, 16003 `TRANSACTIONSTRING`). Returns the
    /// transaction's key.
    ///
    /// ```sql
    /// INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZPROCESSIDTS, ZTIMESTAMP) VALUES (?, 16002, NULL, ?, ?, ?, ?)
    /// INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) VALUES (?, 16001, NULL, ?, ?, ?, ?, ?)
    /// ```
    ///
    /// Rows inserted by the save are recorded from the entity tables in one statement per key
    /// range (`insertedRanges`: the table and the first and last key the save handed out there;
    /// every row of that range in the table is new), so a large batch insert costs SQLite's
    /// own inserts only:
    /// ```sql
    /// INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID)
    /// SELECT ? + (Z_PK - ?), 16001, NULL, 0, Z_ENT, Z_PK, ? FROM ZITEM WHERE Z_PK BETWEEN ? AND ?
    /// ```
    /// When the keys handed out start right above `ACHANGE`'s largest (`Z_MAX` is not ahead of
    /// the table, the usual case), `Z_PK` is left out, here and in the other change rows'
    /// multi-row `INSERT`: SQLite gives the rows exactly those keys without checking each one.
    @discardableResult
    func recordTransaction(
        author: String?, bundle: String, process: String, timestamp: Date,
        insertedRanges: [(table: String, first: Int64, last: Int64)] = [],
        changes: [HistoryChangeRow], tombstoneColumns: Int
    ) throws -> Int64 {
        let author = FaultInjection.isActive(.historyLosesAuthor) ? nil : author
        let ranges = insertedRanges.filter { $0.last >= $0.first && !FaultInjection.isActive(.historyDropsInserts) }
        var changeCount = Int64(changes.count)
        for range in ranges {
            // A range holds at most `Int64.max` keys (both ends are positive keys).
            let (width, overflow) = (range.last - range.first).addingReportingOverflow(1)
            let (sum, beyond) = changeCount.addingReportingOverflow(width)
            if overflow || beyond { throw StoreWriter.keySpaceExhausted(entity: "CHANGE", table: "ACHANGE") }
            changeCount = sum
        }
        let read = try readTransactionKeys(author: author, bundle: bundle, process: process, changes: changeCount)
        // A name not stored yet is inserted (a store's first transactions), looked up again: the
        // author may be the bundle's or the process's name.
        let authorKey = try author.map { name in try read.author ?? stringKey(name) }
        let bundleKey = try read.bundle ?? stringKey(bundle)
        let processKey = try read.process ?? stringKey(process)
        let transaction = read.transaction
        try db.run(
            StoreWriter.insertTransactionSQL,
            [
                .integer(transaction), authorKey.map { .integer($0) } ?? .null, .integer(bundleKey),
                .integer(processKey),
                .real(timestamp.timeIntervalSinceReferenceDate),
            ])
        // The ranges' keys, then the other changes', in order from the first handed out.
        var nextChange = read.firstChange
        let keyed = !read.followTable
        for range in ranges {
            let first = nextChange
            nextChange += range.last - range.first + 1
            let sql = mapping.historySQL(.insertedRange(table: range.table, keyed: keyed)) {
                let table = quoteIdentifier(range.table)
                let entity = insertedEntity(of: range.table)
                // When the keys handed out are the ones SQLite gives rows inserted without one
                // (one above the table's largest, in insertion order), it need not check each.
                return keyed
                    ? "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID) SELECT ? + (Z_PK - ?), 16001, NULL, 0, \(entity), Z_PK, ? FROM \(table) WHERE Z_PK BETWEEN ? AND ? ORDER BY Z_PK"
                    : "INSERT INTO ACHANGE (Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID) SELECT 16001, NULL, 0, \(entity), Z_PK, ? FROM \(table) WHERE Z_PK BETWEEN ? AND ? ORDER BY Z_PK"
            }
            let bounds: [SQLValue] = [.integer(transaction), .integer(range.first), .integer(range.last)]
            try db.run(sql, keyed ? [.integer(first), .integer(range.first)] + bounds : bounds)
        }
        if !changes.isEmpty {
            try insertChanges(
                changes, transaction: transaction, keys: (nextChange, read.followTable),
                tombstoneColumns: tombstoneColumns)
        }
        return transaction
    }

    /// What `ZENTITY` of the change rows of new rows of table `name` is: the number of its only
    /// entity as a literal (every new row has it; SQLite then reads no column of the row), or
    /// `Z_ENT` when the table holds several entities.
    private func insertedEntity(of name: String) -> String {
        guard let table = mapping.tables.first(where: { $0.name == name }), table.entities.count == 1,
            let entity = table.entityID(table.entities[0])
        else { return "Z_ENT" }
        return String(entity)
    }

    /// Inserts the `ACHANGE` rows of `changes` for `transaction`, with the keys from `keys.first`
    /// on (handed out by ``readTransactionKeys(author:bundle:process:changes:)``; `followTable`
    /// when they start right above the table's largest key).
    private func insertChanges(
        _ changes: [HistoryChangeRow], transaction: Int64, keys: (first: Int64, followTable: Bool),
        tombstoneColumns: Int
    ) throws {
        // Keys that follow the table are the ones SQLite gives rows inserted without one, in
        // order: `Z_PK` is then left out and SQLite checks no key (`k`: its placeholder, 0 or 1).
        let k: Int32 = keys.followTable ? 0 : 1
        // Up to `changeRowsPerInsert` rows per statement (SQLite's per-statement work, paid
        // once per row otherwise, is most of a one-row insert); the rest one row at a time.
        let perRow = k + Int32(5 + tombstoneColumns)
        // (Under 999 parameters per statement: SQLite's limit before 3.32.)
        let many = max(1, min(StoreWriter.changeRowsPerInsert, 998 / Int(perRow)))
        // Each statement is prepared the first time a save needs it: a connection whose saves
        // record fewer than `many` changes never parses the long one.
        var batched: SQLiteStatement?
        var single: SQLiteStatement?
        func statement(rows: Int, _ prepared: inout SQLiteStatement?) throws -> SQLiteStatement {
            if let prepared { return prepared }
            let sql = mapping.historySQL(.changes(keyed: k == 1, tombstones: tombstoneColumns, rows: rows)) {
                let extra = (0..<tombstoneColumns).map { ", ZTOMBSTONE\($0)" }.joined()
                let head =
                    "INSERT INTO ACHANGE (\(k == 1 ? "Z_PK, " : "")Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(extra)) VALUES "
                let row =
                    "(\(k == 1 ? "?, " : "")16001, NULL, ?, ?, ?, ?, ?"
                    + String(repeating: ", ?", count: tombstoneColumns)
                    + ")"
                return head + Array(repeating: row, count: rows).joined(separator: ", ")
            }
            let made = try db.cachedStatement(sql)
            prepared = made
            return made
        }
        defer {
            batched?.reset()
            single?.reset()
        }
        var start = 0
        while start < changes.count - (FaultInjection.isActive(.historyDropsLastChange) ? 1 : 0) {
            let count = changes.count - start >= many ? many : 1
            let insert = count == many ? try statement(rows: many, &batched) : try statement(rows: 1, &single)
            for i in start..<(start + count) {
                let change = changes[i]
                let base = Int32(i - start) * perRow
                if k == 1 { try insert.bind(keys.first + Int64(i), at: base + 1) }
                try insert.bind(change.kind.rawValue, at: base + k + 1)
                try insert.bind(change.entity, at: base + k + 2)
                try insert.bind(change.key, at: base + k + 3)
                try insert.bind(transaction, at: base + k + 4)
                if let columns = change.columns {
                    try insert.bind(.blob(columns), at: base + k + 5)
                } else {
                    try insert.bind(.null, at: base + k + 5)
                }
                for t in 0..<tombstoneColumns {
                    let kept = t < change.tombstone.count && !FaultInjection.isActive(.historyLosesTombstone)
                    try insert.bind(kept ? change.tombstone[t] : .null, at: base + k + Int32(6 + t))
                }
            }
            // `execute()` leaves the statement reset; every parameter is bound again for the
            // next rows, so its bindings need no clearing.
            try insert.execute()
            start += count
        }
    }

    /// Change rows per multi-row `INSERT` of ``recordTransaction(author:bundle:process:timestamp:insertedRanges:changes:tombstoneColumns:)``.
    static let changeRowsPerInsert = 16

    /// What a transaction's rows need from the store, read in one statement and written in
    /// one: the keys of its author, bundle and process names (`nil` for a name not stored yet,
    /// and for no author), its `ATRANSACTION` key and the first of `changes` `ACHANGE` keys,
    /// each handed out above its entity's `Z_MAX` and its table's largest key (`Z_MAX` then
    /// raised to the last); `followTable` when the change keys start right above `ACHANGE`'s
    /// largest. With no changes, `ACHANGE`'s `Z_MAX` is left as it is.
    ///
    /// ```sql
    /// SELECT (SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?), …,
    ///        (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16002), (SELECT max(Z_PK) FROM ATRANSACTION), …
    /// UPDATE Z_PRIMARYKEY SET Z_MAX = CASE Z_ENT WHEN 16002 THEN ? ELSE ? END WHERE Z_ENT BETWEEN 16001 AND 16002
    /// ```
    ///
    /// - Throws: ``SwiftDataError/corruptStore`` when the keys do not fit below `Int64.max`.
    private func readTransactionKeys(author: String?, bundle: String, process: String, changes: Int64) throws -> (
        author: Int64?, bundle: Int64?, process: Int64?, transaction: Int64, firstChange: Int64, followTable: Bool
    ) {
        let stmt = try db.cachedStatement(StoreWriter.transactionReadSQL)
        defer { stmt.reset() }
        try stmt.bind(author.map { .text($0) } ?? .null, at: 1)
        try stmt.bind(.text(bundle), at: 2)
        try stmt.bind(.text(process), at: 3)
        // A `SELECT` of values always returns its one row.
        let row = try stmt.step()
        func integer(_ column: Int32) -> Int64? { row ? stmt.integerIfPresent(at: column) : nil }
        let (transactionMax, changeMax, changeLargest) = (
            Swift.max(integer(3) ?? 0, integer(4) ?? 0), Swift.max(integer(5) ?? 0, integer(6) ?? 0), integer(6) ?? 0
        )
        let (transaction, beyondTransaction) = transactionMax.addingReportingOverflow(1)
        if beyondTransaction { throw StoreWriter.keySpaceExhausted(entity: "TRANSACTION", table: "ATRANSACTION") }
        let (firstChange, beyondFirst) = changeMax.addingReportingOverflow(1)
        let (lastChange, beyondLast) = changeMax.addingReportingOverflow(changes)
        if changes > 0, beyondFirst || beyondLast {
            throw StoreWriter.keySpaceExhausted(entity: "CHANGE", table: "ACHANGE")
        }
        let keys = (
            author: integer(0), bundle: integer(1), process: integer(2), transaction: transaction,
            firstChange: firstChange, followTable: changeMax == changeLargest
        )
        if changes > 0 {
            try db.run(StoreWriter.recordHistoryMaximaSQL, [.integer(transaction), .integer(lastChange)])
        } else {
            try db.run(StoreWriter.recordLargestKeySQL, [.integer(transaction), .integer(16002)])
        }
        return keys
    }

    /// ``readTransactionKeys(author:bundle:process:changes:)``'s read: parameters the author's,
    /// bundle's and process's names.
    private static let transactionReadSQL = StatementSQL(
        "SELECT (SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?1), (SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?2), "
            + "(SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?3), "
            + "(SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16002), (SELECT max(Z_PK) FROM ATRANSACTION), "
            + "(SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16001), (SELECT max(Z_PK) FROM ACHANGE)")
    /// ``readTransactionKeys(author:bundle:process:changes:)``'s write: the last `ATRANSACTION`
    /// key, then the last `ACHANGE` key. The two rows are a range of keys (`BETWEEN`): SQLite
    /// reads an `IN` list of them into a temporary index first, which costs it five times more.
    private static let recordHistoryMaximaSQL = StatementSQL(
        "UPDATE Z_PRIMARYKEY SET Z_MAX = CASE Z_ENT WHEN 16002 THEN ?1 ELSE ?2 END WHERE Z_ENT BETWEEN 16001 AND 16002")

    /// Hands out the next `ATRANSACTIONSTRING` key: its `Z_PRIMARYKEY.Z_MAX` grows by one,
    /// starting above the table's largest key too.
    ///
    /// - Throws: ``SwiftDataError/corruptStore`` when no key is left below `Int64.max` (a
    ///   `Z_MAX` or key written by another tool); the save rolls back.
    private func nextStringKey() throws -> Int64 {
        let (recorded, largest) = try integerPair(StoreWriter.stringKeysSQL)
        let (pk, beyond) = Swift.max(recorded ?? 0, largest ?? 0).addingReportingOverflow(1)
        if beyond { throw StoreWriter.keySpaceExhausted(entity: "TRANSACTIONSTRING", table: "ATRANSACTIONSTRING") }
        try db.run(StoreWriter.recordLargestKeySQL, [.integer(pk), .integer(16003)])
        return pk
    }

    /// `ATRANSACTIONSTRING`'s `Z_PRIMARYKEY.Z_MAX` and largest key (``nextStringKey()``).
    private static let stringKeysSQL = StatementSQL(
        "SELECT (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16003), (SELECT max(Z_PK) FROM ATRANSACTIONSTRING)")

    /// `ATRANSACTION`'s row (``recordTransaction(author:bundle:process:timestamp:insertedRanges:changes:tombstoneColumns:)``).
    private static let insertTransactionSQL = StatementSQL(
        "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZPROCESSIDTS, ZTIMESTAMP) VALUES (?, 16002, NULL, ?, ?, ?, ?)"
    )
    /// An `ATRANSACTIONSTRING`'s key by name (``stringKey(_:)``).
    private static let stringKeySQL = StatementSQL("SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?")

    /// The error of a save that needs a key above `Int64.max` for `entity` (stored in `table`):
    /// its table's largest `Z_PK` or its `Z_PRIMARYKEY.Z_MAX` is at the top of the key space,
    /// which only another tool writes. The save's transaction rolls back, so nothing is written.
    ///
    /// ```swift
    /// throw StoreWriter.keySpaceExhausted(entity: "Item", table: "ZITEM")
    /// ```
    static func keySpaceExhausted(entity: String, table: String) -> SwiftDataError {
        SwiftDataError(
            SwiftDataError.corruptStore.code,
            "the store's key space for \(entity) is exhausted: table \(table)'s largest Z_PK or its Z_PRIMARYKEY.Z_MAX "
                + "leaves no key below \(Int64.max) for a new row (a value another tool wrote); nothing was written "
                + "and the context keeps its pending changes",
            entityName: entity)
    }

    /// The `ATRANSACTIONSTRING` key of `name`, inserting it the first time.
    private func stringKey(_ name: String) throws -> Int64 {
        if case .integer(let pk)? = try db.scalar(StoreWriter.stringKeySQL, [.text(name)]) {
            return pk
        }
        let pk = try nextStringKey()
        try db.run(
            "INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, 16003, 1, ?)",
            [.integer(pk), .text(name)])
        return pk
    }
}

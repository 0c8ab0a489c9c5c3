import Foundation

/// A transaction as stored in `ATRANSACTION`, with its `ACHANGE` rows.
struct StoredTransaction {
    let key: Int64
    let timestamp: Date
    let author: String?
    let bundle: String?
    let process: String?
    var changes: [StoredChange] = []
}

/// Which transactions `SQLiteStore.readHistory(_:)` reads, in which order, how many.
struct HistorySelection {
    /// The `WHERE` condition over `ATRANSACTION t` (and its author string `a`); `1` for all.
    var condition = SQLPiece.constant(true)
    /// Newest first (`ORDER BY t.Z_PK DESC`) instead of oldest first.
    var descending = false
    /// At most this many (`LIMIT`).
    var limit: Int?

    /// Whether every transaction is read (then every change is, in one scan of `ACHANGE`).
    var isEverything: Bool { condition.isConstant(true) && limit == nil }
}

/// One `ACHANGE` row.
struct StoredChange {
    let key: Int64
    let kind: Int64
    let entity: Int64
    let entityKey: Int64
    let columns: Data?
    let tombstone: [SQLValue]
}

extension SQLiteStore {
    /// Whether the store has the history tables (SwiftData stores do; a Core Data store
    /// created without persistent history tracking does not).
    func hasHistoryTables() throws -> Bool {
        try withConnection { db in try historyLayout(db).tables }
    }

    /// Whether the store has the history tables, and `ACHANGE`'s tombstone column count; read
    /// once per store (call with the connection held).
    func historyLayout(_ db: SQLiteConnection) throws -> (tables: Bool, tombstones: Int) {
        if let layout = historyLayout { return layout }
        let tables = try historyTablesExist(db)
        let layout = (tables, tables ? try tombstoneColumnCount(db) : 0)
        historyLayout = layout
        return layout
    }

    /// Whether saves record history (the store has the history tables) and `ACHANGE`'s
    /// tombstone column count; call with the connection held.
    ///
    /// For measuring history's save overhead only, `OPENSWIFTDATA_RECORD_HISTORY=0` in the
    /// environment turns recording off (`harness bench` with and without it); it is not an API.
    func historySettings(_ db: SQLiteConnection) throws -> (records: Bool, tombstones: Int) {
        if let state = historyState { return state }
        if SQLiteStore.historyRecordingDisabled {
            historyState = (false, 0)
            return (false, 0)
        }
        let records = try historyTablesExist(db)
        let state = (records, records ? try tombstoneColumnCount(db) : 0)
        historyState = state
        return state
    }

    /// Whether `OPENSWIFTDATA_RECORD_HISTORY=0` is set (read once per process).
    static let historyRecordingDisabled: Bool =
        ProcessInfo.processInfo.environment["OPENSWIFTDATA_RECORD_HISTORY"] == "0"

    /// The number of `ZTOMBSTONE<n>` columns `ACHANGE` has.
    func tombstoneColumnCount(_ db: SQLiteConnection) throws -> Int {
        try db.rows("SELECT name FROM pragma_table_info('ACHANGE')").filter { row in
            if case .text(let name)? = row.first { return name.hasPrefix("ZTOMBSTONE") }
            return false
        }.count
    }

    /// The recorded transactions `selection` picks, with their changes: every one, oldest
    /// first, by default.
    ///
    /// ```sql
    /// SELECT t.Z_PK, t.ZTIMESTAMP, coalesce(a.ZNAME, t.ZAUTHOR), coalesce(b.ZNAME, t.ZBUNDLEID), coalesce(p.ZNAME, t.ZPROCESSID)
    /// FROM ATRANSACTION t LEFT JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS … WHERE <condition> ORDER BY t.Z_PK [DESC] [LIMIT ?]
    /// SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS, ZTOMBSTONE0… FROM ACHANGE ORDER BY Z_PK
    /// ```
    /// A selection of some transactions reads their changes through `ACHANGE`'s index on
    /// `ZTRANSACTIONID` (`readChanges(of:into:position:tombstones:db:)`), so its cost follows
    /// the transactions selected, not the history's length.
    func readHistory(_ selection: HistorySelection = HistorySelection()) throws -> [StoredTransaction] {
        guard try hasHistoryTables() else { return [] }
        return try withConnection { db in
            var transactions: [StoredTransaction] = []
            var position: [Int64: Int] = [:]
            var sql = """
                SELECT t.Z_PK, t.ZTIMESTAMP, coalesce(a.ZNAME, t.ZAUTHOR), coalesce(b.ZNAME, t.ZBUNDLEID), coalesce(p.ZNAME, t.ZPROCESSID)
                FROM ATRANSACTION t
                LEFT JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS
                LEFT JOIN ATRANSACTIONSTRING b ON b.Z_PK = t.ZBUNDLEIDTS
                LEFT JOIN ATRANSACTIONSTRING p ON p.Z_PK = t.ZPROCESSIDTS
                """
            var arguments = selection.condition.arguments
            if !selection.condition.isConstant(true) { sql += "\nWHERE \(selection.condition.sql)" }
            sql += selection.descending ? "\nORDER BY t.Z_PK DESC" : "\nORDER BY t.Z_PK"
            if let limit = selection.limit {
                sql += " LIMIT ?"
                arguments.append(.integer(Int64(limit)))
            }
            for row in try db.rows(sql, arguments) {
                guard case .integer(let key) = row[0] else { continue }
                let seconds: Double =
                    switch row[1] {
                    case .real(let d): d
                    case .integer(let i): Double(i)
                    default: 0
                    }
                func text(_ v: SQLValue) -> String? { if case .text(let s) = v { s } else { nil } }
                position[key] = transactions.count
                transactions.append(
                    StoredTransaction(
                        key: key, timestamp: Date(timeIntervalSinceReferenceDate: seconds),
                        author: text(row[2]), bundle: text(row[3]), process: text(row[4])))
            }
            let tombstones = try historyLayout(db).tombstones
            if selection.isEverything {
                let extra = (0..<tombstones).map { ", ZTOMBSTONE\($0)" }.joined()
                let changes = try db.rows(
                    "SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(extra) FROM ACHANGE ORDER BY Z_PK"
                )
                append(changes, to: &transactions, position: position)
            } else {
                try readChanges(
                    of: position.keys.sorted(), into: &transactions, position: position, tombstones: tombstones, db: db)
            }
            return transactions
        }
    }

    /// Reads the changes of transactions `keys` (ascending), each transaction's in `Z_PK`
    /// order: one range over `ACHANGE_ZTRANSACTIONID_INDEX` when the keys are dense (most of
    /// the range between the first and the last is selected, as after a token), else one
    /// lookup per transaction.
    ///
    /// ```sql
    /// SELECT … FROM ACHANGE WHERE ZTRANSACTIONID BETWEEN ? AND ? ORDER BY ZTRANSACTIONID, Z_PK
    /// SELECT … FROM ACHANGE WHERE ZTRANSACTIONID = ? ORDER BY Z_PK
    /// ```
    private func readChanges(
        of keys: [Int64], into transactions: inout [StoredTransaction], position: [Int64: Int], tombstones: Int,
        db: SQLiteConnection
    ) throws {
        guard let first = keys.first, let last = keys.last else { return }
        let columns =
            "Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS"
            + (0..<tombstones).map { ", ZTOMBSTONE\($0)" }.joined()
        // In Double: keys near both ends of Int64 would overflow the subtraction.
        if Double(last) - Double(first) < Double(keys.count) * 4 {
            let rows = try db.rows(
                "SELECT \(columns) FROM ACHANGE WHERE ZTRANSACTIONID BETWEEN ? AND ? ORDER BY ZTRANSACTIONID, Z_PK",
                [.integer(first), .integer(last)])
            append(rows, to: &transactions, position: position)
            return
        }
        let sql = "SELECT \(columns) FROM ACHANGE WHERE ZTRANSACTIONID = ? ORDER BY Z_PK"
        for key in keys { append(try db.rows(sql, [.integer(key)]), to: &transactions, position: position) }
    }

    /// Appends `ACHANGE` rows (key, type, entity, entity key, transaction, columns,
    /// tombstones…) to their transactions; rows of transactions not in `position` are skipped.
    private func append(_ rows: [[SQLValue]], to transactions: inout [StoredTransaction], position: [Int64: Int]) {
        for row in rows {
            guard case .integer(let key) = row[0], case .integer(let kind) = row[1],
                case .integer(let entity) = row[2],
                case .integer(let entityKey) = row[3], case .integer(let transaction) = row[4],
                let index = position[transaction]
            else { continue }
            let columns: Data? = if case .blob(let d) = row[5] { d } else { nil }
            transactions[index].changes.append(
                StoredChange(
                    key: key, kind: kind, entity: entity, entityKey: entityKey,
                    columns: columns, tombstone: Array(row.dropFirst(6))))
        }
    }

    /// Whether transaction `key` is in `ATRANSACTION` (false for a store without history).
    func transactionExists(_ key: Int64) throws -> Bool {
        try withConnection { db in
            guard try historyLayout(db).tables else { return false }
            return try db.scalar("SELECT 1 FROM ATRANSACTION WHERE Z_PK = ?", [.integer(key)]) != nil
        }
    }

    /// The largest transaction key ever handed out (`Z_PRIMARYKEY.Z_MAX` of 16002).
    func largestTransactionKey() throws -> Int64 {
        try withConnection { db in
            if case .integer(let n)? = try db.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16002") { return n }
            return 0
        }
    }

    /// Deletes transactions `keys` and their changes, in one transaction.
    ///
    /// ```sql
    /// DELETE FROM ACHANGE WHERE ZTRANSACTIONID = ?; DELETE FROM ATRANSACTION WHERE Z_PK = ?
    /// ```
    func deleteTransactions(_ keys: [Int64]) throws {
        guard !keys.isEmpty, try hasHistoryTables() else { return }
        try withConnection { db in
            try db.immediateTransactionMapped {
                for key in keys {
                    try db.run("DELETE FROM ACHANGE WHERE ZTRANSACTIONID = ?", [.integer(key)])
                    try db.run("DELETE FROM ATRANSACTION WHERE Z_PK = ?", [.integer(key)])
                }
            }
            noteCommit()
        }
    }

    /// Whether all three history tables exist (one query; call with the connection held).
    private func historyTablesExist(_ db: SQLiteConnection) throws -> Bool {
        let names = StoreNames.historyTables.sorted().map { "'\($0)'" }.joined(separator: ", ")
        return try db.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (\(names))")
            == .integer(Int64(StoreNames.historyTables.count))
    }
}

extension ModelContainer {
    /// Turns history recording off (`false`) or back to the store's own setting (`true`: on
    /// when the store has the history tables) for the saves of every store of this container,
    /// from the next save on; for the benchmarks that measure what recording costs a save.
    ///
    /// ```swift
    /// try container.setHistoryRecording(false)   // the same saves, without ATRANSACTION / ACHANGE rows
    /// ```
    /// - Throws: ``SwiftDataError/storeError`` after ``erase()``.
    package func setHistoryRecording(_ enabled: Bool) throws {
        for store in stack.stores {
            try store.withConnection { _ in store.historyState = enabled ? nil : (false, 0) }
        }
    }
}

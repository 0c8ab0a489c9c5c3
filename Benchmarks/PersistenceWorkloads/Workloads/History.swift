import BenchmarkKit
import Foundation
import OpenSwiftData

/// `history after token`: `fetchHistory(HistoryDescriptor(after: token))` for the newest
/// transactions of a history whose older part is `rows` transactions long; the cost should not
/// grow with `rows`. And the save workloads again with history recording off, so the report
/// shows what recording costs each of them.
/// Ours and its raw-SQLite twin, side by side.
extension PersistenceWorkloads {
    /// Fetches per run.
    static let historyQueries = 20
    /// Transactions after the token, one inserted item each.
    static let newerTransactions = 10

    static var historyAfterToken: Workload {
        Workload(
            name: "history after token", group: "history", isQuery: false, operations: { _ in historyQueries },
            oursSetUp: { cache, store, rows, _ in
                let (container, token) = try cache.history(store, older: rows)
                let context = ModelContext(container)
                let descriptor = HistoryDescriptor(after: token)
                return OursRun(container) {
                    var n = 0
                    for _ in 0..<historyQueries {
                        for transaction in try context.fetchHistory(descriptor) { n += transaction.changes.count }
                    }
                    return n
                }
            },
            rawSetUp: { cache, store, rows, _ in
                let db = try cache.emptyRaw(store)
                try db.db.immediateTransaction {
                    try fillHistory(db.db, from: 1, count: rows + newerTransactions)
                }
                let token = Int64(rows)
                return RawRun(db) {
                    var n = 0
                    for _ in 0..<historyQueries {
                        n += try rawHistory(db.db, after: token).reduce(0) { $0 + $1.changes }
                    }
                    return n
                }
            },
            plan: nil)
    }

    /// `workload` with history recording turned off for its timed body: the same saves
    /// without `ATRANSACTION` / `ACHANGE` rows; its ratio to `workload` is what recording costs.
    static func withoutHistory(_ workload: Workload) -> Workload {
        Workload(
            name: workload.name + " (no history)", group: workload.group, isQuery: false,
            operations: workload.operations,
            oursSetUp: { cache, store, rows, strategy in
                let run = try workload.oursSetUp(cache, store, rows, strategy)
                return OursRun(run.container) {
                    try run.container.setHistoryRecording(false)
                    // try?: the switch only fails after erase(), which no workload calls.
                    defer { try? run.container.setHistoryRecording(true) }
                    return try run.body()
                }
            },
            rawSetUp: workload.rawSetUp, plan: nil)
    }

    /// Writes `count` transactions with keys `first…`, one inserted `BenchItem` change each, as
    /// a save records them (Apple's history layout, the names in `ATRANSACTIONSTRING` once),
    /// and moves `Z_PRIMARYKEY` past them. Call inside a transaction.
    ///
    /// ```sql
    /// WITH RECURSIVE n(i) AS (…) INSERT INTO ATRANSACTION (…) SELECT i, 16002, NULL, 1, 1, 1, i * 0.5 FROM n
    /// ```
    static func fillHistory(_ db: SQLiteConnection, from first: Int64, count: Int) throws {
        guard count > 0 else { return }
        let last = first + Int64(count) - 1
        let entity = Int64(RawStore.names.entityNumber("BenchItem")!)
        let numbers = "WITH RECURSIVE n(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM n WHERE i < ?)"
        try db.run("INSERT OR IGNORE INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (1, 16003, 1, 'bench')")
        try db.run(
            "\(numbers) INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZBUNDLEIDTS, ZPROCESSIDTS, ZTIMESTAMP) SELECT i, 16002, NULL, 1, 1, i * 0.5 FROM n",
            [.integer(first), .integer(last)])
        try db.run(
            "\(numbers) INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID) SELECT i, 16001, NULL, 0, ?, i, i FROM n",
            [.integer(first), .integer(last), .integer(entity)])
        for (ent, max) in [(16001, last), (16002, last), (16003, 1)] {
            try db.run(
                "UPDATE Z_PRIMARYKEY SET Z_MAX = max(Z_MAX, ?) WHERE Z_ENT = ?", [.integer(max), .integer(Int64(ent))])
        }
    }

    /// A transaction as a hand-written reader of the history tables keeps it.
    struct RawTransaction {
        var key: Int64, timestamp: Double, author: String?, bundle: String?, process: String?
        var changes = 0
    }

    /// The transactions after `token`, with their changes: the raw twin of `fetchHistory`
    /// after a token, two indexed reads (the transactions by key, their changes through
    /// `ACHANGE_ZTRANSACTIONID_INDEX`).
    static func rawHistory(_ db: SQLiteConnection, after token: Int64) throws -> [RawTransaction] {
        var transactions: [RawTransaction] = []
        let select = try db.cachedStatement(
            """
            SELECT t.Z_PK, t.ZTIMESTAMP, a.ZNAME, b.ZNAME, p.ZNAME FROM ATRANSACTION t
            LEFT JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS LEFT JOIN ATRANSACTIONSTRING b ON b.Z_PK = t.ZBUNDLEIDTS
            LEFT JOIN ATRANSACTIONSTRING p ON p.Z_PK = t.ZPROCESSIDTS WHERE t.Z_PK > ? ORDER BY t.Z_PK
            """)
        defer { select.reset() }
        try select.bind(token, at: 1)
        while try select.step() {
            transactions.append(
                RawTransaction(
                    key: select.rawInt64(at: 0), timestamp: select.rawDouble(at: 1), author: select.rawText(at: 2),
                    bundle: select.rawText(at: 3), process: select.rawText(at: 4)))
        }
        let changes = try db.cachedStatement(
            "SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS FROM ACHANGE WHERE ZTRANSACTIONID > ? ORDER BY ZTRANSACTIONID, Z_PK"
        )
        defer { changes.reset() }
        try changes.bind(token, at: 1)
        var index = 0
        while try changes.step() {
            let transaction = changes.rawInt64(at: 4)
            while index < transactions.count && transactions[index].key < transaction { index += 1 }
            if index < transactions.count && transactions[index].key == transaction { transactions[index].changes += 1 }
        }
        return transactions
    }
}

extension FixtureCache {
    /// A container whose history holds `older` transactions (written as a save writes them)
    /// and then ``PersistenceWorkloads/newerTransactions`` real saves of one item each, and the
    /// token of the last older transaction.
    func history(_ store: BenchStore, older: Int) throws -> (ModelContainer, DefaultHistoryToken) {
        let container = try emptyContainer(store)
        let context = ModelContext(container)
        context.insert(BenchItem(row: 0))
        try context.save()
        let first = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())[0]
        try container.withStoreConnection { db in
            try db.immediateTransaction {
                try PersistenceWorkloads.fillHistory(db, from: first.transactionIdentifier + 1, count: older - 1)
            }
        }
        let token = DefaultHistoryToken(
            storeIdentifier: first.storeIdentifier,
            transactionIdentifier: first.transactionIdentifier + Int64(older - 1))
        for i in 1...PersistenceWorkloads.newerTransactions {
            context.insert(BenchItem(row: i))
            try context.save()
        }
        return (container, token)
    }
}

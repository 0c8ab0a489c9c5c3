import Foundation
import OpenSwiftData

/// The raw-SQLite baseline: the same table layout our store uses (same columns, same indexes,
/// same pragmas), driven with prepared statements and plain structs, no objects.
public final class RawStore {
    /// A row as a hand-written app would read it.
    public struct Row {
        /// The row's primary key and unique key.
        public var pk: Int64, key: Int
        /// The same integer twice: one copy indexed (declared strategy), one never indexed.
        public var code: Int, codeUnindexed: Int
        /// The same price twice: one copy indexed (declared strategy), one never indexed.
        public var price: Double, priceUnindexed: Double
        /// The name, and the group's primary key (cascade workload).
        public var name: String, group: Int64?
    }

    /// The raw connection the baseline drives.
    public let db: SQLiteConnection
    let url: URL?

    static let columns = "\"Z_PK\", \"Z_ENT\", \"key\", \"code\", \"codeUnindexed\", \"price\", \"priceUnindexed\", \"name\", \"group\""

    /// A fresh database in memory (`url == nil`) or at `url` (WAL, synchronous=NORMAL).
    public init(url: URL?, strategy: IndexStrategy) throws {
        self.url = url
        if let url {
            db = try SQLiteConnection(path: url.path)
            _ = try db.scalar("PRAGMA journal_mode = WAL")
            try db.execute("PRAGMA synchronous = NORMAL")
        } else {
            db = try SQLiteConnection(path: ":memory:", mode: .inMemory)
        }
        try db.execute("""
            CREATE TABLE IF NOT EXISTS "BenchItem" ("Z_PK" INTEGER PRIMARY KEY, "Z_ENT" INTEGER NOT NULL, "key" INTEGER, "code" INTEGER, "codeUnindexed" INTEGER, "price" REAL, "priceUnindexed" REAL, "name" TEXT, "group" INTEGER);
            CREATE UNIQUE INDEX IF NOT EXISTS "BenchItem_unique_key" ON "BenchItem" ("key");
            CREATE INDEX IF NOT EXISTS "BenchItem_fk_group" ON "BenchItem" ("group");
            CREATE TABLE IF NOT EXISTS "BenchGroup" ("Z_PK" INTEGER PRIMARY KEY, "Z_ENT" INTEGER NOT NULL, "name" TEXT);
            """)
        try apply(strategy)
    }

    /// Sets the secondary indexes as ``ModelContainer/applyIndexStrategy(_:)`` does.
    public func apply(_ strategy: IndexStrategy) throws {
        for name in ["BenchItem_index_code", "BenchItem_index_price", "BenchItem_custom_code", "BenchItem_custom_codeUnindexed",
                     "BenchItem_custom_price", "BenchItem_custom_priceUnindexed"] {
            try db.execute("DROP INDEX IF EXISTS \"\(name)\"")
        }
        var groups: [[String]] = []
        switch strategy {
        case .none: break
        case .declared: groups = [["code"], ["price"]]
        case .custom(let sets): groups = sets["BenchItem"] ?? []
        }
        let kind = strategy == .declared ? "index" : "custom"
        for g in groups {
            let name = "BenchItem_\(kind)_\(g.joined(separator: "_"))"
            try db.execute("CREATE INDEX IF NOT EXISTS \"\(name)\" ON \"BenchItem\" (\(g.map { "\"\($0)\"" }.joined(separator: ", ")))")
        }
    }

    /// Inserts rows `0..<count` in one transaction.
    public func insertRows(_ count: Int, groupSize: Int? = nil) throws {
        try db.immediateTransaction {
            let insert = try db.cachedStatement("INSERT INTO \"BenchItem\" (\(RawStore.columns)) VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?)")
            let base = try nextKey("BenchItem")
            let groupInsert = try db.cachedStatement("INSERT INTO \"BenchGroup\" (\"Z_PK\", \"Z_ENT\", \"name\") VALUES (?, 1, ?)")
            let groupBase = try nextKey("BenchGroup")
            for i in 0..<count {
                let v = BenchData.values(row: i)
                insert.bind(base + Int64(i), at: 1)
                insert.bind(Int64(i), at: 2)
                insert.bind(Int64(v.code), at: 3)
                insert.bind(Int64(v.code), at: 4)
                insert.bind(v.price, at: 5)
                insert.bind(v.price, at: 6)
                insert.bindText(v.name, at: 7)
                if let groupSize {
                    let g = Int64(i / groupSize)
                    if i % groupSize == 0 {
                        groupInsert.bind(groupBase + g, at: 1)
                        groupInsert.bindText("group-\(g)", at: 2)
                        try groupInsert.execute()
                    }
                    insert.bind(groupBase + g, at: 8)
                } else {
                    insert.bindNull(at: 8)
                }
                try insert.execute()
            }
        }
    }

    private func nextKey(_ table: String) throws -> Int64 {
        if case .integer(let n)? = try db.scalar("SELECT coalesce(max(\"Z_PK\"), 0) + 1 FROM \"\(table)\"") { return n }
        return 1
    }

    /// Runs a `SELECT <columns> …` statement and reads every row into ``Row`` values.
    public func rows(_ sql: String, _ args: [SQLValue] = []) throws -> [Row] {
        let stmt = try db.cachedStatement(sql)
        defer { stmt.reset() }
        try stmt.bind(args)
        var out: [Row] = []
        while try stmt.step() {
            out.append(Row(pk: stmt.int64(at: 0), key: Int(stmt.int64(at: 2)), code: Int(stmt.int64(at: 3)),
                           codeUnindexed: Int(stmt.int64(at: 4)), price: stmt.double(at: 5),
                           priceUnindexed: stmt.double(at: 6), name: stmt.text(at: 7),
                           group: stmt.isNull(at: 8) ? nil : stmt.int64(at: 8)))
        }
        return out
    }

    /// `SELECT count(*) …` with arguments.
    public func count(_ sql: String, _ args: [SQLValue] = []) throws -> Int {
        if case .integer(let n)? = try db.scalar(sql, args) { return Int(n) }
        return 0
    }

    /// The select list for ``rows(_:_:)``.
    public static var select: String { "SELECT \(columns) FROM \"BenchItem\"" }
}

import Foundation
import OpenSwiftData

/// The raw-SQLite baseline: the same table layout our store uses (same tables, columns and
/// indexes, named through ``StoreNames``; same pragmas), driven with prepared statements and
/// plain structs, no objects.
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
    package let db: SQLiteConnection
    let url: URL?

    /// The store's names for the benchmark models (Apple's layout, from the same schema the
    /// store uses), so the baseline's SQL matches the store's tables and indexes.
    public static let names: StoreNames = {
        do { return try StoreNames(Schema([BenchItem.self, BenchGroup.self])) } catch {
            preconditionFailure("the benchmark schema has no store layout: \(error)")
        }
    }()
    /// `BenchItem`'s table.
    public static let items = quote(names.table("BenchItem")!)
    /// `BenchGroup`'s table.
    public static let groups = quote(names.table("BenchGroup")!)
    /// `BenchItem`'s column for `property`, quoted.
    public static func column(_ property: String) -> String { quote(names.column("BenchItem", property)!) }
    static func quote(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    static let columns =
        (["\"Z_PK\"", "\"Z_ENT\""]
        + ["key", "code", "codeUnindexed", "price", "priceUnindexed", "name", "group"].map(column))
        .joined(separator: ", ")

    /// A fresh database in memory (`url == nil`) or at `url` (WAL, synchronous=NORMAL), with
    /// every table and index a new store of the benchmark schema (`names`' schema) has.
    public init(url: URL?, strategy: IndexStrategy, names: StoreNames = RawStore.names) throws {
        self.url = url
        if let url {
            db = try SQLiteConnection(path: url.path)
            _ = try db.scalar("PRAGMA journal_mode = WAL")
            try db.execute("PRAGMA synchronous = NORMAL")
        } else {
            db = try SQLiteConnection(path: ":memory:", mode: .inMemory)
        }
        if try db.scalar("SELECT count(*) FROM sqlite_master") == .integer(0) {
            try db.immediateTransaction {
                for statement in names.createStatements { try db.execute(statement) }
            }
        }
        try apply(strategy)
    }

    /// Sets the secondary indexes as ``ModelContainer/applyIndexStrategy(_:)`` does.
    public func apply(_ strategy: IndexStrategy) throws {
        let names = RawStore.names
        var drop = names.declaredIndexes("BenchItem")
        for p in ["code", "codeUnindexed", "price", "priceUnindexed"] {
            drop += names.customIndex("BenchItem", [p]).map { [$0] } ?? []
        }
        for name in drop { try db.execute("DROP INDEX IF EXISTS \(RawStore.quote(name))") }
        switch strategy {
        case .none: break
        case .declared:
            let declared = Set(names.declaredIndexes("BenchItem"))
            for statement in names.createStatements
            where statement.hasPrefix("CREATE INDEX ")
                && declared.contains(where: { statement.hasPrefix("CREATE INDEX \($0) ") })
            {
                try db.execute(statement)
            }
        case .custom(let sets):
            for g in sets["BenchItem"] ?? [] {
                guard let name = names.customIndex("BenchItem", g) else { continue }
                try db.execute(
                    "CREATE INDEX IF NOT EXISTS \(RawStore.quote(name)) ON \(RawStore.items) (\(g.map(RawStore.column).joined(separator: ", ")))"
                )
            }
        }
    }

    /// Inserts rows `0..<count` in one transaction.
    public func insertRows(_ count: Int, groupSize: Int? = nil) throws {
        try db.immediateTransaction {
            let item = RawStore.names.entityNumber("BenchItem")!
            let group = RawStore.names.entityNumber("BenchGroup")!
            let insert = try db.cachedStatement(
                "INSERT INTO \(RawStore.items) (\(RawStore.columns), \"Z_OPT\") VALUES (?, \(item), ?, ?, ?, ?, ?, ?, ?, 1)"
            )
            let base = try nextKey(RawStore.items)
            let groupInsert = try db.cachedStatement(
                "INSERT INTO \(RawStore.groups) (\"Z_PK\", \"Z_ENT\", \"Z_OPT\", \(RawStore.quote(RawStore.names.column("BenchGroup", "name")!))) VALUES (?, \(group), 1, ?)"
            )
            let groupBase = try nextKey(RawStore.groups)
            for i in 0..<count {
                try insert.bind(base + Int64(i), at: 1)
                try RawStore.bindValues(ofRow: i, to: insert, from: 2)
                if let groupSize {
                    let g = Int64(i / groupSize)
                    if i % groupSize == 0 {
                        try groupInsert.bind(groupBase + g, at: 1)
                        try groupInsert.bindText("group-\(g)", at: 2)
                        try groupInsert.execute()
                    }
                    try insert.bind(groupBase + g, at: 8)
                } else {
                    try insert.bindNull(at: 8)
                }
                try insert.execute()
            }
        }
    }

    /// Binds item `row`'s key, code (twice), price (twice) and name to parameters `first`…`first + 5`
    /// of `stmt`: the columns of ``columns`` after `Z_PK` and `Z_ENT`, up to the group.
    static func bindValues(ofRow row: Int, to stmt: SQLiteStatement, from first: Int32) throws {
        let v = BenchData.values(row: row)
        try stmt.bind(Int64(row), at: first)
        try stmt.bind(Int64(v.code), at: first + 1)
        try stmt.bind(Int64(v.code), at: first + 2)
        try stmt.bind(v.price, at: first + 3)
        try stmt.bind(v.price, at: first + 4)
        try stmt.bindText(v.name, at: first + 5)
    }

    /// A group's delete as a hand-written app writes it: its items' `DELETE` and its own,
    /// prepared once (``groupDelete()``), then bound and stepped for each group.
    struct GroupDelete {
        let items: SQLiteStatement
        let group: SQLiteStatement

        /// Deletes the items of the group whose key is `key`, then the group.
        func callAsFunction(_ key: SQLValue) throws {
            try items.bind(key, at: 1)
            try items.execute()
            try group.bind(key, at: 1)
            try group.execute()
        }
    }

    /// The statements of ``GroupDelete``, from the connection's cache.
    func groupDelete() throws -> GroupDelete {
        GroupDelete(
            items: try db.cachedStatement(Self.deleteItemsOfGroup), group: try db.cachedStatement(Self.deleteGroup))
    }

    /// ``GroupDelete``'s SQL, written once a process.
    private static let deleteItemsOfGroup = "DELETE FROM \(items) WHERE \(column("group")) = ?"
    private static let deleteGroup = "DELETE FROM \(groups) WHERE \"Z_PK\" = ?"

    private func nextKey(_ table: String) throws -> Int64 {
        if case .integer(let n)? = try db.scalar("SELECT coalesce(max(\"Z_PK\"), 0) + 1 FROM \(table)") { return n }
        return 1
    }

    /// Runs a `SELECT <columns> …` statement and reads every row into ``Row`` values.
    package func rows(_ sql: String, _ args: [SQLValue] = []) throws -> [Row] {
        var out: [Row] = []
        try forEachRow(sql, args) { out.append($0) }
        return out
    }

    /// Runs a `SELECT <columns> …` statement and calls `body` with each row as it is read
    /// (streaming: one ``Row`` at a time).
    package func forEachRow(_ sql: String, _ args: [SQLValue] = [], _ body: (Row) throws -> Void) throws {
        let stmt = try db.cachedStatement(sql)
        defer { stmt.reset() }
        try stmt.bind(args)
        while try stmt.step() {
            try body(
                Row(
                    pk: stmt.rawInt64(at: 0), key: Int(stmt.rawInt64(at: 2)), code: Int(stmt.rawInt64(at: 3)),
                    codeUnindexed: Int(stmt.rawInt64(at: 4)), price: stmt.rawDouble(at: 5),
                    priceUnindexed: stmt.rawDouble(at: 6), name: stmt.rawText(at: 7) ?? "",
                    group: stmt.rawIsNull(at: 8) ? nil : stmt.rawInt64(at: 8)))
        }
    }

    /// Every item's `code` summed (wrapping), streamed in key order: the raw twin of the
    /// workloads that visit every item in batches (`enumerate all`, `fetch(batchSize:) all`).
    public func codeChecksum() throws -> Int {
        var codes = 0
        try forEachRow(RawStore.select + " ORDER BY \"Z_PK\"") { codes &+= $0.code }
        return codes
    }

    /// `SELECT count(*) …` with arguments.
    package func count(_ sql: String, _ args: [SQLValue] = []) throws -> Int {
        let stmt = try db.cachedStatement(sql)
        defer { stmt.reset() }
        try stmt.bind(args)
        return try stmt.step() ? Int(stmt.rawInt64(at: 0)) : 0
    }

    /// The select list for ``rows(_:_:)``.
    public static var select: String { "SELECT \(columns) FROM \(items)" }
}

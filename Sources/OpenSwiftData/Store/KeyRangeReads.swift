import Foundation

/// The reads of a fetch that goes through its rows by key range: an unsorted fetch without a
/// predicate, read in batches (`enumerate`, `fetch(_:batchSize:)`). Its rows are those of a
/// range of `Z_PK`s, so no key list is read up front: only the range's bounds, then a batch of
/// rows at a time.
struct KeyRangeReads {
    /// `… WHERE <where> AND t."Z_PK" BETWEEN ? AND ? ORDER BY t."Z_PK" LIMIT ?`: the rows from a
    /// key through another, at most a number of them.
    let rowsInRange: StatementSQL
    /// The key of the matching row at an offset, in key order (`LIMIT 1 OFFSET ?`).
    let keyAtOffset: StatementSQL
    /// The smallest and the largest matching key.
    let firstKey: StatementSQL
    let lastKey: StatementSQL
    /// How many rows match (the fetch's own count statement).
    let count: StatementSQL
    /// The fetch's values, bound before each statement's own.
    let arguments: [SQLValue]

    /// The reads of a fetch of `table` whose `WHERE` is `whereSQL` (`1` for every row), whose
    /// count statement is `count` and whose values are `arguments`.
    init(table: StoreMapping.Table, whereSQL: String, count: StatementSQL, arguments: [SQLValue]) {
        let from = " FROM \(quoteIdentifier(table.name)) t WHERE \(whereSQL)"
        // Without a `WHERE`, SQLite reads a minimum or maximum from the end of the key's b-tree.
        let all = whereSQL == "1" ? " FROM \(quoteIdentifier(table.name)) t" : from
        rowsInRange = StatementSQL(
            "SELECT \(table.selectList)\(from) AND t.\"Z_PK\" BETWEEN ? AND ? ORDER BY t.\"Z_PK\" LIMIT ?")
        keyAtOffset = StatementSQL("SELECT t.\"Z_PK\"\(from) ORDER BY t.\"Z_PK\" LIMIT 1 OFFSET ?")
        firstKey = StatementSQL("SELECT min(t.\"Z_PK\")\(all)")
        lastKey = StatementSQL("SELECT max(t.\"Z_PK\")\(all)")
        self.count = count
        self.arguments = arguments
    }

    /// The number of matching rows and their first and last key (`0` and `0` for none), read in
    /// one read transaction on `db`, so all three describe one state of the store (another
    /// process may write between two statements); `nil` if a key is missing (NULL).
    func bounds(on db: SQLiteConnection) throws -> (count: Int64, first: Int64, last: Int64)? {
        try db.execute("SAVEPOINT osd_key_bounds")
        do {
            let count = try integer(self.count, on: db) ?? 0
            var bounds: (count: Int64, first: Int64, last: Int64)? = (0, 0, 0)
            if count > 0 {
                bounds = try integer(firstKey, on: db).flatMap { f in
                    try integer(lastKey, on: db).map { (count, f, $0) }
                }
            }
            try db.execute("RELEASE osd_key_bounds")
            return bounds
        } catch {
            // Ends the read transaction the savepoint began; the read's error is the one reported.
            try? db.execute("ROLLBACK TO osd_key_bounds; RELEASE osd_key_bounds")
            throw error
        }
    }

    /// The first and the last matching key in key order within `paging` (after its offset, up
    /// to its limit), read on `db`; `nil` when no row is there.
    func window(on db: SQLiteConnection, _ paging: FetchPaging) throws -> (first: Int64, last: Int64)? {
        guard let first = try integer(keyAtOffset, [.integer(Int64(paging.offset))], on: db) else { return nil }
        // The limit's last row, when the rows reach that far (an offset and limit that add up
        // past `Int64.max` reach every row).
        if let limit = paging.limit {
            let (lastOffset, overflow) = paging.offset.addingReportingOverflow(limit - 1)
            if !overflow, let last = try integer(keyAtOffset, [.integer(Int64(lastOffset))], on: db) {
                return (first, last)
            }
        }
        guard let last = try integer(lastKey, on: db) else { return nil }
        return (first, last)
    }

    /// The integer `sql` reads with the fetch's values and `more`, `nil` for none or NULL.
    private func integer(_ sql: StatementSQL, _ more: [SQLValue] = [], on db: SQLiteConnection) throws -> Int64? {
        if case .integer(let v)? = try db.scalar(sql, arguments + more) { return v }
        return nil
    }
}

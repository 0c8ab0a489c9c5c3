/// The prepared statement a context's last fetch ran, with its connection: a loop of fetches
/// skips the connection's statement-cache lookup (``statement(_:on:)``).
///
/// Statements stay prepared until their connection closes, and the memo keeps the connection
/// it was prepared on, so a memo never outlives its statement. A class the context holds in a
/// constant: a fetch uses it without an access to a variable of the context (each such access
/// of a class's variable is checked at run time).
final class LastStatement {
    /// A class: each fetch reads it, and reading a reference copies none of its fields.
    private final class Entry {
        let sql: StatementSQL
        let connection: SQLiteConnection
        let statement: SQLiteStatement

        init(sql: StatementSQL, connection: SQLiteConnection, statement: SQLiteStatement) {
            self.sql = sql
            self.connection = connection
            self.statement = statement
        }
    }

    private var last: Entry?

    /// An empty memo.
    init() {}

    /// `db`'s cached statement for `sql`: the one remembered when it is the same (compared by
    /// the SQL's hash and its string, which a cached query shares), else the connection's,
    /// which is remembered.
    func statement(_ sql: StatementSQL, on db: SQLiteConnection) throws -> SQLiteStatement {
        if let last, last.connection === db, last.sql == sql { return last.statement }
        let stmt = try db.cachedStatement(sql)
        last = Entry(sql: sql, connection: db, statement: stmt)
        return stmt
    }
}

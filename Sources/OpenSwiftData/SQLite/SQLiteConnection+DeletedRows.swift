import CSQLite
import Foundation

/// The keys of the rows one table lost while ``SQLiteConnection/deletedKeys(in:during:)`` ran.
private final class DeletedKeys {
    let table: [CChar]
    var keys: [Int64] = []
    /// The name pointer SQLite passed for `table` (the same for each of its rows), once seen.
    var matched: UnsafePointer<CChar>?

    init(table: String) { self.table = Array(table.utf8CString) }
}

extension SQLiteConnection {
    /// Runs `body` and returns the rowids (the `Z_PK` of an entity table) of the rows of `table`
    /// that it deleted, in the order SQLite deleted them, from SQLite's update hook: the rows
    /// need not be read before their `DELETE`.
    ///
    /// ```swift
    /// let keys = try db.deletedKeys(in: "ZSHEET") { try db.run("DELETE FROM \"ZSHEET\" WHERE \"ZBINDER\" IN (?, ?)", [1, 2]) }
    /// ```
    /// [SQLite: sqlite3_update_hook](https://sqlite.org/c3ref/update_hook.html). The connection
    /// has no other update hook; it has none again when this returns.
    func deletedKeys(in table: String, during body: () throws -> Void) throws -> [Int64] {
        let box = DeletedKeys(table: table)
        try withExtendedLifetime(box) {
            sqlite3_update_hook(
                handle,
                { context, operation, _, name, rowid in
                    guard operation == SQLITE_DELETE, let context, let name else { return }
                    let box = Unmanaged<DeletedKeys>.fromOpaque(context).takeUnretainedValue()
                    if name == box.matched {
                        box.keys.append(rowid)
                    } else if box.table.withUnsafeBufferPointer({ $0.baseAddress.map { strcmp($0, name) } }) == 0 {
                        box.matched = name
                        box.keys.append(rowid)
                    }
                }, Unmanaged.passUnretained(box).toOpaque())
            defer { sqlite3_update_hook(handle, nil, nil) }
            try body()
        }
        return box.keys
    }
}

import Foundation

/// A fetch's SQL, translated once per query shape and shared by every context of a container.
///
/// The shape is the entity, the predicate's expression type (the generic type spells out the
/// whole expression tree) with its key paths and stored operators, and the sort descriptors. Repeating a fetch with
/// new captured values neither re-translates the predicate nor builds SQL text: it collects the
/// values and binds them to the cached, already prepared statement.
struct CompiledQuery: @unchecked Sendable {
    let layout: ModelLayout
    let table: StoreMapping.Table
    /// The `WHERE` condition (`1` when nothing filters).
    let whereSQL: String
    /// `SELECT … WHERE … ORDER BY …`.
    let selectSQL: String
    /// `selectSQL` + `LIMIT ? OFFSET ?`.
    let pagedSQL: String
    /// `SELECT … WHERE … ORDER BY t."Z_PK"`: the store part of a fetch merged with pending changes.
    let storeOrderSQL: String
    /// `SELECT count(*) …` (no `WHERE` when nothing filters, so SQLite counts the b-tree).
    let countSQL: String
    /// `SELECT t."Z_PK", t."Z_ENT" … ORDER BY … LIMIT ? OFFSET ?`: the keys of a page, for
    /// batched fetches and identifier fetches.
    let keysSQL: String
    /// The `ORDER BY` terms.
    let orderBy: String

    init(layout: ModelLayout, table: StoreMapping.Table, whereSQL: String, orderBy: String) {
        self.layout = layout
        self.table = table
        self.whereSQL = whereSQL
        self.orderBy = orderBy
        let from = "SELECT \(table.selectList) FROM \(quoteIdentifier(table.name)) t WHERE \(whereSQL)"
        selectSQL = from + " ORDER BY \(orderBy)"
        pagedSQL = selectSQL + " LIMIT ? OFFSET ?"
        storeOrderSQL = from + " ORDER BY t.\"Z_PK\""
        keysSQL = "SELECT t.\"Z_PK\", t.\"Z_ENT\" FROM \(quoteIdentifier(table.name)) t WHERE \(whereSQL) ORDER BY \(orderBy) LIMIT ? OFFSET ?"
        countSQL = "SELECT count(*) FROM \(quoteIdentifier(table.name)) t" + (whereSQL == "1" ? "" : " WHERE \(whereSQL)")
    }
}

/// The per-container cache of ``CompiledQuery`` values, keyed by query shape.
final class QueryCache: @unchecked Sendable {
    struct Key: Hashable {
        let entity: ObjectIdentifier
        let predicateType: ObjectIdentifier?
        let sorts: AnyHashable
    }
    private struct Entry {
        let structure: [AnyHashable]
        let query: CompiledQuery
    }
    private var entries: [Key: [Entry]] = [:]
    private let lock = NSLock()

    /// The compiled query for this shape, if one was cached.
    func lookup(_ key: Key, structure: [AnyHashable]) -> CompiledQuery? {
        lock.lock(); defer { lock.unlock() }
        return entries[key]?.first { $0.structure == structure }?.query
    }

    /// Remembers a compiled query.
    func insert(_ key: Key, structure: [AnyHashable], _ query: CompiledQuery) {
        lock.lock(); defer { lock.unlock() }
        entries[key, default: []].append(Entry(structure: structure, query: query))
    }

    /// The number of cached shapes (for tests).
    var count: Int {
        lock.lock(); defer { lock.unlock() }
        return entries.values.reduce(0) { $0 + $1.count }
    }
}

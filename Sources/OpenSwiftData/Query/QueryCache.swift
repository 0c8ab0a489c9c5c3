import Foundation

/// A fetch's SQL, translated once per query shape and shared by every context of a container.
///
/// The shape is the entity, the predicate's expression type (the generic type spells out the
/// whole expression tree) with its key paths and stored operators, and the sort descriptors. Repeating a fetch with
/// new captured values neither re-translates the predicate nor builds SQL text: it collects the
/// values and binds them to the cached, already prepared statement.
final class CompiledQuery: @unchecked Sendable {
    let layout: ModelLayout
    let table: StoreMapping.Table
    /// The `WHERE` condition (`1` when nothing filters).
    let whereSQL: String
    /// `SELECT … WHERE … ORDER BY …`.
    let select: StatementSQL
    /// `select` + `LIMIT ? OFFSET ?`.
    let paged: StatementSQL
    /// `SELECT … WHERE … ORDER BY t."Z_PK"`: the store part of a fetch merged with pending changes.
    let storeOrder: StatementSQL
    /// `SELECT count(*) …` (no `WHERE` when nothing filters, so SQLite counts the b-tree).
    let count: StatementSQL
    /// `SELECT t."Z_PK", t."Z_ENT" … ORDER BY … LIMIT ? OFFSET ?`: the keys of a page, for
    /// batched fetches and identifier fetches.
    let keys: StatementSQL
    /// `SELECT t."Z_PK" … ORDER BY … LIMIT ? OFFSET ?`: ``keys`` without the entity column, for
    /// batched fetches (SQLite then reads no column of the row for an unsorted fetch).
    let keyList: StatementSQL
    /// The `ORDER BY` terms.
    let orderBy: String

    var selectSQL: String { select.text }
    var pagedSQL: String { paged.text }
    var storeOrderSQL: String { storeOrder.text }
    var countSQL: String { count.text }
    var keysSQL: String { keys.text }
    var keyListSQL: String { keyList.text }

    init(layout: ModelLayout, table: StoreMapping.Table, whereSQL: String, orderBy: String) {
        self.layout = layout
        self.table = table
        self.whereSQL = whereSQL
        self.orderBy = orderBy
        let from = "SELECT \(table.selectList) FROM \(quoteIdentifier(table.name)) t WHERE \(whereSQL)"
        let selectText = from + " ORDER BY \(orderBy)"
        select = StatementSQL(selectText)
        paged = StatementSQL(selectText + " LIMIT ? OFFSET ?")
        storeOrder = StatementSQL(from + " ORDER BY t.\"Z_PK\"")
        let keysFrom = "FROM \(quoteIdentifier(table.name)) t WHERE \(whereSQL) ORDER BY \(orderBy) LIMIT ? OFFSET ?"
        keys = StatementSQL("SELECT t.\"Z_PK\", t.\"Z_ENT\" " + keysFrom)
        keyList = StatementSQL("SELECT t.\"Z_PK\" " + keysFrom)
        count = StatementSQL(
            "SELECT count(*) FROM \(quoteIdentifier(table.name)) t" + (whereSQL == "1" ? "" : " WHERE \(whereSQL)"))
    }
}

extension CompiledQuery {
    /// Why a translated query must not be cached: the values a later fetch would bind (its
    /// predicate's leaves, in collection order) do not line up with the SQL's placeholders.
    struct BindingMismatch: Error, CustomStringConvertible {
        enum Kind { case placeholders, leafCount, order }
        /// `.placeholders`: the translation's arguments do not match its SQL (a translator bug);
        /// `.leafCount`: the SQL binds some value more than once or a folded one differently (the
        /// shape is simply not cacheable); `.order`: the leaves are collected out of order (a bug).
        let kind: Kind
        let description: String
    }

    /// Checks that binding `collected` — the values ``PredicateLeaves`` collects, which a cached
    /// fetch binds — gives the statement the translation built: one value per `?` placeholder
    /// of `whereSQL`, equal to the translation's own `translated` arguments, in the same order.
    ///
    /// Run before a shape is cached, so a leaf collected out of order (or twice, or not at all)
    /// makes the query uncached (every fetch translates) instead of binding values to the wrong
    /// placeholders. Equal values at two positions cannot show a swap between them; the
    /// differential tests fetch every shape with many value sets.
    /// - Throws: ``BindingMismatch`` naming the first difference (values stay out of it).
    static func checkBindings(whereSQL: String, translated: [SQLValue], collected: [SQLValue]) throws {
        let placeholders = placeholderCount(whereSQL)
        guard placeholders == translated.count else {
            throw BindingMismatch(
                kind: .placeholders,
                description:
                    "the SQL has \(placeholders) placeholders but the translation bound \(translated.count) values")
        }
        guard collected.count == translated.count else {
            throw BindingMismatch(
                kind: .leafCount,
                description: "the predicate's leaves give \(collected.count) values for \(placeholders) placeholders")
        }
        if let i = collected.indices.first(where: { collected[$0] != translated[$0] }) {
            throw BindingMismatch(
                kind: .order,
                description:
                    "the value collected for placeholder \(i + 1) is not the one the translation bound there (leaves out of order)"
            )
        }
    }

    /// The number of `?` parameters in `sql`, outside string literals and quoted identifiers.
    static func placeholderCount(_ sql: String) -> Int {
        var count = 0
        var quote: UInt8?
        for byte in sql.utf8 {
            if let q = quote {
                if byte == q { quote = nil }  // a doubled quote closes and reopens: same count
            } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                quote = byte
            } else if byte == UInt8(ascii: "?") {
                count += 1
            }
        }
        return count
    }
}

/// The per-container cache of ``CompiledQuery`` values, keyed by query shape.
final class QueryCache: @unchecked Sendable {
    struct Key: Hashable {
        let entity: ObjectIdentifier
        let predicateType: ObjectIdentifier?
        /// The sort descriptors; `nil` for no sorts, so a fetch without sorts builds no
        /// `AnyHashable`.
        let sorts: AnyHashable?
        /// Whether ``sorts`` is not `nil`, kept as a flag: asking the optional `AnyHashable`
        /// copies it (and destroys the copy), and `==` runs on every fetch.
        let isSorted: Bool
        /// How a sorted fetch orders strings (it changes the SQL of a `String` sort); `.lexical`
        /// for an unsorted one, whose SQL does not depend on it. A field of its own, not part of
        /// ``sorts``: wrapping both in one `AnyHashable` array made every sorted fetch build and
        /// compare nested arrays.
        let stringSortStyle: StringSortStyle
        /// Where ``sorts``' array keeps its elements. ``sorts`` holds that array, so while this
        /// key lives no other array has its storage there: two keys with the same address hold
        /// the same array (a loop fetching one descriptor) and `==` skips comparing the sort
        /// descriptors. Not hashed: equal sorts in two arrays are equal keys.
        let sortsStorage: UnsafeRawPointer?

        /// The key of a fetch of `entity` with a predicate of type `predicateType` (`nil` for
        /// none) and `sorts` (`nil` for no sorts) in string order `style`; the caller knows
        /// `sorts` to be `nil` or not (`isSorted`) without asking it.
        init(
            entity: ObjectIdentifier, predicateType: ObjectIdentifier?, sorts: AnyHashable?, isSorted: Bool,
            stringSortStyle style: StringSortStyle, sortsStorage: UnsafeRawPointer?
        ) {
            assert(isSorted == (sorts != nil))
            self.entity = entity
            self.predicateType = predicateType
            self.isSorted = isSorted
            self.sorts = sorts
            self.stringSortStyle = isSorted ? style : .lexical
            self.sortsStorage = isSorted ? sortsStorage : nil
        }

        /// The two identifiers and the style first, and no `AnyHashable` comparison when neither
        /// has sorts (the derived `==` goes through `Optional<AnyHashable>`'s generic one on every
        /// fetch).
        static func == (a: Key, b: Key) -> Bool {
            guard a.entity == b.entity, a.predicateType == b.predicateType, a.isSorted == b.isSorted,
                a.stringSortStyle == b.stringSortStyle
            else { return false }
            return !a.isSorted || (a.sortsStorage != nil && a.sortsStorage == b.sortsStorage) || a.sorts == b.sorts
        }

        /// Everything `==` compares but the storage address.
        func hash(into hasher: inout Hasher) {
            hasher.combine(entity)
            hasher.combine(predicateType)
            hasher.combine(isSorted)
            hasher.combine(stringSortStyle)
            hasher.combine(sorts)
        }
    }
    private struct Entry {
        let structure: [PredicateLeaves.Item]
        let query: CompiledQuery
    }
    private var entries: [Key: [Entry]] = [:]
    private var _refusals: [String] = []
    private let lock = NSLock()

    /// What collecting a predicate of one expression type found, for the first fetch of that
    /// type in another context: its node kinds in visit order (``PredicateLeaves/replay``) and
    /// the shape's items (``PredicateLeaves/expected``). Noted only for a type whose collected
    /// nodes are all of fixed types (no node opened at run time, see
    /// ``noteShape(_:plan:structure:)``): its depth, checked when it was noted, is then the depth
    /// of every predicate of the type, which is what a context's own replay of its last fetch's
    /// type already relies on.
    struct PredicateShape {
        let plan: [LeafNodeKinds.Step]
        let structure: [PredicateLeaves.Item]
    }
    private var shapes: [ObjectIdentifier: PredicateShape] = [:]

    /// The shape noted for expression type `predicateType`, if any.
    func shape(of predicateType: ObjectIdentifier) -> PredicateShape? {
        lock.lock()
        defer { lock.unlock() }
        return shapes[predicateType]
    }

    /// Notes the shape of a predicate of expression type `predicateType` whose depth was checked
    /// (``PredicateDepth``) and whose every node was collected (`plan` holds its node kinds),
    /// unless a step of `plan` opens its node (an existential or class node, under which another
    /// predicate of the type may nest deeper). The latest structure of a type replaces an
    /// earlier one.
    func noteShape(_ predicateType: Any.Type, plan: [LeafNodeKinds.Step], structure: [PredicateLeaves.Item]) {
        guard !plan.contains(where: { $0.kind.opens }) else { return }
        lock.lock()
        defer { lock.unlock() }
        shapes[ObjectIdentifier(predicateType)] = PredicateShape(plan: plan, structure: structure)
    }

    /// Why shapes were not cached because ``CompiledQuery/checkBindings(whereSQL:translated:collected:)``
    /// found a bug (`.placeholders`, `.order`), for tests: they must stay empty.
    var refusals: [String] {
        lock.lock()
        defer { lock.unlock() }
        return _refusals
    }

    /// Notes a shape that was not cached, and why.
    func refuse(_ reason: String) {
        lock.lock()
        defer { lock.unlock() }
        _refusals.append(reason)
    }

    /// The compiled query for this shape, if one was cached.
    func lookup(_ key: Key, structure: [PredicateLeaves.Item]) -> CompiledQuery? {
        lock.lock()
        defer { lock.unlock() }
        return entries[key]?.first { $0.structure == structure }?.query
    }

    /// Remembers a compiled query.
    func insert(_ key: Key, structure: [PredicateLeaves.Item], _ query: CompiledQuery) {
        lock.lock()
        defer { lock.unlock() }
        entries[key, default: []].append(Entry(structure: structure, query: query))
    }

    /// The number of cached shapes (for tests).
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.values.reduce(0) { $0 + $1.count }
    }
}

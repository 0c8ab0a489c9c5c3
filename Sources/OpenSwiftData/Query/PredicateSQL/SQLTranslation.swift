import Foundation

/// A piece of SQL with its bound arguments, as a predicate expression translates to.
struct SQLFragment {
    var sql: String
    var arguments: [SQLValue] = []
    /// The attribute codec when the fragment is a column (so captured values bind the same way).
    var codec: AttributeCodec?
    /// Whether the fragment is a boolean condition (vs a value).
    var isCondition = false
    /// Whether the value can never be NULL: a non-optional attribute's column on a row in scope,
    /// or a bound non-nil value. Comparisons of two such values need no NULL handling, so they
    /// stay plain `t."x" < ?` terms that SQLite can answer with an index (Comparison.swift).
    var isNonNull = false
    /// Whether the fragment is a bare column of a row in scope (`t."x"`): cheap to repeat, and
    /// `t."x" IS NOT NULL AND t."x" < ?` still lets SQLite search an index on it.
    var isColumn = false
    /// Whether the fragment is the row variable itself (`$0`).
    var isRow = false
    /// For a relationship column: the target layout.
    var relationshipTarget: ModelLayout?
    /// When the fragment is a model row (its SQL is the row's `Z_PK`, possibly NULL): the row's
    /// entity and table, and the table alias when the row is in scope (`alias."Z_PK"`).
    var row: RowScope?
    /// When the fragment is a to-many relationship (or a `filter` of one): its rows as a subquery.
    var toMany: ToManyScope?
}

/// A model row reachable from the predicate: `$0`, a to-one relationship, a `contains(where:)` element.
struct RowScope {
    let layout: ModelLayout
    let table: StoreMapping.Table
    /// Set when the row is a `FROM` item in scope, so its columns read as `alias."col"`.
    let alias: String?
}

/// The rows of a to-many relationship, as `FROM <from> WHERE <condition>` with `alias` naming a row.
struct ToManyScope {
    let layout: ModelLayout
    let table: StoreMapping.Table
    let alias: String
    let from: String
    var condition: String
    var arguments: [SQLValue]
    /// The translation depth inside the subquery.
    let depth: Int
    /// For a list reached through an optional to-one (`$0.folder?.items`): the to-one's key,
    /// NULL when the list itself is nil. `nil` for a list of a row in scope (never nil).
    var nullableBase: (sql: String, arguments: [SQLValue])? = nil

    /// `alias."Z_PK"` as a row fragment, for the element variable of `contains(where:)` etc.
    var element: SQLFragment {
        var f = SQLFragment(sql: "\(alias).\"Z_PK\"", isRow: true)
        f.row = RowScope(layout: layout, table: table, alias: alias)
        return f
    }
}

/// State for translating one predicate: the entity queried and its table mapping.
struct SQLTranslation {
    let layout: ModelLayout
    let table: StoreMapping.Table
    let tableAlias: String
    /// What captured identifiers and models bind to (``IdentifierScope``).
    var identifiers: IdentifierScope?
    /// Closure parameters in scope (`flatMap`, `contains(where:)` …) and what they stand for.
    var variables: [PredicateExpressions.VariableID: SQLFragment] = [:]
    /// Nesting depth, for unique subquery aliases.
    var depth = 0
    /// How many `&&` lists, `||` lists, `!` and `?:` enclose the expression being translated
    /// (after merging chains and cancelling `!!`); see ``maximumNesting``.
    var nesting = 0

    /// The deepest nesting of `&&`, `||`, `!` and `?:` a predicate may have once chains of one
    /// operator are merged and `!!` cancelled (Logic.swift), counting those inside closures
    /// (`contains(where:)`, `flatMap`) too: `a && (b || (c && …))` with 20 alternating
    /// operators translates, with 21 the fetch throws ``SwiftDataError/unsupportedPredicate``
    /// naming the depth reached and this limit.
    ///
    /// Why 20: each level is a parenthesised SQL group, and SQLite's parser has a fixed stack
    /// (`YYSTACKDEPTH`, 100 entries). Measured on SQLite 3.40: 30 alternating levels parse
    /// with plain comparisons as operands, 26 with `contains`, `?:` or `!` operands, 22 with a
    /// `contains(where:)` subquery as operand, 18 with two nested ones. 20 keeps every
    /// predicate whose operands nest at most one subquery parseable, and is far beyond what a
    /// hand-written predicate reaches once chains are merged (a chain of 200 `&&` is one level).
    /// SQL nested deeper by other means (two subqueries per operand, 100 nested `+`) still hits
    /// SQLite's limit; that fetch throws ``SwiftDataError/unsupportedPredicate`` naming it
    /// (``ModelContext``'s `fetchError`), never a raw `SQLiteError`.
    static let maximumNesting = 20

    /// The store mapping (relationship storage), reached through the table.
    var mapping: StoreMapping? { table.mapping }

    /// A fresh alias for a subquery one level deeper, and the translation to use inside it.
    func nested(_ prefix: String) -> (alias: String, t: SQLTranslation) {
        var inner = self
        inner.depth += 1
        return ("\(prefix)\(inner.depth)", inner)
    }

    /// The translation one `&&` / `||` / `!` / `?:` level deeper, or an error past ``maximumNesting``.
    func enteringLogic() throws -> SQLTranslation {
        var inner = self
        inner.nesting += 1
        guard inner.nesting <= Self.maximumNesting else {
            throw SwiftDataError(
                SwiftDataError.unsupportedPredicate.code,
                "the predicate nests &&, ||, ! and ?: at least \(inner.nesting) levels deep (after merging chains of one operator and cancelling !!); the limit is \(Self.maximumNesting), as SQLite cannot parse deeper SQL. Regroup it so chains of && or of || stay together, or split it into several fetches",
                entityName: layout.name)
        }
        return inner
    }

    func unsupportedKeyPath(_ what: String, entity: String? = nil) -> SwiftDataError {
        SwiftDataError(SwiftDataError.unsupportedKeyPath.code, what, entityName: entity ?? layout.name)
    }

    /// The error for a part of the predicate that has no SQL with Swift's semantics: `what` names
    /// the part, `instead` says what to write instead (by default: stored attributes,
    /// relationships and the supported operators).
    func unsupported(_ what: String, instead: String? = nil) -> SwiftDataError {
        let advice =
            instead
            ?? "rewrite that part with stored attributes, relationships and the supported operators (the article \"What works today\" lists them)"
        return SwiftDataError(
            SwiftDataError.unsupportedPredicate.code,
            "the predicate uses \(what), which cannot be translated to SQL with Swift's exact semantics; \(advice)",
            entityName: layout.name)
    }
}

/// A `PredicateExpressions` node that can be written as SQL. Each expression family conforms
/// in its own file, with the SQL it emits in the doc comment.
///
/// `collect` lists the node's key paths and captured values in the order `sql` binds them:
/// the statement cache (``QueryCache``) reuses the SQL of an earlier predicate of the same
/// expression type and key paths, and only re-reads the values.
protocol SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment
    func collect(_ leaves: inout PredicateLeaves)
}

/// The shape and captured values of a predicate, in binding order. `structure` holds what
/// the expression's type does not spell out: key paths, and operators stored as values
/// (`Comparison.op`); two predicates of one type with equal structure translate alike.
struct PredicateLeaves {
    /// One element of ``structure``. Nothing is kept in an `AnyHashable`: every fetch compares
    /// its shape with the cached one, and `AnyHashable`'s `==` costs a dynamic cast or two;
    /// `AnyKeyPath`'s `==` answers an identical key path (a literal is instantiated once) at
    /// once, and operators and counts are small integers.
    enum Item: Hashable {
        case keyPath(AnyKeyPath)
        /// An operator (numbered by its node's `collect`), a count or a flag.
        case number(Int)
        /// A type that decides the SQL (e.g. a captured range's).
        case type(ObjectIdentifier)
    }
    /// The shape's items in visit order (what the cache compares, besides the key).
    var structure: [Item] {
        guard matched >= 0 else { return items }
        return matched == expected.count ? expected : Array(expected[..<matched])
    }
    /// The items noted, once they differ from ``expected``.
    private var items: [Item] = []
    /// The structure this fetch is likely to have (the last fetch's of this expression type):
    /// items equal to it are matched in place, so a repeated shape builds no array and its
    /// ``structure`` is the very array the cache holds (compared by identity).
    var expected: [Item] = []
    /// How many leading items matched ``expected``; -1 once one did not.
    private var matched = 0

    /// Notes one item of the shape.
    mutating func note(_ item: Item) {
        if matched >= 0 {
            if matched < expected.count, expected[matched] == item {
                matched += 1
                return
            }
            items = Array(expected[..<matched])
            matched = -1
        }
        items.append(item)
    }

    /// Notes a nested collection's items.
    mutating func note(contentsOf nested: [Item]) {
        for item in nested { note(item) }
    }

    /// The captured values, bound as the translation binds them (``sqlArgument(_:_:)``), in
    /// placeholder order.
    var values: [SQLValue] = []
    /// What captured identifiers and models bind to (``sqlArgument(_:_:)``).
    var scope: IdentifierScope?
    /// False when some node cannot be cached (its SQL depends on a captured value).
    var isCacheable = true
    /// Whether the predicate has `Int` / `Int64` arithmetic, which can overflow (a trap in
    /// Swift): pending models are then checked before `Predicate.evaluate` (``PendingOverflowCheck``).
    var hasIntegerArithmetic = false
    /// How many translatable nodes enclose the one being collected.
    var depth = 0
    /// The deepest tree collected (see ``collectNode(_:_:)``).
    static let maximumDepth = 128
    /// The largest node collected, in bytes (see ``collectNode(_:_:)``).
    static let maximumNodeSize = 2048

    /// Node kinds in visit order from an earlier collection of the same expression type, read
    /// instead of ``LeafNodeKinds`` (a lock and a hash per node) while the types match.
    var replay: [LeafNodeKinds.Step] = []
    private var replayIndex = 0
    /// When not `nil`, the kinds looked up are appended here, in visit order: the replay for
    /// the next collection of this expression type.
    var recorded: [LeafNodeKinds.Step]?
    /// The node kinds of this collection in visit order, when they are known: the ones
    /// ``recorded``, else the ``replay`` when every step of it matched (a replay that did not
    /// match is dropped, and its kinds were looked up unrecorded).
    var plan: [LeafNodeKinds.Step]? { recorded ?? (replay.isEmpty ? nil : replay) }

    /// The kind of `node`'s static type `N`: the replay's next step when it is of this type,
    /// else looked up (and the rest of the replay dropped).
    mutating func kind<N>(of node: N) -> LeafNodeKinds.Kind {
        let id = ObjectIdentifier(N.self)
        if replayIndex < replay.count {
            let step = replay[replayIndex]
            if step.type == id {
                replayIndex += 1
                return step.kind
            }
            replay = []
        }
        // An existential's value has another dynamic type; a class's might (a subclass).
        let kind = LeafNodeKinds.kind(of: N.self, opens: type(of: node) != N.self || N.self is AnyClass)
        recorded?.append(LeafNodeKinds.Step(type: id, kind: kind))
        return kind
    }

    /// Empty leaves for a sub-expression collected apart, at this depth.
    func nested() -> PredicateLeaves {
        var inner = PredicateLeaves()
        inner.depth = depth
        inner.scope = scope
        return inner
    }

    /// Appends a captured (or folded) value as it binds (``sqlArgument(_:_:)``, which
    /// recognises the common types by their static type). A value that cannot be bound makes
    /// the predicate uncacheable: its translation throws the error.
    mutating func bind<V>(_ value: V) {
        do { values.append(try sqlArgument(value, scope)) } catch { isCacheable = false }
    }
}

/// Collects an arbitrary node's leaves; an untranslatable node makes the predicate uncacheable
/// (its translation will throw anyway).
/// A sub-expression that reads no row is folded (``ConstantFolding``): its value, evaluated
/// again for this fetch, is the leaf bound in place of the `?` its translation emitted.
///
/// Runs on every fetch, also for a cached query. For a node whose type is known (the
/// children of a node, in its `collect`), see ``collectNode(_:_:)``: this one opens
/// the existential once and goes on there.
func collectLeaves(_ expression: Any, _ leaves: inout PredicateLeaves) {
    func open<N>(_ node: N) { collectNode(node, &leaves) }
    _openExistential(expression, do: open)
}

/// Collects the leaves of a node of static type `N` (a node's child, generic in its parent).
///
/// What the node's type allows (fold, translate, neither) is looked up once per type in
/// ``LeafNodeKinds``, so a fetch of a cached shape asks the runtime for no conformance, boxes
/// no node in an `Any` and copies none: the node's `collect` runs on its address (a node of a
/// tree 1000 deep holds the whole subtree inline).
///
/// A tree deeper than ``PredicateLeaves/maximumDepth``, or a node larger than
/// ``PredicateLeaves/maximumNodeSize`` (a tree of some fifty operators held inline), is not
/// collected: it is not cached (every fetch translates it) and counts as having integer
/// arithmetic, so pending models are checked for overflow before `Predicate.evaluate`.
/// Collecting such a tree would recurse as deep as the tree, with a copy of each subtree on
/// the stack in a debug build.
func collectNode<N>(_ node: N, _ leaves: inout PredicateLeaves) {
    // Checked before anything looks at the type: naming a type nested thousands deep recurses
    // as deep, and a debug build copies each child it passes on onto the stack.
    guard leaves.depth < PredicateLeaves.maximumDepth, MemoryLayout<N>.size <= PredicateLeaves.maximumNodeSize
    else {
        leaves.isCacheable = false
        leaves.hasIntegerArithmetic = true
        return
    }
    let kind = leaves.kind(of: node)
    if kind.opens {
        // `N` is an existential (a child typed `any StandardPredicateExpression<…>`): open it.
        collectLeaves(node as Any, &leaves)
        return
    }
    if kind.mayFold, let folded = ConstantFolding.evaluate(node) {
        switch folded {
        case .success(let value): leaves.bind(value)
        case .failure: leaves.isCacheable = false  // the translation throws the error
        }
        return
    }
    guard let sqlType = kind.sqlType else {
        leaves.isCacheable = false
        return
    }
    leaves.depth += 1
    withUnsafePointer(to: node) { sqlType.collect(at: UnsafeRawPointer($0), &leaves) }
    leaves.depth -= 1
}

extension SQLPredicateExpression {
    /// Calls ``collect(_:)`` on the node of this type at `address`, in place: the node is
    /// borrowed where it is (``borrowPointee(_:_:_:)``), not copied out and destroyed after,
    /// which for a node holding a key path costs a retain, a release and its value witnesses.
    static func collect(at address: UnsafeRawPointer, _ leaves: inout PredicateLeaves) {
        borrowPointee(address.assumingMemoryBound(to: Self.self), &leaves) { node, leaves in node.collect(&leaves) }
    }
}

/// Calls `body` with the value `pointer` points at, borrowed where it is stored.
///
/// Generic over a possibly noncopyable `T`, so `pointer.pointee` cannot be copied here: the
/// value is passed on as a borrow of its storage. Code generic over a copyable type reads
/// `pointee` into a temporary copy first (and destroys it after the call), even to call a
/// non-mutating method on it.
@inline(__always)
func borrowPointee<T: ~Copyable>(
    _ pointer: UnsafePointer<T>, _ leaves: inout PredicateLeaves,
    _ body: (borrowing T, inout PredicateLeaves) -> Void
) {
    body(pointer.pointee, &leaves)
}

/// What ``collectNode(_:_:)`` may do with a node of a given type, computed once per type: the
/// same decisions ``ConstantFolding/value(of:)`` and the `SQLPredicateExpression` cast take,
/// which depend on the node's type only.
enum LeafNodeKinds {
    struct Kind {
        /// The type is an existential (or a class): its values are opened and collected by
        /// their dynamic type.
        let opens: Bool
        /// Not a captured value or `nil` literal, and its type reads no row: try to fold it.
        let mayFold: Bool
        /// Its translation, when it has one.
        let sqlType: (any SQLPredicateExpression.Type)?
    }

    /// A node type and its kind, one step of a ``PredicateLeaves/replay``.
    struct Step {
        let type: ObjectIdentifier
        let kind: Kind
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var kinds: [ObjectIdentifier: Kind] = [:]

    static func kind(of type: Any.Type, opens: Bool) -> Kind {
        let id = ObjectIdentifier(type)
        lock.lock()
        if let known = kinds[id] {
            lock.unlock()
            return known
        }
        lock.unlock()
        let leaf = type is CapturedPredicateValue.Type || type is NilLiteralExpression.Type
        let kind = Kind(
            opens: opens,
            mayFold: !leaf && ConstantFolding.shape(of: type) != .rowDependent,
            sqlType: type as? any SQLPredicateExpression.Type)
        lock.lock()
        kinds[id] = kind
        lock.unlock()
        return kind
    }
}

/// Collects a sub-expression whose SQL is repeated `times` times in the emitted text (a CASE
/// test and branch, both range bounds …): its captured values would be bound more than once,
/// so a sub-expression with captured values makes the predicate uncacheable.
func collectRepeated(_ expression: Any, times: Int, _ leaves: inout PredicateLeaves) {
    var inner = leaves.nested()
    collectLeaves(expression, &inner)
    leaves.note(contentsOf: inner.structure)
    leaves.values.append(contentsOf: inner.values)
    if inner.hasIntegerArithmetic { leaves.hasIntegerArithmetic = true }
    if !inner.isCacheable || (times != 1 && !inner.values.isEmpty) { leaves.isCacheable = false }
}

/// Wraps a condition that may be NULL so it is TRUE or FALSE (`NOT` must partition).
func nonNull(_ f: SQLFragment) -> SQLFragment {
    var c = condition(f)
    c.sql = "coalesce(\(c.sql), 0)"
    return c
}

/// Translates an arbitrary expression, or throws naming its type.
func translate(_ expression: Any, _ t: SQLTranslation) throws -> SQLFragment {
    // A sub-expression that does not read the row (`searchText.isEmpty`, `limits.max()`) is
    // evaluated once in Swift and bound as a value: exactly Swift's result (ConstantFolding.swift).
    if let folded = ConstantFolding.value(of: expression) {
        switch folded {
        case .success(let value):
            return SQLFragment(sql: "?", arguments: [try sqlArgument(value, t.identifiers)])
        case .failure(var error):
            error.entityName = t.layout.name
            throw error
        }
    }
    guard let e = expression as? any SQLPredicateExpression else {
        throw t.unsupported("\(shortTypeName(type(of: expression)))")
    }
    return try e.sql(t)
}

/// `PredicateExpressions.StringContains<…>` → `StringContains`.
func shortTypeName(_ type: Any.Type) -> String {
    var s = String(describing: type)
    if let lt = s.firstIndex(of: "<") { s = String(s[..<lt]) }
    return s.replacingOccurrences(of: "PredicateExpressions.", with: "")
}

/// Translates a whole predicate to a `WHERE` condition.
func translatePredicate<T: PersistentModel>(_ predicate: Predicate<T>, _ t: SQLTranslation) throws -> SQLFragment {
    var f = try translate(predicate.expression, t)
    if !f.isCondition { f.sql = "(\(f.sql)) != 0" }
    return f
}

import Foundation

/// A piece of SQL with its bound arguments, as a predicate expression translates to.
struct SQLFragment {
    var sql: String
    var arguments: [SQLValue] = []
    /// The attribute codec when the fragment is a column (so captured values bind the same way).
    var codec: AttributeCodec?
    /// Whether the fragment is a boolean condition (vs a value).
    var isCondition = false
    /// Whether the fragment is the row variable itself (`$0`).
    var isRow = false
    /// For a relationship column: the target layout.
    var relationshipTarget: ModelLayout?
}

/// State for translating one predicate: the entity queried and its table mapping.
struct SQLTranslation {
    let layout: ModelLayout
    let table: StoreMapping.Table
    let tableAlias: String

    func unsupported(_ what: String) -> SwiftDataError {
        SwiftDataError(SwiftDataError.unsupportedPredicate.code,
                       "the predicate uses \(what), which cannot be translated to SQL yet; rewrite it with comparisons, &&, || and ! on stored attributes",
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
    var structure: [AnyHashable] = []
    var values: [Any] = []
    /// False when some node cannot be cached (its SQL depends on a captured value).
    var isCacheable = true
}

/// Collects an arbitrary node's leaves; an untranslatable node makes the predicate uncacheable
/// (its translation will throw anyway).
func collectLeaves(_ expression: Any, _ leaves: inout PredicateLeaves) {
    guard let e = expression as? any SQLPredicateExpression else { leaves.isCacheable = false; return }
    e.collect(&leaves)
}

/// Translates an arbitrary expression, or throws naming its type.
func translate(_ expression: Any, _ t: SQLTranslation) throws -> SQLFragment {
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

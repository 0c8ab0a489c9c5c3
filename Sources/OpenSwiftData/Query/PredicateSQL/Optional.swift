import Foundation

/// `$0.date.flatMap { $0 > cutoff }` and optional chains `$0.author?.name` (the macro writes
/// them as `flatMap`): the closure parameter stands for the wrapped value, and the result is
/// NULL when it is nil:
/// ```sql
/// CASE WHEN t."date" IS NULL THEN NULL ELSE (t."date" > ?) END
/// (SELECT r1."name" FROM "Author" r1 WHERE r1."Z_PK" = t."author")   -- $0.author?.name
/// ```
/// A Bool result is a nullable value: compare it (`== true`) or coalesce it (`?? false`).
extension PredicateExpressions.OptionalFlatMap: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let w = try translate(wrapped, t)
        if w.toMany != nil { throw t.unsupported("flatMap over a to-many relationship") }
        var inner = t
        inner.variables[variable.key] = w
        let body = try translate(transform, inner)
        if body.toMany != nil { throw t.unsupported("a to-many relationship reached through an optional chain") }
        // An attribute read through a row that is NULL is NULL already — `(SELECT r1."c" FROM
        // "T" r1 WHERE r1."Z_PK" = <w>)` — no CASE needed. (Not so for counts and EXISTS.)
        if w.row != nil, w.row?.alias == nil, !body.isCondition, body.sql.hasPrefix("(SELECT r"),
           body.sql.hasSuffix(".\"Z_PK\" = \(w.sql))"), body.arguments.count == w.arguments.count {
            var f = body
            f.isCondition = false
            return f
        }
        var f = SQLFragment(sql: "CASE WHEN \(w.sql) IS NULL THEN NULL ELSE \(body.sql) END",
                            arguments: w.arguments + body.arguments, codec: body.codec)
        f.row = body.row
        f.isRow = body.isRow
        f.relationshipTarget = body.relationshipTarget
        return f
    }
    func collect(_ leaves: inout PredicateLeaves) {
        // The wrapped value's SQL is repeated wherever the closure uses its parameter.
        collectRepeated(wrapped, times: 2, &leaves)
        collectLeaves(transform, &leaves)
    }
}

/// `$0.score ?? 0` → `coalesce(t."score", ?)`: never NULL when either side never is.
extension PredicateExpressions.NilCoalesce: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let l = try translate(lhs, t), r = try translate(rhs, t)
        if l.toMany != nil || r.toMany != nil { throw t.unsupported("?? on a to-many relationship") }
        var f = SQLFragment(sql: "coalesce(\(l.sql), \(r.sql))", arguments: l.arguments + r.arguments,
                            codec: l.codec ?? r.codec)
        f.row = l.row.map { RowScope(layout: $0.layout, table: $0.table, alias: nil) }
        f.isRow = f.row != nil
        f.isNonNull = l.isNonNull || r.isNonNull
        return f
    }
    func collect(_ leaves: inout PredicateLeaves) { collectLeaves(lhs, &leaves); collectLeaves(rhs, &leaves) }
}

/// `$0.opt!` — throws ``SwiftDataError/unsupportedPredicate``: Swift throws
/// `PredicateError.forceUnwrapFailure` on nil, which a `WHERE` clause cannot reproduce. A force
/// unwrap of something that does not read the row (`limits.min()!`) is evaluated in Swift once
/// per fetch and bound as a value (``ConstantFolding``; a nil there throws too).
extension PredicateExpressions.ForcedUnwrap: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        throw t.unsupported("a force unwrap (!); use flatMap, ?? or an optional comparison instead")
    }
    func collect(_ leaves: inout PredicateLeaves) { leaves.isCacheable = false }
}

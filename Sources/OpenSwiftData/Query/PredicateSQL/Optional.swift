import Foundation

/// `$0.date.flatMap { $0 > cutoff }` and optional chains `$0.author?.name` (the macro writes
/// them as `flatMap`): the closure parameter stands for the wrapped value, and the result is
/// NULL when it is nil:
/// ```sql
/// CASE WHEN t."date" IS NULL THEN NULL ELSE (t."date" > ?) END
/// (SELECT r1."name" FROM "Author" r1 WHERE r1."Z_PK" = t."author")   -- $0.author?.name
/// ```
/// A Bool result is a nullable value: compare it (`== true`) or coalesce it (`?? false`).
///
/// An optional to-many relationship (`var tags: [Tag]?`) is never nil — SwiftData reads it as
/// `[]` (BackingData) — so a chain through it is the closure's result itself, with the closure
/// parameter standing for the relationship's rows (ToManyCollection.swift):
/// ```sql
/// EXISTS (SELECT 1 FROM "Tag" m1 WHERE <link> AND (m1."name" IS ?))   -- $0.tags?.contains { $0.name == x } == true
/// (SELECT count(*) FROM "Tag" m1 WHERE <link>)                       -- $0.tags?.count ?? 0
/// ```
/// A list reached through an optional to-one (`$0.folder?.items`) is nil when the to-one is:
/// `CASE WHEN t."folder" IS NULL THEN NULL ELSE (SELECT count(*) …) END` for `$0.folder?.items?.count`.
extension PredicateExpressions.OptionalFlatMap: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let w = try translate(wrapped, t)
        var inner = t
        inner.variables[variable.key] = w
        if let many = w.toMany {
            var body = try translate(transform, inner)
            if let base = many.nullableBase {
                // `$0.folder?.items?.count`: nil when the to-one is nil.
                if body.toMany != nil {
                    body.toMany?.nullableBase = base
                    return body
                }
                return SQLFragment(
                    sql: "CASE WHEN \(base.sql) IS NULL THEN NULL ELSE \(body.sql) END",
                    arguments: base.arguments + body.arguments, codec: body.codec)
            }
            if body.toMany == nil, !body.isCondition { body.isNonNull = true }
            return body
        }
        var body = try translate(transform, inner)
        if body.toMany != nil {
            // `$0.folder?.items`: the target's list, which is nil when the to-one is nil.
            body.toMany?.nullableBase = (w.sql, w.arguments)
            return body
        }
        // An attribute read through a row that is NULL is NULL already — `(SELECT r1."c" FROM
        // "T" r1 WHERE r1."Z_PK" = <w>)` — no CASE needed. (Not so for counts and EXISTS.)
        if w.row != nil, w.row?.alias == nil, !body.isCondition, body.sql.hasPrefix("(SELECT r"),
            body.sql.hasSuffix(".\"Z_PK\" = \(w.sql))"), body.arguments.count == w.arguments.count
        {
            var f = body
            f.isCondition = false
            return f
        }
        var f = SQLFragment(
            sql: "CASE WHEN \(w.sql) IS NULL THEN NULL ELSE \(body.sql) END",
            arguments: w.arguments + body.arguments, codec: body.codec)
        f.row = body.row
        f.isRow = body.isRow
        f.relationshipTarget = body.relationshipTarget
        return f
    }
    func collect(_ leaves: inout PredicateLeaves) {
        // The wrapped value's SQL is repeated wherever the closure uses its parameter.
        collectRepeated(wrapped, times: 2, &leaves)
        collectNode(transform, &leaves)
    }
}

/// `$0.score ?? 0` → `coalesce(t."score", ?)`: never NULL when either side never is.
///
/// An optional to-many relationship on the left is never nil (it reads `[]`), so the right side
/// is never used, as in Swift: `($0.tags ?? fallback)` is `$0.tags`'s rows.
extension PredicateExpressions.NilCoalesce: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let l = try translate(lhs, t)
        if let many = l.toMany {
            if many.nullableBase != nil {
                throw t.unsupported("?? on a to-many relationship reached through an optional to-one")
            }
            return l
        }
        let r = try translate(rhs, t)
        if r.toMany != nil { throw t.unsupported("?? with a to-many relationship on the right") }
        if FaultInjection.isActive(.nilCoalesceIgnored) { return l }
        var f = SQLFragment(
            sql: "coalesce(\(l.sql), \(r.sql))", arguments: l.arguments + r.arguments,
            codec: l.codec ?? r.codec)
        f.row = l.row.map { RowScope(layout: $0.layout, table: $0.table, alias: nil) }
        f.isRow = f.row != nil
        f.isNonNull = l.isNonNull || r.isNonNull
        return f
    }
    func collect(_ leaves: inout PredicateLeaves) {
        collectNode(lhs, &leaves)
        // The right side of `optionalToMany ?? …` is never translated, so it binds nothing.
        if !isOptionalToMany(LHS.Output.self) { collectNode(rhs, &leaves) }
    }
}

/// Whether `type` is an optional array of models (`[Tag]?`), a relationship that is never nil.
func isOptionalToMany(_ type: Any.Type) -> Bool {
    guard let target = ModelLayout.modelTarget(type) else { return false }
    return target.optional && target.toMany
}

/// `$0.opt!` — throws ``SwiftDataError/unsupportedPredicate``: Swift throws
/// `PredicateError.forceUnwrapFailure` on nil, which a `WHERE` clause cannot reproduce. A force
/// unwrap of something that does not read the row (`limits.min()!`) is evaluated in Swift once
/// per fetch and bound as a value (``ConstantFolding``; a nil there throws too).
extension PredicateExpressions.ForcedUnwrap: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        throw t.unsupported("a force unwrap (!)", instead: "use flatMap, ?? or an optional comparison instead")
    }
    func collect(_ leaves: inout PredicateLeaves) { leaves.isCacheable = false }
}

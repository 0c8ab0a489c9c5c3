import Foundation

/// The `Z_ENT` test for "the row is a `desired`" (`desired` and its subclasses), or nil when
/// `desired` is not a model type.
func entityTest(_ row: RowScope, _ pk: SQLFragment, _ desired: Any.Type, _ t: SQLTranslation) throws -> SQLFragment? {
    guard let model = desired as? any PersistentModel.Type else { return nil }
    guard let dl = ModelLayout.known(model), t.mapping?.table(for: dl) === row.table else {
        return SQLFragment(sql: "0", isCondition: true)  // not in this hierarchy
    }
    let kinds =
        FaultInjection.isActive(.typeCheckExactClass)
        ? [row.table.entityID(dl)].compactMap { $0 } : row.table.entityIDs(kindOf: dl)
    let ids = kinds.map(String.init).joined(separator: ", ")
    if ids.isEmpty { return SQLFragment(sql: "0", isCondition: true) }
    if let alias = row.alias {
        return SQLFragment(sql: "(\(alias).\"Z_ENT\" IN (\(ids)))", isCondition: true)
    }
    let (alias, _) = t.nested("r")
    return SQLFragment(
        sql:
            "coalesce((SELECT \(alias).\"Z_ENT\" IN (\(ids)) FROM \(quoteIdentifier(row.table.name)) \(alias) WHERE \(alias).\"Z_PK\" = \(pk.sql)), 0)",
        arguments: pk.arguments, isCondition: true)
}

/// `$0 is Sub` → `(t."Z_ENT" IN (2, 3))` — the entity ids of `Sub` and its subclasses.
extension PredicateExpressions.TypeCheck: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let i = try translate(input, t)
        guard let row = i.row, let test = try entityTest(row, i, Desired.self, t) else {
            throw t.unsupported("`is \(Desired.self)` on a value that is not a model")
        }
        return test
    }
    func collect(_ leaves: inout PredicateLeaves) { collectRepeated(input, times: 2, &leaves) }
}

/// `$0 as? Sub` → the row when it is a `Sub`, else NULL; usually read through `flatMap`
/// (`($0 as? Sub)?.extra == 1`):
/// ```sql
/// CASE WHEN (t."Z_ENT" IN (2, 3)) THEN t."Z_PK" END
/// ```
extension PredicateExpressions.ConditionalCast: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let i = try translate(input, t)
        guard let row = i.row, let test = try entityTest(row, i, Desired.self, t),
            let dl = (Desired.self as? any PersistentModel.Type).flatMap({ ModelLayout.known($0) })
        else {
            throw t.unsupported("`as? \(Desired.self)` on a value that is not a model")
        }
        var f = SQLFragment(
            sql: "CASE WHEN \(test.sql) THEN \(i.sql) END", arguments: test.arguments + i.arguments, isRow: true)
        f.row = RowScope(layout: dl, table: row.table, alias: row.alias)
        return f
    }
    func collect(_ leaves: inout PredicateLeaves) { collectRepeated(input, times: 2, &leaves) }
}

/// `$0 as! Sub` throws ``SwiftDataError/unsupportedPredicate`` (Swift throws
/// `PredicateError.forceCastFailure` for other rows; use `as?` or `is`).
extension PredicateExpressions.ForceCast: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        throw t.unsupported("a force cast (as! \(Desired.self))", instead: "use `is` or `as?` instead")
    }
    func collect(_ leaves: inout PredicateLeaves) { leaves.isCacheable = false }
}

import Foundation

/// Turns a value fragment (a Bool column or constant) into a condition.
func condition(_ f: SQLFragment) -> SQLFragment {
    if f.isCondition { return f }
    var c = f
    c.sql = "(\(f.sql) != 0)"
    c.isCondition = true
    return c
}

/// `a && b` → `(a AND b)`.
extension PredicateExpressions.Conjunction: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let l = condition(try translate(lhs, t)), r = condition(try translate(rhs, t))
        return SQLFragment(sql: "(\(l.sql) AND \(r.sql))", arguments: l.arguments + r.arguments, isCondition: true)
    }
    func collect(_ leaves: inout PredicateLeaves) { collectLeaves(lhs, &leaves); collectLeaves(rhs, &leaves) }
}

/// `a || b` → `(a OR b)`.
extension PredicateExpressions.Disjunction: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let l = condition(try translate(lhs, t)), r = condition(try translate(rhs, t))
        return SQLFragment(sql: "(\(l.sql) OR \(r.sql))", arguments: l.arguments + r.arguments, isCondition: true)
    }
    func collect(_ leaves: inout PredicateLeaves) { collectLeaves(lhs, &leaves); collectLeaves(rhs, &leaves) }
}

/// `!a` → `(NOT a)`. Every condition we emit is TRUE or FALSE, never NULL, so `NOT` partitions.
extension PredicateExpressions.Negation: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let w = condition(try translate(wrapped, t))
        return SQLFragment(sql: "(NOT \(w.sql))", arguments: w.arguments, isCondition: true)
    }
    func collect(_ leaves: inout PredicateLeaves) { collectLeaves(wrapped, &leaves) }
}

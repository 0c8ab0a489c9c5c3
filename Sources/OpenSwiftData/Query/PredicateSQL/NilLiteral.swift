import Foundation

/// `nil` written in a predicate → `NULL`; compared with `IS` / `IS NOT` (Comparison.swift), so
/// `$0.note == nil` matches exactly the rows Swift's `==` would.
extension PredicateExpressions.NilLiteral: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        SQLFragment(sql: "NULL")
    }
    func collect(_ leaves: inout PredicateLeaves) {}
}

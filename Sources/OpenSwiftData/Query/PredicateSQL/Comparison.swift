import Foundation

/// `a == b` → `a IS b` (Swift's `nil == nil` is true; `IS` treats two NULLs as equal).
extension PredicateExpressions.Equal: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        try binary(lhs, rhs, "IS", t)
    }
    func collect(_ leaves: inout PredicateLeaves) { collectLeaves(lhs, &leaves); collectLeaves(rhs, &leaves) }
}

/// `a != b` → `a IS NOT b`.
extension PredicateExpressions.NotEqual: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        try binary(lhs, rhs, "IS NOT", t)
    }
    func collect(_ leaves: inout PredicateLeaves) { collectLeaves(lhs, &leaves); collectLeaves(rhs, &leaves) }
}

/// `a < b`, `<=`, `>`, `>=` → the same SQL operator. Strings compare as Swift's `<` does,
/// because text is stored NFC-normalised and compared byte-wise (BINARY collation).
extension PredicateExpressions.Comparison: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let op: String
        switch self.op {
        case .lessThan: op = "<"
        case .lessThanOrEqual: op = "<="
        case .greaterThan: op = ">"
        case .greaterThanOrEqual: op = ">="
        @unknown default: throw t.unsupported("an unknown comparison operator")
        }
        return try binary(lhs, rhs, op, t)
    }
    func collect(_ leaves: inout PredicateLeaves) {
        leaves.structure.append(AnyHashable(op))
        collectLeaves(lhs, &leaves)
        collectLeaves(rhs, &leaves)
    }
}

/// Translates both sides and joins them with `op`.
func binary(_ lhs: Any, _ rhs: Any, _ op: String, _ t: SQLTranslation) throws -> SQLFragment {
    let l = try translate(lhs, t)
    let r = try translate(rhs, t)
    if l.toMany != nil || r.toMany != nil {
        throw t.unsupported("a to-many relationship compared as a value (use contains(where:), count or isEmpty)")
    }
    return SQLFragment(sql: "(\(l.sql) \(op) \(r.sql))", arguments: l.arguments + r.arguments, isCondition: true)
}

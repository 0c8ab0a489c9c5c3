import Foundation

/// Turns a value fragment (a Bool column or constant) into a condition.
func condition(_ f: SQLFragment) -> SQLFragment {
    if f.isCondition { return f }
    var c = f
    c.sql = "(\(f.sql) != 0)"
    c.isCondition = true
    return c
}

/// `&&` or `||`: a node whose operands merge with those of a nested node of the same operator.
protocol SQLAssociativeLogic {
    /// `AND` or `OR`.
    static var sqlOperator: String { get }
    var operands: (lhs: Any, rhs: Any) { get }
}

/// `!`: a node that a second `!` cancels.
protocol SQLNegationLogic {
    var negatedOperand: Any { get }
}

/// `a && b && c` (as `#Predicate` groups it, `(a && b) && c`, or grouped to the right) → one list:
/// ```sql
/// ((t."a" > ?) AND (t."b" IS ?) AND (t."c" != 0))
/// ```
/// Nested `&&` nodes are merged, however they are grouped, so a long chain is one level of
/// parentheses rather than one per operator: SQLite's parser reads about 30 nested
/// `(x AND (…))` levels before it fails with "parser stack overflow". Operands keep their
/// left-to-right order (the bound values' order, which the statement cache relies on). The
/// chain is still one tree level per operator in Foundation's expression, so a chain longer
/// than ``PredicateDepth/maximumDepth`` is refused before translation (``PredicateDepth``).
extension PredicateExpressions.Conjunction: SQLPredicateExpression, SQLAssociativeLogic {
    static var sqlOperator: String { "AND" }
    var operands: (lhs: Any, rhs: Any) { (lhs, rhs) }
    func sql(_ t: SQLTranslation) throws -> SQLFragment { try associativeList(self, t) }
    func collect(_ leaves: inout PredicateLeaves) {
        collectNode(lhs, &leaves)
        collectNode(rhs, &leaves)
    }
}

/// `a || b || c` → one list, merged like `&&`:
/// ```sql
/// ((t."a" > ?) OR (t."b" IS ?) OR (t."c" != 0))
/// ```
/// An `&&` inside an `||` (or the reverse) stays a group of its own: `(a AND b) OR c` →
/// `(((t."a" …) AND (t."b" …)) OR (t."c" …))`.
extension PredicateExpressions.Disjunction: SQLPredicateExpression, SQLAssociativeLogic {
    static var sqlOperator: String { "OR" }
    var operands: (lhs: Any, rhs: Any) { (lhs, rhs) }
    func sql(_ t: SQLTranslation) throws -> SQLFragment { try associativeList(self, t) }
    func collect(_ leaves: inout PredicateLeaves) {
        collectNode(lhs, &leaves)
        collectNode(rhs, &leaves)
    }
}

/// `!a` → `(NOT a)`. Every condition we emit is TRUE or FALSE, never NULL, so `NOT` partitions.
/// A run of `!` keeps only its parity: `!!a` → `a` (as a condition), `!!!a` → `(NOT a)`.
extension PredicateExpressions.Negation: SQLPredicateExpression, SQLNegationLogic {
    var negatedOperand: Any { wrapped }
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        var operand: Any = wrapped
        var negated = true
        while let inner = operand as? any SQLNegationLogic {
            operand = inner.negatedOperand
            negated.toggle()
        }
        guard negated || FaultInjection.isActive(.doubleNegationKept) else {
            return condition(try translate(operand, t))
        }
        let w = condition(try translate(operand, try t.enteringLogic()))
        return SQLFragment(sql: "(NOT \(w.sql))", arguments: w.arguments, isCondition: true)
    }
    func collect(_ leaves: inout PredicateLeaves) { collectNode(wrapped, &leaves) }
}

/// Translates `node`'s operands, with those of nested nodes of the same operator merged in
/// order, as one parenthesised list.
func associativeList<Node: SQLAssociativeLogic>(_ node: Node, _ t: SQLTranslation) throws -> SQLFragment {
    let inner = try t.enteringLogic()
    var terms: [String] = []
    var arguments: [SQLValue] = []
    // An explicit stack: a chain of thousands of operators is walked without deep recursion.
    var pending: [Any] = [node.operands.rhs, node.operands.lhs]
    while let next = pending.popLast() {
        if let same = next as? any SQLAssociativeLogic, type(of: same).sqlOperator == Node.sqlOperator {
            pending.append(same.operands.rhs)
            pending.append(same.operands.lhs)
            continue
        }
        let f = condition(try translate(next, inner))
        terms.append(f.sql)
        arguments += f.arguments
    }
    if FaultInjection.isActive(.disjunctionUnparenthesized), Node.sqlOperator == "OR" {
        return SQLFragment(sql: terms.joined(separator: " OR "), arguments: arguments, isCondition: true)
    }
    return SQLFragment(
        sql: "(\(terms.joined(separator: " \(Node.sqlOperator) ")))", arguments: arguments, isCondition: true)
}

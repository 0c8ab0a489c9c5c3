import Foundation

/// `$0.isPriority ? $0.score > 1 : $0.score > 10` and `if`/`else` expressions:
/// ```sql
/// CASE WHEN (t."isPriority" != 0) THEN (t."score" > ?) ELSE (t."score" > ?) END
/// ```
/// The test is coalesced to FALSE as Swift's non-optional Bool never is NULL; Bool branches
/// make a condition. A conditional is one level of ``SQLTranslation/maximumNesting``.
extension PredicateExpressions.Conditional: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let inner = try t.enteringLogic()
        let c = nonNull(try translate(test, inner))
        var a = try translate(trueBranch, inner)
        var b = try translate(falseBranch, inner)
        if a.toMany != nil || b.toMany != nil || a.row != nil || b.row != nil {
            throw t.unsupported("a conditional choosing between relationships")
        }
        let isBool = If.Output.self == Bool.self
        if isBool {
            a = condition(a)
            b = condition(b)
        }
        return SQLFragment(
            sql: "CASE WHEN \(c.sql) THEN \(a.sql) ELSE \(b.sql) END",
            arguments: c.arguments + a.arguments + b.arguments,
            codec: a.codec ?? b.codec, isCondition: isBool)
    }
    func collect(_ leaves: inout PredicateLeaves) {
        collectNode(test, &leaves)
        collectNode(trueBranch, &leaves)
        collectNode(falseBranch, &leaves)
    }
}

import Foundation

/// `a == b` → `a IS b` (Swift's `nil == nil` is true; `IS` treats two NULLs as equal).
/// `Decimal`s compare by value, `(a) COLLATE osd_decimal IS b` (``DecimalCollation``).
extension PredicateExpressions.Equal: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        try binary(
            lhs, rhs, FaultInjection.isActive(.equalSQLNull) ? "=" : "IS", t,
            decimal: comparesAsDecimal(LHS.Output.self))
    }
    func collect(_ leaves: inout PredicateLeaves) {
        collectNode(lhs, &leaves)
        collectNode(rhs, &leaves)
    }
}

/// `a != b` → `a IS NOT b`.
extension PredicateExpressions.NotEqual: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        try binary(
            lhs, rhs, FaultInjection.isActive(.notEqualSQLNull) ? "!=" : "IS NOT", t,
            decimal: comparesAsDecimal(LHS.Output.self))
    }
    func collect(_ leaves: inout PredicateLeaves) {
        collectNode(lhs, &leaves)
        collectNode(rhs, &leaves)
    }
}

/// `a < b`, `<=`, `>`, `>=` → the same SQL operator, TRUE or FALSE on every row (never NULL,
/// so `!p` is the complement of `p`). Strings compare as Swift's `<` does, because text is
/// stored NFC-normalised and compared byte-wise (BINARY collation).
///
/// NULL handling is written only where a NULL can occur, so a comparison of a non-optional
/// attribute with a captured value stays a plain term that SQLite answers with an index on
/// the column (`SEARCH t USING INDEX …`, `USING COVERING INDEX` for a count):
/// ```sql
/// (t."code" < ?)                               -- $0.code < limit: neither side can be NULL
/// (t."rating" IS NOT NULL AND t."rating" > ?)  -- inside $0.rating.flatMap { $0 > 3 }
/// coalesce(((SELECT r1."pages" …) > ?), 0)     -- $0.book.flatMap { $0.pages > 3 }, Double arithmetic
/// ```
/// Swift compares only non-optional values, but in SQL an optional column read inside
/// `flatMap`, a value read through a to-one relationship, or `Double` arithmetic that gives NaN
/// (`inf - inf`, NULL in SQLite; every comparison with NaN is false in Swift) can be NULL. A
/// bare column is tested with `IS NOT NULL` (the index stays usable); other NULL-able
/// operands are wrapped in `coalesce(…, 0)`, which binds each value once (the statement cache
/// relies on the binding order).
///
/// `Decimal`s, stored as text, compare by value through ``DecimalCollation`` named on the
/// left operand: `((t."balance") COLLATE osd_decimal > ?)`.
/// [SQLite: the query optimizer overview](https://sqlite.org/optoverview.html#where_clause_analysis)
extension PredicateExpressions.Comparison: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let op: String
        switch self.op {
        case .lessThan: op = "<"
        case .lessThanOrEqual: op = FaultInjection.isActive(.lessOrEqualStrict) ? "<" : "<="
        case .greaterThan: op = FaultInjection.isActive(.greaterThanInclusive) ? ">=" : ">"
        case .greaterThanOrEqual: op = ">="
        @unknown default: throw t.unsupported("an unknown comparison operator")
        }
        return try ordering(lhs, rhs, op, t, decimal: comparesAsDecimal(LHS.Output.self))
    }
    func collect(_ leaves: inout PredicateLeaves) {
        switch op {
        case .lessThan: leaves.note(.number(0))
        case .lessThanOrEqual: leaves.note(.number(1))
        case .greaterThan: leaves.note(.number(2))
        case .greaterThanOrEqual: leaves.note(.number(3))
        @unknown default: leaves.isCacheable = false  // the translation throws
        }
        collectNode(lhs, &leaves)
        collectNode(rhs, &leaves)
    }
}

/// `lhs op rhs` for an ordering operator, TRUE or FALSE even where an operand is NULL (see
/// ``PredicateExpressions/Comparison``); `decimal` compares through ``DecimalCollation``.
func ordering(_ lhs: Any, _ rhs: Any, _ op: String, _ t: SQLTranslation, decimal: Bool = false) throws -> SQLFragment {
    let (l, r) = try translateOperands(lhs, rhs, t)
    if l.toMany != nil || r.toMany != nil {
        throw t.unsupported(
            "a to-many relationship compared as a value", instead: "use contains(where:), count or isEmpty instead")
    }
    let asDecimal = decimal && !FaultInjection.isActive(.decimalComparedAsText)
    let test = "\(asDecimal ? decimalCollated(l.sql) : l.sql) \(op) \(r.sql)"
    let nullable = [l, r].filter { !$0.isNonNull }
    let sql: String
    if nullable.isEmpty || FaultInjection.isActive(.orderingSQLNull) {
        sql = "(\(test))"
    } else if nullable.allSatisfy({ $0.isColumn && $0.arguments.isEmpty }) {
        sql = "(" + nullable.map { "\($0.sql) IS NOT NULL AND " }.joined() + test + ")"
    } else {
        sql = "coalesce((\(test)), 0)"
    }
    return SQLFragment(sql: sql, arguments: l.arguments + r.arguments, isCondition: true)
}

/// Translates both sides and joins them with `op`; `decimal` compares through ``DecimalCollation``.
///
/// An optional to-many relationship compared with `nil` is a constant: it is never nil (it
/// reads `[]`, as in SwiftData), so `$0.tags == nil` → `(0)` and `$0.tags != nil` → `(1)`;
/// one reached through an optional to-one is nil when the to-one is: `$0.folder?.items == nil`
/// → `(t."folder" IS NULL)`.
func binary(_ lhs: Any, _ rhs: Any, _ op: String, _ t: SQLTranslation, decimal: Bool = false) throws -> SQLFragment {
    let (l, r) = try translateOperands(lhs, rhs, t)
    if let many = l.toMany ?? r.toMany, isNilConstant(l.toMany != nil ? r : l) {
        // `$0.folder?.items == nil`: nil exactly when the to-one is.
        if let base = many.nullableBase {
            return SQLFragment(sql: "(\(base.sql) \(op) NULL)", arguments: base.arguments, isCondition: true)
        }
        return SQLFragment(sql: op == "IS" ? "(0)" : "(1)", isCondition: true)
    }
    if l.toMany != nil || r.toMany != nil {
        throw t.unsupported(
            "a to-many relationship compared as a value", instead: "use contains(where:), count or isEmpty instead")
    }
    return SQLFragment(
        sql:
            "(\(decimal && !FaultInjection.isActive(.decimalComparedAsText) ? decimalCollated(l.sql) : l.sql) \(op) \(r.sql))",
        arguments: l.arguments + r.arguments,
        isCondition: true)
}

/// Whether `f` is `nil`: the `nil` literal, or a captured `nil`.
private func isNilConstant(_ f: SQLFragment) -> Bool {
    f.toMany == nil && ((f.sql == "NULL" && f.arguments.isEmpty) || (f.sql == "?" && f.arguments == [.null]))
}

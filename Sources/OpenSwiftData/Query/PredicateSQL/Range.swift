import Foundation

/// The bounds of a captured range (`a...b`, `a..<b`, `a...`, `...b`, `..<b`).
protocol CapturedRangeBounds {
    var lowerBoundValue: Any? { get }
    var upperBoundValue: Any? { get }
    var upperIsClosed: Bool { get }
}
extension ClosedRange: CapturedRangeBounds {
    var lowerBoundValue: Any? { lowerBound }
    var upperBoundValue: Any? { upperBound }
    var upperIsClosed: Bool { true }
}
extension Range: CapturedRangeBounds {
    var lowerBoundValue: Any? { lowerBound }
    var upperBoundValue: Any? { upperBound }
    var upperIsClosed: Bool { false }
}
extension PartialRangeFrom: CapturedRangeBounds {
    var lowerBoundValue: Any? { lowerBound }
    var upperBoundValue: Any? { nil }
    var upperIsClosed: Bool { false }
}
extension PartialRangeThrough: CapturedRangeBounds {
    var lowerBoundValue: Any? { nil }
    var upperBoundValue: Any? { upperBound }
    var upperIsClosed: Bool { true }
}
extension PartialRangeUpTo: CapturedRangeBounds {
    var lowerBoundValue: Any? { nil }
    var upperBoundValue: Any? { upperBound }
    var upperIsClosed: Bool { false }
}

/// A range written in the predicate (`lower...upper`, `lower..<upper`): its bound expressions.
protocol RangeBoundExpressions {
    var lowerExpression: Any { get }
    var upperExpression: Any { get }
    var upperIsClosed: Bool { get }
}
extension PredicateExpressions.ClosedRange: RangeBoundExpressions {
    var lowerExpression: Any { lower }
    var upperExpression: Any { upper }
    var upperIsClosed: Bool { true }
}
extension PredicateExpressions.Range: RangeBoundExpressions {
    var lowerExpression: Any { lower }
    var upperExpression: Any { upper }
    var upperIsClosed: Bool { false }
}

/// `(10...20).contains($0.age)` (closed) / `(10..<20).contains($0.age)` (half-open):
/// ```sql
/// (t."age" >= ? AND t."age" <= ?)
/// (t."age" >= ? AND t."age" < ?)
/// ```
/// Captured partial ranges emit only their bound. The terms stay plain, so SQLite can search
/// an index on the column, when neither the element nor a bound can be NULL; otherwise a bare
/// column is tested with `IS NOT NULL` and anything else wrapped in `coalesce(…, 0)`, so the
/// condition is never NULL (as for ``PredicateExpressions/Comparison``). Limitation: a range
/// built in the predicate from columns with `lower > upper` traps in Swift; SQL returns FALSE
/// for that row. A `Decimal` element compares by value: `(t."x") COLLATE osd_decimal >= ?`
/// (``DecimalCollation``).
extension PredicateExpressions.RangeExpressionContains: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let e = try translate(element, t)
        let compared = comparesAsDecimal(Element.Output.self) ? decimalCollated(e.sql) : e.sql
        var terms: [String] = []
        var args: [SQLValue] = []
        var boundsNonNull = true
        if let r = capturedOperand(range) as? CapturedRangeBounds {
            if let lo = r.lowerBoundValue {
                terms.append("\(compared) >= ?")
                args += e.arguments + [try sqlArgument(lo, t.identifiers)]
            }
            if let hi = r.upperBoundValue {
                terms.append(
                    "\(compared) \(r.upperIsClosed || FaultInjection.isActive(.rangeUpperClosed) ? "<=" : "<") ?")
                args += e.arguments + [try sqlArgument(hi, t.identifiers)]
            }
        } else if let r = range as? RangeBoundExpressions {
            let lo = try translate(r.lowerExpression, t)
            let hi = try translate(r.upperExpression, t)
            terms = ["\(compared) >= \(lo.sql)", "\(compared) \(r.upperIsClosed ? "<=" : "<") \(hi.sql)"]
            args = e.arguments + lo.arguments + e.arguments + hi.arguments
            boundsNonNull = lo.isNonNull && hi.isNonNull
        } else {
            throw t.unsupported("contains(_:) on a range that is neither captured nor written with ... or ..<")
        }
        if terms.isEmpty { return SQLFragment(sql: "1", isCondition: true) }
        // Captured bounds are never NULL: their types are not optional and NaN cannot be bound.
        let condition = SQLFragment(
            sql: "(" + terms.joined(separator: " AND ") + ")", arguments: args, isCondition: true)
        guard boundsNonNull, !args.contains(.null) else { return nonNull(condition) }
        if e.isNonNull { return condition }
        if e.isColumn, e.arguments.isEmpty {
            return SQLFragment(
                sql: "(\(e.sql) IS NOT NULL AND " + terms.joined(separator: " AND ") + ")",
                arguments: args, isCondition: true)
        }
        return nonNull(condition)
    }
    func collect(_ leaves: inout PredicateLeaves) {
        var e = leaves.nested()
        collectNode(element, &e)
        leaves.note(contentsOf: e.structure)
        if e.hasIntegerArithmetic { leaves.hasIntegerArithmetic = true }
        if !e.isCacheable || !e.values.isEmpty {
            leaves.isCacheable = false
            return
        }
        if let r = capturedOperand(range) as? CapturedRangeBounds {
            leaves.note(.type(ObjectIdentifier(type(of: r))))
            if let lo = r.lowerBoundValue { leaves.bind(lo) }
            if let hi = r.upperBoundValue { leaves.bind(hi) }
        } else if let r = range as? RangeBoundExpressions {
            collectNode(r.lowerExpression, &leaves)
            collectNode(r.upperExpression, &leaves)
        } else {
            leaves.isCacheable = false
        }
    }
}

import Foundation

/// A captured value, readable without knowing its type (for captured arrays and ranges).
protocol CapturedPredicateValue { var capturedValue: Any { get } }

/// `PredicateExpressions.Value` exposes its value to the array and range translations.
extension PredicateExpressions.Value: CapturedPredicateValue {
    var capturedValue: Any { value }
}

/// The elements of a captured sequence, if `expression` is a captured value that is one.
/// A sequence that reads no row (`filter.tags`, `names.map(…)`) counts as captured too: it is
/// evaluated in Swift for each fetch (``ConstantFolding``).
func capturedElements(_ expression: Any) -> [Any]? {
    guard let value = capturedOperand(expression), let seq = value as? any Sequence else { return nil }
    if value is String { return nil }
    return Array(seq)
}

/// The value of a captured operand, or of a sub-expression that folds to one; `nil` otherwise
/// (or when the fold fails: translating the operand then throws its error).
func capturedOperand(_ expression: Any) -> Any? {
    if let v = expression as? CapturedPredicateValue { return v.capturedValue }
    if case .success(let value)? = ConstantFolding.value(of: expression) { return value }
    return nil
}

/// `ids.contains($0.id)` with a captured array → `IN`, one parameter per element (the element
/// count is part of the cached shape); an empty array is FALSE, as in Swift:
/// ```sql
/// (t."id" IS NOT NULL AND t."id" IN (?, ?, ?))   -- no nil among the elements
/// (t."id" IS ? OR t."id" IS ?)                   -- some element is nil (nil == nil is true)
/// 0                                              -- []
/// ```
/// `Decimal` elements compare by value: the element is written `(t."x") COLLATE osd_decimal`
/// before `IS` / `IN` (``DecimalCollation``).
/// `$0.tags.contains(tag)` on a to-many relationship → `EXISTS (SELECT 1 FROM … AND m1."Z_PK" IS ?)`.
extension PredicateExpressions.SequenceContains: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        if let elements = capturedElements(sequence) {
            let e = try translate(element, t)
            if e.toMany != nil { throw t.unsupported("a to-many relationship inside a captured array") }
            let args = try elements.map { try sqlArgument($0, t.identifiers) }
            if args.isEmpty { return SQLFragment(sql: "0", isCondition: true) }
            let compared = comparesAsDecimal(RHS.Output.self) ? decimalCollated(e.sql) : e.sql
            if args.contains(where: { if case .null = $0 { true } else { false } }) {
                let terms = args.map { _ in "\(compared) IS ?" }
                return SQLFragment(
                    sql: "(" + terms.joined(separator: " OR ") + ")",
                    arguments: args.flatMap { e.arguments + [$0] }, isCondition: true)
            }
            let list = args.map { _ in "?" }.joined(separator: ", ")
            return SQLFragment(
                sql: "(\(e.sql) IS NOT NULL AND \(compared) IN (\(list)))",
                arguments: e.arguments + e.arguments + args, isCondition: true)
        }
        let seq = try translate(sequence, t)
        guard let many = seq.toMany else {
            throw t.unsupported(
                "contains(_:) on a sequence that is neither a captured array nor a to-many relationship")
        }
        let e = try translate(element, t)
        return SQLFragment(
            sql: "EXISTS (SELECT 1 FROM \(many.from) WHERE \(many.condition) AND \(many.alias).\"Z_PK\" IS \(e.sql))",
            arguments: many.arguments + e.arguments, isCondition: true)
    }
    func collect(_ leaves: inout PredicateLeaves) {
        guard let elements = capturedElements(sequence) else {
            collectNode(sequence, &leaves)
            collectNode(element, &leaves)
            return
        }
        let hasNil = elements.contains { _flattenOptional($0) == nil }
        leaves.note(.number(elements.count))
        leaves.note(.number(hasNil ? 1 : 0))
        var inner = leaves.nested()
        collectNode(element, &inner)
        leaves.note(contentsOf: inner.structure)
        if inner.hasIntegerArithmetic { leaves.hasIntegerArithmetic = true }
        if !inner.isCacheable || !inner.values.isEmpty {
            leaves.isCacheable = false  // the element's SQL is repeated
            return
        }
        for element in elements { leaves.bind(element) }
    }
}

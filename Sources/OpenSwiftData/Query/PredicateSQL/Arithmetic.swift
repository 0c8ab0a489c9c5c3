import Foundation

/// Whether SQLite computes `T`'s arithmetic as Swift does: 64-bit integers and `Double`.
func sqlArithmeticMatches(_ type: Any.Type) -> Bool {
    type == Int.self || type == Int64.self || type == Double.self
}

/// Reads a captured divisor: `nil` when `expression` is not a captured value (or one that folds).
func capturedNumber(_ expression: Any) -> Any? {
    capturedOperand(expression)
}

/// Whether `T` is an integer type whose arithmetic traps on overflow in Swift.
func isTrappingInteger(_ type: Any.Type) -> Bool {
    type == Int.self || type == Int64.self
}

/// `a + b`, `a - b`, `a * b` on `Int` / `Int64` / `Double`. Integers go through the checked
/// functions of ``CheckedArithmeticFunctions``, `Double` through SQLite's operators:
/// ```sql
/// osd_add(t."n", ?)        -- $0.n + 1, also osd_subtract, osd_multiply
/// (t."price" * ?)          -- $0.price * 1.5
/// ```
/// Where Swift's integer arithmetic overflows (a trap) SQLite's would continue in floating
/// point; the checked functions fail the statement instead and the fetch throws
/// ``SwiftDataError/arithmeticOverflow``, as the evaluation of pending models does
/// (``PendingOverflowCheck``). Which rows SQLite computes follows its plan: it evaluates the
/// operands of `&&` left to right and stops at the first false one, as Swift does, but it may
/// move operands with subqueries last, and an index may skip a row entirely; so for a row
/// whose arithmetic Swift's `&&` would not reach (or would), the store may differ in whether
/// it throws. It never matches a row on an overflowed value.
/// Other numeric types (`Float`, `Int32`, `UInt8` …) throw ``SwiftDataError/unsupportedPredicate``:
/// their rounding and overflow differ from SQLite's.
extension PredicateExpressions.Arithmetic: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        guard sqlArithmeticMatches(LHS.Output.self) else {
            throw t.unsupported("arithmetic on \(LHS.Output.self) (only Int, Int64 and Double compute as in Swift)")
        }
        let checked: CheckedArithmeticFunctions.Operation
        let symbol: String
        switch op {
        case .add: (checked, symbol) = (.add, "+")
        case .subtract: (checked, symbol) = (.subtract, "-")
        case .multiply: (checked, symbol) = (.multiply, "*")
        @unknown default: throw t.unsupported("an unknown arithmetic operator")
        }
        let l = try translate(lhs, t)
        let r = try translate(rhs, t)
        let sql =
            isTrappingInteger(LHS.Output.self)
            ? "\(checked.sqlName)(\(l.sql), \(r.sql))" : "(\(l.sql) \(symbol) \(r.sql))"
        return SQLFragment(sql: sql, arguments: l.arguments + r.arguments, codec: l.codec ?? r.codec)
    }
    func collect(_ leaves: inout PredicateLeaves) {
        switch op {
        case .add: leaves.note(.number(0))
        case .subtract: leaves.note(.number(1))
        case .multiply: leaves.note(.number(2))
        @unknown default: leaves.isCacheable = false  // the translation throws
        }
        if isTrappingInteger(LHS.Output.self) { leaves.hasIntegerArithmetic = true }
        collectNode(lhs, &leaves)
        collectNode(rhs, &leaves)
    }
}

/// `-a` → `osd_negate(a)` on `Int` / `Int64` (`-Int.min` traps in Swift), `(- a)` on `Double`.
extension PredicateExpressions.UnaryMinus: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        guard sqlArithmeticMatches(Wrapped.Output.self) else {
            throw t.unsupported("negation of \(Wrapped.Output.self)")
        }
        let w = try translate(wrapped, t)
        let sql =
            isTrappingInteger(Wrapped.Output.self)
            ? "\(CheckedArithmeticFunctions.Operation.negate.sqlName)(\(w.sql))" : "(- \(w.sql))"
        return SQLFragment(sql: sql, arguments: w.arguments, codec: w.codec)
    }
    func collect(_ leaves: inout PredicateLeaves) {
        if isTrappingInteger(Wrapped.Output.self) { leaves.hasIntegerArithmetic = true }
        collectNode(wrapped, &leaves)
    }
}

/// Whether a captured divisor is one SQL divides by as Swift does: nonzero, and not `-1`
/// for integers (`Int.min / -1` traps in Swift). Its answer is part of the cached shape.
func divisorIsSafe(_ divisor: Any?) -> Bool {
    switch divisor {
    case let i as Int: i != 0 && i != -1
    case let i as Int64: i != 0 && i != -1
    case let d as Double: d != 0 && d.isFinite
    default: false
    }
}

/// Translates `lhs <op> rhs` for a division whose divisor must be a safe captured value.
func division(_ lhs: Any, _ rhs: Any, _ op: String, _ outputType: Any.Type, _ t: SQLTranslation) throws -> SQLFragment {
    guard sqlArithmeticMatches(outputType) else { throw t.unsupported("\(op) on \(outputType)") }
    guard divisorIsSafe(capturedNumber(rhs)) else {
        throw t.unsupported(
            "\(op == "%" ? "%" : "/") by a column, zero or -1 (Swift traps or yields infinity where SQLite yields NULL)",
            instead: "divide by a captured nonzero constant instead"
        )
    }
    let l = try translate(lhs, t)
    let r = try translate(rhs, t)
    return SQLFragment(sql: "(\(l.sql) \(op) \(r.sql))", arguments: l.arguments + r.arguments, codec: l.codec)
}

/// Collects a division: the divisor's safety decides whether the SQL exists, so it is shape.
func collectDivision(_ lhs: Any, _ rhs: Any, _ leaves: inout PredicateLeaves) {
    leaves.note(.number(divisorIsSafe(capturedNumber(rhs)) ? 1 : 0))
    collectNode(lhs, &leaves)
    collectNode(rhs, &leaves)
}

/// `a / 3` on integers → `(a / ?)`; SQLite truncates toward zero like Swift. The divisor must be
/// a captured constant other than 0 and -1, else the fetch throws.
extension PredicateExpressions.IntDivision: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment { try division(lhs, rhs, "/", LHS.Output.self, t) }
    func collect(_ leaves: inout PredicateLeaves) { collectDivision(lhs, rhs, &leaves) }
}

/// `a % 3` → `(a % ?)`; the sign follows the dividend in both Swift and SQLite. Same divisor
/// rule as `/`.
extension PredicateExpressions.IntRemainder: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment { try division(lhs, rhs, "%", LHS.Output.self, t) }
    func collect(_ leaves: inout PredicateLeaves) { collectDivision(lhs, rhs, &leaves) }
}

/// `a / 2.5` on `Double` → `(a / ?)`; the divisor must be a captured finite nonzero constant
/// (Swift's `x / 0` is ±infinity or NaN, SQLite's NULL).
extension PredicateExpressions.FloatDivision: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment { try division(lhs, rhs, "/", LHS.Output.self, t) }
    func collect(_ leaves: inout PredicateLeaves) { collectDivision(lhs, rhs, &leaves) }
}

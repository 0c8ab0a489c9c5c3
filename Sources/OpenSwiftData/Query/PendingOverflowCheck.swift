import Foundation

/// Finds, before `Predicate.evaluate` runs on a pending model, the integer arithmetic that would
/// trap on it, and throws ``SwiftDataError/arithmeticOverflow`` instead — what the store throws
/// for a stored row (``CheckedArithmeticFunctions``).
///
/// The check walks the expression as Swift evaluates it: `&&`, `||`, `?:`, `??`, `flatMap` and
/// the closures of `contains(where:)`, `allSatisfy` and `filter` evaluate their operands only
/// when and as often as Foundation's `evaluate` does, so a model is reported only when its own
/// evaluation would trap:
/// ```swift
/// #Predicate<Item> { $0.n < 100 && $0.n + 1 > 0 }   // n == .max: no overflow, just false
/// #Predicate<Item> { $0.n + 1 > 0 }                 // n == .max: arithmeticOverflow
/// ```
/// Every other node evaluates all of its operands (found with `Mirror`). The fetch runs the
/// check only for predicates with `Int` / `Int64` arithmetic (``PredicateLeaves/hasIntegerArithmetic``).
protocol PendingOverflowCheck {
    /// Throws ``SwiftDataError/arithmeticOverflow`` when evaluating `self` with `bindings` would trap.
    func checkOverflow(_ bindings: PredicateBindings) throws
}

/// Checks any node: its own rule, or each of its operands in turn.
func checkOverflow(in expression: Any, _ bindings: PredicateBindings) throws {
    if let e = expression as? any PendingOverflowCheck {
        try e.checkOverflow(bindings)
        return
    }
    for child in Mirror(reflecting: expression).children where child.value is any PredicateExpression {
        try checkOverflow(in: child.value, bindings)
    }
}

/// Checks `predicate` for `model`.
func checkOverflow<T>(_ predicate: Predicate<T>, _ model: T) throws {
    try checkOverflow(in: predicate.expression, PredicateBindings((predicate.variable, model)))
}

/// The error for an overflowing operator, worded as the store's (``ModelContext``'s `fetchError`).
func arithmeticOverflowError(_ symbol: String, entityName: String?, sql: String? = nil) -> SwiftDataError {
    SwiftDataError(
        SwiftDataError.arithmeticOverflow.code,
        "the predicate's integer arithmetic overflows (\(symbol) on 64-bit integers) for a model: Swift traps there, so the fetch has no answer; compare before computing, or compute in Double",
        entityName: entityName, sql: sql)
}

/// Whether `op` overflows on `lhs` and `rhs` (of `lhs`'s type).
func overflows<I: FixedWidthInteger>(_ lhs: I, _ rhs: Any, _ op: PredicateExpressions.ArithmeticOperator) -> Bool {
    guard let rhs = rhs as? I else { return false }
    switch op {
    case .add: return lhs.addingReportingOverflow(rhs).overflow
    case .subtract: return lhs.subtractingReportingOverflow(rhs).overflow
    case .multiply: return lhs.multipliedReportingOverflow(by: rhs).overflow
    @unknown default: return false
    }
}

/// `a + b`, `a - b`, `a * b`: both operands, then the operation itself on fixed-width integers.
extension PredicateExpressions.Arithmetic: PendingOverflowCheck {
    func checkOverflow(_ bindings: PredicateBindings) throws {
        try OpenSwiftData.checkOverflow(in: lhs, bindings)
        try OpenSwiftData.checkOverflow(in: rhs, bindings)
        guard let l = try lhs.evaluate(bindings) as? any FixedWidthInteger else { return }
        if overflows(l, try rhs.evaluate(bindings), op) {
            let symbol =
                switch op {
                case .add: "+"
                case .subtract: "-"
                case .multiply: "*"
                @unknown default: "an arithmetic operator"
                }
            throw arithmeticOverflowError(symbol, entityName: nil)
        }
    }
}

/// `-a`: overflows for the type's minimum.
extension PredicateExpressions.UnaryMinus: PendingOverflowCheck {
    func checkOverflow(_ bindings: PredicateBindings) throws {
        try OpenSwiftData.checkOverflow(in: wrapped, bindings)
        func isMinimum<I: FixedWidthInteger>(_ i: I) -> Bool { I.isSigned && i == I.min }
        if let w = try wrapped.evaluate(bindings) as? any FixedWidthInteger, isMinimum(w) {
            throw arithmeticOverflowError("unary -", entityName: nil)
        }
    }
}

/// `a && b`: `b` only when `a` is true.
extension PredicateExpressions.Conjunction: PendingOverflowCheck {
    func checkOverflow(_ bindings: PredicateBindings) throws {
        try OpenSwiftData.checkOverflow(in: lhs, bindings)
        if try lhs.evaluate(bindings) { try OpenSwiftData.checkOverflow(in: rhs, bindings) }
    }
}

/// `a || b`: `b` only when `a` is false.
extension PredicateExpressions.Disjunction: PendingOverflowCheck {
    func checkOverflow(_ bindings: PredicateBindings) throws {
        try OpenSwiftData.checkOverflow(in: lhs, bindings)
        if try !lhs.evaluate(bindings) { try OpenSwiftData.checkOverflow(in: rhs, bindings) }
    }
}

/// `c ? a : b`: the test, then the branch it picks.
extension PredicateExpressions.Conditional: PendingOverflowCheck {
    func checkOverflow(_ bindings: PredicateBindings) throws {
        try OpenSwiftData.checkOverflow(in: test, bindings)
        try OpenSwiftData.checkOverflow(
            in: try test.evaluate(bindings) ? trueBranch as Any : falseBranch as Any, bindings)
    }
}

/// `a ?? b`: `b` only when `a` is nil.
extension PredicateExpressions.NilCoalesce: PendingOverflowCheck {
    func checkOverflow(_ bindings: PredicateBindings) throws {
        try OpenSwiftData.checkOverflow(in: lhs, bindings)
        if try lhs.evaluate(bindings) == nil { try OpenSwiftData.checkOverflow(in: rhs, bindings) }
    }
}

/// `o.flatMap { … }` (and `$0.a?.b`): the closure with its parameter bound, when `o` is not nil.
extension PredicateExpressions.OptionalFlatMap: PendingOverflowCheck {
    func checkOverflow(_ bindings: PredicateBindings) throws {
        try OpenSwiftData.checkOverflow(in: wrapped, bindings)
        if let w = try wrapped.evaluate(bindings) {
            try OpenSwiftData.checkOverflow(in: transform, bindings.binding(variable, to: w))
        }
    }
}

/// `s.contains { … }`: the closure for each element until one is true.
extension PredicateExpressions.SequenceContainsWhere: PendingOverflowCheck {
    func checkOverflow(_ bindings: PredicateBindings) throws {
        try OpenSwiftData.checkOverflow(in: sequence, bindings)
        for element in try sequence.evaluate(bindings) {
            let inner = bindings.binding(variable, to: element)
            try OpenSwiftData.checkOverflow(in: test, inner)
            if try test.evaluate(inner) { return }
        }
    }
}

/// `s.allSatisfy { … }`: the closure for each element until one is false.
extension PredicateExpressions.SequenceAllSatisfy: PendingOverflowCheck {
    func checkOverflow(_ bindings: PredicateBindings) throws {
        try OpenSwiftData.checkOverflow(in: sequence, bindings)
        for element in try sequence.evaluate(bindings) {
            let inner = bindings.binding(variable, to: element)
            try OpenSwiftData.checkOverflow(in: test, inner)
            if try !test.evaluate(inner) { return }
        }
    }
}

/// `s.filter { … }`: the closure for every element.
extension PredicateExpressions.Filter: PendingOverflowCheck {
    func checkOverflow(_ bindings: PredicateBindings) throws {
        try OpenSwiftData.checkOverflow(in: sequence, bindings)
        for element in try sequence.evaluate(bindings) {
            try OpenSwiftData.checkOverflow(in: filter, bindings.binding(variable, to: element))
        }
    }
}

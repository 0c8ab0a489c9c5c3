import Foundation

/// Sub-expressions that do not read the row — `searchText.isEmpty`, `filter.minimum`,
/// `limits.max()`, `query.lowercased()`, `base + 10` over captured values — are evaluated once
/// in Swift, through the expression's own `evaluate(_:)` with empty bindings exactly as
/// `Predicate.evaluate` would, and bound as one parameter:
/// ```sql
/// -- #Predicate<Item> { searchText.isEmpty ? true : $0.name.localizedStandardContains(searchText) }
/// CASE WHEN coalesce(?, 0) THEN ? ELSE <contains(t."name", ?)> END
/// ```
/// The value is re-evaluated on every fetch (``collectNode(_:_:)`` reads it as a leaf value),
/// so a cached statement never keeps an old `searchText`.
///
/// A sub-expression reads the row when its type contains a `PredicateExpressions.Variable`
/// (the generic type spells out the whole tree; each node type states its ``Shape`` through
/// ``FoldingShaped``, and an existential, which could hide a variable, reads the row).
/// Evaluation that would trap in Swift is not run: integer `+ - *`, `/`, `%` and unary `-` are
/// folded with overflow and zero checks (a failure throws ``SwiftDataError/unsupportedPredicate``
/// where `Predicate.evaluate` would trap; ``SwiftDataError/arithmeticOverflow`` for an
/// overflow); subscripts and range construction (`a...b` with `a > b`) are never folded — their
/// captured operands still are, and the node translates as before. An error thrown by
/// `evaluate` (a nil force unwrap, a failed cast) becomes ``SwiftDataError/unsupportedPredicate``.
enum ConstantFolding {
    /// How a sub-expression's type allows folding.
    enum Shape {
        /// It reads the row (or cannot be proven not to).
        case rowDependent
        /// It reads no row and its evaluation cannot trap.
        case safe
        /// It reads no row but contains nodes that can trap; only ``GuardedConstantExpression``s fold.
        case guarded
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var shapes: [ObjectIdentifier: Shape] = [:]

    /// The shape of an expression type (``FoldingShaped``), computed once per type.
    static func shape(of type: Any.Type) -> Shape {
        let id = ObjectIdentifier(type)
        if let known = lock.withLock({ shapes[id] }) { return known }
        let shape = directShape(of: type)
        lock.withLock { shapes[id] = shape }
        return shape
    }

    /// The value of `expression` if it is a row-independent sub-expression that folds (`nil`
    /// otherwise: a leaf `Value`/`NilLiteral`, which translate themselves, or a node that reads
    /// the row or could trap). A failed evaluation is a `.failure` with the error to throw.
    static func value(of expression: Any) -> Result<Any, SwiftDataError>? {
        if expression is CapturedPredicateValue || expression is NilLiteralExpression { return nil }
        return evaluate(expression)
    }

    /// Like ``value(of:)`` but also for leaf values: what an operand of a guarded node is.
    static func evaluate(_ expression: Any) -> Result<Any, SwiftDataError>? {
        if let v = expression as? CapturedPredicateValue { return .success(v.capturedValue) }
        switch shape(of: type(of: expression)) {
        case .rowDependent:
            return nil
        case .guarded:
            return (expression as? any GuardedConstantExpression)?.guardedValue()
        case .safe:
            guard let e = expression as? any StandardPredicateExpression else { return nil }
            func run<E: StandardPredicateExpression>(_ e: E) -> Result<Any, SwiftDataError> {
                do { return .success(try e.evaluate(PredicateBindings()) as Any) } catch {
                    return .failure(failure("evaluating \(shortTypeName(E.self)) in Swift threw \(error)"))
                }
            }
            return run(e)
        }
    }

    /// The error a failed fold throws: ``SwiftDataError/unsupportedPredicate``, or
    /// ``SwiftDataError/arithmeticOverflow`` for an overflow (as a store-side overflow throws).
    static func failure(_ what: String, overflow: Bool = false) -> SwiftDataError {
        SwiftDataError(
            overflow ? SwiftDataError.arithmeticOverflow.code : SwiftDataError.unsupportedPredicate.code,
            "a part of the predicate that reads no model could not be evaluated: \(what)")
    }
}

/// `nil` (the literal), which comparisons translate to `IS NULL` themselves.
protocol NilLiteralExpression {}
extension PredicateExpressions.NilLiteral: NilLiteralExpression {}

/// A node whose `evaluate` can trap, folded by computing it from its folded operands with the
/// trap cases checked first (``ConstantFolding``).
protocol GuardedConstantExpression {
    /// The node's value, a failure where Swift would trap, or `nil` when an operand does not fold.
    func guardedValue() -> Result<Any, SwiftDataError>?
}

/// The folded values of both operands, or `nil` / the first failure.
private func operands<T>(_ lhs: Any, _ rhs: Any, as: T.Type) -> Result<(T, T), SwiftDataError>? {
    guard let l = ConstantFolding.evaluate(lhs), let r = ConstantFolding.evaluate(rhs) else { return nil }
    return l.flatMap { a in r.map { b in (a as! T, b as! T) } }
}

/// Whether `a op b` overflows, for fixed-width integers (other numbers never trap).
private func overflows(_ a: Any, _ b: Any, _ op: (any FixedWidthInteger, Any) -> Bool) -> Bool {
    guard let a = a as? any FixedWidthInteger else { return false }
    return op(a, b)
}

extension PredicateExpressions.Arithmetic: GuardedConstantExpression {
    func guardedValue() -> Result<Any, SwiftDataError>? {
        guard let values = operands(lhs, rhs, as: Output.self) else { return nil }
        let op = self.op
        return values.flatMap { a, b in
            func check<I: FixedWidthInteger>(_ a: I, _ b: Any) -> Bool {
                let b = b as! I
                switch op {
                case .add: return a.addingReportingOverflow(b).overflow
                case .subtract: return a.subtractingReportingOverflow(b).overflow
                case .multiply: return a.multipliedReportingOverflow(by: b).overflow
                @unknown default: return true
                }
            }
            if overflows(a, b, { check($0, $1) }) {
                return .failure(
                    ConstantFolding.failure("integer overflow in \(a) \(op) \(b) (Swift traps)", overflow: true))
            }
            switch op {
            case .add: return .success(a + b)
            case .subtract: return .success(a - b)
            case .multiply: return .success(a * b)
            @unknown default: return .failure(ConstantFolding.failure("an unknown arithmetic operator"))
            }
        }
    }
}

extension PredicateExpressions.IntDivision: GuardedConstantExpression {
    func guardedValue() -> Result<Any, SwiftDataError>? {
        guard let values = operands(lhs, rhs, as: Output.self) else { return nil }
        return values.flatMap { a, b in
            func check<I: FixedWidthInteger>(_ a: I, _ b: Any) -> Bool {
                a.dividedReportingOverflow(by: b as! I).overflow
            }
            if b == 0 || overflows(a, b, { check($0, $1) }) {
                return .failure(ConstantFolding.failure("\(a) / \(b) traps in Swift"))
            }
            return .success(a / b)
        }
    }
}

extension PredicateExpressions.IntRemainder: GuardedConstantExpression {
    func guardedValue() -> Result<Any, SwiftDataError>? {
        guard let values = operands(lhs, rhs, as: Output.self) else { return nil }
        return values.flatMap { a, b in
            func check<I: FixedWidthInteger>(_ a: I, _ b: Any) -> Bool {
                a.remainderReportingOverflow(dividingBy: b as! I).overflow
            }
            if b == 0 || overflows(a, b, { check($0, $1) }) {
                return .failure(ConstantFolding.failure("\(a) % \(b) traps in Swift"))
            }
            return .success(a % b)
        }
    }
}

extension PredicateExpressions.UnaryMinus: GuardedConstantExpression {
    func guardedValue() -> Result<Any, SwiftDataError>? {
        guard let value = ConstantFolding.evaluate(wrapped) else { return nil }
        return value.flatMap { a in
            let a = a as! Output
            func check<I: FixedWidthInteger>(_ a: I, _ b: Any) -> Bool {
                I.zero.subtractingReportingOverflow(a).overflow
            }
            if overflows(a, a, { check($0, $1) }) {
                return .failure(ConstantFolding.failure("-(\(a)) overflows (Swift traps)", overflow: true))
            }
            return .success(-a)
        }
    }
}

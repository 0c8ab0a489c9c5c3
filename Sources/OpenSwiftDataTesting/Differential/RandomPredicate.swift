import Foundation
import OpenSwiftData

/// A typed piece of a predicate over `Root` that produces `Value`, with the Swift source it
/// stands for.
///
/// Terms are built from Foundation's own `PredicateExpressions.build_…` functions — the ones
/// `#Predicate` expands to — so a random predicate has exactly the expression types a
/// hand-written `#Predicate` would have.
/// ```swift
/// let price = PredicateTerm<CatalogueProduct, Double>.keyPath("price", \.price)
/// price.source("$0")   // "$0.price"
/// ```
package struct PredicateTerm<Root, Value> {
    /// The Swift source of the term, given the name of the row variable (`$0`, `$1`…).
    package let source: (String) -> String
    /// Builds the expression over the given row variable.
    package let build: (PredicateExpressions.Variable<Root>) -> any StandardPredicateExpression<Value>

    /// A term from its source renderer and expression builder.
    package init(
        source: @escaping (String) -> String,
        build: @escaping (PredicateExpressions.Variable<Root>) -> any StandardPredicateExpression<Value>
    ) {
        self.source = source
        self.build = build
    }
}

extension PredicateTerm where Value: Codable & Sendable {
    /// A captured constant: `build_Arg(value)`.
    package static func constant(_ value: Value) -> PredicateTerm {
        PredicateTerm(source: { _ in swiftLiteral(value) }, build: { _ in PredicateExpressions.build_Arg(value) })
    }
}

extension PredicateTerm {
    /// A stored attribute or relationship of the row: `$0.name`.
    package static func keyPath(_ name: String, _ keyPath: KeyPath<Root, Value> & Sendable) -> PredicateTerm {
        PredicateTerm(
            source: { "\($0).\(name)" },
            build: { v in PredicateExpressions.build_KeyPath(root: v, keyPath: keyPath) })
    }
}

/// A random boolean predicate over `Root`: the boolean structure (`!`, `&&`, `||`, `?:`) over
/// leaf conditions, which the differential checks run through SQL and through
/// `Predicate.evaluate`.
///
/// ```swift
/// let p: RandomPredicate<CatalogueProduct> = .and(.leaf(…), .not(.leaf(…)))
/// let rows = try context.fetch(FetchDescriptor(predicate: p.predicate))
/// print(p.source)   // "$0.price > 12.5 && !($0.name.contains("ab"))"
/// ```
package indirect enum RandomPredicate<Root> {
    /// A leaf condition (a comparison, a string match, a relationship test…).
    case leaf(PredicateTerm<Root, Bool>)
    /// `true` or `false` as a captured constant.
    case constant(Bool)
    /// `!p`.
    case not(RandomPredicate)
    /// `p && q`.
    case and(RandomPredicate, RandomPredicate)
    /// `p || q`.
    case or(RandomPredicate, RandomPredicate)
    /// `c ? p : q`.
    case conditional(RandomPredicate, RandomPredicate, RandomPredicate)

    /// The Foundation predicate.
    package var predicate: Predicate<Root> {
        Predicate<Root> { v in self.expression(v) }
    }

    /// The predicate `!self`, built the way `#Predicate { !(…) }` builds it.
    package var negated: Predicate<Root> { RandomPredicate.not(self).predicate }

    /// The Swift source of the closure body over `$0`.
    package var source: String { source("$0") }

    /// The Swift source with `variable` as the row's name.
    package func source(_ variable: String) -> String {
        switch self {
        case .leaf(let t): return t.source(variable)
        case .constant(let b): return b ? "true" : "false"
        case .not(let p): return "!(\(p.source(variable)))"
        case .and(let l, let r): return "(\(l.source(variable)) && \(r.source(variable)))"
        case .or(let l, let r): return "(\(l.source(variable)) || \(r.source(variable)))"
        case .conditional(let c, let t, let f):
            return "(\(c.source(variable)) ? \(t.source(variable)) : \(f.source(variable)))"
        }
    }

    /// The expression over the row variable `v`.
    package func expression(_ v: PredicateExpressions.Variable<Root>) -> any StandardPredicateExpression<Bool> {
        switch self {
        case .leaf(let t): return t.build(v)
        case .constant(let b): return PredicateExpressions.build_Arg(b)
        case .not(let p): return ExpressionBuilder.not(p.expression(v))
        case .and(let l, let r): return ExpressionBuilder.and(l.expression(v), r.expression(v))
        case .or(let l, let r): return ExpressionBuilder.or(l.expression(v), r.expression(v))
        case .conditional(let c, let t, let f):
            return ExpressionBuilder.conditional(c.expression(v), t.expression(v), f.expression(v))
        }
    }

    /// Nesting depth of the boolean structure; a leaf is 1. A chain of one operator
    /// (`a && b && c`, however grouped) is one level, as its SQL is one list (Logic.swift).
    package var depth: Int {
        switch self {
        case .leaf, .constant: return 1
        case .not(let p): return 1 + p.depth
        case .and, .or: return 1 + chainOperands.map(\.depth).max()!
        case .conditional(let c, let t, let f): return 1 + max(c.depth, t.depth, f.depth)
        }
    }

    /// The operands of the chain of `&&` (or `||`) this node heads, however it is grouped:
    /// `(a && b) && (c || d)` → `[a, b, c || d]`; `[self]` for any other node.
    var chainOperands: [RandomPredicate] {
        switch self {
        case .and(let l, let r):
            return [l, r].flatMap { if case .and = $0 { $0.chainOperands } else { [$0] } }
        case .or(let l, let r):
            return [l, r].flatMap { if case .or = $0 { $0.chainOperands } else { [$0] } }
        default:
            return [self]
        }
    }

    /// Number of nodes; the shrinker makes it smaller.
    package var size: Int {
        switch self {
        case .leaf, .constant: return 1
        case .not(let p): return 1 + p.size
        case .and(let l, let r), .or(let l, let r): return 1 + l.size + r.size
        case .conditional(let c, let t, let f): return 1 + c.size + t.size + f.size
        }
    }

    /// Strictly smaller predicates to try when shrinking a mismatch: each child alone, then
    /// each child shrunk in place, then leaves replaced by constants.
    package var shrinkCandidates: [RandomPredicate] {
        switch self {
        case .leaf: return [.constant(true), .constant(false)]
        case .constant: return []
        case .not(let p): return [p] + p.shrinkCandidates.map { .not($0) }
        case .and(let l, let r):
            return [l, r] + l.shrinkCandidates.map { .and($0, r) } + r.shrinkCandidates.map { .and(l, $0) }
        case .or(let l, let r):
            return [l, r] + l.shrinkCandidates.map { .or($0, r) } + r.shrinkCandidates.map { .or(l, $0) }
        case .conditional(let c, let t, let f):
            return [t, f, c] + c.shrinkCandidates.map { .conditional($0, t, f) }
                + t.shrinkCandidates.map { .conditional(c, $0, f) } + f.shrinkCandidates.map { .conditional(c, t, $0) }
        }
    }
}

/// Generic wrappers over Foundation's `build_…` functions that take existential operands: each
/// call opens its arguments (SE-0352), so the expression built has concrete nested types.
package enum ExpressionBuilder {
    /// An expression of the predicate's standard kind whose value is a `V`.
    package typealias E<V> = any StandardPredicateExpression<V>

    static func not<P: StandardPredicateExpression<Bool>>(_ p: P) -> E<Bool> { PredicateExpressions.build_Negation(p) }

    /// `l && r`.
    package static func and<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(_ l: L, _ r: R)
        -> E<
            Bool
        >
    {
        PredicateExpressions.build_Conjunction(lhs: l, rhs: r)
    }

    /// `l || r`.
    package static func or<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(_ l: L, _ r: R)
        -> E<
            Bool
        >
    {
        PredicateExpressions.build_Disjunction(lhs: l, rhs: r)
    }

    static func conditional<
        C: StandardPredicateExpression<Bool>, T: StandardPredicateExpression<V>, F: StandardPredicateExpression<V>, V
    >(
        _ c: C, _ t: T, _ f: F
    ) -> E<V> {
        PredicateExpressions.build_Conditional(c, t, f)
    }

    /// `l == r`.
    package static func equal<L: StandardPredicateExpression<V>, R: StandardPredicateExpression<V>, V: Equatable>(
        _ l: L, _ r: R
    ) -> E<Bool> {
        PredicateExpressions.build_Equal(lhs: l, rhs: r)
    }

    /// `l != r`.
    package static func notEqual<L: StandardPredicateExpression<V>, R: StandardPredicateExpression<V>, V: Equatable>(
        _ l: L, _ r: R
    ) -> E<Bool> {
        PredicateExpressions.build_NotEqual(lhs: l, rhs: r)
    }

    /// `l op r` for a comparison operator (`<`, `<=`, `>`, `>=`).
    package static func compare<L: StandardPredicateExpression<V>, R: StandardPredicateExpression<V>, V: Comparable>(
        _ l: L, _ r: R, _ op: PredicateExpressions.ComparisonOperator
    ) -> E<Bool> {
        PredicateExpressions.build_Comparison(lhs: l, rhs: r, op: op)
    }

    static func arithmetic<L: StandardPredicateExpression<V>, R: StandardPredicateExpression<V>, V: Numeric>(
        _ l: L, _ r: R, _ op: PredicateExpressions.ArithmeticOperator
    ) -> E<V> {
        PredicateExpressions.build_Arithmetic(lhs: l, rhs: r, op: op)
    }

    static func divideDouble<L: StandardPredicateExpression<Double>, R: StandardPredicateExpression<Double>>(
        _ l: L, _ r: R
    ) -> E<Double> {
        PredicateExpressions.build_Division(lhs: l, rhs: r)
    }

    static func negate<T: StandardPredicateExpression<V>, V: SignedNumeric>(_ t: T) -> E<V> {
        PredicateExpressions.build_UnaryMinus(t)
    }

    static func localizedStandardContains<
        S: StandardPredicateExpression<String>, T: StandardPredicateExpression<String>
    >(_ s: S, _ t: T) -> E<Bool> {
        PredicateExpressions.build_localizedStandardContains(s, t)
    }

    static func divide<L: StandardPredicateExpression<Int>, R: StandardPredicateExpression<Int>>(_ l: L, _ r: R) -> E<
        Int
    > {
        PredicateExpressions.build_Division(lhs: l, rhs: r)
    }

    static func remainder<L: StandardPredicateExpression<Int>, R: StandardPredicateExpression<Int>>(_ l: L, _ r: R)
        -> E<Int>
    {
        PredicateExpressions.build_Remainder(lhs: l, rhs: r)
    }

    static func coalesce<L: StandardPredicateExpression<V?>, R: StandardPredicateExpression<V>, V>(_ l: L, _ r: R) -> E<
        V
    > {
        PredicateExpressions.build_NilCoalesce(lhs: l, rhs: r)
    }

    static func keyPath<R: StandardPredicateExpression<Root>, Root, V>(
        _ root: R, _ keyPath: KeyPath<Root, V> & Sendable
    ) -> E<V> {
        PredicateExpressions.build_KeyPath(root: root, keyPath: keyPath)
    }

    static func contains<S: StandardPredicateExpression<String>, T: StandardPredicateExpression<String>>(_ s: S, _ t: T)
        -> E<Bool>
    {
        PredicateExpressions.build_contains(s, t)
    }

    static func starts<S: StandardPredicateExpression<String>, T: StandardPredicateExpression<String>>(_ s: S, _ t: T)
        -> E<Bool>
    {
        PredicateExpressions.build_starts(s, with: t)
    }

    static func arrayContains<S: StandardPredicateExpression<[V]>, T: StandardPredicateExpression<V>, V: Equatable>(
        _ s: S, _ t: T
    ) -> E<Bool> {
        PredicateExpressions.build_contains(s, t)
    }

    static func closedRangeContains<
        L: StandardPredicateExpression<V>, U: StandardPredicateExpression<V>, T: StandardPredicateExpression<V>,
        V: Comparable
    >(
        _ lower: L, _ upper: U, _ t: T
    ) -> E<Bool> {
        PredicateExpressions.build_contains(PredicateExpressions.build_ClosedRange(lower: lower, upper: upper), t)
    }

    static func rangeContains<
        L: StandardPredicateExpression<V>, U: StandardPredicateExpression<V>, T: StandardPredicateExpression<V>,
        V: Comparable
    >(
        _ lower: L, _ upper: U, _ t: T
    ) -> E<Bool> {
        PredicateExpressions.build_contains(PredicateExpressions.build_Range(lower: lower, upper: upper), t)
    }

    /// `optional.flatMap { transform($0) }` — what `$0.a?.b` expands to.
    static func flatMap<O: StandardPredicateExpression<W?>, W, Probe: StandardPredicateExpression<R>, R>(
        _ optional: O, probe: Probe, _ transform: @escaping (PredicateExpressions.Variable<W>) -> E<R>
    ) -> E<R?> {
        PredicateExpressions.build_flatMap(optional) { w in transform(w) as! Probe }
    }

    /// `sequence.contains { test($0) }`.
    static func containsWhere<S: StandardPredicateExpression<[W]>, W, Probe: StandardPredicateExpression<Bool>>(
        _ sequence: S, probe: Probe, _ test: @escaping (PredicateExpressions.Variable<W>) -> E<Bool>
    ) -> E<Bool> {
        PredicateExpressions.build_contains(sequence, where: { w in test(w) as! Probe })
    }

    /// `sequence.allSatisfy { test($0) }`.
    static func allSatisfy<S: StandardPredicateExpression<[W]>, W, Probe: StandardPredicateExpression<Bool>>(
        _ sequence: S, probe: Probe, _ test: @escaping (PredicateExpressions.Variable<W>) -> E<Bool>
    ) -> E<Bool> {
        PredicateExpressions.build_allSatisfy(sequence, { w in test(w) as! Probe })
    }

    /// `sequence.filter { test($0) }.count`.
    static func filterCount<S: StandardPredicateExpression<[W]>, W, Probe: StandardPredicateExpression<Bool>>(
        _ sequence: S, probe: Probe, _ test: @escaping (PredicateExpressions.Variable<W>) -> E<Bool>
    ) -> E<Int> {
        PredicateExpressions.build_KeyPath(
            root: PredicateExpressions.build_filter(sequence, { w in test(w) as! Probe }),
            keyPath: \[W].count)
    }

    /// `$0 is Sub`.
    static func isType<R: StandardPredicateExpression<Root>, Root, Sub>(_ root: R, _ sub: Sub.Type) -> E<Bool> {
        PredicateExpressions.TypeCheck<R, Sub>(root)
    }

    /// `$0 as? Sub`.
    static func cast<R: StandardPredicateExpression<Root>, Root, Sub>(_ root: R, _ sub: Sub.Type) -> E<Sub?> {
        PredicateExpressions.ConditionalCast<R, Sub>(root)
    }
}

/// The Swift literal for a captured constant, for mismatch reports.
func swiftLiteral<V>(_ value: V) -> String {
    switch value {
    case let s as String: return String(reflecting: s)
    case let d as Date: return "Date(timeIntervalSinceReferenceDate: \(d.timeIntervalSinceReferenceDate))"
    case let d as Decimal: return "Decimal(string: \(String(reflecting: d.description)))!"
    case let o as any OptionalProtocolForLiteral: return o.literal
    case let a as [String]: return "[" + a.map { String(reflecting: $0) }.joined(separator: ", ") + "]"
    default: return "\(value)"
    }
}

/// Lets ``swiftLiteral(_:)`` print `nil` and unwrap optionals.
protocol OptionalProtocolForLiteral { var literal: String { get } }
extension Optional: OptionalProtocolForLiteral {
    var literal: String {
        switch self {
        case .none: return "nil"
        case .some(let w): return swiftLiteral(w)
        }
    }
}

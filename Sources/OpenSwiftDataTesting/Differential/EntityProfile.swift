import Foundation
import OpenSwiftData

/// The stored rows of every entity of a dataset, as Swift objects: the reference the
/// differential checks evaluate predicates on.
package final class ReferenceRows {
    private var rowsByType: [ObjectIdentifier: [any PersistentModel]] = [:]

    /// An empty set of rows.
    package init() {}

    /// Records `rows` as every row of `type`.
    package func set<T: PersistentModel>(_ type: T.Type, _ rows: [T]) { rowsByType[ObjectIdentifier(type)] = rows }

    /// Whether the rows of `type` have been recorded (possibly none).
    package func contains<T: PersistentModel>(_ type: T.Type) -> Bool { rowsByType[ObjectIdentifier(type)] != nil }

    /// Every row of `type` (subclasses included when `type` is a base class).
    package func rows<T: PersistentModel>(_ type: T.Type) -> [T] {
        (rowsByType[ObjectIdentifier(type)] ?? []).compactMap { $0 as? T }
    }
}

/// What the generator may use while making a leaf.
struct LeafInputs<Root: PersistentModel> {
    /// The rows constants are drawn from.
    let rows: [Root]
    /// The remaining depth for nested predicates (`contains(where:)`).
    let depth: Int
    /// Every row of every entity, for nested predicates' constants.
    let universe: ReferenceRows
    /// The row variable's index (0 for `$0`), so nested closures print `$1`, `$2`.
    let level: Int
}

/// One way of making a random leaf over `Root`.
struct LeafMaker<Root: PersistentModel> {
    let weight: Int
    let make: (inout SeededGenerator, LeafInputs<Root>) -> PredicateTerm<Root, Bool>?
}

/// A sort key the generator may put in a `FetchDescriptor`.
package struct SortOption<Root> {
    /// The key path's name, for reports.
    package let name: String
    /// The descriptor in the given order.
    package let make: (SortOrder) -> SortDescriptor<Root>

    /// A sort option.
    package init(_ name: String, _ make: @escaping (SortOrder) -> SortDescriptor<Root>) {
        self.name = name
        self.make = make
    }
}

/// What the differential generator knows about one entity: the leaves it can make over it
/// (attributes, optionals, to-one chains, to-many collections, type checks) and its sort keys.
///
/// ```swift
/// let profile = EntityProfile<CatalogueProduct>.catalogueProduct
/// var random = SeededGenerator(seed: 7)
/// let p = profile.randomPredicate(depth: 4, rows: products, universe: rows, using: &random)
/// ```
package final class EntityProfile<Root: PersistentModel> {
    /// The entity's name.
    package let name: String
    let makers: [LeafMaker<Root>]
    /// The sort keys the generator may use.
    package let sorts: [SortOption<Root>]

    init(_ name: String, sorts: [SortOption<Root>], _ makers: [LeafMaker<Root>]) {
        self.name = name
        self.sorts = sorts
        self.makers = makers
    }

    /// A random predicate of at most `depth` levels whose constants come from `rows`.
    package func randomPredicate(
        depth: Int, rows: [Root], universe: ReferenceRows,
        using random: inout SeededGenerator
    ) -> RandomPredicate<Root> {
        node(depth: depth, LeafInputs(rows: rows, depth: depth, universe: universe, level: 0), &random)
    }

    func node(depth: Int, _ inputs: LeafInputs<Root>, _ random: inout SeededGenerator) -> RandomPredicate<Root> {
        // Now and then the whole predicate is one long chain, which the translation merges.
        if inputs.level == 0, depth == inputs.depth, depth > 1, random.chance(0.02) { return chain(inputs, &random) }
        if depth <= 1 || random.chance(0.3) { return leaf(inputs, &random) }
        switch random.below(10) {
        case 0, 1: return .not(node(depth: depth - 1, inputs, &random))
        case 2, 3, 4, 5: return .and(node(depth: depth - 1, inputs, &random), node(depth: depth - 1, inputs, &random))
        case 6, 7, 8: return .or(node(depth: depth - 1, inputs, &random), node(depth: depth - 1, inputs, &random))
        default:
            return .conditional(
                node(depth: depth - 1, inputs, &random), node(depth: depth - 1, inputs, &random),
                node(depth: depth - 1, inputs, &random))
        }
    }

    /// `l1 && l2 && …` or `l1 || l2 || …` over 6–30 leaves (a few written `!!l`), grouped to
    /// the left as `#Predicate` writes a chain, or to the right: SQL merges either into one
    /// `AND` / `OR` list and cancels `!!` (Logic.swift), where nesting each operator would
    /// overflow SQLite's parser after about 30 operands.
    func chain(_ inputs: LeafInputs<Root>, _ random: inout SeededGenerator) -> RandomPredicate<Root> {
        let isAnd = random.chance(0.5)
        let leftGrouped = random.chance(0.7)
        var operands: [RandomPredicate<Root>] = []
        for _ in 0..<(6 + random.below(25)) {
            let l = leaf(inputs, &random)
            operands.append(random.chance(0.1) ? .not(.not(l)) : l)
        }
        func join(_ a: RandomPredicate<Root>, _ b: RandomPredicate<Root>) -> RandomPredicate<Root> {
            isAnd ? .and(a, b) : .or(a, b)
        }
        if leftGrouped { return operands.dropFirst().reduce(operands[0], join) }
        return operands.dropLast().reversed().reduce(operands[operands.count - 1]) { join($1, $0) }
    }

    func leaf(_ inputs: LeafInputs<Root>, _ random: inout SeededGenerator) -> RandomPredicate<Root> {
        if random.chance(0.02) { return .constant(random.chance(0.5)) }
        let total = makers.reduce(0) { $0 + $1.weight }
        for _ in 0..<8 {
            var pick = random.below(total)
            for m in makers {
                if pick < m.weight {
                    if let term = m.make(&random, inputs) { return .leaf(term) }
                    break
                }
                pick -= m.weight
            }
        }
        return .constant(random.chance(0.5))
    }
}

// MARK: - Leaf makers

/// A captured filter, as a view model holds one: predicates read its properties
/// (`filter.text`), which the store evaluates in Swift before binding.
struct CapturedFilter: Codable, Sendable {
    var text: String
}

extension LeafMaker {
    static var operators: [String] { ["==", "!=", "<", "<=", ">", ">="] }

    /// `l op r` for a comparison operator index into ``operators``.
    static func compare<V: Comparable>(_ l: PredicateTerm<Root, V>, _ op: Int, _ r: PredicateTerm<Root, V>)
        -> PredicateTerm<Root, Bool>
    {
        PredicateTerm(
            source: { "\(l.source($0)) \(operators[op]) \(r.source($0))" },
            build: { v in
                switch op {
                case 0: return ExpressionBuilder.equal(l.build(v), r.build(v))
                case 1: return ExpressionBuilder.notEqual(l.build(v), r.build(v))
                case 2: return ExpressionBuilder.compare(l.build(v), r.build(v), .lessThan)
                case 3: return ExpressionBuilder.compare(l.build(v), r.build(v), .lessThanOrEqual)
                case 4: return ExpressionBuilder.compare(l.build(v), r.build(v), .greaterThan)
                default: return ExpressionBuilder.compare(l.build(v), r.build(v), .greaterThanOrEqual)
                }
            })
    }

    /// `l == r` or `l != r` for equatable-only values.
    static func equality<V: Equatable>(_ l: PredicateTerm<Root, V>, _ equal: Bool, _ r: PredicateTerm<Root, V>)
        -> PredicateTerm<Root, Bool>
    {
        PredicateTerm(
            source: { "\(l.source($0)) \(equal ? "==" : "!=") \(r.source($0))" },
            build: { v in
                equal
                    ? ExpressionBuilder.equal(l.build(v), r.build(v))
                    : ExpressionBuilder.notEqual(l.build(v), r.build(v))
            })
    }

    /// A value of some row, trying a few rows for a non-nil one.
    static func sample<V>(_ rows: [Root], _ random: inout SeededGenerator, _ get: (Root) -> V?) -> V? {
        guard !rows.isEmpty else { return nil }
        for _ in 0..<4 { if let v = get(rows[random.below(rows.count)]) { return v } }
        return nil
    }

    /// Comparisons, captured-array membership and range membership on a stored attribute.
    static func comparable<V: DifferentialValue>(
        _ name: String, _ keyPath: KeyPath<Root, V> & Sendable, weight: Int = 3
    ) -> LeafMaker {
        LeafMaker(weight: weight) { random, inputs in
            guard let v0 = sample(inputs.rows, &random, { $0[keyPath: keyPath] }) else { return nil }
            let c = V.variant(of: v0, using: &random)
            let lhs = PredicateTerm<Root, V>.keyPath(name, keyPath)
            switch random.below(9) {
            case 0..<6: return compare(lhs, random.below(6), .constant(c))
            case 6:
                var values: [V] = []
                for _ in 0..<random.below(4) {
                    if let v = sample(inputs.rows, &random, { $0[keyPath: keyPath] }) {
                        values.append(V.variant(of: v, using: &random))
                    }
                }
                let captured = values
                return PredicateTerm(
                    source: { "\(swiftLiteral(captured)).contains(\(lhs.source($0)))" },
                    build: { v in
                        ExpressionBuilder.arrayContains(PredicateExpressions.build_Arg(captured), lhs.build(v))
                    })
            default:
                let c2 =
                    sample(inputs.rows, &random, { $0[keyPath: keyPath] }).map { V.variant(of: $0, using: &random) }
                    ?? c
                let (lo, hi) = (Swift.min(c, c2), Swift.max(c, c2))
                if random.chance(0.5) {
                    return PredicateTerm(
                        source: { "(\(swiftLiteral(lo))...\(swiftLiteral(hi))).contains(\(lhs.source($0)))" },
                        build: { v in
                            ExpressionBuilder.closedRangeContains(
                                PredicateExpressions.build_Arg(lo), PredicateExpressions.build_Arg(hi), lhs.build(v))
                        })
                }
                return PredicateTerm(
                    source: { "(\(swiftLiteral(lo))..<\(swiftLiteral(hi))).contains(\(lhs.source($0)))" },
                    build: { v in
                        ExpressionBuilder.rangeContains(
                            PredicateExpressions.build_Arg(lo), PredicateExpressions.build_Arg(hi), lhs.build(v))
                    })
            }
        }
    }

    /// Arithmetic (`+ - *`, and `/ %` by a constant for integers) and `?:` on a numeric
    /// attribute, compared with a constant.
    static func numeric<V: DifferentialNumber>(_ name: String, _ keyPath: KeyPath<Root, V> & Sendable, weight: Int = 2)
        -> LeafMaker
    {
        LeafMaker(weight: weight) { random, inputs in
            guard let v0 = sample(inputs.rows, &random, { $0[keyPath: keyPath] }) else { return nil }
            let x = PredicateTerm<Root, V>.keyPath(name, keyPath)
            let k = V.smallOperand(using: &random)
            let lhs: PredicateTerm<Root, V>
            let shifted: V
            switch random.below(6) {
            case 0:
                lhs = arithmetic(x, "+", .add, k)
                shifted = v0 + k
            case 1:
                lhs = arithmetic(x, "-", .subtract, k)
                shifted = v0 - k
            case 2:
                lhs = arithmetic(x, "*", .multiply, k)
                shifted = v0 * k
            case 3 where V.self == Double.self && random.chance(0.5):
                // Double division by a non-zero constant (FloatDivision)
                let xd = x as! PredicateTerm<Root, Double>
                let kd = k as! Double
                let vd = v0 as! Double
                lhs =
                    PredicateTerm<Root, Double>(
                        source: { "\(xd.source($0)) / \(kd)" },
                        build: { v in
                            ExpressionBuilder.divideDouble(xd.build(v), PredicateExpressions.build_Arg(kd))
                        }) as! PredicateTerm<Root, V>
                shifted = (vd / kd) as! V
            case 3 where random.chance(0.3):
                lhs = PredicateTerm(
                    source: { "-\(x.source($0))" }, build: { v in ExpressionBuilder.negate(x.build(v)) })
                shifted = -v0
            case 3 where V.self == Int.self:
                // SQLite cannot mirror Swift's trap for Int.min / -1, so the library refuses -1
                // (and zero) as a divisor; the generator uses the divisors it accepts.
                let xi = x as! PredicateTerm<Root, Int>
                let ki = [2, 3, 4, 5, -2, -3][random.below(6)]
                let vi = v0 as! Int
                let div = random.chance(0.5)
                lhs =
                    PredicateTerm<Root, Int>(
                        source: { "\(xi.source($0)) \(div ? "/" : "%") \(ki)" },
                        build: { v in
                            div
                                ? ExpressionBuilder.divide(xi.build(v), PredicateExpressions.build_Arg(ki))
                                : ExpressionBuilder.remainder(xi.build(v), PredicateExpressions.build_Arg(ki))
                        }) as! PredicateTerm<Root, V>
                shifted = (div ? vi / ki : vi % ki) as! V
            default:
                // (x > v0 ? x : k) — a conditional value
                let pivot = V.variant(of: v0, using: &random)
                let test = compare(x, 4, .constant(pivot))
                let other = PredicateTerm<Root, V>.constant(k)
                lhs = PredicateTerm(
                    source: { "(\(test.source($0)) ? \(x.source($0)) : \(other.source($0)))" },
                    build: { v in
                        ExpressionBuilder.conditional(test.build(v), x.build(v), other.build(v))
                    })
                shifted = v0 > pivot ? v0 : k
            }
            return compare(lhs, random.below(6), .constant(V.variant(of: shifted, using: &random)))
        }
    }

    static func arithmetic<V: Numeric & Codable & Sendable>(
        _ x: PredicateTerm<Root, V>, _ symbol: String,
        _ op: PredicateExpressions.ArithmeticOperator, _ k: V
    ) -> PredicateTerm<Root, V> {
        PredicateTerm(
            source: { "\(x.source($0)) \(symbol) \(swiftLiteral(k))" },
            build: { v in
                ExpressionBuilder.arithmetic(x.build(v), PredicateExpressions.build_Arg(k), op)
            })
    }

    /// `contains`, `starts(with:)`, equality and ordering on a string attribute.
    static func string(_ name: String, _ keyPath: KeyPath<Root, String> & Sendable, weight: Int = 4) -> LeafMaker {
        LeafMaker(weight: weight) { random, inputs in
            guard let v0 = sample(inputs.rows, &random, { $0[keyPath: keyPath] }) else { return nil }
            let c = String.variant(of: v0, using: &random)
            let x = PredicateTerm<Root, String>.keyPath(name, keyPath)
            if random.chance(0.15) { return capturedSearch(x, c, &random) }
            return stringTest(x, c, &random)
        }
    }

    static func stringTest(_ s: PredicateTerm<Root, String>, _ c: String, _ random: inout SeededGenerator)
        -> PredicateTerm<Root, Bool>
    {
        let constant = PredicateTerm<Root, String>.constant(c)
        switch random.below(6) {
        case 0, 1:
            return PredicateTerm(
                source: { "\(s.source($0)).contains(\(swiftLiteral(c)))" },
                build: { v in
                    ExpressionBuilder.contains(s.build(v), constant.build(v))
                })
        case 2, 3:
            return PredicateTerm(
                source: { "\(s.source($0)).starts(with: \(swiftLiteral(c)))" },
                build: { v in
                    ExpressionBuilder.starts(s.build(v), constant.build(v))
                })
        case 4 where random.chance(0.3):
            return PredicateTerm(
                source: { "\(s.source($0)).localizedStandardContains(\(swiftLiteral(c)))" },
                build: { v in
                    ExpressionBuilder.localizedStandardContains(s.build(v), constant.build(v))
                })
        default:
            return compare(s, random.below(6), constant)
        }
    }

    /// The search-box shape, with a test that reads no row (evaluated in Swift, then bound):
    /// `(searchText.isEmpty ? true : $0.name.localizedStandardContains(searchText))`, the
    /// search text captured directly or read from a captured struct (`filter.text`), empty or not.
    static func capturedSearch(_ s: PredicateTerm<Root, String>, _ c: String, _ random: inout SeededGenerator)
        -> PredicateTerm<Root, Bool>
    {
        let search = random.chance(0.4) ? "" : c
        let filter = CapturedFilter(text: search)
        let viaStruct = random.chance(0.5)
        let whenEmpty = random.chance(0.7)
        let test = random.below(4)
        let text = viaStruct ? "CapturedFilter(text: \(swiftLiteral(search))).text" : swiftLiteral(search)
        let method = ["contains", "starts(with:", "localizedStandardContains", "=="][test]
        return PredicateTerm(
            source: { v in
                let match =
                    test == 3
                    ? "\(s.source(v)) == \(text)"
                    : "\(s.source(v)).\(method.hasSuffix(":") ? method + " " : method + "(")\(text))"
                return "(\(text).isEmpty ? \(whenEmpty) : \(match))"
            },
            build: { v in
                func captured() -> any StandardPredicateExpression<String> {
                    viaStruct
                        ? ExpressionBuilder.keyPath(PredicateExpressions.build_Arg(filter), \CapturedFilter.text)
                        : PredicateExpressions.build_Arg(search)
                }
                let isEmpty = ExpressionBuilder.keyPath(captured(), \String.isEmpty)
                let match: any StandardPredicateExpression<Bool>
                switch test {
                case 0: match = ExpressionBuilder.contains(s.build(v), captured())
                case 1: match = ExpressionBuilder.starts(s.build(v), captured())
                case 2: match = ExpressionBuilder.localizedStandardContains(s.build(v), captured())
                default: match = ExpressionBuilder.equal(s.build(v), captured())
                }
                return ExpressionBuilder.conditional(isEmpty, PredicateExpressions.build_Arg(whenEmpty), match)
            })
    }

    /// `==`, `!=` and captured-array membership on an equatable-only attribute (UUIDs).
    static func equatable<V: Equatable & Codable & Sendable>(
        _ name: String, _ keyPath: KeyPath<Root, V> & Sendable,
        other: V, weight: Int = 1
    ) -> LeafMaker {
        LeafMaker(weight: weight) { random, inputs in
            let x = PredicateTerm<Root, V>.keyPath(name, keyPath)
            let c = random.chance(0.8) ? sample(inputs.rows, &random, { $0[keyPath: keyPath] }) ?? other : other
            if random.chance(0.7) { return equality(x, random.chance(0.7), .constant(c)) }
            var values: [V] = [other]
            for _ in 0..<random.below(3) {
                if let v = sample(inputs.rows, &random, { $0[keyPath: keyPath] }) { values.append(v) }
            }
            let captured = values
            return PredicateTerm(
                source: { "\(captured).contains(\(x.source($0)))" },
                build: { v in
                    ExpressionBuilder.arrayContains(PredicateExpressions.build_Arg(captured), x.build(v))
                })
        }
    }

    /// `$0.persistentModelID == id` (or `!=`) for the identifier of some row.
    static func identity(weight: Int = 1) -> LeafMaker {
        LeafMaker(weight: weight) { random, inputs in
            guard let id = sample(inputs.rows, &random, { $0.persistentModelID }) else { return nil }
            let x = PredicateTerm<Root, PersistentIdentifier>(
                source: { "\($0).persistentModelID" },
                build: { v in
                    ExpressionBuilder.keyPath(v, \Root.persistentModelID)
                })
            let constant = PredicateTerm<Root, PersistentIdentifier>(
                source: { _ in "<id \(id.primaryKey ?? -1)>" },
                build: { _ in
                    PredicateExpressions.build_Arg(id)
                })
            return equality(x, random.chance(0.7), constant)
        }
    }

    /// `($0 as? Sub)?.a == c` for an equatable-only attribute of a subclass (a raw-value enum).
    static func castEquality<Sub: PersistentModel, V: Equatable & Codable & Sendable>(
        _ subName: String, _ sub: Sub.Type, _ attribute: String, _ keyPath: KeyPath<Sub, V> & Sendable, values: [V],
        weight: Int = 1
    ) -> LeafMaker {
        LeafMaker(weight: weight) { random, _ in
            let chained = PredicateTerm<Root, V?>(
                source: { "(\($0) as? \(subName))?.\(attribute)" },
                build: { v in
                    ExpressionBuilder.flatMap(
                        ExpressionBuilder.cast(v, sub),
                        probe: ExpressionBuilder.keyPath(PredicateExpressions.Variable<Sub>(), keyPath),
                        { s in ExpressionBuilder.keyPath(s, keyPath) })
                })
            let c: V? = random.chance(0.1) ? nil : values[random.below(values.count)]
            return equality(chained, random.chance(0.7), .constant(c))
        }
    }

    /// `== nil`, `!= nil`, equality with a constant, `??`, and optional chaining on an optional attribute.
    static func optional<V: DifferentialValue>(_ name: String, _ keyPath: KeyPath<Root, V?> & Sendable, weight: Int = 3)
        -> LeafMaker
    {
        LeafMaker(weight: weight) { random, inputs in
            let x = PredicateTerm<Root, V?>.keyPath(name, keyPath)
            let v0 = sample(inputs.rows, &random, { $0[keyPath: keyPath] })
            switch random.below(6) {
            case 0: return equality(x, true, nilLiteral())
            case 1: return equality(x, false, nilLiteral())
            case 2:
                let c: V? = v0.map { V.variant(of: $0, using: &random) }
                return equality(x, random.chance(0.7), .constant(c))
            default:
                let fallback = random.chance(0.5) ? V.fallback : (v0 ?? V.fallback)
                let coalesced = PredicateTerm<Root, V>(
                    source: { "(\(x.source($0)) ?? \(swiftLiteral(fallback)))" },
                    build: { v in
                        ExpressionBuilder.coalesce(x.build(v), PredicateExpressions.build_Arg(fallback))
                    })
                let c = V.variant(of: v0 ?? V.fallback, using: &random)
                if let s = coalesced as? PredicateTerm<Root, String>, random.chance(0.5) {
                    return stringTest(s, c as! String, &random)
                }
                return compare(coalesced, random.below(6), .constant(c))
            }
        }
    }

    /// `$0.x?.contains(c) == true` on an optional string: optional chaining through `flatMap`.
    static func optionalStringChain(_ name: String, _ keyPath: KeyPath<Root, String?> & Sendable, weight: Int = 1)
        -> LeafMaker
    {
        LeafMaker(weight: weight) { random, inputs in
            let v0 = sample(inputs.rows, &random, { $0[keyPath: keyPath] }) ?? "a"
            let c = String.variant(of: v0, using: &random)
            let expected: Bool? = random.chance(0.8) ? true : false
            let x = PredicateTerm<Root, String?>.keyPath(name, keyPath)
            return PredicateTerm(
                source: { "\(x.source($0))?.contains(\(swiftLiteral(c))) == \(expected!)" },
                build: { v in
                    let chained = ExpressionBuilder.flatMap(
                        x.build(v), probe: containsProbe(c),
                        { s in
                            ExpressionBuilder.contains(s, PredicateExpressions.build_Arg(c))
                        })
                    return ExpressionBuilder.equal(chained, PredicateExpressions.build_Arg(expected))
                })
        }
    }

    /// `x == nil` uses `NilLiteral`, as `#Predicate` does.
    static func nilLiteral<V>() -> PredicateTerm<Root, V?> {
        PredicateTerm(source: { _ in "nil" }, build: { _ in PredicateExpressions.build_NilLiteral() })
    }

    /// A probe expression of the type a `contains` inside `flatMap` has.
    static func containsProbe(_ c: String) -> any StandardPredicateExpression<Bool> {
        ExpressionBuilder.contains(PredicateExpressions.Variable<String>(), PredicateExpressions.build_Arg(c))
    }

    /// Tests through a to-one relationship: `== nil`, `$0.r?.a == c`, `($0.r?.a ?? d) op c`,
    /// and `$0.r?.a.contains(c) == true` for strings.
    static func toOne<T: PersistentModel, V: DifferentialValue>(
        _ name: String, _ keyPath: KeyPath<Root, T?> & Sendable,
        _ attribute: String, _ attributeKeyPath: KeyPath<T, V> & Sendable,
        weight: Int = 2
    ) -> LeafMaker {
        LeafMaker(weight: weight) { random, inputs in
            let r = PredicateTerm<Root, T?>.keyPath(name, keyPath)
            let chained = PredicateTerm<Root, V?>(
                source: { "\(r.source($0))?.\(attribute)" },
                build: { v in
                    ExpressionBuilder.flatMap(
                        r.build(v),
                        probe: ExpressionBuilder.keyPath(PredicateExpressions.Variable<T>(), attributeKeyPath),
                        { t in ExpressionBuilder.keyPath(t, attributeKeyPath) })
                })
            let v0 = sample(inputs.rows, &random, { $0[keyPath: keyPath]?[keyPath: attributeKeyPath] })
            let c = V.variant(of: v0 ?? V.fallback, using: &random)
            switch random.below(6) {
            case 0: return equality(r, random.chance(0.5), nilLiteral())
            case 1, 2: return equality(chained, random.chance(0.7), .constant(Optional(c)))
            default:
                let fallback = V.fallback
                let coalesced = PredicateTerm<Root, V>(
                    source: { "(\(chained.source($0)) ?? \(swiftLiteral(fallback)))" },
                    build: { v in
                        ExpressionBuilder.coalesce(chained.build(v), PredicateExpressions.build_Arg(fallback))
                    })
                if let s = coalesced as? PredicateTerm<Root, String>, random.chance(0.5) {
                    return stringTest(s, c as! String, &random)
                }
                return compare(coalesced, random.below(6), .constant(c))
            }
        }
    }

    /// Tests on a to-many relationship: `isEmpty`, `count`, `contains(where:)`, `allSatisfy`,
    /// `filter(_:).count`, with a random nested predicate over the element.
    static func toMany<E: PersistentModel>(
        _ name: String, _ keyPath: KeyPath<Root, [E]> & Sendable,
        _ element: @escaping () -> EntityProfile<E>, weight: Int = 2
    ) -> LeafMaker {
        LeafMaker(weight: weight) { random, inputs in
            let xs = PredicateTerm<Root, [E]>.keyPath(name, keyPath)
            let inner = "$\(inputs.level + 1)"
            let kind = random.below(inputs.depth > 1 ? 6 : 2)
            if kind < 2 {
                if kind == 0 {
                    let empty = PredicateTerm<Root, Bool>(
                        source: { "\(xs.source($0)).isEmpty" },
                        build: { v in
                            ExpressionBuilder.keyPath(xs.build(v), \[E].isEmpty)
                        })
                    return empty
                }
                let count = PredicateTerm<Root, Int>(
                    source: { "\(xs.source($0)).count" },
                    build: { v in
                        ExpressionBuilder.keyPath(xs.build(v), \[E].count)
                    })
                return compare(count, random.below(6), .constant(random.below(5)))
            }
            let profile = element()
            let elementInputs = LeafInputs(
                rows: inputs.universe.rows(E.self), depth: Swift.min(2, inputs.depth - 1),
                universe: inputs.universe, level: inputs.level + 1)
            let test = profile.node(depth: elementInputs.depth, elementInputs, &random)
            let probe = test.expression(PredicateExpressions.Variable<E>())
            switch kind {
            case 2, 3:
                return PredicateTerm(
                    source: { "\(xs.source($0)).contains { \(inner) in \(test.source(inner)) }" },
                    build: { v in
                        ExpressionBuilder.containsWhere(xs.build(v), probe: probe, { e in test.expression(e) })
                    })
            case 4:
                return PredicateTerm(
                    source: { "\(xs.source($0)).allSatisfy { \(inner) in \(test.source(inner)) }" },
                    build: { v in
                        ExpressionBuilder.allSatisfy(xs.build(v), probe: probe, { e in test.expression(e) })
                    })
            default:
                let k = random.below(4)
                let count = PredicateTerm<Root, Int>(
                    source: { "\(xs.source($0)).filter { \(inner) in \(test.source(inner)) }.count" },
                    build: { v in
                        ExpressionBuilder.filterCount(xs.build(v), probe: probe, { e in test.expression(e) })
                    })
                return compare(count, random.below(6), .constant(k))
            }
        }
    }

    /// Tests on an optional to-many relationship (`[E]?`, the CloudKit style), which reads `[]`
    /// and never `nil` (as in SwiftData): `== nil`, `?.isEmpty == b`, `(?.count ?? 0) op k`,
    /// `(?.isEmpty ?? b)`, `?.contains { … } == b`, `.flatMap { $0.allSatisfy { … } } ?? b` and
    /// `(?.filter { … }.count ?? 0) op k`, with a random nested predicate over the element.
    static func optionalToMany<E: PersistentModel>(
        _ name: String, _ keyPath: KeyPath<Root, [E]?> & Sendable,
        _ element: @escaping () -> EntityProfile<E>, weight: Int = 2
    ) -> LeafMaker {
        LeafMaker(weight: weight) { random, inputs in
            let xs = PredicateTerm<Root, [E]?>.keyPath(name, keyPath)
            let list = PredicateExpressions.Variable<[E]>()
            let b = random.chance(0.5)
            let kind = random.below(inputs.depth > 1 ? 7 : 4)
            switch kind {
            case 0:
                return equality(xs, random.chance(0.5), nilLiteral())
            case 1, 3:
                let probe = ExpressionBuilder.keyPath(list, \[E].isEmpty)
                func chained(_ v: PredicateExpressions.Variable<Root>) -> any StandardPredicateExpression<Bool?> {
                    ExpressionBuilder.flatMap(
                        xs.build(v), probe: probe, { w in ExpressionBuilder.keyPath(w, \[E].isEmpty) })
                }
                if kind == 1 {
                    return PredicateTerm(
                        source: { "\(xs.source($0))?.isEmpty == \(b)" },
                        build: { v in
                            ExpressionBuilder.equal(chained(v), PredicateExpressions.build_Arg(Optional(b)))
                        })
                }
                return PredicateTerm(
                    source: { "(\(xs.source($0))?.isEmpty ?? \(b))" },
                    build: { v in
                        ExpressionBuilder.coalesce(chained(v), PredicateExpressions.build_Arg(b))
                    })
            case 2:
                let probe = ExpressionBuilder.keyPath(list, \[E].count)
                let count = PredicateTerm<Root, Int>(
                    source: { "(\(xs.source($0))?.count ?? 0)" },
                    build: { v in
                        ExpressionBuilder.coalesce(
                            ExpressionBuilder.flatMap(
                                xs.build(v), probe: probe, { w in ExpressionBuilder.keyPath(w, \[E].count) }),
                            PredicateExpressions.build_Arg(0))
                    })
                return compare(count, random.below(6), .constant(random.below(5)))
            default:
                break
            }
            let inner = "$\(inputs.level + 1)"
            let profile = element()
            let elementInputs = LeafInputs(
                rows: inputs.universe.rows(E.self), depth: Swift.min(2, inputs.depth - 1),
                universe: inputs.universe, level: inputs.level + 1)
            let test = profile.node(depth: elementInputs.depth, elementInputs, &random)
            let elementProbe = test.expression(PredicateExpressions.Variable<E>())
            switch kind {
            case 4:
                let probe = ExpressionBuilder.containsWhere(list, probe: elementProbe, { e in test.expression(e) })
                return PredicateTerm(
                    source: { "\(xs.source($0))?.contains { \(inner) in \(test.source(inner)) } == \(b)" },
                    build: { v in
                        let chained = ExpressionBuilder.flatMap(
                            xs.build(v), probe: probe,
                            { w in
                                ExpressionBuilder.containsWhere(w, probe: elementProbe, { e in test.expression(e) })
                            })
                        return ExpressionBuilder.equal(chained, PredicateExpressions.build_Arg(Optional(b)))
                    })
            case 5:
                let probe = ExpressionBuilder.allSatisfy(list, probe: elementProbe, { e in test.expression(e) })
                return PredicateTerm(
                    source: {
                        "(\(xs.source($0)).flatMap { $0.allSatisfy { \(inner) in \(test.source(inner)) } } ?? \(b))"
                    },
                    build: { v in
                        let chained = ExpressionBuilder.flatMap(
                            xs.build(v), probe: probe,
                            { w in
                                ExpressionBuilder.allSatisfy(w, probe: elementProbe, { e in test.expression(e) })
                            })
                        return ExpressionBuilder.coalesce(chained, PredicateExpressions.build_Arg(b))
                    })
            default:
                let probe = ExpressionBuilder.filterCount(list, probe: elementProbe, { e in test.expression(e) })
                let count = PredicateTerm<Root, Int>(
                    source: { "(\(xs.source($0))?.filter { \(inner) in \(test.source(inner)) }.count ?? 0)" },
                    build: { v in
                        let chained = ExpressionBuilder.flatMap(
                            xs.build(v), probe: probe,
                            { w in
                                ExpressionBuilder.filterCount(w, probe: elementProbe, { e in test.expression(e) })
                            })
                        return ExpressionBuilder.coalesce(chained, PredicateExpressions.build_Arg(0))
                    })
                return compare(count, random.below(6), .constant(random.below(4)))
            }
        }
    }

    /// `$0 is Sub`.
    static func isType<Sub: PersistentModel>(_ name: String, _ sub: Sub.Type, weight: Int = 1) -> LeafMaker {
        LeafMaker(weight: weight) { _, _ in
            PredicateTerm(source: { "\($0) is \(name)" }, build: { v in ExpressionBuilder.isType(v, sub) })
        }
    }

    /// `(($0 as? Sub)?.a ?? d) op c` and `($0 as? Sub)?.a == c`.
    static func castAttribute<Sub: PersistentModel, V: DifferentialValue>(
        _ subName: String, _ sub: Sub.Type, _ attribute: String,
        _ keyPath: KeyPath<Sub, V> & Sendable, weight: Int = 1
    ) -> LeafMaker {
        LeafMaker(weight: weight) { random, inputs in
            let chained = PredicateTerm<Root, V?>(
                source: { "(\($0) as? \(subName))?.\(attribute)" },
                build: { v in
                    ExpressionBuilder.flatMap(
                        ExpressionBuilder.cast(v, sub),
                        probe: ExpressionBuilder.keyPath(PredicateExpressions.Variable<Sub>(), keyPath),
                        { s in ExpressionBuilder.keyPath(s, keyPath) })
                })
            let v0 = sample(inputs.rows, &random, { ($0 as? Sub)?[keyPath: keyPath] })
            let c = V.variant(of: v0 ?? V.fallback, using: &random)
            if random.chance(0.4) { return equality(chained, true, .constant(Optional(c))) }
            let fallback = V.fallback
            let coalesced = PredicateTerm<Root, V>(
                source: { "(\(chained.source($0)) ?? \(swiftLiteral(fallback)))" },
                build: { v in
                    ExpressionBuilder.coalesce(chained.build(v), PredicateExpressions.build_Arg(fallback))
                })
            return compare(coalesced, random.below(6), .constant(c))
        }
    }
}

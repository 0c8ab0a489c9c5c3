import Foundation

/// A predicate node type that states its ``ConstantFolding/Shape`` from its own kind and the
/// shapes of its sub-expression types.
///
/// Every node type of Foundation's `PredicateExpressions` (and this module's string nodes)
/// conforms. A type that does not — an existential `any StandardPredicateExpression<…>`, which
/// could hide a variable, or a node type this module does not know — is
/// ``ConstantFolding/Shape/rowDependent``, so it is translated, never evaluated in Swift.
protocol FoldingShaped {
    /// The node's shape: the most restrictive of its own and its sub-expressions'.
    static var foldingShape: ConstantFolding.Shape { get }
}

extension ConstantFolding.Shape: Comparable {
    /// `safe < guarded < rowDependent`: combining shapes keeps the most restrictive.
    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }

    private var rank: Int {
        switch self {
        case .safe: 0
        case .guarded: 1
        case .rowDependent: 2
        }
    }
}

extension ConstantFolding {
    /// The shape of a node whose sub-expressions are `children`: the most restrictive of `own`
    /// and theirs.
    fileprivate static func combining(_ children: Any.Type..., own: Shape = .safe) -> Shape {
        children.reduce(own) { max($0, directShape(of: $1)) }
    }

    /// The shape `type` states, without the per-type cache.
    static func directShape(of type: Any.Type) -> Shape {
        (type as? any FoldingShaped.Type)?.foldingShape ?? .rowDependent
    }
}

// MARK: Leaves

extension PredicateExpressions.Variable: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { .rowDependent }
}

extension PredicateExpressions.Value: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { .safe }
}

extension PredicateExpressions.NilLiteral: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { .safe }
}

// MARK: Nodes whose evaluation can trap (overflow, division by zero, index or range bounds)

extension PredicateExpressions.Arithmetic: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape {
        ConstantFolding.combining(LHS.self, RHS.self, own: .guarded)
    }
}

extension PredicateExpressions.IntDivision: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape {
        ConstantFolding.combining(LHS.self, RHS.self, own: .guarded)
    }
}

extension PredicateExpressions.IntRemainder: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape {
        ConstantFolding.combining(LHS.self, RHS.self, own: .guarded)
    }
}

extension PredicateExpressions.UnaryMinus: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(Wrapped.self, own: .guarded) }
}

extension PredicateExpressions.CollectionIndexSubscript: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape {
        ConstantFolding.combining(Wrapped.self, Index.self, own: .guarded)
    }
}

extension PredicateExpressions.CollectionRangeSubscript: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape {
        ConstantFolding.combining(Wrapped.self, Range.self, own: .guarded)
    }
}

extension PredicateExpressions.Range: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape {
        ConstantFolding.combining(LHS.self, RHS.self, own: .guarded)
    }
}

extension PredicateExpressions.ClosedRange: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape {
        ConstantFolding.combining(LHS.self, RHS.self, own: .guarded)
    }
}

// MARK: Nodes that do not trap

extension PredicateExpressions.KeyPath: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(Root.self) }
}

extension PredicateExpressions.Equal: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(LHS.self, RHS.self) }
}

extension PredicateExpressions.NotEqual: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(LHS.self, RHS.self) }
}

extension PredicateExpressions.Comparison: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(LHS.self, RHS.self) }
}

extension PredicateExpressions.Conjunction: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(LHS.self, RHS.self) }
}

extension PredicateExpressions.Disjunction: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(LHS.self, RHS.self) }
}

extension PredicateExpressions.Negation: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(Wrapped.self) }
}

extension PredicateExpressions.Conditional: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape {
        ConstantFolding.combining(Test.self, If.self, Else.self)
    }
}

extension PredicateExpressions.FloatDivision: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(LHS.self, RHS.self) }
}

extension PredicateExpressions.SequenceMaximum: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(Elements.self) }
}

extension PredicateExpressions.SequenceMinimum: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(Elements.self) }
}

extension PredicateExpressions.SequenceContains: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(LHS.self, RHS.self) }
}

extension PredicateExpressions.SequenceContainsWhere: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(LHS.self, RHS.self) }
}

extension PredicateExpressions.SequenceAllSatisfy: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(LHS.self, RHS.self) }
}

extension PredicateExpressions.SequenceStartsWith: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(Base.self, Prefix.self) }
}

extension PredicateExpressions.Filter: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(LHS.self, RHS.self) }
}

extension PredicateExpressions.CollectionContainsCollection: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(Base.self, Other.self) }
}

extension PredicateExpressions.RangeExpressionContains: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape {
        ConstantFolding.combining(RangeExpression.self, Element.self)
    }
}

extension PredicateExpressions.DictionaryKeySubscript: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(Wrapped.self, Key.self) }
}

extension PredicateExpressions.DictionaryKeyDefaultValueSubscript: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape {
        ConstantFolding.combining(Wrapped.self, Key.self, Default.self)
    }
}

extension PredicateExpressions.OptionalFlatMap: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(LHS.self, RHS.self) }
}

extension PredicateExpressions.NilCoalesce: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(LHS.self, RHS.self) }
}

extension PredicateExpressions.ForcedUnwrap: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(Inner.self) }
}

extension PredicateExpressions.ConditionalCast: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(Input.self) }
}

extension PredicateExpressions.ForceCast: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(Input.self) }
}

extension PredicateExpressions.TypeCheck: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(Input.self) }
}

extension PredicateExpressions.StringContainsRegex: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(Subject.self, Regex.self) }
}

extension PredicateExpressions.ExpressionEvaluate: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape {
        var shape = ConstantFolding.directShape(of: Transformation.self)
        for input in repeat (each Input).self {
            shape = max(shape, ConstantFolding.directShape(of: input))
        }
        return shape
    }
}

// MARK: This module's string nodes

extension PredicateExpressions.StringLocalizedStandardContains: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(Root.self, Other.self) }
}

extension PredicateExpressions.StringCaseInsensitiveCompare: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(Root.self, Other.self) }
}

extension PredicateExpressions.StringLocalizedCompare: FoldingShaped {
    static var foldingShape: ConstantFolding.Shape { ConstantFolding.combining(Root.self, Other.self) }
}

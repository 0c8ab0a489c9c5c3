import Foundation

// The source form of every `PredicateExpressions` node type (`PredicateSourcePrintable`),
// one family per section, as `#Predicate` lets you write it.

extension PredicateSourceForm {
    /// `lhs op rhs` in the group `precedence`; `rightAssociative` for `??`, `associative` for
    /// left-associative operators (`&&`, `+`), neither for comparisons and ranges. A range
    /// operator takes no spaces (`1...5`).
    ///
    /// An operand of a comparison that is a `??`, a cast or a range is parenthesised although
    /// Swift would not need it: `($0.due ?? .distantPast) < d` reads as meant.
    static func infix(
        _ lhs: Any, _ op: String, _ rhs: Any, _ precedence: PredicateSourcePrecedence,
        associative: Bool = false, rightAssociative: Bool = false
    ) -> Self {
        let tighter = precedence == .comparison ? .addition : precedence.tighter
        let left = associative ? precedence : tighter
        let right = rightAssociative ? precedence : tighter
        let symbol = precedence == .rangeFormation ? op : " \(op) "
        return Self(
            precedence: precedence,
            pieces: [.operand(lhs, minimum: left), .text(symbol), .operand(rhs, minimum: right)])
    }

    /// `op operand` (`!x`, `-x`); an operand that is itself prefixed is parenthesised (`!(!x)`).
    static func prefix(_ op: String, _ operand: Any) -> Self {
        Self(precedence: .prefix, pieces: [.text(op), .operand(operand, minimum: .postfix)])
    }

    /// `base<suffix>`: a member, a call or a subscript of `base`, with `arguments` between the
    /// texts of `suffix` (`[".starts(with: ", ")"]` around one argument).
    static func postfix(_ base: Any, _ suffix: [String], _ arguments: Any...) -> Self {
        var pieces: [PredicateSourcePiece] = [.operand(base, minimum: .postfix)]
        for (i, text) in suffix.enumerated() {
            pieces.append(.text(text))
            if i < arguments.count { pieces.append(.operand(arguments[i], minimum: .ternary)) }
        }
        return Self(precedence: .postfix, pieces: pieces)
    }

    /// `base.name { $0 … }`: a method taking a closure, as a trailing closure.
    static func closureCall(
        _ base: Any, _ name: String, variable: PredicateExpressions.VariableID, type: Any.Type, body: Any
    ) -> Self {
        Self(
            precedence: .postfix,
            pieces: [
                .operand(base, minimum: .postfix), .text(".\(name) "),
                .closure(variable: variable, type: type, body: body),
            ])
    }
}

// MARK: Leaves

extension PredicateExpressions.Variable: PredicateSourceVariable, PredicateSourcePrintable {
    var sourceKey: PredicateExpressions.VariableID { key }
    var sourceForm: PredicateSourceForm { PredicateSourceForm(precedence: .postfix, pieces: [.variable(key)]) }
}

extension PredicateExpressions.Value: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm {
        let text = PredicateValueText.text(value)
        return PredicateSourceForm(
            precedence: PredicateValueText.precedence(of: value, text: text), pieces: [.text(text)])
    }
}

extension PredicateExpressions.NilLiteral: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { PredicateSourceForm(precedence: .postfix, pieces: [.text("nil")]) }
}

extension NoPredicateExpression: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { PredicateSourceForm(precedence: .postfix, pieces: [.text("true")]) }
}

extension PredicateExpressions.KeyPath: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .postfix(root, [".\(memberName)"]) }

    /// The member the key path reads: a collection's `count`, `isEmpty`, `first`, `last`
    /// (Foundation's `kind`), a model's attribute or relationship by its layout, a few members
    /// of standard types, else the key path's own text without addresses (`KeyPathText`).
    private var memberName: String {
        if let kind {
            if kind == .collectionCount { return "count" }
            if kind == .collectionIsEmpty { return "isEmpty" }
            if kind == .collectionFirst { return "first" }
            if kind == .bidirectionalCollectionLast { return "last" }
        }
        if let model = Root.Output.self as? any PersistentModel.Type {
            if let layout = ModelLayout.known(model), let slot = layout.slotByKeyPath[keyPath] {
                return layout.slots[slot].name
            }
            if Output.self == PersistentIdentifier.self { return "persistentModelID" }
        }
        if let named = (Root.Output.self as? any PredicateSourceMembers.Type)?.sourceMemberName(keyPath) {
            return named
        }
        return KeyPathText.memberText(keyPath)
    }
}

// MARK: Comparisons and logic

extension PredicateExpressions.Equal: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .infix(lhs, "==", rhs, .comparison) }
}

extension PredicateExpressions.NotEqual: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .infix(lhs, "!=", rhs, .comparison) }
}

extension PredicateExpressions.Comparison: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm {
        let symbol: String
        switch op {
        case .lessThan: symbol = "<"
        case .lessThanOrEqual: symbol = "<="
        case .greaterThan: symbol = ">"
        case .greaterThanOrEqual: symbol = ">="
        @unknown default: symbol = "<\(op)>"
        }
        return .infix(lhs, symbol, rhs, .comparison)
    }
}

extension PredicateExpressions.Conjunction: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .infix(lhs, "&&", rhs, .conjunction, associative: true) }
}

extension PredicateExpressions.Disjunction: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .infix(lhs, "||", rhs, .disjunction, associative: true) }
}

extension PredicateExpressions.Negation: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .prefix("!", wrapped) }
}

extension PredicateExpressions.Conditional: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm {
        PredicateSourceForm(
            precedence: .ternary,
            pieces: [
                .operand(test, minimum: .disjunction), .text(" ? "), .operand(trueBranch, minimum: .ternary),
                .text(" : "), .operand(falseBranch, minimum: .ternary),
            ])
    }
}

// MARK: Arithmetic

extension PredicateExpressions.Arithmetic: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm {
        switch op {
        case .add: return .infix(lhs, "+", rhs, .addition, associative: true)
        case .subtract: return .infix(lhs, "-", rhs, .addition, associative: true)
        case .multiply: return .infix(lhs, "*", rhs, .multiplication, associative: true)
        @unknown default: return .infix(lhs, "<\(op)>", rhs, .multiplication)
        }
    }
}

extension PredicateExpressions.IntDivision: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .infix(lhs, "/", rhs, .multiplication, associative: true) }
}

extension PredicateExpressions.FloatDivision: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .infix(lhs, "/", rhs, .multiplication, associative: true) }
}

extension PredicateExpressions.IntRemainder: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .infix(lhs, "%", rhs, .multiplication, associative: true) }
}

extension PredicateExpressions.UnaryMinus: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .prefix("-", wrapped) }
}

// MARK: Optionals

extension PredicateExpressions.OptionalFlatMap: PredicateSourcePrintable {
    /// `wrapped?.member…` when the transform is a chain of members, calls and subscripts on its
    /// variable alone; `wrapped.flatMap { … }` otherwise.
    var sourceForm: PredicateSourceForm {
        if PredicateSourceChain.isChain(transform, on: variable.key) {
            return PredicateSourceForm(
                precedence: .postfix,
                pieces: [
                    .operand(wrapped, minimum: .postfix), .text("?"), .chained(variable: variable.key, body: transform),
                ])
        }
        return .closureCall(wrapped, "flatMap", variable: variable.key, type: Wrapped.self, body: transform)
    }
}

extension PredicateExpressions.NilCoalesce: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .infix(lhs, "??", rhs, .nilCoalescing, rightAssociative: true) }
}

extension PredicateExpressions.ForcedUnwrap: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .postfix(inner, ["!"]) }
}

/// Whether a `flatMap`'s transform reads as the tail of an optional chain.
enum PredicateSourceChain {
    /// True when `transform` is members, calls and subscripts applied to `variable`, which
    /// occurs nowhere else in it: `v.count`, `v.name.starts(with: "A")` (not `v` alone).
    static func isChain(_ transform: Any, on variable: PredicateExpressions.VariableID) -> Bool {
        guard !(transform is any PredicateSourceVariable),
            PredicateSource.variableUses(in: transform)[variable] == 1
        else { return false }
        var node = transform
        for _ in 0..<PredicateDepth.maximumDepth {
            if let v = node as? any PredicateSourceVariable { return v.sourceKey == variable }
            guard let form = (node as? any PredicateSourcePrintable)?.sourceForm, form.precedence == .postfix,
                case .operand(let receiver, .postfix)? = form.pieces.first
            else { return false }
            node = receiver
        }
        return false
    }
}

// MARK: Type checks and casts

extension PredicateExpressions.ConditionalCast: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { castForm(input, "as?", Desired.self) }
}

extension PredicateExpressions.ForceCast: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { castForm(input, "as!", Desired.self) }
}

extension PredicateExpressions.TypeCheck: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { castForm(input, "is", Desired.self) }
}

/// `input op Type`, in the casting group.
private func castForm(_ input: Any, _ op: String, _ type: Any.Type) -> PredicateSourceForm {
    PredicateSourceForm(
        precedence: .casting,
        pieces: [.operand(input, minimum: .rangeFormation), .text(" \(op) \(PredicateSource.typeName(type))")])
}

// MARK: Ranges

extension PredicateExpressions.Range: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .infix(lower, "..<", upper, .rangeFormation) }
}

extension PredicateExpressions.ClosedRange: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .infix(lower, "...", upper, .rangeFormation) }
}

extension PredicateExpressions.RangeExpressionContains: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .postfix(range, [".contains(", ")"], element) }
}

// MARK: Sequences and collections

extension PredicateExpressions.SequenceContains: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .postfix(sequence, [".contains(", ")"], element) }
}

extension PredicateExpressions.SequenceContainsWhere: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm {
        .closureCall(sequence, "contains", variable: variable.key, type: LHS.Output.Element.self, body: test)
    }
}

extension PredicateExpressions.SequenceAllSatisfy: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm {
        .closureCall(sequence, "allSatisfy", variable: variable.key, type: LHS.Output.Element.self, body: test)
    }
}

extension PredicateExpressions.Filter: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm {
        .closureCall(sequence, "filter", variable: variable.key, type: LHS.Output.Element.self, body: filter)
    }
}

extension PredicateExpressions.SequenceStartsWith: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .postfix(base, [".starts(with: ", ")"], prefix) }
}

extension PredicateExpressions.SequenceMaximum: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .postfix(elements, [".max()"]) }
}

extension PredicateExpressions.SequenceMinimum: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .postfix(elements, [".min()"]) }
}

extension PredicateExpressions.CollectionContainsCollection: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .postfix(base, [".contains(", ")"], other) }
}

extension PredicateExpressions.CollectionIndexSubscript: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .postfix(wrapped, ["[", "]"], index) }
}

extension PredicateExpressions.CollectionRangeSubscript: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .postfix(wrapped, ["[", "]"], range) }
}

extension PredicateExpressions.DictionaryKeySubscript: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .postfix(wrapped, ["[", "]"], key) }
}

extension PredicateExpressions.DictionaryKeyDefaultValueSubscript: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .postfix(wrapped, ["[", ", default: ", "]"], key, `default`) }
}

// MARK: Strings

extension PredicateExpressions.StringContainsRegex: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .postfix(subject, [".contains(", ")"], regex) }
}

extension PredicateExpressions.StringLocalizedStandardContains: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .postfix(root, [".localizedStandardContains(", ")"], other) }
}

extension PredicateExpressions.StringCaseInsensitiveCompare: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .postfix(root, [".caseInsensitiveCompare(", ")"], other) }
}

extension PredicateExpressions.StringLocalizedCompare: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm { .postfix(root, [".localizedCompare(", ")"], other) }
}

// MARK: Evaluating captured expressions

extension PredicateExpressions.ExpressionEvaluate: PredicateSourcePrintable {
    var sourceForm: PredicateSourceForm {
        var pieces: [PredicateSourcePiece] = [.operand(expression, minimum: .postfix), .text(".evaluate(")]
        var first = true
        for argument in repeat each input {
            if !first { pieces.append(.text(", ")) }
            pieces.append(.operand(argument, minimum: .ternary))
            first = false
        }
        pieces.append(.text(")"))
        return PredicateSourceForm(precedence: .postfix, pieces: pieces)
    }
}

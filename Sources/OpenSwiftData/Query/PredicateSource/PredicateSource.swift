import Foundation

/// A predicate as Swift-like source text, for messages: failure reports print what the user
/// wrote, not Foundation's description (which on Linux loses every computed key path:
/// `{ input1 in input1. }`).
///
/// ```swift
/// PredicateSource.text(#Predicate<Order> { $0.status == .paid && ($0.note == nil || $0.total > 100.0) })
/// // #Predicate<Order> { $0.status == .paid && ($0.note == nil || $0.total > 100.0) }
/// ```
///
/// Each node type of `PredicateExpressions` states its own form (`PredicateSourcePrintable`);
/// a node type this module does not know prints as `<unknown node Name>(…)` with its operands.
/// The walk is iterative (an explicit stack of steps), so no tree is too deep for the thread's
/// stack; levels deeper than `PredicateDepth/maximumDepth` print as one marker
/// (`deepMarker`). Parentheses follow Swift's operator precedence, so the text parses as the
/// tree it came from. Closure parameters print as `$0` when the closure reads no enclosing
/// variable, else with a name taken from their type (`{ tag in tag.name == $0.name }`).
package enum PredicateSource {
    /// What stands for the levels of a tree deeper than `PredicateDepth/maximumDepth`.
    package static let deepMarker =
        "/* … nested more than \(PredicateDepth.maximumDepth) levels deep, not printed */"

    /// `predicate` as `#Predicate<Input> { … }`, its inputs named `$0`, `$1` ….
    package static func text<each Input>(_ predicate: Predicate<repeat each Input>) -> String {
        var keys: [PredicateExpressions.VariableID] = []
        var types: [String] = []
        func note<T>(_ variable: PredicateExpressions.Variable<T>) {
            keys.append(variable.key)
            types.append(typeName(T.self))
        }
        for variable in repeat each predicate.variable { note(variable) }
        let header = types.isEmpty ? "#Predicate" : "#Predicate<\(types.joined(separator: ", "))>"
        return "\(header) { \(text(of: predicate.expression, inputs: keys)) }"
    }

    /// The body of an expression whose inputs are the variables `inputs` (`$0`, `$1` …).
    static func text(of expression: Any, inputs: [PredicateExpressions.VariableID]) -> String {
        var printer = PredicateSourcePrinter()
        for (i, key) in inputs.enumerated() { printer.names[key] = "$\(i)" }
        return printer.print(expression)
    }

    /// A type's name as the source spells it: `Order`, `Array<Int>`.
    static func typeName(_ type: Any.Type) -> String {
        String(describing: type)
    }

    /// How often each variable occurs in the tree under `expression` (its binding closures'
    /// own variables included), walked without recursion like `PredicateDepth`.
    static func variableUses(in expression: Any) -> [PredicateExpressions.VariableID: Int] {
        var uses: [PredicateExpressions.VariableID: Int] = [:]
        var pending: [(node: Any, depth: Int)] = [(expression, 1)]
        while let (node, depth) = pending.popLast() {
            if let variable = node as? any PredicateSourceVariable {
                uses[variable.sourceKey, default: 0] += 1
                continue
            }
            guard depth <= PredicateDepth.maximumDepth else { continue }
            for child in Mirror(reflecting: node).children where child.value is any PredicateExpression {
                pending.append((child.value, depth + 1))
            }
        }
        return uses
    }
}

/// How tightly an expression binds: Swift's precedence groups, loosest first.
enum PredicateSourcePrecedence: Int, Comparable {
    case ternary, disjunction, conjunction, comparison, nilCoalescing, casting, rangeFormation
    case addition, multiplication, prefix, postfix

    /// The next tighter group (`postfix` stays).
    var tighter: Self { Self(rawValue: rawValue + 1) ?? .postfix }

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One piece of a node's source text.
enum PredicateSourcePiece {
    /// Literal text.
    case text(String)
    /// A sub-expression, in parentheses when it binds looser than `minimum`.
    case operand(Any, minimum: PredicateSourcePrecedence)
    /// A variable, by the name the printer gave it.
    case variable(PredicateExpressions.VariableID)
    /// A closure `{ $0 … }` (or `{ name in … }`) whose parameter is `variable`, of type `type`.
    case closure(variable: PredicateExpressions.VariableID, type: Any.Type, body: Any)
    /// `body` printed with `variable` as the empty name: the tail of an optional chain
    /// (`$0.note?.count` is `flatMap` with the body `v.count`).
    case chained(variable: PredicateExpressions.VariableID, body: Any)
}

/// A node's source: how tightly it binds and its pieces.
struct PredicateSourceForm {
    var precedence: PredicateSourcePrecedence
    var pieces: [PredicateSourcePiece]

    /// Whether the node has no sub-expressions (a variable, a value, `nil`).
    var isLeaf: Bool {
        pieces.allSatisfy { piece in
            switch piece {
            case .text, .variable: true
            case .operand, .closure, .chained: false
            }
        }
    }
}

/// A predicate node type that states its Swift source form (`PredicateSource`). Every node
/// type of Foundation's `PredicateExpressions` and this module's string nodes conforms, in
/// PredicateSourceNodes.swift.
protocol PredicateSourcePrintable {
    /// The node's form: its precedence and its pieces, sub-expressions as operands.
    var sourceForm: PredicateSourceForm { get }
}

/// A variable node (`PredicateExpressions.Variable`), seen without its type.
protocol PredicateSourceVariable {
    /// The variable's identity.
    var sourceKey: PredicateExpressions.VariableID { get }
}

/// The iterative walk behind `PredicateSource`: a stack of steps, each a piece of text, a
/// node to expand or a change of the names in scope.
struct PredicateSourcePrinter {
    private enum Step {
        case text(String)
        case node(Any, minimum: PredicateSourcePrecedence, depth: Int)
        case bind(PredicateExpressions.VariableID, String)
        case unbind(PredicateExpressions.VariableID, String)
    }

    /// The names of the variables in scope.
    var names: [PredicateExpressions.VariableID: String] = [:]
    /// How many closures in scope use each parameter name (names are made unique).
    private var namesInUse: [String: Int] = [:]

    /// The source of `root`.
    mutating func print(_ root: Any) -> String {
        var out = ""
        var steps: [Step] = [.node(root, minimum: .ternary, depth: 1)]
        while let step = steps.popLast() {
            switch step {
            case .text(let text):
                out += text
            case .node(let node, let minimum, let depth):
                steps.append(contentsOf: expand(node, minimum: minimum, depth: depth).reversed())
            case .bind(let key, let name):
                names[key] = name
                namesInUse[name, default: 0] += 1
            case .unbind(let key, let name):
                names[key] = nil
                namesInUse[name, default: 1] -= 1
            }
        }
        return out
    }

    /// The steps that print `node`, parenthesised when it binds looser than `minimum`.
    /// A node deeper than `PredicateDepth/maximumDepth` prints as `PredicateSource/deepMarker`
    /// unless it is a leaf (a variable, a value): `/* … */ + 1 + 1`.
    private func expand(_ node: Any, minimum: PredicateSourcePrecedence, depth: Int) -> [Step] {
        let form = (node as? any PredicateSourcePrintable)?.sourceForm ?? Self.unknownForm(node)
        if depth > PredicateDepth.maximumDepth, !form.isLeaf { return [.text(PredicateSource.deepMarker)] }
        var steps: [Step] = []
        for piece in form.pieces {
            switch piece {
            case .text(let text):
                steps.append(.text(text))
            case .operand(let child, let minimum):
                steps.append(.node(child, minimum: minimum, depth: depth + 1))
            case .variable(let key):
                steps.append(.text(names[key] ?? "<unbound variable>"))
            case .closure(let key, let type, let body):
                steps.append(contentsOf: closure(key, type, body, depth: depth + 1))
            case .chained(let key, let body):
                steps += [.bind(key, ""), .node(body, minimum: .postfix, depth: depth + 1), .unbind(key, "")]
            }
        }
        guard form.precedence < minimum else { return steps }
        return [.text("(")] + steps + [.text(")")]
    }

    /// `{ $0 … }` when the body reads no variable in scope but its own, else `{ name in … }`.
    private func closure(
        _ key: PredicateExpressions.VariableID, _ type: Any.Type, _ body: Any, depth: Int
    ) -> [Step] {
        let readsOuter = PredicateSource.variableUses(in: body).keys.contains { $0 != key && names[$0] != nil }
        let name = readsOuter ? parameterName(type) : "$0"
        let open = readsOuter ? "{ \(name) in " : "{ "
        return [.text(open), .bind(key, name), .node(body, minimum: .ternary, depth: depth), .unbind(key, name)]
            + [.text(" }")]
    }

    /// A parameter name from `type` (`Tag` → `tag`), numbered when a closure in scope has it.
    private func parameterName(_ type: Any.Type) -> String {
        var base = shortTypeName(type).filter { $0.isLetter || $0.isNumber || $0 == "_" }
        if base.isEmpty || base.first?.isNumber == true { base = "element" }
        base = base.prefix(1).lowercased() + base.dropFirst()
        var name = base
        var n = 2
        while namesInUse[name, default: 0] > 0 {
            name = "\(base)\(n)"
            n += 1
        }
        return name
    }

    /// A node type without a form: `<unknown node Name>(label: operand, …)`, its stored
    /// sub-expressions printed as operands and other stored values as values.
    private static func unknownForm(_ node: Any) -> PredicateSourceForm {
        var pieces: [PredicateSourcePiece] = [.text("<unknown node \(shortTypeName(type(of: node)))>(")]
        for (i, child) in Mirror(reflecting: node).children.enumerated() {
            if i > 0 { pieces.append(.text(", ")) }
            if let label = child.label { pieces.append(.text("\(label): ")) }
            if child.value is any PredicateExpression {
                pieces.append(.operand(child.value, minimum: .ternary))
            } else {
                pieces.append(.text(PredicateValueText.text(child.value)))
            }
        }
        pieces.append(.text(")"))
        return PredicateSourceForm(precedence: .postfix, pieces: pieces)
    }
}

import Foundation

/// How deep a predicate's expression tree may nest, and the check that runs before anything
/// walks a tree recursively.
///
/// Every walk of a predicate recurses once per level of its tree: collecting its leaves and
/// translating it to SQL here, `Predicate.evaluate` on pending models (Foundation's own walk),
/// and the runtime itself when it prints or casts the tree's nested generic type. A tree nested
/// thousands of levels deep (`!` or `+` applied 10,000 times, built in a loop) exhausts the
/// thread's stack in any of them, and one a few hundred deep loses its innermost types in the
/// runtime's type names, which the constant folder reads (`ConstantFolding`). So every fetch of
/// a predicate type the context has not just run, and every `Predicate.evaluate` the harness runs
/// as its reference, first measures the tree without recursion (an explicit stack of nodes, their
/// operands found with `Mirror`), stops counting one level past ``maximumDepth``, and throws
/// ``SwiftDataError/unsupportedPredicate`` naming the limit for a deeper tree (PRD-17/18: never
/// a trap).
///
/// ```swift
/// try PredicateDepth.check(predicate)   // before predicate.evaluate(model)
/// // !×10,000: unsupportedPredicate "the predicate nests more than 256 levels deep …"
/// ```
public enum PredicateDepth {
    /// The deepest expression tree a fetch translates and evaluates: 256 levels, counting every
    /// node on the deepest path (`$0.flag` is 2, the key path and its variable; `!$0.flag` is 3).
    ///
    /// Why 256: each level of Foundation's `Predicate.evaluate` takes up to about 4 KiB of stack
    /// (measured on Linux x86_64: 2,000 nested `+` exhaust the 8 MiB stack of the main thread,
    /// of Swift Testing's and of Swift concurrency's threads, 1,500 do not), so 256 levels stay
    /// within about 1 MiB, an eighth of those stacks; the translation's own recursion is
    /// smaller still. The runtime's type names lose their innermost types past about 350 nested
    /// `!`, which would make the constant folder misread the tree. Flat structure is not depth:
    /// a chain of 200 `&&` is about 200 levels however it is grouped, though its SQL is one list.
    ///
    /// A thread with a smaller stack than 8 MiB (a `Thread` given a `stackSize` of 512 KiB) fits
    /// fewer levels of Foundation's `evaluate`, about 100: evaluate deep predicates on pending
    /// models from threads with the default stack.
    public static let maximumDepth = 256

    /// The depth of the tree under `expression`, counted up to `limit + 1` (the walk stops there):
    /// a leaf (the variable, a captured value) is 1, any other node one more than its deepest operand.
    ///
    /// Iterative and generic: operands are the node's stored values that are predicate
    /// expressions (an existential operand is read as the node it holds). Nothing looks at a
    /// node's type name or asks for a conditional conformance, which would recurse through the
    /// whole nested type.
    static func depth(of expression: Any, limit: Int = maximumDepth) -> Int {
        var deepest = 0
        var pending: [(node: Any, depth: Int)] = [(expression, 1)]
        while let (node, depth) = pending.popLast() {
            deepest = max(deepest, depth)
            if deepest > limit { break }
            for child in Mirror(reflecting: node).children where child.value is any PredicateExpression {
                pending.append((child.value, depth + 1))
            }
        }
        return deepest
    }

    /// Throws when `predicate` nests deeper than ``maximumDepth``; call it before
    /// `predicate.evaluate(_:)` on a tree you did not build yourself.
    ///
    /// ```swift
    /// try PredicateDepth.check(predicate)
    /// let matching = try objects.filter { try predicate.evaluate($0) }
    /// ```
    /// - Throws: ``SwiftDataError/unsupportedPredicate`` naming the limit.
    public static func check<each Input>(_ predicate: Predicate<repeat each Input>) throws {
        try check(expression: predicate.expression, entityName: nil)
    }

    /// Throws when `expression` nests deeper than ``maximumDepth``.
    ///
    /// `entityName` is read only for the error (naming a type takes thousands of instructions).
    /// - Throws: ``SwiftDataError/unsupportedPredicate`` naming the limit and `entityName`.
    static func check(expression: Any, entityName: @autoclosure () -> String?) throws {
        guard depth(of: expression) > maximumDepth else { return }
        throw SwiftDataError(
            SwiftDataError.unsupportedPredicate.code,
            "the predicate nests more than \(maximumDepth) levels deep (the limit): a tree this deep would exhaust the thread's stack when it is translated or evaluated. Merge chains of one operator, drop pairs of !, or split it into several fetches",
            entityName: entityName())
    }
}

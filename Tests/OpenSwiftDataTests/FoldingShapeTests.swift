import Foundation
import Testing

@testable import OpenSwiftData

/// The shape a predicate's expression type has for constant folding: each node type states
/// whether it reads the row, can trap, or neither (`FoldingShaped`), by type checks on its
/// generic arguments rather than by its printed name.
@Suite("FoldingShape")
struct FoldingShapeTests {
    private typealias P = PredicateExpressions
    private typealias Row = P.Variable<FoldingRow>
    private typealias Name = P.KeyPath<Row, String>
    private typealias Count = P.KeyPath<Row, Int>

    private final class FoldingRow {
        var name = ""
        var count = 0
    }

    /// The shape of a built predicate's expression, by its dynamic type.
    private static func shape(_ predicate: Predicate<FoldingRow>) -> ConstantFolding.Shape {
        ConstantFolding.shape(of: type(of: predicate.expression))
    }

    /// PRD-16: a ternary over captured values folds; one over a column does not.
    @Test("PRD-16: a node over captured values is safe, over a key path of the row row-dependent")
    func leavesDecide() {
        #expect(ConstantFolding.shape(of: P.Value<Int>.self) == .safe)
        #expect(ConstantFolding.shape(of: P.NilLiteral<Int>.self) == .safe)
        #expect(ConstantFolding.shape(of: Row.self) == .rowDependent)
        #expect(ConstantFolding.shape(of: Name.self) == .rowDependent)
        #expect(ConstantFolding.shape(of: P.Equal<P.Value<Int>, P.Value<Int>>.self) == .safe)
        #expect(ConstantFolding.shape(of: P.Equal<Count, P.Value<Int>>.self) == .rowDependent)
        #expect(
            ConstantFolding.shape(
                of: P.Conditional<P.Value<Bool>, P.Value<String>, P.Value<String>>.self) == .safe)
        #expect(
            ConstantFolding.shape(
                of: P.Conditional<P.Value<Bool>, Name, P.Value<String>>.self) == .rowDependent)
    }

    /// PRD-20: arithmetic, division, remainder, negation, subscripts and ranges are folded only
    /// with their trap cases checked first.
    @Test("PRD-20: nodes that can trap are guarded, unless they read the row")
    func trappingNodesAreGuarded() {
        typealias V = P.Value<Int>
        #expect(ConstantFolding.shape(of: P.Arithmetic<V, V>.self) == .guarded)
        #expect(ConstantFolding.shape(of: P.IntDivision<V, V>.self) == .guarded)
        #expect(ConstantFolding.shape(of: P.IntRemainder<V, V>.self) == .guarded)
        #expect(ConstantFolding.shape(of: P.UnaryMinus<V>.self) == .guarded)
        #expect(ConstantFolding.shape(of: P.ClosedRange<V, V>.self) == .guarded)
        #expect(ConstantFolding.shape(of: P.Range<V, V>.self) == .guarded)
        #expect(ConstantFolding.shape(of: P.CollectionIndexSubscript<P.Value<[Int]>, V>.self) == .guarded)
        // A guarded node deep inside a safe one makes the whole guarded.
        #expect(ConstantFolding.shape(of: P.Comparison<P.Arithmetic<V, V>, V>.self) == .guarded)
        // Reading the row wins over both.
        #expect(ConstantFolding.shape(of: P.Arithmetic<Count, V>.self) == .rowDependent)
        #expect(ConstantFolding.shape(of: P.FloatDivision<P.Value<Double>, P.Value<Double>>.self) == .safe)
    }

    /// PRD-16: expression types as `#Predicate` builds them, including `Filter` over a captured
    /// array (its closure's variable reads a row of its own, so it is never folded).
    @Test("PRD-16: types built by #Predicate get the same shapes")
    func builtByTheMacro() throws {
        let limit = 3
        let words = ["a", "bb"]
        let ternary = #Predicate<FoldingRow> { limit > 2 ? $0.count > limit : true }
        #expect(Self.shape(ternary) == .rowDependent)
        let capturedOnly = #Predicate<FoldingRow> { _ in words.isEmpty || limit + 1 > 3 }
        #expect(Self.shape(capturedOnly) == .guarded)
        let filter = #Predicate<FoldingRow> { _ in words.filter { $0.count > 1 }.isEmpty }
        #expect(Self.shape(filter) == .rowDependent)
    }

    /// PRD-16: an existential sub-expression could hide a variable, so it is never folded; a
    /// pack of inputs is read element by element.
    @Test("PRD-16: existentials read the row; every input of a pack counts")
    func existentialsAndPacks() {
        #expect(ConstantFolding.shape(of: (any StandardPredicateExpression<Bool>).self) == .rowDependent)
        // A type that is no predicate node is never evaluated.
        #expect(ConstantFolding.shape(of: String.self) == .rowDependent)
        typealias Transform = P.Value<Foundation.Expression<Int, Bool>>
        #expect(ConstantFolding.shape(of: P.ExpressionEvaluate<Transform, P.Value<Int>, Bool>.self) == .safe)
        #expect(ConstantFolding.shape(of: P.ExpressionEvaluate<Transform, Count, Bool>.self) == .rowDependent)
    }
}

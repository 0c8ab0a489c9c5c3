import Foundation
import OpenSwiftData
import Testing

@testable import OpenSwiftDataTesting

/// The harness's reference side (`Predicate.evaluate` over plain objects in QueryCheck and the
/// differential checks) measures a predicate's depth before it evaluates: Foundation's evaluate
/// recurses once per level and exhausts the stack near 2,000 nested `+`, so a tree deeper than
/// `PredicateDepth.maximumDepth` is reported as a typed failure naming the limit, never a crash
/// (PRD-17/18).
@Suite("DeepPredicateReference")
struct DeepPredicateReferenceTests {
    /// `$0.score + 1 + … > 0` with `count` additions, over the users sample.
    static func additions(_ count: Int) -> PredicateTerm<AccountUser, Bool> {
        func add<L: StandardPredicateExpression<Int>>(_ l: L) -> any StandardPredicateExpression<Int> {
            PredicateExpressions.build_Arithmetic(lhs: l, rhs: PredicateExpressions.build_Arg(1), op: .add)
        }
        func positive<L: StandardPredicateExpression<Int>>(_ l: L) -> any StandardPredicateExpression<Bool> {
            PredicateExpressions.build_Comparison(lhs: l, rhs: PredicateExpressions.build_Arg(0), op: .greaterThan)
        }
        return PredicateTerm(
            source: { "\($0).score + 1 × \(count) > 0" },
            build: { v in
                var e: any StandardPredicateExpression<Int> = PredicateExpressions.build_KeyPath(
                    root: v, keyPath: \AccountUser.score)
                for _ in 0..<count { e = add(e) }
                return positive(e)
            })
    }

    /// `!` applied `count` times to `$0.score > 0` (`count + 3` levels).
    static func negations(_ count: Int) -> Predicate<AccountUser> {
        func not<P: StandardPredicateExpression<Bool>>(_ p: P) -> any StandardPredicateExpression<Bool> {
            PredicateExpressions.build_Negation(p)
        }
        return Predicate<AccountUser> { v in
            var e: any StandardPredicateExpression<Bool> = PredicateExpressions.build_Comparison(
                lhs: PredicateExpressions.build_KeyPath(root: v, keyPath: \AccountUser.score),
                rhs: PredicateExpressions.build_Arg(0), op: .greaterThan)
            for _ in 0..<count { e = not(e) }
            return e
        }
    }

    static let fixture = Fixture(schema: Schema([AccountUser.self]), seed: 1, defaultCount: 20)

    @Test(
        "QueryCheck reports a 10,000-deep predicate as a failure naming the depth limit", arguments: StoreKind.allCases)
    func queryCheckTooDeep(_ store: StoreKind) throws {
        let deep: [(String, Predicate<AccountUser>)] = [
            ("!×10000", Self.negations(10_000)),
            ("+×10000", Predicate<AccountUser> { v in Self.additions(10_000).build(v) }),
        ]
        for (label, p) in deep {
            let failure = #expect(throws: ConformanceFailure.self, "\(label)") {
                try QueryCheck(FetchDescriptor(predicate: p)).verify(fixture: Self.fixture, datasets: 1, store: store)
            }
            #expect(failure?.check == "the predicate evaluates in Swift", "\(label)")
            #expect(
                failure?.actual.contains("more than \(PredicateDepth.maximumDepth) levels deep (the limit)") == true,
                "\(label): \(failure?.actual ?? "")")
            #expect(failure?.details.first?.contains("not printed") == true)
        }
    }

    @Test("QueryCheck of ! nested just under the limit passes on both stores", arguments: StoreKind.allCases)
    func queryCheckAtTheLimit(_ store: StoreKind) throws {
        let p = Self.negations(PredicateDepth.maximumDepth - 3)
        try PredicateDepth.check(p)
        try QueryCheck(FetchDescriptor(predicate: p)).verify(fixture: Self.fixture, datasets: 1, store: store)
    }

    @Test("the differential reference reports a 10,000-deep predicate as a mismatch of the reference, not a crash")
    func differentialTooDeep() throws {
        let harness = DifferentialHarness(seed: 1)
        let dataset = try harness.dataset("users")
        var random = SeededGenerator(seed: 1)
        let c = try PredicateCase(.accountUser, dataset, harness: harness, index: 0, random: &random)
        let error = #expect(throws: DifferentialMismatch.self) {
            _ = try c.verify(.leaf(Self.additions(10_000)), only: nil)
        }
        #expect(error?.check == "reference")
        #expect(
            error?.actual.contains("more than \(PredicateDepth.maximumDepth) levels deep (the limit)") == true,
            "\(error?.actual ?? "")")
    }
}

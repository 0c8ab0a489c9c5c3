import Foundation
import Testing

@testable import OpenSwiftData

// Predicates at the edges: integer arithmetic that overflows, paging at `Int.max`, identifiers
// from another container, and boolean structures far deeper than a hand-written `#Predicate`.
// Swift (`Predicate.evaluate` over the same objects) is the truth; where Swift traps, the
// fetch must throw a typed error instead.

/// Builds predicates over `CtxItem` from Foundation's `build_…` functions (what `#Predicate`
/// expands to), opening existential operands so each node has concrete nested types.
enum DeepPredicate {
    typealias Condition = any StandardPredicateExpression<Bool>
    typealias Row = PredicateExpressions.Variable<CtxItem>

    static func and<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(_ l: L, _ r: R)
        -> Condition
    {
        PredicateExpressions.build_Conjunction(lhs: l, rhs: r)
    }
    static func or<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(_ l: L, _ r: R)
        -> Condition
    {
        PredicateExpressions.build_Disjunction(lhs: l, rhs: r)
    }
    static func not<P: StandardPredicateExpression<Bool>>(_ p: P) -> Condition {
        PredicateExpressions.build_Negation(p)
    }
    /// `$0.n == k`.
    static func nIs(_ v: Row, _ k: Int) -> Condition {
        PredicateExpressions.build_Equal(
            lhs: PredicateExpressions.build_KeyPath(root: v, keyPath: \CtxItem.n),
            rhs: PredicateExpressions.build_Arg(k))
    }
    /// `$0.n != k`.
    static func nIsNot(_ v: Row, _ k: Int) -> Condition {
        PredicateExpressions.build_NotEqual(
            lhs: PredicateExpressions.build_KeyPath(root: v, keyPath: \CtxItem.n),
            rhs: PredicateExpressions.build_Arg(k))
    }

    /// `t0 <op> t1 <op> …`, grouped to the left as `#Predicate` writes `a && b && c`, or to the right.
    static func chain(
        _ terms: Int, leftAssociative: Bool, _ op: Op,
        _ term: @escaping (Row, Int) -> Condition
    ) -> Predicate<CtxItem> {
        Predicate<CtxItem> { v in
            let leaves = (0..<terms).map { term(v, $0) }
            if leftAssociative { return leaves.dropFirst().reduce(leaves[0]) { op.apply($0, $1) } }
            return leaves.dropLast().reversed().reduce(leaves[terms - 1]) { op.apply($1, $0) }
        }
    }

    /// `&&` or `||`.
    enum Op {
        case and, or
        func apply(_ l: Condition, _ r: Condition) -> Condition {
            switch self {
            case .and: DeepPredicate.and(l, r)
            case .or: DeepPredicate.or(l, r)
            }
        }
    }

    /// `!` applied `depth` times to `$0.flag`.
    static func negations(_ depth: Int) -> Predicate<CtxItem> {
        Predicate<CtxItem> { v in
            var e: Condition = PredicateExpressions.build_KeyPath(root: v, keyPath: \CtxItem.flag)
            for _ in 0..<depth { e = not(e) }
            return e
        }
    }

    /// `$0.n == 0 && ($0.n == 1 || ($0.n == 2 && (…)))`: `depth` operators, alternating, which
    /// no flattening can merge.
    static func alternating(_ depth: Int) -> Predicate<CtxItem> {
        Predicate<CtxItem> { v in
            var e: Condition = nIs(v, depth)
            for level in stride(from: depth - 1, through: 0, by: -1) {
                e = level % 2 == 0 ? or(nIs(v, level), e) : and(nIsNot(v, level), e)
            }
            return e
        }
    }

    /// `$0.n + 1 + 1 + …` (`depth` additions, grouped to the left) `> 0`.
    static func additions(_ depth: Int) -> Predicate<CtxItem> {
        func add<L: StandardPredicateExpression<Int>>(_ l: L) -> any StandardPredicateExpression<Int> {
            PredicateExpressions.build_Arithmetic(lhs: l, rhs: PredicateExpressions.build_Arg(1), op: .add)
        }
        func positive<L: StandardPredicateExpression<Int>>(_ l: L) -> Condition {
            PredicateExpressions.build_Comparison(lhs: l, rhs: PredicateExpressions.build_Arg(0), op: .greaterThan)
        }
        return Predicate<CtxItem> { v in
            var e: any StandardPredicateExpression<Int> = PredicateExpressions.build_KeyPath(
                root: v, keyPath: \CtxItem.n)
            for _ in 0..<depth { e = add(e) }
            return positive(e)
        }
    }
}

/// A store of `CtxItem`s, a context without pending changes and one with pending inserts.
struct LimitsFixture {
    static let savedValues = [-3, 0, 1, 2, 5, 17, 150, 199, 200, 250]
    let dir: ScratchDirectory
    let container: ModelContainer
    /// Sees only the saved rows.
    let saved: ModelContext
    /// Sees the saved rows and its own pending inserts (and is where pending models are evaluated).
    let pending: ModelContext

    init(_ kind: StoreKind, saved values: [Int] = LimitsFixture.savedValues, pending pendingValues: [Int] = [3, 201])
        throws
    {
        dir = try ScratchDirectory(prefix: "limits")
        container = try kind.makeContainer(for: contextSuiteModels, in: dir)
        let w = ModelContext(container)
        for (i, n) in values.enumerated() { w.insert(CtxItem(name: "s\(i)", n: n, flag: i % 3 == 0)) }
        try w.save()
        saved = ModelContext(container)
        pending = ModelContext(container)
        for (i, n) in pendingValues.enumerated() { pending.insert(CtxItem(name: "p\(i)", n: n, flag: i % 2 == 0)) }
    }

    /// Checks `p` on both contexts (fetch, fetchCount, fetchIdentifiers) against `Predicate.evaluate`.
    func expectSwiftAnswer(_ p: Predicate<CtxItem>, _ label: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        for (name, context) in [("saved", saved), ("pending", pending)] {
            let all = try context.fetch(FetchDescriptor<CtxItem>())
            let truth = try all.filter { try p.evaluate($0) }.map(\.name).sorted()
            let d = FetchDescriptor(predicate: p)
            #expect(
                try context.fetch(d).map(\.name).sorted() == truth, "\(label) [\(name)]: fetch",
                sourceLocation: sourceLocation)
            #expect(
                try context.fetchCount(d) == truth.count, "\(label) [\(name)]: fetchCount",
                sourceLocation: sourceLocation)
            #expect(
                try context.fetchIdentifiers(d).count == truth.count, "\(label) [\(name)]: fetchIdentifiers",
                sourceLocation: sourceLocation)
        }
    }
}

/// Runs `body` and returns the `SwiftDataError` it throws; records an issue when it returns or
/// throws anything else (a raw `SQLiteError` included).
@discardableResult
func expectSwiftDataError(
    _ code: SwiftDataError, _ label: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) -> SwiftDataError? {
    do {
        try body()
        Issue.record("\(label): expected SwiftDataError.\(code.code), got a result", sourceLocation: sourceLocation)
    } catch let e as SwiftDataError {
        #expect(e == code, "\(label): \(e)", sourceLocation: sourceLocation)
        return e
    } catch {
        Issue.record(
            "\(label): expected SwiftDataError.\(code.code), got \(type(of: error)): \(error)",
            sourceLocation: sourceLocation)
    }
    return nil
}

@Suite("PredicateLimits")
struct PredicateLimitsTests {
    // MARK: Integer overflow (Swift traps)

    /// Predicates whose integer arithmetic overflows for the row holding `value`.
    static let overflowing: [(label: String, value: Int, predicate: Predicate<CtxItem>)] = [
        ("$0.n + 1 > 0", .max, #Predicate<CtxItem> { $0.n + 1 > 0 }),
        ("$0.n - 1 < 0", .min, #Predicate<CtxItem> { $0.n - 1 < 0 }),
        ("$0.n * 2 != 0", .max / 2 + 1, #Predicate<CtxItem> { $0.n * 2 != 0 }),
        ("-$0.n > 0", .min, #Predicate<CtxItem> { -$0.n > 0 }),
    ]

    @Test(
        "integer overflow on a pending model throws arithmeticOverflow instead of trapping",
        arguments: StoreKind.allCases)
    func overflowOnAPendingModelThrows(_ kind: StoreKind) throws {
        for (label, value, p) in Self.overflowing {
            let f = try LimitsFixture(kind, pending: [4, value])
            let d = FetchDescriptor(predicate: p)
            expectSwiftDataError(.arithmeticOverflow, "\(label): fetch") { _ = try f.pending.fetch(d) }
            expectSwiftDataError(.arithmeticOverflow, "\(label): fetchCount") { _ = try f.pending.fetchCount(d) }
            expectSwiftDataError(.arithmeticOverflow, "\(label): fetchIdentifiers") {
                _ = try f.pending.fetchIdentifiers(d)
            }
        }
    }

    @Test(
        "integer overflow on a stored row throws arithmeticOverflow, as on a pending model",
        arguments: StoreKind.allCases)
    func overflowOnAStoredRowThrows(_ kind: StoreKind) throws {
        for (label, value, p) in Self.overflowing {
            let f = try LimitsFixture(kind, saved: LimitsFixture.savedValues + [value], pending: [])
            let d = FetchDescriptor(predicate: p)
            let e = expectSwiftDataError(.arithmeticOverflow, "\(label): fetch") { _ = try f.saved.fetch(d) }
            #expect(e?.sql != nil, "\(label): the error carries the statement")
            expectSwiftDataError(.arithmeticOverflow, "\(label): fetchCount") { _ = try f.saved.fetchCount(d) }
            expectSwiftDataError(.arithmeticOverflow, "\(label): fetchIdentifiers") {
                _ = try f.saved.fetchIdentifiers(d)
            }
            expectSwiftDataError(.arithmeticOverflow, "\(label): delete(model:where:)") {
                try f.saved.delete(model: CtxItem.self, where: p)
            }
        }
    }

    @Test(
        "arithmetic that Swift's short-circuit skips does not throw, stored or pending", arguments: StoreKind.allCases)
    func shortCircuitSkipsOverflowLikeSwift(_ kind: StoreKind) throws {
        let f = try LimitsFixture(kind, saved: LimitsFixture.savedValues + [.max], pending: [.max, 4])
        let top = Int.max
        try f.expectSwiftAnswer(#Predicate<CtxItem> { $0.n < 1000 && $0.n + 1 > 3 }, "n < 1000 && n + 1 > 3")
        try f.expectSwiftAnswer(#Predicate<CtxItem> { $0.n == top || $0.n + 1 > 3 }, "n == max || n + 1 > 3")
        try f.expectSwiftAnswer(
            #Predicate<CtxItem> { $0.n == top ? $0.flag : $0.n * 2 > 3 }, "n == max ? flag : n * 2 > 3")
        try f.expectSwiftAnswer(#Predicate<CtxItem> { $0.n - 1 > 3 }, "n - 1 > 3 (no overflow)")
    }

    // MARK: Paging

    @Test(
        "fetchLimit Int.max with fetchOffset 1 and a pending insert returns every row after the first",
        arguments: StoreKind.allCases)
    func fetchLimitMaxWithOffsetAndPendingInsert(_ kind: StoreKind) throws {
        let f = try LimitsFixture(kind)
        var all = FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.n)])
        let expected = try f.pending.fetch(all).dropFirst().map(\.name)
        all.fetchLimit = .max
        all.fetchOffset = 1
        #expect(try f.pending.fetch(all).map(\.name) == expected)
        #expect(try f.pending.fetchCount(all) == expected.count)
        #expect(try f.pending.fetchIdentifiers(all).count == expected.count)
        #expect(
            try f.saved.fetch(all).map(\.name)
                == f.saved.fetch(FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.n)])).dropFirst().map(\.name))
    }

    // MARK: Identifiers from another container

    /// A saved `Product` in a container whose schema has none of `contextSuiteModels`.
    static func foreignProductID(_ kind: StoreKind, _ dir: ScratchDirectory) throws -> (
        ModelContainer, PersistentIdentifier
    ) {
        let other = try kind.makeContainer(for: [Product.self, Tag.self], in: dir, name: "other")
        let ctx = ModelContext(other)
        let product = Product(name: "foreign", price: 1)
        ctx.insert(product)
        try ctx.save()
        return (other, product.persistentModelID)
    }

    @Test(
        "model(for:) with an identifier of an entity outside the schema gives a deleted stand-in, not a trap",
        arguments: StoreKind.allCases)
    func modelForAForeignEntityIdentifier(_ kind: StoreKind) throws {
        let f = try LimitsFixture(kind)
        let (other, id) = try Self.foreignProductID(kind, f.dir)
        defer { withExtendedLifetime(other) {} }
        let model = f.saved.model(for: id)
        #expect(model.persistentModelID == id)
        #expect(model.isDeleted)
        #expect(model.modelContext == nil)
        #expect((f.saved.registeredModel(for: id) as Product?) == nil)
        #expect((f.saved.registeredModel(for: id) as CtxItem?) == nil)
        #expect(f.saved.model(for: id).persistentModelID == id, "asking again")
        #expect(!f.saved.hasChanges)
    }

    @Test(
        "model(for:) with an identifier naming an entity no model class has does not trap",
        arguments: StoreKind.allCases)
    func modelForAnUnknownEntityIdentifier(_ kind: StoreKind) throws {
        let f = try LimitsFixture(kind)
        let item = try #require(f.saved.fetch(FetchDescriptor<CtxItem>()).first)
        let json = String(decoding: try JSONEncoder().encode(item.persistentModelID), as: UTF8.self)
        #expect(json.contains("\"CtxItem\""))
        let forged = try JSONDecoder().decode(
            PersistentIdentifier.self,
            from: Data(json.replacingOccurrences(of: "\"CtxItem\"", with: "\"NoSuchEntity\"").utf8))
        let model = f.saved.model(for: forged)
        #expect(model.persistentModelID == forged)
        #expect(model.isDeleted)
        #expect((f.saved.registeredModel(for: forged) as CtxItem?) == nil)
    }

    @Test(
        "a fetch by an identifier of another schema's entity matches nothing, as in Swift",
        arguments: StoreKind.allCases)
    func fetchByAForeignIdentifier(_ kind: StoreKind) throws {
        let f = try LimitsFixture(kind)
        let (other, id) = try Self.foreignProductID(kind, f.dir)
        defer { withExtendedLifetime(other) {} }
        // The foreign row's primary key is 1, as is a CtxItem's here: only the key must not match.
        #expect(id.primaryKey == 1)
        let ids = [id]
        try f.expectSwiftAnswer(#Predicate<CtxItem> { $0.persistentModelID == id }, "persistentModelID == foreign id")
        try f.expectSwiftAnswer(#Predicate<CtxItem> { $0.persistentModelID != id }, "persistentModelID != foreign id")
        try f.expectSwiftAnswer(#Predicate<CtxItem> { ids.contains($0.persistentModelID) }, "[foreign id].contains")
        let local = try #require(f.saved.fetch(FetchDescriptor<CtxItem>()).first).persistentModelID
        try f.expectSwiftAnswer(#Predicate<CtxItem> { $0.persistentModelID == local }, "persistentModelID == local id")
    }

    // MARK: Deep boolean structure

    @Test("! nested 49 deep gives Swift's answer", arguments: StoreKind.allCases)
    func negationsNested49Deep(_ kind: StoreKind) throws {
        let f = try LimitsFixture(kind)
        try f.expectSwiftAnswer(DeepPredicate.negations(49), "!×49 flag")
        try f.expectSwiftAnswer(DeepPredicate.negations(50), "!×50 flag")
        try f.expectSwiftAnswer(DeepPredicate.negations(1), "!flag")
    }

    @Test("&& of 200 terms gives Swift's answer, grouped either way", arguments: StoreKind.allCases)
    func conjunctionOf200Terms(_ kind: StoreKind) throws {
        let f = try LimitsFixture(kind)
        for left in [true, false] {
            try f.expectSwiftAnswer(
                DeepPredicate.chain(200, leftAssociative: left, .and, DeepPredicate.nIsNot),
                "200 × n != k, \(left ? "left" : "right")-grouped")
        }
    }

    @Test(
        "a predicate deeper than the leaf collector goes is translated on every fetch (not cached) and still checks pending overflow",
        arguments: StoreKind.allCases)
    func deeperThanCollectedIsNotCached(_ kind: StoreKind) throws {
        let f = try LimitsFixture(kind, pending: [3, .max])
        let depth = PredicateLeaves.maximumDepth + 12
        // The deepest term (the first, grouped to the left) is `n + 1 > 0`: it overflows for the
        // pending `.max`, which Swift would trap on, so the context must check before evaluating.
        let p = DeepPredicate.chain(depth, leftAssociative: true, .and) { v, k in
            k == 0
                ? PredicateExpressions.build_Comparison(
                    lhs: PredicateExpressions.build_Arithmetic(
                        lhs: PredicateExpressions.build_KeyPath(root: v, keyPath: \CtxItem.n),
                        rhs: PredicateExpressions.build_Arg(1), op: .add),
                    rhs: PredicateExpressions.build_Arg(0), op: .greaterThan)
                : DeepPredicate.nIsNot(v, 1000 + k)
        }
        let d = FetchDescriptor(predicate: p)
        let saved = try f.saved.fetch(FetchDescriptor<CtxItem>())
        let cached = f.container.queryCache.count
        let truth = try saved.filter { try p.evaluate($0) }.map(\.name).sorted()
        #expect(try f.saved.fetch(d).map(\.name).sorted() == truth)
        #expect(try f.saved.fetch(d).map(\.name).sorted() == truth, "the second fetch translates again")
        #expect(f.container.queryCache.count == cached, "a tree this deep is not cached")
        #expect(f.container.queryCache.refusals == [])
        expectSwiftDataError(.arithmeticOverflow, "\(depth) deep: fetch") { _ = try f.pending.fetch(d) }
    }

    @Test("|| of 200 terms gives Swift's answer, grouped either way", arguments: StoreKind.allCases)
    func disjunctionOf200Terms(_ kind: StoreKind) throws {
        let f = try LimitsFixture(kind)
        for left in [true, false] {
            try f.expectSwiftAnswer(
                DeepPredicate.chain(200, leftAssociative: left, .or, DeepPredicate.nIs),
                "200 × n == k, \(left ? "left" : "right")-grouped")
        }
    }

    @Test("a chain of && is one flat AND list and !! disappears, in the SQL")
    func flattenedSQLShape() throws {
        let f = try LimitsFixture(.memory)
        func whereSQL(_ p: Predicate<CtxItem>) throws -> String {
            try f.saved.query(FetchDescriptor(predicate: p)).compiled.whereSQL
        }
        let term = "(t.\"ZN\" IS NOT ?)"
        for left in [true, false] {
            let sql = try whereSQL(DeepPredicate.chain(4, leftAssociative: left, .and, DeepPredicate.nIsNot))
            #expect(sql == "(\(Array(repeating: term, count: 4).joined(separator: " AND ")))")
        }
        let or = try whereSQL(DeepPredicate.chain(3, leftAssociative: true, .or, DeepPredicate.nIs))
        #expect(or == "((t.\"ZN\" IS ?) OR (t.\"ZN\" IS ?) OR (t.\"ZN\" IS ?))")
        // && inside || stays a group of its own.
        let mixed = try whereSQL(
            #Predicate<CtxItem> { ($0.n == 1 && $0.n != 2) || $0.n == 3 || ($0.n == 4 || $0.flag) })
        #expect(
            mixed
                == "(((t.\"ZN\" IS ?) AND (t.\"ZN\" IS NOT ?)) OR (t.\"ZN\" IS ?) OR (t.\"ZN\" IS ?) OR (t.\"ZFLAG\" != 0))"
        )
        #expect(try whereSQL(DeepPredicate.negations(49)) == "(NOT (t.\"ZFLAG\" != 0))")
        #expect(try whereSQL(DeepPredicate.negations(50)) == "(t.\"ZFLAG\" != 0)")
        let count = try whereSQL(DeepPredicate.chain(200, leftAssociative: true, .and, DeepPredicate.nIsNot))
            .components(separatedBy: " AND ").count
        #expect(count == 200)
    }

    @Test(
        "boolean nesting at the documented limit works; one level more throws unsupportedPredicate naming both",
        arguments: StoreKind.allCases)
    func nestingPastTheLimitThrows(_ kind: StoreKind) throws {
        let f = try LimitsFixture(kind)
        try f.expectSwiftAnswer(DeepPredicate.alternating(SQLTranslation.maximumNesting), "alternating at the limit")
        let depth = SQLTranslation.maximumNesting + 1
        for context in [f.saved, f.pending] {
            let e = expectSwiftDataError(.unsupportedPredicate, "alternating past the limit") {
                _ = try context.fetch(FetchDescriptor(predicate: DeepPredicate.alternating(depth)))
            }
            #expect(
                e?.message.contains("\(depth)") == true
                    && e?.message.contains("\(SQLTranslation.maximumNesting)") == true,
                "\(String(describing: e))")
        }
    }

    @Test(
        "SQLite's own limits (parser stack, expression depth) surface as unsupportedPredicate, not SQLiteError",
        arguments: StoreKind.allCases)
    func sqliteLimitsAreTypedErrors(_ kind: StoreKind) throws {
        let f = try LimitsFixture(kind)
        // 120 nested additions overflow SQLite's parser stack.
        let deepArithmetic = FetchDescriptor(predicate: DeepPredicate.additions(120))
        for context in [f.saved, f.pending] {
            let e = expectSwiftDataError(.unsupportedPredicate, "120 nested +") {
                _ = try context.fetch(deepArithmetic)
            }
            #expect(e?.message.contains("parser stack") == true, "\(String(describing: e))")
            expectSwiftDataError(.unsupportedPredicate, "120 nested +: fetchCount") {
                _ = try context.fetchCount(deepArithmetic)
            }
            expectSwiftDataError(.unsupportedPredicate, "120 nested +: fetchIdentifiers") {
                _ = try context.fetchIdentifiers(deepArithmetic)
            }
        }
        // A chain of 1100 && is one flat AND list in SQL, but 1100 levels of Foundation's tree, which
        // `Predicate.evaluate` recurses through: refused before any walk (PredicateDepth), naming the limit.
        let long = FetchDescriptor(
            predicate: DeepPredicate.chain(1100, leftAssociative: true, .and, DeepPredicate.nIsNot))
        let e = expectSwiftDataError(.unsupportedPredicate, "1100 × &&") { _ = try f.saved.fetch(long) }
        #expect(
            e?.message.contains("more than \(PredicateDepth.maximumDepth) levels") == true, "\(String(describing: e))")
    }
}

import Foundation
import OpenSwiftDataTesting
import Testing

@testable import OpenSwiftData

/// `fetchHistory` runs a descriptor's predicate, sort and limit as SQL where it can (HIS-12,
/// HIS-13, HIS-14): every answer must equal the Swift reference, the stored history filtered
/// with `Predicate.evaluate`, sorted with `sort(using:)` and cut to the limit.
@Suite("History queries")
struct HistoryQueryTests {
    typealias Tx = DefaultHistoryTransaction

    /// A history of `saves` saves by several authors (a decomposed `é` among them), one save
    /// of two inserts, updates and a delete.
    private func history(_ kind: StoreKind, _ dir: ScratchDirectory, saves: Int = 12) throws -> ModelContext {
        let container = try kind.makeContainer(for: [HiNote.self], in: dir)
        let context = ModelContext(container)
        let authors: [String?] = ["widget", nil, "app", "e\u{301}", "widget", "é"]
        for i in 0..<saves {
            context.author = authors[i % authors.count]
            if i % 5 == 3, let note = try context.fetch(FetchDescriptor<HiNote>()).first {
                note.pages += 1
            } else if i % 7 == 6, let note = try context.fetch(FetchDescriptor<HiNote>()).last {
                context.delete(note)
            } else {
                context.insert(HiNote(key: "n\(i)", title: "t\(i)"))
                if i % 4 == 0 { context.insert(HiNote(key: "m\(i)", title: "u\(i)")) }
            }
            try context.save()
        }
        return context
    }

    /// What `fetchHistory` returned before any SQL: all of it, filtered, sorted and cut in Swift.
    private func reference(_ descriptor: HistoryDescriptor<Tx>, _ context: ModelContext) throws -> [Tx] {
        var result = try context.fetchHistory(HistoryDescriptor<Tx>())
        if let predicate = descriptor.predicate { result = try result.filter { try predicate.evaluate($0) } }
        if !descriptor.sortBy.isEmpty { result.sort(using: descriptor.sortBy) }
        if let limit = descriptor.fetchLimit, limit >= 0 { result = Array(result.prefix(limit)) }
        return result
    }

    /// A transaction in full: key, author, time, and its changes' keys and rows.
    private func summary(_ t: Tx) -> String {
        let changes = t.changes.map { "\($0.changeIdentifier):\($0.changedPersistentIdentifier)" }
        return
            "\(t.transactionIdentifier)|\(t.author ?? "nil")|\(t.timestamp.timeIntervalSinceReferenceDate)|\(changes)"
    }

    private func expectSame(
        _ descriptor: HistoryDescriptor<Tx>, _ context: ModelContext, exact: Bool? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let expected = try reference(descriptor, context).map(summary)
        let actual = try context.fetchHistory(descriptor).map(summary)
        #expect(actual == expected, sourceLocation: sourceLocation)
        if let exact, let predicate = descriptor.predicate {
            let id = try context.fetchHistory(HistoryDescriptor<Tx>()).first?.storeIdentifier ?? ""
            let condition = HistoryTranslation.condition(of: predicate, storeIdentifier: id)
            #expect(condition.isExact == exact, sourceLocation: sourceLocation)
        }
    }

    @Test(
        "HIS-12: token, transactionIdentifier, timestamp, author and storeIdentifier comparisons, && || !, run as SQL with the Swift answer",
        arguments: StoreKind.allCases)
    func his12TranslatedShapes(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "his12-shapes")
        let context = try history(kind, dir)
        let all = try context.fetchHistory(HistoryDescriptor<Tx>())
        let t = all[4].token
        let k = all[6].transactionIdentifier
        let date = all[5].timestamp
        let store = all[0].storeIdentifier
        let shapes: [Predicate<Tx>] = [
            #Predicate { $0.token > t }, #Predicate { $0.token >= t }, #Predicate { $0.token < t },
            #Predicate { $0.token <= t }, #Predicate { $0.token == t }, #Predicate { $0.token != t },
            #Predicate { t < $0.token }, #Predicate { $0.token.transactionIdentifier >= k },
            #Predicate { $0.transactionIdentifier > k }, #Predicate { $0.transactionIdentifier == k },
            #Predicate { k >= $0.transactionIdentifier }, #Predicate { $0.timestamp > date },
            #Predicate { $0.timestamp <= date }, #Predicate { $0.timestamp == date },
            #Predicate { $0.timestamp != date },
            #Predicate { $0.author == "widget" }, #Predicate { $0.author != "widget" }, #Predicate { $0.author == nil },
            #Predicate { $0.author != nil }, #Predicate { $0.author == "é" },
            #Predicate { $0.storeIdentifier == store },
            #Predicate { $0.storeIdentifier != store }, #Predicate { $0.token > t && $0.author == "widget" },
            #Predicate { $0.token < t || $0.author == nil }, #Predicate { !($0.token > t) },
            #Predicate { !($0.token > t && $0.timestamp < date) || $0.transactionIdentifier == k },
            #Predicate { _ in true }, #Predicate { _ in false },
        ]
        for predicate in shapes { try expectSame(HistoryDescriptor(predicate: predicate), context, exact: true) }
        try expectSame(HistoryDescriptor(after: t), context, exact: true)
        // "e\u{301}" and "é" are one author to Swift's ==.
        #expect(try context.fetchHistory(HistoryDescriptor(predicate: #Predicate<Tx> { $0.author == "é" })).count == 4)
    }

    @Test(
        "HIS-12: a token of another store is before or after every transaction, as DefaultHistoryToken orders; a token past the newest selects nothing",
        arguments: StoreKind.allCases)
    func his12TokenOrdering(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "his12-tokens")
        let context = try history(kind, dir, saves: 5)
        let store = try context.fetchHistory(HistoryDescriptor<Tx>())[0].storeIdentifier
        let before = DefaultHistoryToken(storeIdentifier: "", transactionIdentifier: 99)
        let after = DefaultHistoryToken(storeIdentifier: store + "~", transactionIdentifier: 0)
        let beyond = DefaultHistoryToken(storeIdentifier: store, transactionIdentifier: 1_000)
        #expect(try context.fetchHistory(HistoryDescriptor(after: before)).count == 5)
        #expect(try context.fetchHistory(HistoryDescriptor(after: after)).isEmpty)
        #expect(try context.fetchHistory(HistoryDescriptor(after: beyond)).isEmpty)
        for token in [before, after, beyond] {
            for predicate: Predicate<Tx> in [
                #Predicate { $0.token > token }, #Predicate { $0.token <= token }, #Predicate { $0.token == token },
                #Predicate { $0.token != token },
            ] {
                try expectSame(HistoryDescriptor(predicate: predicate), context, exact: true)
            }
        }
    }

    @Test(
        "HIS-13: sorts by token or transactionIdentifier and fetchLimit run in SQL (limit 0 is empty, a negative limit none); other sorts in Swift",
        arguments: StoreKind.allCases)
    func his13SortAndLimit(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "his13-limit")
        let context = try history(kind, dir)
        let all = try context.fetchHistory(HistoryDescriptor<Tx>())
        let t = all[3].token
        let sorts: [[SortDescriptor<Tx>]] = [
            [], [SortDescriptor(\.token)], [SortDescriptor(\.token, order: .reverse)],
            [SortDescriptor(\.transactionIdentifier, order: .reverse)], [SortDescriptor(\.timestamp, order: .reverse)],
        ]
        for sortBy in sorts {
            for limit in [nil, 0, 1, 3, -1] {
                try expectSame(HistoryDescriptor(sortBy: sortBy, fetchLimit: limit), context)
                try expectSame(HistoryDescriptor(after: t, sortBy: sortBy, fetchLimit: limit), context)
                try expectSame(
                    HistoryDescriptor(
                        predicate: #Predicate { $0.changes.count > 1 }, sortBy: sortBy, fetchLimit: limit),
                    context)
            }
        }
        var latest = HistoryDescriptor<Tx>(sortBy: [SortDescriptor(\.token, order: .reverse)])
        latest.fetchLimit = 1
        #expect(try context.fetchHistory(latest).map(\.token) == [all[all.count - 1].token])
    }

    @Test(
        "HIS-13: fetching after a token costs the same SQLite steps with 20 or 400 older transactions",
        arguments: StoreKind.allCases)
    func his13CostIndependentOfAge(_ kind: StoreKind) throws {
        var steps: [Int] = []
        for older in [20, 400] {
            let dir = try ScratchDirectory(prefix: "his13-age")
            let container = try kind.makeContainer(for: [HiNote.self], in: dir)
            let context = ModelContext(container)
            for i in 0..<older {
                context.insert(HiNote(key: "o\(i)", title: "old"))
                try context.save()
            }
            let token = try context.fetchHistory(
                HistoryDescriptor<Tx>(sortBy: [SortDescriptor(\.token, order: .reverse)], fetchLimit: 1))[0].token
            for i in 0..<3 {
                context.insert(HiNote(key: "n\(i)", title: "new"))
                try context.save()
            }
            _ = try context.fetchHistory(HistoryDescriptor(after: token))  // prepares the statements
            _ = container.statementCounters(reset: true)
            let newer = try context.fetchHistory(HistoryDescriptor(after: token))
            steps.append(container.statementCounters().vmSteps)
            #expect(newer.count == 3 && newer.allSatisfy { $0.changes.count == 1 })
        }
        #expect(steps[0] == steps[1], "VM steps with 20 and 400 older transactions: \(steps)")
    }

    @Test(
        "HIS-14: parts with no SQL (changes, bundle, ?:, a forced unwrap) are evaluated in Swift on what the SQL keeps, with the same answers and errors",
        arguments: StoreKind.allCases)
    func his14Fallback(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "his14-fallback")
        let context = try history(kind, dir)
        let all = try context.fetchHistory(HistoryDescriptor<Tx>())
        let t = all[5].token
        let bundle = all[0].bundleIdentifier
        let shapes: [Predicate<Tx>] = [
            #Predicate { $0.changes.count > 1 }, #Predicate { $0.token > t && $0.changes.count > 1 },
            #Predicate { $0.changes.count > 1 && $0.token > t }, #Predicate { $0.token > t || $0.changes.count > 1 },
            #Predicate { !($0.changes.count > 1 && $0.token < t) }, #Predicate { $0.bundleIdentifier == bundle },
            #Predicate { ($0.author ?? "") == "app" },
            #Predicate { $0.token > t ? $0.author == nil : $0.changes.isEmpty },
        ]
        for predicate in shapes { try expectSame(HistoryDescriptor(predicate: predicate), context, exact: false) }
        // The first transaction has an author, the second none: Swift's `&&` unwraps it only after the
        // token test, so the SQL may drop that row; written the other way round it throws, as before.
        let first = all[0].token
        let unwrapLate = #Predicate<Tx> { $0.token > first && $0.author! == "widget" }
        #expect(throws: (any Error).self) { try context.fetchHistory(HistoryDescriptor(predicate: unwrapLate)) }
        let second = all[1].token
        let guarded = #Predicate<Tx> { $0.token > second && $0.token < t && $0.author! != "" }
        try expectSame(HistoryDescriptor(predicate: guarded), context, exact: false)
        let unwrapFirst = #Predicate<Tx> { $0.author! == "widget" && $0.token > t }
        #expect(throws: (any Error).self) { try context.fetchHistory(HistoryDescriptor(predicate: unwrapFirst)) }
    }

    @Test(
        "HIS-12, HIS-14: odd rows an older or foreign writer leaves (NULL or text timestamps, a legacy ZAUTHOR, gaps) read the same through SQL",
        arguments: StoreKind.allCases)
    func his12ForeignRows(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "his12-foreign")
        let context = try history(kind, dir)
        try tamper(context)
        let all = try context.fetchHistory(HistoryDescriptor<Tx>())
        let zero = Date(timeIntervalSinceReferenceDate: 0)
        let date = all[6].timestamp
        let shapes: [Predicate<Tx>] = [
            #Predicate { $0.timestamp == zero }, #Predicate { $0.timestamp < date },
            #Predicate { $0.timestamp >= zero },
            #Predicate { $0.timestamp > zero }, #Predicate { $0.author == "legacy" }, #Predicate { $0.author == nil },
        ]
        for predicate in shapes { try expectSame(HistoryDescriptor(predicate: predicate), context, exact: true) }
        #expect(
            try context.fetchHistory(HistoryDescriptor(predicate: #Predicate<Tx> { $0.author == "legacy" })).count == 1)
    }

    /// Rewrites a few `ATRANSACTION` rows as other writers may leave them, and deletes two transactions.
    private func tamper(_ context: ModelContext) throws {
        try context.container.withStoreConnection { db in
            try db.run("UPDATE ATRANSACTION SET ZTIMESTAMP = NULL WHERE Z_PK = 2")
            try db.run("UPDATE ATRANSACTION SET ZTIMESTAMP = 'soon' WHERE Z_PK = 3")
            try db.run(
                "UPDATE ATRANSACTION SET ZTIMESTAMP = (SELECT ZTIMESTAMP FROM ATRANSACTION WHERE Z_PK = 5) WHERE Z_PK = 6"
            )
            try db.run("UPDATE ATRANSACTION SET ZAUTHORTS = NULL, ZAUTHOR = 'legacy' WHERE Z_PK = 4")
            try db.run("UPDATE ATRANSACTION SET ZAUTHORTS = NULL, ZAUTHOR = x'00' WHERE Z_PK = 8")
        }
        let all = try context.fetchHistory(HistoryDescriptor<Tx>())
        let (first, second) = (all[9].token, all[10].token)
        try context.deleteHistory(
            HistoryDescriptor(predicate: #Predicate<Tx> { $0.token == first || $0.token == second }))
    }

    @Test(
        "The benchmarks' history switch: saves record nothing while it is off and record again once it is back on",
        arguments: StoreKind.allCases)
    func historyRecordingSwitch(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "history-switch")
        let container = try kind.makeContainer(for: [HiNote.self], in: dir)
        let context = ModelContext(container)
        try container.setHistoryRecording(false)
        context.insert(HiNote(key: "quiet", title: "q"))
        try context.save()
        #expect(try context.fetchHistory(HistoryDescriptor<Tx>()).isEmpty)
        try container.setHistoryRecording(true)
        context.insert(HiNote(key: "heard", title: "h"))
        try context.save()
        #expect(try context.fetchHistory(HistoryDescriptor<Tx>()).map(\.changes.count) == [1])
    }

    @Test(
        "HIS-12, HIS-13, HIS-14: random predicates, sorts and limits on random histories give exactly the Swift reference's transactions",
        arguments: StoreKind.allCases)
    func randomDifferential(_ kind: StoreKind) throws {
        for seed: UInt64 in [1, 2, 3] {
            let dir = try ScratchDirectory(prefix: "his-differential")
            var random = SeededGenerator(seed: seed)
            let context = try history(kind, dir, saves: 14 + Int(seed) * 5)
            if seed != 1 { try tamper(context) }
            let all = try context.fetchHistory(HistoryDescriptor<Tx>())
            let leaves = HistoryLeaves(all)
            for _ in 0..<150 {
                let predicate = leaves.predicate(depth: 3, &random)
                let sorts: [[SortDescriptor<Tx>]] = [
                    [], [SortDescriptor(\.token, order: .reverse)], [SortDescriptor(\.transactionIdentifier)],
                    [SortDescriptor(\.timestamp)],
                ]
                let limits: [Int?] = [nil, nil, 0, 2, -1]
                let descriptor = HistoryDescriptor(
                    predicate: predicate.predicate, sortBy: sorts[random.pick(sorts.count)],
                    fetchLimit: limits[random.pick(limits.count)])
                let expected = Result { try reference(descriptor, context).map(summary) }
                let actual = Result { try context.fetchHistory(descriptor).map(summary) }
                switch (expected, actual) {
                case (.success(let e), .success(let a)):
                    #expect(
                        a == e,
                        "seed \(seed): \(predicate.source) sort \(descriptor.sortBy.count) limit \(String(describing: descriptor.fetchLimit))"
                    )
                case (.failure, .failure): break
                default:
                    Issue.record("seed \(seed): \(predicate.source): reference \(expected), fetchHistory \(actual)")
                }
            }
        }
    }
}

/// Random leaves over a history's own values: comparisons the translation handles, and parts
/// it leaves to Swift.
struct HistoryLeaves {
    typealias Tx = DefaultHistoryTransaction
    typealias Term = PredicateTerm<Tx, Bool>
    let tokens: [DefaultHistoryToken]
    let keys: [Int64]
    let dates: [Date]
    let authors: [String?] = ["widget", "app", nil, "é", "e\u{301}", "legacy", "nobody"]
    let stores: [String]

    init(_ all: [Tx]) {
        let store = all.first?.storeIdentifier ?? ""
        let last = all.last?.transactionIdentifier ?? 0
        tokens =
            all.map(\.token) + [
                DefaultHistoryToken(storeIdentifier: "", transactionIdentifier: 3),
                DefaultHistoryToken(storeIdentifier: store + "~", transactionIdentifier: 1),
                DefaultHistoryToken(storeIdentifier: store, transactionIdentifier: last + 3),
            ]
        keys = all.map(\.transactionIdentifier) + [0, -1, last + 1]
        dates = all.map(\.timestamp) + [Date(timeIntervalSinceReferenceDate: 0), .distantFuture]
        stores = [store, "", store + "~"]
    }

    func predicate(depth: Int, _ random: inout SeededGenerator) -> RandomPredicate<Tx> {
        if depth <= 1 || random.coin(0.35) { return .leaf(leaf(&random)) }
        switch random.pick(10) {
        case 0, 1: return .not(predicate(depth: depth - 1, &random))
        case 2, 3, 4, 5: return .and(predicate(depth: depth - 1, &random), predicate(depth: depth - 1, &random))
        case 6, 7, 8: return .or(predicate(depth: depth - 1, &random), predicate(depth: depth - 1, &random))
        default:
            return .conditional(
                predicate(depth: depth - 1, &random), predicate(depth: depth - 1, &random),
                predicate(depth: depth - 1, &random))
        }
    }

    func leaf(_ random: inout SeededGenerator) -> Term {
        let ops: [PredicateExpressions.ComparisonOperator] = [
            .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual,
        ]
        let op = ops[random.pick(ops.count)]
        let flip = random.coin(0.3)
        switch random.pick(9) {
        case 0, 1: return Self.compare("token", \.token, op, tokens[random.pick(tokens.count)], flip: flip)
        case 2:
            return Self.compare(
                "transactionIdentifier", \.transactionIdentifier, op, keys[random.pick(keys.count)], flip: flip)
        case 3: return Self.compare("timestamp", \.timestamp, op, dates[random.pick(dates.count)], flip: flip)
        case 4: return Self.equal("token", \.token, tokens[random.pick(tokens.count)], negated: random.coin(0.5))
        case 5: return Self.equal("author", \.author, authors[random.pick(authors.count)], negated: random.coin(0.5))
        case 6:
            return Self.equal(
                "storeIdentifier", \.storeIdentifier, stores[random.pick(stores.count)], negated: random.coin(0.5))
        case 7: return Self.equal("timestamp", \.timestamp, dates[random.pick(dates.count)], negated: random.coin(0.5))
        default: return random.coin(0.5) ? Self.changeCount(random.pick(3)) : Self.unwrappedAuthor()
        }
    }

    static func compare<V: Comparable & Codable & Sendable>(
        _ name: String, _ keyPath: KeyPath<Tx, V> & Sendable, _ op: PredicateExpressions.ComparisonOperator, _ value: V,
        flip: Bool
    ) -> Term {
        Term(
            source: { "\(flip ? "\(value) \(op) " : "")\($0).\(name)\(flip ? "" : " \(op) \(value)")" },
            build: { v in
                let field = PredicateExpressions.build_KeyPath(root: v, keyPath: keyPath)
                let constant = PredicateExpressions.build_Arg(value)
                return flip
                    ? PredicateExpressions.build_Comparison(lhs: constant, rhs: field, op: op)
                    : PredicateExpressions.build_Comparison(lhs: field, rhs: constant, op: op)
            })
    }

    static func equal<V: Equatable & Codable & Sendable>(
        _ name: String, _ keyPath: KeyPath<Tx, V> & Sendable, _ value: V, negated: Bool
    ) -> Term {
        Term(
            source: { "\($0).\(name) \(negated ? "!=" : "==") \(value)" },
            build: { v in
                let field = PredicateExpressions.build_KeyPath(root: v, keyPath: keyPath)
                let constant = PredicateExpressions.build_Arg(value)
                return negated
                    ? PredicateExpressions.build_NotEqual(lhs: field, rhs: constant)
                    : PredicateExpressions.build_Equal(lhs: field, rhs: constant)
            })
    }

    /// `$0.changes.count > n`: no SQL.
    static func changeCount(_ n: Int) -> Term {
        Term(
            source: { "\($0).changes.count > \(n)" },
            build: { v in
                PredicateExpressions.build_Comparison(
                    lhs: PredicateExpressions.build_KeyPath(
                        root: PredicateExpressions.build_KeyPath(root: v, keyPath: \Tx.changes), keyPath: \.count),
                    rhs: PredicateExpressions.build_Arg(n), op: .greaterThan)
            })
    }

    /// `$0.author! != ""`: no SQL, and throws for a transaction without an author.
    static func unwrappedAuthor() -> Term {
        Term(
            source: { "\($0).author! != \"\"" },
            build: { v in
                PredicateExpressions.build_NotEqual(
                    lhs: PredicateExpressions.build_ForcedUnwrap(
                        PredicateExpressions.build_KeyPath(root: v, keyPath: \Tx.author)),
                    rhs: PredicateExpressions.build_Arg(""))
            })
    }
}

extension SeededGenerator {
    /// A number in `0..<n` (`n` > 0; the modulo bias is irrelevant here).
    fileprivate mutating func pick(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    /// True with probability about `p`.
    fileprivate mutating func coin(_ p: Double) -> Bool { Double(next() % 1_000) < p * 1_000 }
}

import Foundation
import Testing

@testable import OpenSwiftData

/// The statement cache keyed by query shape: the same predicate shape with new captured values
/// reuses one translation and still returns the right rows.
@Suite("QueryCache")
struct QueryCacheTests {
    /// A context on a new store of `kind` holding one `Word` for each of `texts`, saved; the
    /// directory is returned so the caller keeps it until the test ends.
    private func words(_ texts: [String], _ kind: StoreKind, prefix: String) throws -> (ScratchDirectory, ModelContext)
    {
        let dir = try ScratchDirectory(prefix: prefix)
        let ctx = ModelContext(try kind.makeContainer(for: [Word.self, Category.self], in: dir))
        for text in texts { ctx.insert(Word(text: text)) }
        try ctx.save()
        return (dir, ctx)
    }

    @Test("same shape, new values: one cached translation, correct rows", arguments: StoreKind.allCases)
    func reuse(_ kind: StoreKind) throws {
        let (dir, ctx) = try words(["a", "bb", "ccc", "dddd"], kind, prefix: "qcache")
        defer { withExtendedLifetime(dir) {} }
        let container = ctx.container
        for n in 1...4 {
            let d = FetchDescriptor<Word>(predicate: #Predicate { $0.length == n })
            #expect(try ctx.fetch(d).map(\.text) == [String(repeating: Character(UnicodeScalar(96 + n)!), count: n)])
        }
        #expect(container.queryCache.count == 1)
        // Same expression type, different key path: a second entry, not a wrong reuse.
        let byText = FetchDescriptor<Word>(predicate: #Predicate { $0.text == "bb" })
        #expect(try ctx.fetch(byText).count == 1)
        let byLength = FetchDescriptor<Word>(predicate: #Predicate { $0.length == 3 })
        #expect(try ctx.fetch(byLength).map(\.text) == ["ccc"])
        #expect(try ctx.fetchCount(FetchDescriptor<Word>(predicate: #Predicate { $0.length > 1 })) == 3)
        #expect(try ctx.fetchCount(FetchDescriptor<Word>(predicate: #Predicate { $0.length > 3 })) == 1)
        // `<` and `<=` share an expression type; the operator is a stored value and must not be reused.
        #expect(try ctx.fetchCount(FetchDescriptor<Word>(predicate: #Predicate { $0.length < 2 })) == 1)
        #expect(try ctx.fetchCount(FetchDescriptor<Word>(predicate: #Predicate { $0.length <= 2 })) == 2)
    }

    @Test(
        "FET-06 sorted shapes: equal sorts in another array reuse the entry; another order, direction or string order does not",
        arguments: StoreKind.allCases)
    func sortedKeys(_ kind: StoreKind) throws {
        let (dir, ctx) = try words(["item 10", "Item 2", "item 1"], kind, prefix: "qcache-sorted")
        defer { withExtendedLifetime(dir) {} }
        let container = ctx.container
        let natural = FetchDescriptor<Word>(sortBy: [SortDescriptor(\.text)])
        for _ in 0..<3 { #expect(try ctx.fetch(natural).map(\.text) == ["item 1", "Item 2", "item 10"]) }
        // The same sorts in a new array: equal keys, one entry.
        #expect(try ctx.fetch(FetchDescriptor<Word>(sortBy: [SortDescriptor(\.text)])).map(\.text).first == "item 1")
        #expect(container.queryCache.count == 1)
        // Another string order is another query.
        var lexical = natural
        lexical.stringSortStyle = .lexical
        #expect(try ctx.fetch(lexical).map(\.text) == ["Item 2", "item 1", "item 10"])
        #expect(container.queryCache.count == 2)
        // Back to the first descriptor (its array is the cached key's): the natural order again.
        #expect(try ctx.fetch(natural).map(\.text) == ["item 1", "Item 2", "item 10"])
        let reversed = FetchDescriptor<Word>(sortBy: [SortDescriptor(\.text, order: .reverse)])
        #expect(try ctx.fetch(reversed).map(\.text) == ["item 10", "Item 2", "item 1"])
        #expect(try ctx.fetch(natural).map(\.text) == ["item 1", "Item 2", "item 10"])
        #expect(container.queryCache.count == 3)
    }

    @Test(
        "a predicate assigned, replaced or removed after the descriptor is made is the one fetched",
        arguments: StoreKind.allCases)
    func mutatedDescriptor(_ kind: StoreKind) throws {
        let (dir, ctx) = try words(["a", "bb", "ccc"], kind, prefix: "qcache-mutated")
        defer { withExtendedLifetime(dir) {} }
        // The descriptor keeps its predicate's expression beside it for the fetch to read:
        // each way of setting the predicate must keep the two in step.
        var d = FetchDescriptor<Word>(sortBy: [SortDescriptor(\.text)])
        #expect(try ctx.fetch(d).map(\.text) == ["a", "bb", "ccc"])
        d.predicate = #Predicate { $0.length == 2 }
        #expect(try ctx.fetch(d).map(\.text) == ["bb"])
        var copy = d
        copy.predicate = #Predicate { $0.length > 1 }
        #expect(try ctx.fetch(copy).map(\.text) == ["bb", "ccc"])
        #expect(try ctx.fetch(d).map(\.text) == ["bb"])
        d.predicate = nil
        #expect(try ctx.fetch(d).map(\.text) == ["a", "bb", "ccc"])
        let optional: Predicate<Word>? = #Predicate { $0.text == "a" }
        #expect(try ctx.fetch(FetchDescriptor(predicate: optional)).map(\.text) == ["a"])
        #expect(try ctx.fetchCount(FetchDescriptor(predicate: #Predicate<Word> { $0.length < 3 })) == 2)
    }

    @Test(
        "no predicate spelled three ways, and one predicate shape sorted and unsorted, each fetch in its own order (FET-04)",
        arguments: StoreKind.allCases)
    func sortedAndUnsortedShapes(_ kind: StoreKind) throws {
        let (dir, ctx) = try words(["a", "bb", "ccc"], kind, prefix: "qcache-sorted")
        defer { withExtendedLifetime(dir) {} }
        // A sorted and an unsorted fetch of one shape have cache keys of their own; an unsorted
        // fetch returns rows in primary-key (insertion) order. Twice: the second round finds
        // every shape cached, the last one in the context's memo.
        let none: Predicate<Word>? = nil
        let byTextReversed = [SortDescriptor(\Word.text, order: .reverse)]
        for _ in 0..<2 {
            #expect(
                try ctx.fetch(FetchDescriptor(predicate: none, sortBy: byTextReversed)).map(\.text) == [
                    "ccc", "bb", "a",
                ])
            #expect(try ctx.fetch(FetchDescriptor<Word>(predicate: nil)).map(\.text) == ["a", "bb", "ccc"])
            #expect(try ctx.fetch(FetchDescriptor<Word>()).map(\.text) == ["a", "bb", "ccc"])
            let p = #Predicate<Word> { $0.length >= 2 }
            #expect(try ctx.fetch(FetchDescriptor(predicate: p, sortBy: byTextReversed)).map(\.text) == ["ccc", "bb"])
            #expect(try ctx.fetch(FetchDescriptor(predicate: p)).map(\.text) == ["bb", "ccc"])
            #expect(try ctx.fetchCount(FetchDescriptor(predicate: p, sortBy: byTextReversed)) == 2)
        }
    }
}

/// The cache binds a later fetch's leaves in collection order to SQL translated once: that order
/// must be the order of the SQL's placeholders, and it is checked before a shape is cached.
@Suite("QueryCache bindings")
struct QueryCacheBindingTests {
    @Test("leaves in another order than the SQL's placeholders are refused")
    func reorderedLeaves() throws {
        let sql = #"(t."ZLENGTH" > ? AND instr(t."ZTEXT", ?) > 0) OR t."ZTEXT" = '?'"#
        #expect(CompiledQuery.placeholderCount(sql) == 2)  // the quoted ? is no placeholder
        let translated: [SQLValue] = [.integer(3), .text("b")]
        try CompiledQuery.checkBindings(whereSQL: sql, translated: translated, collected: translated)
        #expect(throws: CompiledQuery.BindingMismatch.self) {
            try CompiledQuery.checkBindings(whereSQL: sql, translated: translated, collected: translated.reversed())
        }
        #expect(throws: CompiledQuery.BindingMismatch.self) {  // a leaf missing
            try CompiledQuery.checkBindings(whereSQL: sql, translated: translated, collected: [.integer(3)])
        }
        #expect(throws: CompiledQuery.BindingMismatch.self) {  // the SQL and its arguments disagree
            try CompiledQuery.checkBindings(whereSQL: sql + " AND ?", translated: translated, collected: translated)
        }
    }

    @Test(
        "every predicate family binds its leaves in placeholder order (no shape refused)", arguments: StoreKind.allCases
    )
    func familiesBindInOrder(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "qcache-order")
        let container = try kind.makeContainer(for: [Word.self, Category.self], in: dir)
        let ctx = ModelContext(container)
        let fruit = Category(name: "fruit")
        ctx.insert(fruit)
        for text in ["apple", "banana", "cherry", "date", "elderberry", "fig"] {
            let w = Word(text: text)
            ctx.insert(w)
            if text.count > 4 { w.category = fruit }
        }
        try ctx.save()
        // Distinct captured values everywhere, so a swap between two leaves cannot go unseen.
        let (a, b, c, s1, s2) = (3, 6, 10, "an", "ch")
        let (name, names) = ("fruit", ["fruit", "veg"])
        let (r1, r2) = (4...6, 2..<5)
        let predicates: [Predicate<Word>] = [
            #Predicate { $0.length > a && $0.length < b },
            #Predicate { $0.length >= a && $0.text.contains(s1) || $0.length == c },
            #Predicate { $0.text.starts(with: s2) || ($0.length > b && $0.length != c) },
            #Predicate { !($0.length < a) && ($0.length + a) * 2 < c + b },
            #Predicate { r1.contains($0.length) && !r2.contains($0.length) },
            #Predicate { $0.category.flatMap { $0.name } == name && $0.length > a },
            #Predicate { names.contains($0.category.flatMap { $0.name } ?? s1) && $0.length != b },
            #Predicate { $0.length > (a > b ? b : c) || $0.text == s2 },
        ]
        for p in predicates {
            let expected = try ctx.fetch(FetchDescriptor<Word>()).filter { try p.evaluate($0) }.map(\.text).sorted()
            #expect(try ctx.fetch(FetchDescriptor(predicate: p)).map(\.text).sorted() == expected)
            // Again, from the cache.
            #expect(try ctx.fetch(FetchDescriptor(predicate: p)).map(\.text).sorted() == expected)
        }
        #expect(container.queryCache.refusals == [])
        #expect(container.queryCache.count > 0)
    }
}

/// Every `sqlite3_bind_*` result is checked: a value SQLite refuses, or a count of values that does
/// not match the statement's parameters, is a typed ``SQLiteError`` (never a silent `NULL`).
@Suite("SQLiteStatement bind")
struct StatementBindTests {
    @Test("too few or too many values, and an index out of range, throw SQLITE_RANGE")
    func bindChecks() throws {
        let dir = try ScratchDirectory(prefix: "bind")
        let container = try StoreKind.memory.makeContainer(for: [Word.self, Category.self], in: dir)
        try container.withStoreConnection { db in
            let stmt = try db.prepare("SELECT ? + ?")
            #expect(stmt.parameterCount == 2)
            #expect { try stmt.bind([.integer(1)]) } throws: { ($0 as? SQLiteError)?.code == .range }
            #expect { try stmt.bind([.integer(1), .integer(2), .integer(3)]) } throws: {
                ($0 as? SQLiteError)?.code == .range
            }
            #expect { try stmt.bind(Int64(1), at: 3) } throws: { ($0 as? SQLiteError)?.code == .range }
            #expect { try stmt.bind(1.5, at: 0) } throws: { ($0 as? SQLiteError)?.code == .range }
            #expect { try stmt.bindText("x", at: 9) } throws: { ($0 as? SQLiteError)?.code == .range }
            #expect { try stmt.bindNull(at: 9) } throws: { ($0 as? SQLiteError)?.code == .range }
            stmt.reset()
            try stmt.bind([.integer(1), .integer(2)])
            #expect(try stmt.step())
            #expect(stmt.int64(at: 0) == 3)
        }
    }
}

/// A predicate type one context fetched is collected in another context of the container with
/// the node kinds and shape noted the first time (FET-14): each fetch still binds its own
/// captured values, so a new context never gets another value's rows.
@Suite("QueryCache shapes across contexts")
struct QueryCacheShapeTests {
    /// A container of `kind` holding items and people whose values a wrong reuse would confuse.
    private func container(_ kind: StoreKind, in dir: ScratchDirectory) throws -> ModelContainer {
        let container = try kind.makeContainer(for: contextSuiteModels, in: dir)
        let ctx = ModelContext(container)
        let scores: [Double] = [0.0, -0.0, 1.5, -2.0, .infinity]
        for (i, score) in scores.enumerated() {
            ctx.insert(
                CtxItem(
                    name: "item\(i)", n: i, score: score, note: i.isMultiple(of: 2) ? "caf\u{E9}" : nil,
                    rank: i < 3 ? i : nil))
        }
        ctx.insert(CtxItem(name: "decomposed", n: 9, note: "cafe\u{301}", rank: 9))
        ctx.insert(CtxPerson(first: "Ada", last: "Byron", age: 36))
        ctx.insert(CtxPerson(first: "Byron", last: "Ada", age: 1))
        try ctx.save()
        return container
    }

    /// The names `predicate` selects in a new context, fetched and counted, with what Swift's
    /// `evaluate` selects over every item.
    private func check(_ container: ModelContainer, _ predicate: Predicate<CtxItem>, _ comment: Comment) throws {
        let expected = try ModelContext(container).fetch(FetchDescriptor<CtxItem>())
            .filter { try predicate.evaluate($0) }.map(\.name).sorted()
        let d = FetchDescriptor(predicate: predicate)
        #expect(try ModelContext(container).fetch(d).map(\.name).sorted() == expected, comment)
        #expect(try ModelContext(container).fetchCount(d) == expected.count, comment)
    }

    /// A predicate comparing with a captured NaN is refused in a new context (SQLite cannot bind
    /// NaN), though its shape was fetched with other values before.
    private func checkRefused(_ container: ModelContainer, _ predicate: Predicate<CtxItem>, _ comment: Comment) {
        let d = FetchDescriptor(predicate: predicate)
        let unsupported = SwiftDataError.unsupportedPredicate.code
        #expect(throws: SwiftDataError.self, comment) { try ModelContext(container).fetch(d) }
        #expect(comment) { try ModelContext(container).fetchCount(d) } throws: {
            ($0 as? SwiftDataError)?.code == unsupported
        }
    }

    @Test(
        "FET-14 one shape in new contexts: NaN, -0.0, another normalisation, nil or a value each get their own rows",
        arguments: StoreKind.allCases)
    func capturedValuesInNewContexts(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "qcache-shapes")
        let container = try container(kind, in: dir)
        for score in [0.0, -0.0, Double.nan, 1.5, -Double.nan, .infinity] {
            if score.isNaN {
                checkRefused(container, #Predicate { $0.score == score }, "score == \(score)")
                checkRefused(container, #Predicate { $0.score < score }, "score < \(score)")
            } else {
                try check(container, #Predicate { $0.score == score }, "score == \(score)")
                try check(container, #Predicate { $0.score < score }, "score < \(score)")
            }
        }
        for note in ["caf\u{E9}", "cafe\u{301}", "caf", "CAF\u{C9}"] {
            try check(container, #Predicate { $0.note == note }, "note == \(note.unicodeScalars.map(\.value))")
            try check(container, #Predicate { $0.name != note }, "name != \(note.unicodeScalars.map(\.value))")
        }
        for rank in [nil, 0, 1, nil, 9, 42] as [Int?] {
            try check(container, #Predicate { $0.rank == rank }, "rank == \(String(describing: rank))")
        }
        #expect(container.queryCache.refusals == [])
    }

    @Test(
        "FET-14 one expression type on two key paths in new contexts: each fetch reads its own column",
        arguments: StoreKind.allCases)
    func keyPathsInNewContexts(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "qcache-keypaths")
        let container = try container(kind, in: dir)
        for name in ["Ada", "Byron", "Ada", "Byron"] {
            let byFirst = FetchDescriptor<CtxPerson>(predicate: #Predicate { $0.first == name })
            let byLast = FetchDescriptor<CtxPerson>(predicate: #Predicate { $0.last == name })
            #expect(try ModelContext(container).fetch(byFirst).map(\.first) == [name])
            #expect(try ModelContext(container).fetch(byLast).map(\.last) == [name])
            #expect(try ModelContext(container).fetchCount(byFirst) == 1)
            let ctx = ModelContext(container)
            #expect(try ctx.fetch(byLast).map(\.first) == [name == "Ada" ? "Byron" : "Ada"])
            #expect(try ctx.fetch(byFirst).map(\.last) == [name == "Ada" ? "Byron" : "Ada"])
        }
        #expect(container.queryCache.count == 2, "one translation per key path, whatever the captured name")
        #expect(container.queryCache.refusals == [])
    }

    @Test("FET-14 a type with a node opened at run time (an existential or a class) is not noted")
    func openingTypesAreNotNoted() {
        let cache = QueryCache()
        let fixed = LeafNodeKinds.Step(
            type: ObjectIdentifier(Int.self), kind: LeafNodeKinds.Kind(opens: false, mayFold: false, sqlType: nil))
        let opening = LeafNodeKinds.Step(
            type: ObjectIdentifier(Int.self), kind: LeafNodeKinds.Kind(opens: true, mayFold: false, sqlType: nil))
        cache.noteShape([Int].self, plan: [fixed, opening], structure: [.number(1)])
        #expect(cache.shape(of: ObjectIdentifier([Int].self)) == nil)
        cache.noteShape([Int].self, plan: [fixed], structure: [.number(1)])
        #expect(cache.shape(of: ObjectIdentifier([Int].self))?.structure == [.number(1)])
        cache.noteShape([Int].self, plan: [fixed], structure: [.number(2)])
        #expect(cache.shape(of: ObjectIdentifier([Int].self))?.structure == [.number(2)])
    }
}

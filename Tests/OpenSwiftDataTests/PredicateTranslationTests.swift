import Foundation
import OpenSwiftDataTesting
import Testing

@testable import OpenSwiftData

/// `!p` built from `p`'s expression, for the partition check `fetch(p) + fetch(!p) == all`.
/// Only its SQL translation is used (Swift cannot evaluate it: its variable is `p`'s).
func predicateNegation<T>(_ p: Predicate<T>) -> Predicate<T> {
    func negate<E: StandardPredicateExpression<Bool>>(_ e: E) -> any StandardPredicateExpression<Bool> {
        PredicateExpressions.Negation(e)
    }
    let e = negate(p.expression)
    return Predicate<T> { _ in e }
}

/// A seeded store of the predicates suite's models (`ConformanceBook`, `ConformanceAuthor`,
/// `ConformanceLabel`, `ConformanceChapter`, and the `ConformanceVehicle` hierarchy for `is`),
/// with adversarial titles, every optional nil on some row, to-one and to-many relationships
/// (inverse foreign key and join table); and Swift's truth over the same objects.
struct PredicateFixture {
    let container: ModelContainer
    let context: ModelContext
    let dir: ScratchDirectory

    static let models: [any PersistentModel.Type] = [
        ConformanceAuthor.self, ConformanceLabel.self, ConformanceChapter.self, ConformanceBook.self,
        ConformanceVehicle.self, ConformanceCar.self, ConformanceElectricCar.self, ConformanceTruck.self,
    ]
    static let day = 86_400.0
    static let names = [
        "Alice", "alice", "Álice", "100% pure", "under_score", "back\\slash",
        "e\u{301}cole", "🇺🇸🇫🇷", "'; DROP TABLE ZCONFORMANCEBOOK; --", "", "Ωmega", "li\u{0}nul",
    ]

    init(_ kind: StoreKind) throws {
        dir = try ScratchDirectory(prefix: "prd")
        container = try kind.makeContainer(for: Self.models, in: dir)
        let w = ModelContext(container)
        let ann = ConformanceAuthor(name: "Ann", born: 1970)
        let bob = ConformanceAuthor(name: "Bob")
        let cyd = ConformanceAuthor(name: "Cyd", born: 1990)
        let pub = ConformanceLabel(name: "x", isPublic: true)
        let priv = ConformanceLabel(name: "y", isPublic: false)
        let other = ConformanceLabel(name: "z%", isPublic: true)
        for a in [ann, bob, cyd] { w.insert(a) }
        for l in [pub, priv, other] { w.insert(l) }
        for (i, name) in Self.names.enumerated() {
            let b = ConformanceBook(
                code: UUID(), title: name,
                subtitle: i % 3 == 0 ? nil : "sub\(i)\(i % 2 == 0 ? "%" : "_")",
                pages: 5 + i * 3, price: Double(i) * 1.5 - 2,
                rating: i % 4 == 1 ? nil : Double(i % 5),
                stock: i % 3 == 2 ? nil : i - 4,
                published: i % 5 == 3 ? nil : Date(timeIntervalSinceReferenceDate: Double(i) * Self.day),
                isFeatured: i % 2 == 0, status: ConformanceStatus.allCases[i % 3])
            w.insert(b)
            b.author = [ann, bob, nil, cyd][i % 4]
            switch i % 4 {
            case 0: b.labels = [pub, priv]
            case 1: b.labels = [pub]
            case 2: b.labels = []
            default: b.labels = [other, priv, pub]
            }
            for c in 0..<(i % 3) {
                let ch = ConformanceChapter(title: "\(name)-\(c)", pages: c * 10 + i)
                w.insert(ch)
                ch.book = b
            }
        }
        try w.save()
        context = ModelContext(container)
    }

    /// Checks `p` against Swift and the partition property; returns the matched keys.
    @discardableResult
    func check<T: PersistentModel>(
        _ p: Predicate<T>, key: (T) -> String, _ label: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Set<String> {
        let all = try context.fetch(FetchDescriptor<T>())
        let truth = Set(try all.filter { try p.evaluate($0) }.map(key))
        let got = Set(try context.fetch(FetchDescriptor(predicate: p)).map(key))
        #expect(got == truth, "\(label): store differs from Predicate.evaluate", sourceLocation: sourceLocation)
        #expect(
            try context.fetchCount(FetchDescriptor(predicate: p)) == truth.count, "\(label): count",
            sourceLocation: sourceLocation)
        let negated = Set(try context.fetch(FetchDescriptor(predicate: predicateNegation(p))).map(key))
        #expect(
            negated == Set(all.map(key)).subtracting(truth), "\(label): !p is not the complement",
            sourceLocation: sourceLocation)
        return got
    }

    @discardableResult
    func books(_ p: Predicate<ConformanceBook>, _ label: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws -> Set<String>
    {
        try check(p, key: { $0.title }, label, sourceLocation: sourceLocation)
    }

    /// Expects the fetch to throw an unsupported-predicate or key-path error (never a trap).
    func expectUnsupported<T: PersistentModel>(
        _ p: Predicate<T>, _ label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            _ = try context.fetch(FetchDescriptor(predicate: p))
            Issue.record("\(label): expected an unsupported-predicate error", sourceLocation: sourceLocation)
        } catch let e as SwiftDataError {
            #expect(
                e == SwiftDataError.unsupportedPredicate || e == SwiftDataError.unsupportedKeyPath,
                "\(label): \(e)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(label): unexpected \(error)", sourceLocation: sourceLocation)
        }
    }
}

/// Translator shapes swept over `PredicateFixture`, each checked against `Predicate.evaluate`, its
/// count and its complement. `is` / `as?` / `as!` over inheritance are the predicates suite's INH-05,
/// and the refusals (force unwrap, transient, computed, `uuidString`, `String.count`, to-many `first`)
/// its PRD-17 and PRD-18.
@Suite("Predicate translation")
struct PredicateTranslationTests {
    // MARK: Strings

    @Test(
        "Translator shapes for strings: contains and starts(with:) with % and _ as literals (behaviours: predicates suite, PRD-01…06)",
        arguments: StoreKind.allCases)
    func strings(_ kind: StoreKind) throws {
        let f = try PredicateFixture(kind)
        for needle in ["li", "LI", "%", "_", "\\", "'", "", "é", "e\u{301}", "Ω", "🇺🇸", "\u{0}"] {
            let got = try f.books(
                #Predicate<ConformanceBook> { $0.title.contains(needle) }, "contains \(needle.debugDescription)")
            if needle == "li" { #expect(got.contains("Alice") && got.contains("alice")) }
            if needle == "LI" { #expect(got.isEmpty) }
            if needle == "%" { #expect(got == ["100% pure"]) }
            try f.books(
                #Predicate<ConformanceBook> { $0.title.starts(with: needle) }, "starts \(needle.debugDescription)")
        }
        let al = try f.books(#Predicate<ConformanceBook> { $0.title.starts(with: "Al") }, "starts Al")
        #expect(al == ["Alice"])
        let eq = try f.books(#Predicate<ConformanceBook> { $0.title == "Alice" }, "== Alice")
        #expect(eq == ["Alice"])
        let nfc = try f.books(#Predicate<ConformanceBook> { $0.title == "\u{e9}cole" }, "NFC ==")
        #expect(nfc.count == 1)
        try f.books(#Predicate<ConformanceBook> { $0.title.isEmpty }, "isEmpty")
        try f.books(#Predicate<ConformanceBook> { $0.title.contains($0.title) }, "contains itself")
    }

    // MARK: Optionals

    @Test(
        "Translator shapes for optionals: equality, flatMap, ?? and to-one chains (behaviours: predicates suite, PRD-07…09)",
        arguments: StoreKind.allCases)
    func optionals(_ kind: StoreKind) throws {
        let f = try PredicateFixture(kind)
        try f.books(#Predicate<ConformanceBook> { $0.subtitle == nil }, "subtitle == nil")
        try f.books(#Predicate<ConformanceBook> { $0.subtitle != nil }, "subtitle != nil")
        let cutoff = Date(timeIntervalSinceReferenceDate: 4 * PredicateFixture.day)
        try f.books(#Predicate<ConformanceBook> { $0.published.flatMap { $0 > cutoff } == true }, "date flatMap")
        try f.books(#Predicate<ConformanceBook> { $0.published.flatMap { $0 > cutoff } == false }, "date flatMap false")
        for v in [0, 3, -1] {
            try f.books(#Predicate<ConformanceBook> { ($0.stock ?? 0) > v }, "?? \(v)")
        }
        try f.books(#Predicate<ConformanceBook> { ($0.rating ?? 2.5) >= 2.5 }, "?? double")
        try f.books(#Predicate<ConformanceBook> { ($0.subtitle ?? "").contains("%") }, "?? contains")
        try f.books(#Predicate<ConformanceBook> { $0.subtitle?.contains("_") == true }, "optional chain contains")
        for name in ["Ann", "Bob", "Zed"] {
            try f.books(#Predicate<ConformanceBook> { $0.author?.name == name }, "author?.name == \(name)")
        }
        let ann = try f.books(#Predicate<ConformanceBook> { $0.author?.name == "Ann" }, "PRD-09")
        #expect(!ann.isEmpty)
        try f.books(#Predicate<ConformanceBook> { $0.author?.name != "Ann" }, "author?.name != Ann")
        try f.books(#Predicate<ConformanceBook> { $0.author == nil }, "author == nil")
        try f.books(#Predicate<ConformanceBook> { ($0.author?.born ?? 0) > 1980 }, "author?.born ?? 0")
        try f.books(
            #Predicate<ConformanceBook> { $0.author.flatMap { $0.born.flatMap { $0 < 1980 } } == true },
            "nested flatMap")
        try f.books(#Predicate<ConformanceBook> { $0.author?.name.starts(with: "A") == true }, "chain starts")
        try f.check(
            #Predicate<ConformanceChapter> { $0.book?.author?.name == "Cyd" }, key: { $0.title }, "two-hop chain")
        try f.check(#Predicate<ConformanceAuthor> { $0.born == nil }, key: { $0.name }, "born == nil")
    }

    // MARK: Captured arrays and ranges

    @Test(
        "Translator shapes for captured arrays, ranges and raw-value enums (behaviours: predicates suite, PRD-13, 14, 19)",
        arguments: StoreKind.allCases)
    func arraysAndRanges(_ kind: StoreKind) throws {
        let f = try PredicateFixture(kind)
        let all = try f.context.fetch(FetchDescriptor<ConformanceBook>())
        for ids in [[UUID](), [all[0].code], all.prefix(3).map(\.code), [UUID()]] {
            let got = try f.books(#Predicate<ConformanceBook> { ids.contains($0.code) }, "ids.contains \(ids.count)")
            #expect(got.count == ids.filter { id in all.contains { $0.code == id } }.count)
        }
        for stocks in [[Int?](), [nil], [nil, 2], [0, 4]] {
            try f.books(#Predicate<ConformanceBook> { stocks.contains($0.stock) }, "optional array \(stocks)")
        }
        let titles = ["Alice", "Ωmega", "nope"]
        try f.books(#Predicate<ConformanceBook> { titles.contains($0.title) }, "titles")
        for (lo, hi) in [(10, 20), (5, 5), (14, 14)] {
            try f.books(#Predicate<ConformanceBook> { (lo...hi).contains($0.pages) }, "closed \(lo)...\(hi)")
        }
        for (lo, hi) in [(10, 20), (5, 5)] {
            try f.books(#Predicate<ConformanceBook> { (lo..<hi).contains($0.pages) }, "half-open \(lo)..<\(hi)")
            let r = lo..<hi
            try f.books(#Predicate<ConformanceBook> { r.contains($0.pages) }, "captured half-open")
        }
        let closed = 11...20
        let inclusive = try f.books(#Predicate<ConformanceBook> { closed.contains($0.pages) }, "PRD-14 closed")
        let open = 11..<20
        let exclusive = try f.books(#Predicate<ConformanceBook> { open.contains($0.pages) }, "PRD-14 half-open")
        #expect(inclusive.count == exclusive.count + 1)  // pages 20 is a row (5 + 5 * 3)
        let from = 20...
        try f.books(#Predicate<ConformanceBook> { from.contains($0.pages) }, "partial from")
        let d0 = Date(timeIntervalSinceReferenceDate: 2 * PredicateFixture.day)
        let d1 = Date(timeIntervalSinceReferenceDate: 7 * PredicateFixture.day)
        try f.books(
            #Predicate<ConformanceBook> { $0.published.flatMap { (d0...d1).contains($0) } ?? false }, "date range")
        let ids = Array(all.prefix(4).map(\.persistentModelID))
        let first = ids[0]
        let one = try f.books(#Predicate<ConformanceBook> { $0.persistentModelID == first }, "persistentModelID ==")
        #expect(one == [all[0].title])
        try f.books(#Predicate<ConformanceBook> { ids.contains($0.persistentModelID) }, "persistentModelID in")
        let published = ConformanceStatus.published
        try f.books(#Predicate<ConformanceBook> { $0.status == published }, "PRD-19 enum")
        let statuses = [ConformanceStatus.draft, .retired]
        try f.books(#Predicate<ConformanceBook> { statuses.contains($0.status) }, "enum array")
    }

    // MARK: To-many

    @Test(
        "Translator shapes for to-many: contains(where:), allSatisfy, count, isEmpty, filter (behaviours: predicates suite, PRD-10…12)",
        arguments: StoreKind.allCases)
    func toMany(_ kind: StoreKind) throws {
        let f = try PredicateFixture(kind)
        for name in ["x", "y", "z%", "none"] {
            try f.books(
                #Predicate<ConformanceBook> { $0.labels.contains { $0.name == name } }, "PRD-10 labels contains \(name)"
            )
        }
        let vacuous = try f.books(
            #Predicate<ConformanceBook> { $0.labels.allSatisfy { $0.isPublic } }, "PRD-11 allSatisfy")
        let empty = try f.books(#Predicate<ConformanceBook> { $0.labels.isEmpty }, "PRD-12 isEmpty")
        #expect(!empty.isEmpty && empty.isSubset(of: vacuous))
        try f.books(#Predicate<ConformanceBook> { !$0.labels.isEmpty }, "PRD-12 !isEmpty")
        try f.books(#Predicate<ConformanceBook> { $0.labels.isEmpty == false }, "PRD-12 isEmpty == false")
        for n in [0, 1, 2, 3] {
            try f.books(#Predicate<ConformanceBook> { $0.labels.count >= n }, "labels.count >= \(n)")
            try f.books(#Predicate<ConformanceBook> { $0.chapters.count == n }, "chapters.count == \(n)")
        }
        try f.books(#Predicate<ConformanceBook> { $0.chapters.contains { $0.pages > 15 } }, "chapters contains")
        try f.books(#Predicate<ConformanceBook> { $0.chapters.allSatisfy { $0.pages > 5 } }, "chapters allSatisfy")
        try f.books(#Predicate<ConformanceBook> { $0.labels.filter { $0.isPublic }.count == 1 }, "filter count")
        try f.books(
            #Predicate<ConformanceBook> { $0.chapters.contains { $0.book.flatMap { $0.pages > 20 } == true } },
            "to-one inside element")
        try f.books(
            #Predicate<ConformanceBook> { $0.author?.books.contains { $0.pages > 30 } == true },
            "to-many through to-one")
        try f.books(#Predicate<ConformanceBook> { $0.author?.books.count == 0 }, "nil author's count is nil, not 0")
        try f.books(#Predicate<ConformanceBook> { ($0.author?.books.count ?? -1) >= 3 }, "optional count ??")
        try f.books(#Predicate<ConformanceBook> { $0.author?.books.isEmpty == false }, "optional isEmpty")
        try f.check(
            #Predicate<ConformanceAuthor> { $0.books.contains { $0.labels.contains { $0.name == "z%" } } },
            key: { $0.name }, "nested EXISTS")
        try f.check(#Predicate<ConformanceLabel> { $0.books.count > 4 }, key: { $0.name }, "join-table inverse count")
    }

    // MARK: Conditional, arithmetic, Bool, dates

    @Test(
        "Translator shapes for ternaries, arithmetic, Bool and Date (behaviours: predicates suite, PRD-15, 16, 20)",
        arguments: StoreKind.allCases)
    func conditionalAndArithmetic(_ kind: StoreKind) throws {
        let f = try PredicateFixture(kind)
        try f.books(#Predicate<ConformanceBook> { $0.isFeatured ? $0.pages > 10 : $0.pages > 25 }, "PRD-16 ternary")
        try f.books(#Predicate<ConformanceBook> { ($0.isFeatured ? $0.pages : $0.pages * 2) > 30 }, "ternary value")
        try f.books(
            #Predicate<ConformanceBook> {
                if $0.subtitle == nil { $0.price > 0 } else { $0.isFeatured }
            }, "if/else")
        let now = Date(timeIntervalSinceReferenceDate: 6 * PredicateFixture.day)
        try f.books(
            #Predicate<ConformanceBook> { $0.isFeatured == false && ($0.published.flatMap { $0 < now } ?? false) },
            "PRD-15")
        for k in [2.0, 0.5] {
            try f.books(#Predicate<ConformanceBook> { $0.price * k > 5 }, "PRD-20 multiply \(k)")
            try f.books(#Predicate<ConformanceBook> { $0.price / k > 3 }, "float divide \(k)")
        }
        try f.books(#Predicate<ConformanceBook> { $0.pages + $0.pages - 10 > 30 }, "int + -")
        try f.books(#Predicate<ConformanceBook> { -$0.price < -3 }, "unary minus")
        for d in [2, 3, 7] {
            try f.books(#Predicate<ConformanceBook> { $0.pages % d == 1 }, "remainder \(d)")
            try f.books(#Predicate<ConformanceBook> { $0.pages / d == 3 }, "int divide \(d)")
        }
        try f.books(#Predicate<ConformanceBook> { ($0.stock ?? 0) % 2 == -1 }, "negative remainder")
        let zero = 0
        f.expectUnsupported(#Predicate<ConformanceBook> { $0.pages / zero == 1 }, "int divide by zero")
        f.expectUnsupported(#Predicate<ConformanceBook> { $0.pages % $0.pages == 0 }, "remainder by column")
        try f.books(PredicateFixture.truePredicate, "Predicate.true")
        try f.books(PredicateFixture.falsePredicate, "Predicate.false")
    }

    // MARK: Apple-only string functions

    @Test(
        "Translator shapes for the Linux string shims: localizedStandardContains, caseInsensitiveCompare, localizedCompare (behaviour: predicates suite, PRD-04)",
        arguments: StoreKind.allCases)
    func appleStringFunctions(_ kind: StoreKind) throws {
        let f = try PredicateFixture(kind)
        let ali = try f.books(#Predicate<ConformanceBook> { $0.title.localizedStandardContains("ALI") }, "PRD-04 ALI")
        #expect(ali == ["Alice", "alice", "Álice"])
        for needle in ["ECOLE", "é", "Ω", "%", "", "lí"] {
            try f.books(
                #Predicate<ConformanceBook> { $0.title.localizedStandardContains(needle) }, "standard \(needle)")
        }
        let same = ComparisonResult.orderedSame
        let asc = ComparisonResult.orderedAscending
        let desc = ComparisonResult.orderedDescending
        for other in ["alice", "B", "école", ""] {
            try f.books(
                #Predicate<ConformanceBook> { $0.title.caseInsensitiveCompare(other) == same }, "ci == \(other)")
            try f.books(#Predicate<ConformanceBook> { $0.title.caseInsensitiveCompare(other) == asc }, "ci < \(other)")
            try f.books(#Predicate<ConformanceBook> { $0.title.localizedCompare(other) == desc }, "lc > \(other)")
        }
    }

    // MARK: SQL shape and cache

    @Test("captured-array IN and starts(with:) on an indexed column: the plan", arguments: StoreKind.allCases)
    func queryPlans(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "prd-plan")
        let container = try kind.makeContainer(for: [Product.self, Tag.self], in: dir)
        let ctx = ModelContext(container)
        for i in 0..<50 { ctx.insert(Product(name: "p\(i)", price: Double(i))) }
        try ctx.save()
        let names = ["p1", "p7", "zz"]
        let d = FetchDescriptor<Product>(predicate: #Predicate { names.contains($0.name) })
        #expect(try ModelContext(container).fetch(d).map(\.name).sorted() == ["p1", "p7"])
        let plan = try container.queryPlan(for: d).joined(separator: "\n")
        #expect(plan.contains("USING INDEX") || plan.contains("USING COVERING INDEX"), "\(plan)")
    }

    @Test("a count on an indexed range searches the index", arguments: StoreKind.allCases)
    func countPlanUsesIndex(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "prd-count-plan")
        let container = try kind.makeContainer(for: [Product.self, Tag.self], in: dir)
        let ctx = ModelContext(container)
        for i in 0..<200 { ctx.insert(Product(name: "p\(i)", price: Double(i))) }
        try ctx.save()
        let limit = 10.0
        let d = FetchDescriptor<Product>(predicate: #Predicate { $0.price < limit })
        #expect(try ModelContext(container).fetchCount(d) == 10)
        let plan = try container.countQueryPlan(for: d).joined(separator: "\n")
        #expect(plan.contains("SEARCH t USING COVERING INDEX") || plan.contains("SEARCH t USING INDEX"), "\(plan)")
        let range = FetchDescriptor<Product>(predicate: #Predicate { $0.price >= 5 && $0.price <= limit })
        #expect(try ModelContext(container).fetchCount(range) == 6)
        #expect(try container.countQueryPlan(for: range).joined().contains("USING COVERING INDEX"))
        let contained = FetchDescriptor<Product>(predicate: #Predicate { (5.0...limit).contains($0.price) })
        #expect(try container.countQueryPlan(for: contained).joined().contains("USING COVERING INDEX"))
    }

    @Test("comparisons: plain on non-optional columns, NULL handling only where a NULL can occur")
    func comparisonShapes() throws {
        let f = try PredicateFixture(.memory)
        func whereSQL<T: PersistentModel>(_ p: Predicate<T>) throws -> String {
            try f.context.query(FetchDescriptor(predicate: p)).compiled.whereSQL
        }
        let n = 7
        let x = 2.5
        // Non-optional column and a captured value: neither can be NULL, so SQLite may use an index.
        #expect(try whereSQL(#Predicate<ConformanceBook> { $0.pages < n }) == "(t.\"ZPAGES\" < ?)")
        #expect(try whereSQL(#Predicate<ConformanceBook> { n >= $0.pages }) == "(? >= t.\"ZPAGES\")")
        #expect(
            try whereSQL(#Predicate<ConformanceBook> { $0.price >= x && $0.price < 9 })
                == "((t.\"ZPRICE\" >= ?) AND (t.\"ZPRICE\" < ?))")
        #expect(try whereSQL(#Predicate<ConformanceBook> { ($0.stock ?? 0) > n }) == "(coalesce(t.\"ZSTOCK\", ?) > ?)")
        #expect(
            try whereSQL(#Predicate<ConformanceBook> { (1...n).contains($0.pages) })
                == "(t.\"ZPAGES\" >= ? AND t.\"ZPAGES\" <= ?)")
        // An optional column, compared inside flatMap: it can be NULL, so it is tested first.
        #expect(
            try whereSQL(#Predicate<ConformanceBook> { $0.rating.flatMap { $0 > x } == true })
                == "(CASE WHEN t.\"ZRATING\" IS NULL THEN NULL ELSE (t.\"ZRATING\" IS NOT NULL AND t.\"ZRATING\" > ?) END IS ?)"
        )
        // A value read through a to-one relationship, and Double arithmetic (NaN is NULL in SQLite).
        #expect(
            try whereSQL(#Predicate<ConformanceChapter> { $0.book.flatMap { $0.pages > n } ?? false })
                .contains(
                    "coalesce(((SELECT r1.\"ZPAGES\" FROM \"ZCONFORMANCEBOOK\" r1 WHERE r1.\"Z_PK\" = t.\"ZBOOK\") > ?), 0)"
                ))
        #expect(
            try whereSQL(#Predicate<ConformanceBook> { $0.price * x < 3 }) == "coalesce(((t.\"ZPRICE\" * ?) < ?), 0)")
        // Swift's answers, and `!p` as the complement, on the fixture's rows.
        try f.books(#Predicate<ConformanceBook> { $0.pages < n }, "pages < n")
        try f.books(#Predicate<ConformanceBook> { $0.rating.flatMap { $0 > x } == true }, "rating > x")
        try f.books(#Predicate<ConformanceBook> { $0.rating.flatMap { $0 > x } ?? true }, "rating > x ?? true")
        try f.books(#Predicate<ConformanceBook> { $0.price * x < 3 }, "price * x < 3")
    }

    @Test("SQL shapes: instr not LIKE, EXISTS, IN, Z_ENT, CASE")
    func sqlShapes() throws {
        let f = try PredicateFixture(.memory)
        func whereSQL<T: PersistentModel>(_ p: Predicate<T>) throws -> String {
            try f.context.query(FetchDescriptor(predicate: p)).compiled.whereSQL
        }
        let needle = "%"
        let contains = try whereSQL(#Predicate<ConformanceBook> { $0.title.contains(needle) })
        #expect(contains == "CASE WHEN instr(t.\"ZTITLE\", ?) > 0 THEN osd_contains(t.\"ZTITLE\", ?) ELSE 0 END")
        #expect(!contains.contains("LIKE"))
        #expect(
            try whereSQL(#Predicate<ConformanceBook> { $0.title.starts(with: needle) })
                == "((t.\"ZTITLE\" >= ? AND t.\"ZTITLE\" < ?) AND CASE WHEN instr(t.\"ZTITLE\", ?) = 1 THEN osd_starts_with(t.\"ZTITLE\", ?) ELSE 0 END)"
        )
        let exists = try whereSQL(#Predicate<ConformanceBook> { $0.chapters.contains { $0.pages > 3 } })
        #expect(exists.hasPrefix("EXISTS (SELECT 1 FROM \"ZCONFORMANCECHAPTER\" m1 WHERE m1.\"ZBOOK\" = t.\"Z_PK\""))
        let none: [Int] = []
        #expect(try whereSQL(#Predicate<ConformanceBook> { none.contains($0.pages) }) == "0")
        let some = [1, 2]
        #expect(
            try whereSQL(#Predicate<ConformanceBook> { some.contains($0.pages) })
                == "(t.\"ZPAGES\" IS NOT NULL AND t.\"ZPAGES\" IN (?, ?))")
        let isCar = try whereSQL(#Predicate<ConformanceVehicle> { $0 is ConformanceCar })
        #expect(isCar.contains("t.\"Z_ENT\" IN ("))
        let chain = try whereSQL(#Predicate<ConformanceBook> { $0.author?.name == "Ann" })
        #expect(
            chain.contains("(SELECT r1.\"ZNAME\" FROM \"ZCONFORMANCEAUTHOR\" r1 WHERE r1.\"Z_PK\" = t.\"ZAUTHOR\")"))
        let ternary = try whereSQL(#Predicate<ConformanceBook> { $0.isFeatured ? $0.pages > 1 : $0.pages > 10 })
        #expect(ternary.hasPrefix("CASE WHEN"))
    }

    @Test("statement cache: new captured values reuse the SQL and stay correct", arguments: StoreKind.allCases)
    func cache(_ kind: StoreKind) throws {
        let f = try PredicateFixture(kind)
        for needle in ["A", "li", "%", "ce"] {
            try f.books(
                #Predicate<ConformanceBook> { $0.title.starts(with: needle) || $0.title.contains(needle) },
                "cached \(needle)")
        }
        let before = f.container.queryCache.count
        for needle in ["B", "Ω"] {
            try f.books(
                #Predicate<ConformanceBook> { $0.title.starts(with: needle) || $0.title.contains(needle) },
                "cached \(needle)")
        }
        #expect(f.container.queryCache.count == before)
    }
}

extension PredicateFixture {
    static let truePredicate: Predicate<ConformanceBook> = .true
    static let falsePredicate: Predicate<ConformanceBook> = .false
}

import Foundation
import OpenSwiftData
import Testing

@testable import OpenSwiftDataTesting

/// The differential checks the CI runs: 10,000 cases of seed 1 (random predicates over the
/// sample schemas and change scripts) on both stores against plain Swift, the regression file,
/// and proof that the checks do fail and report when a store misbehaves.
@Suite("Differential")
struct DifferentialTests {
    static let shards = 4
    static let casesPerRun = 10_000

    /// PRD-01…24, FET-01…12, CTX-03/04: 2,500 cases per shard, four shards = 10,000 cases.
    @Test("PRD FET CTX differential shard of seed 1: stores equal plain Swift", arguments: 0..<shards)
    func shard(_ shard: Int) {
        let cases = Array(stride(from: shard, to: Self.casesPerRun, by: Self.shards))
        let total = DifferentialHarness(seed: 1).run(cases: cases)
        #expect(total.cases == cases.count)
        #expect(total.checks > 8 * cases.count, "too few checks per case: \(total.checks)")
        #expect(total.mismatches.isEmpty, "\(total.mismatches.prefix(3).map(\.description).joined(separator: "\n\n"))")
    }

    /// Every case in `Regressions/differential.txt` passes now.
    @Test("regression file replays clean")
    func regressions() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Regressions/differential.txt")
        let entries = try RegressionFile.read(url)
        #expect(entries.count >= 6)
        var harnesses: [UInt64: DifferentialHarness] = [:]
        for entry in entries {
            let harness = harnesses[entry.seed] ?? DifferentialHarness(seed: entry.seed)
            harnesses[entry.seed] = harness
            #expect(throws: Never.self, "\(entry.seed) \(entry.caseIndex) # \(entry.comment)") {
                try harness.verifyCase(entry.caseIndex)
            }
        }
    }

    @Test("the same seed and case give the same predicate and the same checks")
    func deterministic() throws {
        let a = DifferentialHarness(seed: 9)
        let b = DifferentialHarness(seed: 9)
        for index in [0, 1, 5, 19, 39] {
            #expect(a.kind(ofCase: index) == b.kind(ofCase: index))
            #expect(try a.verifyCase(index) == b.verifyCase(index))
        }
        #expect(a.kind(ofCase: 19) == "script users")
        #expect(a.kind(ofCase: 39) == "script catalogue")
        #expect(a.kind(ofCase: 9) == "script dictionary")
        #expect(a.kind(ofCase: 0) == "CatalogueProduct (catalogue)")
    }

    /// A store whose rows change behind the contexts' backs no longer equals the reference:
    /// the checks fail, name the store, and print the seed, the case, the predicate and its SQL.
    @Test(
        "a tampered disk store is caught by the differential harness and reported with seed, case, predicate and SQL (the comparison: predicates suite, PRD-01)"
    )
    func tamperedStoreIsCaught() throws {
        let harness = DifferentialHarness(seed: 1)
        try harness.verifyCase(0)  // CatalogueProduct over the catalogue dataset: loads the reference rows
        let dataset = try harness.dataset("catalogue")
        try dataset.pair.disk.withStoreConnection { db in
            try db.execute(#"UPDATE "ZCATALOGUEPRODUCT" SET "ZPRICE" = "ZPRICE" + 1000, "ZNAME" = upper("ZNAME")"#)
        }
        let productCases = stride(from: 0, to: 9 * 40, by: 9).map { $0 }  // every 9th case queries CatalogueProduct
        var failures: [ConformanceFailure] = []
        for index in productCases {
            do { try harness.verifyCase(index) } catch let f as ConformanceFailure { failures.append(f) }
        }
        #expect(
            failures.count > productCases.count / 3, "only \(failures.count) of \(productCases.count) cases noticed")
        #expect(failures.allSatisfy { $0.store == .disk }, "the memory store was not tampered with")
        let first = try #require(failures.first)
        #expect(first.suite == "differential")
        #expect(first.seed == 1)
        #expect(
            first.details.contains { $0.hasPrefix("replay:    harness conform --suite differential --seed 1 --case ") })
        #expect(first.details.contains { $0.hasPrefix("predicate: #Predicate<CatalogueProduct> { ") })
        #expect(first.details.contains { $0.hasPrefix("SQL:       SELECT ") })
    }

    @Test("a mismatching predicate is shrunk to a smaller one that still fails")
    func shrinking() throws {
        let harness = DifferentialHarness(seed: 1)
        try harness.verifyCase(6)  // AccountUser over the users dataset
        let dataset = try harness.dataset("users")
        try dataset.pair.memory.withStoreConnection { db in try db.execute(#"UPDATE "ZACCOUNTUSER" SET "ZSCORE" = -5"#)
        }
        var shrunk: [ConformanceFailure] = []
        for index in stride(from: 6, to: 9 * 60, by: 9) {
            do { try harness.verifyCase(index) } catch let f as ConformanceFailure
                where f.details.contains(where: { $0.hasPrefix("shrunk from") })
            {
                shrunk.append(f)
            } catch {}
        }
        let f = try #require(shrunk.first, "no failing predicate needed shrinking")
        let predicate = try #require(f.details.first { $0.hasPrefix("predicate:") })
        let original = try #require(f.details.first { $0.hasPrefix("shrunk from") })
        #expect(predicate.count < original.count)
        #expect(f.store == .memory)
    }

    @Test("random predicates stay within depth 4, use every expression family and long && / || chains")
    func generatorCoverage() throws {
        let harness = DifferentialHarness(seed: 3)
        let dataset = try harness.dataset("catalogue")
        try dataset.load(CatalogueProduct.self)
        try dataset.load(CatalogueTag.self)
        let rows = dataset.reference.rows(CatalogueProduct.self)
        var random = SeededGenerator(seed: 5)
        var text = ""
        var longestChain = 0
        for _ in 0..<600 {
            let p = EntityProfile<CatalogueProduct>.catalogueProduct.randomPredicate(
                depth: 4, rows: rows, universe: dataset.reference, using: &random)
            #expect(p.depth <= 4)
            text += p.source + "\n"
            longestChain = max(longestChain, p.chainOperands.count)
        }
        #expect(longestChain > 20, "no long && / || chain among the generated predicates")
        for family in [
            " && ", " || ", "!(", " ? ", ".contains(", ".starts(with:", " == nil", "?.contains(", " ?? ",
            ".contains { ",
            ".allSatisfy { ", ".filter { ", ".count", ".isEmpty", "...", "..<", " * ", " + ", " % ", "category?.name",
            "].contains(",
            ".localizedStandardContains(", ".persistentModelID", "-$0.", " / ",
            "\"\".isEmpty ? ", "CapturedFilter(text: ",
        ] {
            #expect(text.contains(family), "no generated predicate uses \(family)")
        }
    }

    /// The cases' fetches leave `stringSortStyle` at `nil` (the default, natural), or ask for
    /// `.natural` or `.lexical`, a third each; the reference orders strings as the fetch does:
    /// naturally ("user2" before "user10") unless `.lexical`, and by `<` for a descriptor made
    /// with `comparator: .lexical` whatever the style.
    @Test("FET-06 cases sort strings by the default comparator or .lexical, against the same reference order")
    func stringSortCoverage() throws {
        let harness = DifferentialHarness(seed: 1)
        let dataset = try harness.dataset("users")
        var styles: [String: Int] = [:]
        for index in 0..<120 {
            var random = SeededGenerator(seed: UInt64(index))
            let c = try PredicateCase(.accountUser, dataset, harness: harness, index: index, random: &random)
            styles[c.requestedStringSortStyle.map { "\($0)" } ?? "nil", default: 0] += 1
            let usernames = c.rows.map(\.username)
            let lexical = usernames.sorted()
            let natural = usernames.sorted(using: NaturalStringComparator())
            #expect(natural != lexical, "usernames user0…user119 sort differently by <")
            let byDefault = c.referenceOrder(c.rows, [SortDescriptor(\AccountUser.username)]).map(\.username)
            #expect(byDefault == (c.stringSortStyle == .natural ? natural : lexical))
            let byLexical = c.referenceOrder(c.rows, [SortDescriptor(\AccountUser.username, comparator: .lexical)])
            #expect(byLexical.map(\.username) == lexical)
        }
        for style in ["nil", "natural", "lexical"] {
            #expect((25...60).contains(styles[style] ?? 0), "\(styles)")
        }
    }

    /// Optional to-many relationships (CloudKit-style): `CatalogueTag.products` is
    /// `[CatalogueProduct]?`, so the tag cases compare every optional-chained to-many shape with
    /// plain Swift.
    @Test("random tag predicates use every optional to-many shape")
    func optionalToManyCoverage() throws {
        let harness = DifferentialHarness(seed: 3)
        let dataset = try harness.dataset("catalogue")
        try dataset.load(CatalogueProduct.self)
        try dataset.load(CatalogueTag.self)
        let rows = dataset.reference.rows(CatalogueTag.self)
        var random = SeededGenerator(seed: 11)
        var text = ""
        for _ in 0..<400 {
            text +=
                EntityProfile<CatalogueTag>.catalogueTag.randomPredicate(
                    depth: 4, rows: rows, universe: dataset.reference, using: &random
                ).source + "\n"
        }
        for family in [
            ".products == nil", ".products != nil", ".products?.isEmpty == ", ".products?.isEmpty ?? ",
            ".products?.count ?? 0)",
            ".products?.contains { ", ".products.flatMap { $0.allSatisfy { ", ".products?.filter { ",
        ] {
            #expect(text.contains(family), "no generated predicate uses \(family)")
        }
    }
}

@Suite("Regression file")
struct RegressionFileTests {
    @Test("entries are read, appended without duplicates, and bad lines are rejected with their line number")
    func roundTrip() throws {
        let dir = try ScratchDirectory(prefix: "regressions")
        let url = dir.url.appendingPathComponent("r.txt")
        let f = ConformanceFailure(
            suite: "differential", caseID: "partition #42", store: .disk, seed: 7, check: "partition of X predicate",
            expected: "", actual: "")
        try RegressionFile.append([f, f], to: url)
        try RegressionFile.append([f], to: url)
        let entries = try RegressionFile.read(url)
        #expect(entries == [RegressionFile.Entry(seed: 7, caseIndex: 42, comment: "partition of X predicate, disk")])
        try "1 2\nnot a line\n".write(to: url, atomically: true, encoding: .utf8)
        let error = #expect(throws: (any Error).self) { try RegressionFile.read(url) }
        #expect("\(error!)".contains("r.txt:2"))
    }
}

@Suite("Store pair")
struct StorePairTests {
    @Test("run compares both stores with the reference and names the store that differs")
    func run() throws {
        let pair = try StorePair(sample: .users, seed: 4, scale: 50)
        try pair.expectSameContents("fresh pair")
        let count = try ModelContext(pair.memory).fetchCount(FetchDescriptor<AccountUser>())
        try pair.run("count", reference: { 50 }) { context, _ in try context.fetchCount(FetchDescriptor<AccountUser>())
        }
        #expect(count == 50)
        let error = #expect(throws: ConformanceFailure.self) {
            try pair.run("count differs on disk", reference: { 50 }) { context, store in
                try context.fetchCount(FetchDescriptor<AccountUser>()) + (store == .disk ? 1 : 0)
            }
        }
        #expect(error?.store == .disk)
        #expect(error?.expected == "50")
        #expect(error?.actual == "51")
    }

    @Test(
        "StorePair contents compare equal after the same saves, differ after a save on one store, and survive reopening (change tracking: lifecycle suite, CTX-02)"
    )
    func contents() throws {
        let pair = try StorePair(schema: Schema([AccountUser.self]), seed: 1)
        for store in StoreKind.allCases {
            let c = ModelContext(pair.container(store))
            c.insert(
                AccountUser(
                    id: UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)), username: "a", name: "A",
                    email: "a@x", joined: Date(timeIntervalSinceReferenceDate: 0)))
            try c.save()
        }
        try pair.expectSameContents("same saves")
        try pair.reopenDisk()
        try pair.expectSameContents("after reopening")
        let c = ModelContext(pair.disk)
        c.insert(
            AccountUser(
                id: UUID(uuid: (2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)), username: "b", name: "B",
                email: "b@x", joined: Date(timeIntervalSinceReferenceDate: 0)))
        try c.save()
        let error = #expect(throws: ConformanceFailure.self) { try pair.expectSameContents("one more row on disk") }
        #expect(error?.store == nil)
        #expect(error?.details.contains { $0.contains("AccountUser") } == true)
    }
}

@Suite("Conformance report")
struct ConformanceReportTests {
    @Test("table, Markdown and JUnit XML show passes, failures and the differential count")
    func rendering() throws {
        var report = ConformanceReport(seed: 1, stores: StoreKind.allCases)
        let failure = ConformanceFailure(
            suite: "uniqueness", caseID: "UNQ-10", store: .disk, seed: 1, check: "balance <after> & \"upsert\"",
            expected: "0", actual: "1000")
        report.results = [
            ConformanceResult(
                suite: "uniqueness", caseID: "UNQ-10", title: "upsert", store: .memory, seed: 1, seconds: 0.01,
                failure: nil),
            ConformanceResult(
                suite: "uniqueness", caseID: "UNQ-10", title: "upsert", store: .disk, seed: 1, seconds: 0.01,
                failure: failure),
        ]
        var d = DifferentialReport(seed: 1)
        d.cases = 10_000
        d.checks = 110_000
        report.differential = d
        #expect(!report.passed)
        let table = report.table()
        #expect(table.contains("uniqueness"))
        #expect(table.contains("pass"))
        #expect(table.contains("FAIL 1/1"))
        #expect(table.contains("differential: 10000 cases"))
        let xml = report.junitXML()
        #expect(xml.contains(#"<testsuites name="OpenSwiftData conformance" tests="3" failures="1">"#))
        #expect(xml.contains("balance &lt;after&gt; &amp; &quot;upsert&quot;"))
        #expect(xml.components(separatedBy: "<testcase ").count - 1 == 3)
        let md = report.markdown()
        #expect(md.contains("| uniqueness | 1 | pass | FAIL 1/1 |"))
        #expect(md.contains("Result: **FAIL**"))
    }
}

import Foundation
import OpenSwiftData

/// Your schema as the `harness` command line runs it: its automatic data, the rules you pin,
/// and the queries your app runs.
///
/// Pass it to `Harness.main(schemas:)` (the `OpenSwiftDataHarness` product) in a small
/// executable target, and `conform --schema NAME`, `fixtures --schema NAME` and
/// `bench --fixture FILE` run on your models:
/// ```swift
/// HarnessSchema(
///     Schema([Customer.self, Order.self]), counts: ["Customer": 40, "Order": 300],
///     expecting: ["delete Customer.orders cascade", "unique Customer[email]"],
///     queries: [QueryCheck(FetchDescriptor<Order>(predicate: #Predicate { $0.total > 100 }))])
/// ```
public struct HarnessSchema: Sendable {
    /// The models.
    package let schema: Schema
    /// Rows per class for checks (`conform`); classes not named get 40. `fixtures --scale N`
    /// gives every class not named here N rows.
    package let counts: [String: Int]
    /// The declarations ``SchemaConformance`` must find (its `SCH-DECL` case), or `nil`.
    package let rules: [String]?
    /// The app's queries, checked on generated data by `conform` (suite `queries`).
    package let queries: [QueryCheck]
    /// Changes to the automatic data (``Fixture/override(_:_:)``), applied to every fixture.
    private let adjust: @Sendable (Fixture) -> Fixture

    /// A schema for the command line: `counts` per class, the `expecting` rules to pin, the
    /// `queries` to check, and `fixture` to adjust the automatic data (unique emails, say).
    ///
    /// ```swift
    /// HarnessSchema(shop, fixture: { $0.override(\Customer.email) { row in row.unique.email("email") } })
    /// ```
    public init(
        _ schema: Schema, counts: [String: Int] = [:], expecting rules: [String]? = nil,
        queries: [QueryCheck] = [], fixture adjust: @escaping @Sendable (Fixture) -> Fixture = { $0 }
    ) {
        self.schema = schema
        self.counts = counts
        self.rules = rules
        self.queries = queries
        self.adjust = adjust
    }

    /// The automatic data for `seed`: ``counts`` per class, `defaultCount` for the others,
    /// adjusted as the initializer says.
    ///
    /// ```swift
    /// let rows = try shopSchema.fixture(seed: 7).populate(container)
    /// ```
    package func fixture(seed: UInt64, defaultCount: Int = 40, traits: Traits = []) -> Fixture {
        adjust(Fixture(schema: schema, seed: seed, counts: counts, defaultCount: defaultCount, traits: traits))
    }

    /// The conformance suites `conform --schema` runs: `schema` (the cases ``SchemaConformance``
    /// derives) and, when there are queries, `queries` (each ``QueryCheck`` on three datasets).
    package var suites: [ConformanceSuite] {
        var suites = [SchemaConformance(schema: schema, expecting: rules).suite]
        if !queries.isEmpty {
            let data = fixture(seed: 1)
            let cases = queries.map { query in
                ConformanceCase(suite: "queries", id: "QRY", title: query.name) { check in
                    try query.verify(fixture: data.reseeded(check.seed), datasets: 3, store: check.store)
                }
            }
            suites.append(ConformanceSuite(name: "queries", title: "the app's queries on generated data", cases: cases))
        }
        return suites
    }

    /// A differential harness over the schema's entities for `seed` (predicates, sorts and
    /// change scripts on its automatic data).
    func differentialHarness(seed: UInt64, stores: [StoreKind]) -> DifferentialHarness {
        let data = fixture(seed: SeededGenerator.derive(seed, labels: ["dataset", "schema"]), traits: [.hostile])
        return DifferentialHarness(schema: schema, seed: seed, fixture: data, stores: stores)
    }
}

extension ConformanceReport {
    /// Runs `schema`'s suites on `stores` and its differential cases, or shard `shard` of them:
    /// what `conform --schema NAME` runs. The suites are `schema` (the cases
    /// ``SchemaConformance`` derives) and, when the schema has queries, `queries` (each
    /// ``QueryCheck`` on three datasets); `suites` picks some of them by name.
    ///
    /// ```swift
    /// let part = ConformanceReport.run(schema: HarnessSchema(shop), seed: 1, differential: 1_000, shard: Shard(1, of: 2))
    /// ```
    public static func run(
        schema: HarnessSchema, suites: Set<String>? = nil, stores: [StoreKind] = StoreKind.allCases,
        seed: UInt64 = 1, differential: Int = 0, differentialCases: [Int]? = nil, shard: Shard = .all,
        jobs: Int = 1, shrink: Bool = true, progress: (@Sendable (String) -> Void)? = nil
    ) -> ConformanceReport {
        let chosen = schema.suites.filter { suites?.contains($0.name) ?? true }
        var report = run(
            suites: chosen, stores: stores, seed: seed, differential: 0, shard: shard, progress: progress)
        let numbers = differentialCases ?? Array(0..<max(0, differential))
        guard !numbers.isEmpty else { return report }
        let probe = schema.differentialHarness(seed: seed, stores: stores)
        let mine = shard.deal(numbers) { probe.scriptKind(ofCase: $0) != nil }
        progress?("differential: \(mine.count) cases of the schema's entities, \(jobs) job(s)")
        var d = DifferentialHarness.run(seed: seed, cases: mine, jobs: jobs, shrink: shrink, progress: nil) {
            schema.differentialHarness(seed: seed, stores: stores)
        }
        d.requested = max(d.requested, mine.count)
        report.differential = d
        return report
    }
}

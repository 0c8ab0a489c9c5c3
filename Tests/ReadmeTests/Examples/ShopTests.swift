import OpenSwiftData
import OpenSwiftDataTesting
import Testing

/// The shop's models and their data: the same rows on every run, no initialiser called.
let shop = Schema([Customer.self, Order.self, Product.self, Address.self])
let shopData = Fixture(schema: shop, seed: 2026, counts: ["Customer": 40, "Order": 300, "Product": 25, "Address": 30])
    .override(\Customer.email) { row in row.unique.email("email") }

/// The app's queries: both stores must return what plain Swift returns, on several datasets.
let shopQueries: [QueryCheck] = {
    let pro = Tier.pro
    return [
        QueryCheck(
            FetchDescriptor<Customer>(predicate: #Predicate { $0.tier == pro }, sortBy: [SortDescriptor(\.email)])),
        QueryCheck(
            FetchDescriptor<Order>(
                predicate: #Predicate { $0.note == nil && $0.total > 100 },
                sortBy: [SortDescriptor(\.number, order: .reverse)])),
        QueryCheck(FetchDescriptor<Customer>(predicate: #Predicate { $0.orders.contains { $0.products.isEmpty } })),
        QueryCheck(
            FetchDescriptor<Order>(
                predicate: #Predicate { $0.customer?.billingAddress?.city.starts(with: "s") == true },
                sortBy: [SortDescriptor(\.total), SortDescriptor(\.number)])),
    ]
}()

/// The rules the app relies on: a model change that alters one fails the SCH-DECL case.
let shopRules = [
    "delete Customer.billingAddress nullify", "delete Customer.orders cascade", "delete Order.customer nullify",
    "delete Order.products nullify", "delete Product.orders nullify", "unique Customer[email]", "unique Product[sku]",
]

@Suite("Shop persistence")
struct ShopPersistenceTests {
    @Test func fixtureFillsBothStores() throws {
        let pair = try StorePair(schema: shop, seed: 2026)
        #expect(try pair.populate(shopData) == ["Address": 30, "Customer": 40, "Order": 300, "Product": 25])
        try pair.expectSameContents("after populate")
    }

    @Test(arguments: shopQueries)
    func appQueries(_ query: QueryCheck) throws {
        let rows = try query.verify(fixture: shopData, datasets: 3)  // rows per dataset
        #expect(rows.contains { $0 > 0 }, "no dataset exercised \(query)")
    }

    // 2,000 random predicates and sorts over the shop's own entities: both stores equal plain Swift.
    @Test func differential() {
        let report = DifferentialHarness(schema: shop, seed: 1, counts: ["Customer": 60, "Order": 300]).run(
            cases: 0..<2_000)
        #expect(report.mismatches.isEmpty, "\(report.mismatches.map(\.description))")
    }

    // What the schema declares (unique upserts, delete rules, extreme values) on both stores.
    @Test(arguments: SchemaConformance(schema: shop, expecting: shopRules).cases, StoreKind.allCases)
    func declaredRules(_ rule: ConformanceCase, store: StoreKind) throws {
        try rule.verify(store: store)
    }
}

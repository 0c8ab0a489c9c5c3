import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

// The README's shop models (Tests/ReadmeTests/Examples/ShopModels.swift) as a careless change
// left them: Customer.orders nullifies instead of cascading, Order.total became a `Money` whose
// encoding drops the currency, and a query reads a computed property. Each change must be caught
// by the matching check.
@Model final class Customer {
    @Attribute(.unique) var email: String
    var name: String
    var billingAddress: Address?
    @Relationship(deleteRule: .nullify, inverse: \Order.customer) var orders: [Order] = []
    var displayName: String { name.capitalized }
    init(email: String, name: String) {
        self.email = email
        self.name = name
    }
}

/// An amount whose `Codable` form loses the currency (read back as EUR).
struct Money: Codable, Hashable, Sendable {
    var amount: Double
    var currency: String
    enum CodingKeys: String, CodingKey { case amount, currency }
    init(amount: Double, currency: String) {
        self.amount = amount
        self.currency = currency
    }
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        amount = try c.decode(Double.self, forKey: .amount)
        currency = try c.decodeIfPresent(String.self, forKey: .currency) ?? "EUR"
    }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(amount, forKey: .amount)
    }
}

@Model final class Order {
    var number: Int
    var total: Money
    var customer: Customer?
    @Relationship(inverse: \Product.orders) var products: [Product] = []
    init(number: Int, total: Money) {
        self.number = number
        self.total = total
    }
}

@Model final class Product {
    @Attribute(.unique) var sku: String
    var orders: [Order] = []
    init(sku: String) { self.sku = sku }
}

@Model final class Address {
    var city: String
    init(city: String) { self.city = city }
}

@Suite("Shop regressions are caught")
struct ShopRegressionTests {
    static let schema = Schema([Customer.self, Order.self, Product.self, Address.self])
    static let rules = [
        "delete Customer.billingAddress nullify", "delete Customer.orders cascade", "delete Order.customer nullify",
        "delete Order.products nullify", "delete Product.orders nullify", "unique Customer[email]",
        "unique Product[sku]",
    ]

    @Test("a delete rule changed in the model fails SCH-DECL, naming the rule")
    func changedDeleteRule() throws {
        let conformance = SchemaConformance(schema: Self.schema, expecting: Self.rules)
        let decl = try #require(conformance.cases.first { $0.id == "SCH-DECL" })
        let failure = #expect(throws: ConformanceFailure.self) { try decl.verify(store: .memory) }
        #expect(failure?.expected.contains("delete Customer.orders cascade") == true)
        #expect(failure?.actual.contains("delete Customer.orders nullify") == true)
        // The behaviour itself follows the new declaration, named in the case title.
        #expect(conformance.cases.contains { $0.title.hasPrefix("Customer.orders .nullify") })
    }

    @Test("a Codable attribute that loses data on the way to the store fails SCH-VAL", arguments: StoreKind.allCases)
    func lossyCodable(store: StoreKind) throws {
        let roundTrip = try #require(
            SchemaConformance(schema: Self.schema).cases.first { $0.id == "SCH-VAL" && $0.title.hasPrefix("Order:") })
        let failure = #expect(throws: ConformanceFailure.self) { try roundTrip.verify(store: store) }
        #expect(failure?.check == "Order.total reads back as saved")
        #expect(failure?.actual.contains("EUR") == true)
    }

    @Test("a query the store cannot translate fails its QueryCheck", arguments: StoreKind.allCases)
    func untranslatableQuery(store: StoreKind) throws {
        let fixture = Fixture(schema: Self.schema, seed: 1, defaultCount: 10)
        let checkLine = #line + 1  // the line QueryCheck records as where it was written
        let check = QueryCheck(FetchDescriptor<Customer>(predicate: #Predicate { $0.displayName == "Ann" }))
        let failure = #expect(throws: ConformanceFailure.self) {
            try check.verify(fixture: fixture, datasets: 1, store: store)
        }
        #expect(failure?.check.contains("translatable") == true)
        #expect(failure?.location?.hasSuffix("ShopRegressionTests.swift:\(checkLine)") == true)
        let fine = QueryCheck(
            FetchDescriptor<Order>(predicate: #Predicate { $0.customer != nil }, sortBy: [SortDescriptor(\.number)]))
        #expect(try fine.verify(fixture: fixture, datasets: 2, store: store).allSatisfy { $0 > 0 })
    }

    @Test("emails that are not unique per row make populate throw instead of storing fewer customers")
    func collidingEmails() throws {
        let fixture = Fixture(schema: Self.schema, seed: 3, counts: ["Customer": 400], defaultCount: 5)
            .override(\Customer.email) { row in "\(row.word("user"))@example.com" }
        let container = try ModelContainer(
            for: Self.schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let error = #expect(throws: FixtureCollisionError.self) { try fixture.populate(container) }
        #expect(error?.step == "Customer" && error?.constraints == [["email"]])
        let fixed = fixture.override(\Customer.email) { row in row.unique.email("email") }
        let other = try ModelContainer(for: Self.schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(try fixed.populate(other)["Customer"] == 400)
    }
}

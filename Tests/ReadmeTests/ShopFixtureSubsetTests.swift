import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

@Suite("Readme fixture subset example")
struct ShopFixtureSubsetTests {
    @Test(
        "FIX-11 FIX-13 FIX-14: the subset example keeps 50 orders and every customer, scrubbed; the store keeps its bytes"
    )
    func shareableFixtureExample() throws {
        let scratch = try ScratchDirectory(prefix: "readme-fixture-subset")
        let url = scratch.url.appendingPathComponent("default.store")
        do {
            let context = ModelContext(try ModelContainer(for: shop, configurations: ModelConfiguration(url: url)))
            let customers = (1...10).map { Customer(email: "c\($0)@example.com", name: "Customer \($0 % 4)") }
            for customer in customers { context.insert(customer) }
            for n in 1...120 {
                let order = Order(number: n, total: 10)
                context.insert(order)
                order.customer = customers[n % 10]
            }
            try context.save()
        }
        let before = try Data(contentsOf: url)
        let out = scratch.url.appendingPathComponent("fixture.store")
        let summary = try shareableFixture(from: url, to: out)
        #expect(try Data(contentsOf: url) == before)
        #expect(
            summary.entities.map { "\($0.name) \($0.rowsAfter)" } == [
                "Address 0", "Customer 10", "Order 50", "Product 0",
            ])
        let fixture = try FixtureDatabase(contentsOf: out, schema: shop, store: .memory)
        let context = ModelContext(fixture.container)
        let customers = try context.fetch(FetchDescriptor<Customer>())
        #expect(Set(customers.map(\.email)).count == 10)
        #expect(Set(customers.map(\.email)).isDisjoint(with: (1...10).map { "c\($0)@example.com" }))
    }
}

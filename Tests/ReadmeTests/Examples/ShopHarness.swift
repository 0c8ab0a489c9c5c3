import OpenSwiftData
import OpenSwiftDataHarness
import OpenSwiftDataTesting

/// The shop's command line: an executable target whose `main.swift` is `runShopHarness()`.
func runShopHarness() -> Never {
    Harness.main(schemas: [
        "shop": HarnessSchema(
            shop, counts: ["Customer": 40, "Order": 300, "Product": 25, "Address": 30],
            expecting: shopRules, queries: shopQueries,
            fixture: { $0.override(\Customer.email) { row in row.unique.email("email") } })
    ])
}

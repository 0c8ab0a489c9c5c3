import BenchmarkKit
import Foundation
import OpenSwiftData

@Model final class ShopCustomer {
    @Attribute(.unique) var email: String
    var city: String
    init(email: String, city: String) {
        self.email = email
        self.city = city
    }
}

@Model final class ShopOrder {
    #Index<ShopOrder>([\.status])
    var status: String
    var total: Double
    var placed: Date
    init(status: String, total: Double, placed: Date) {
        self.status = status
        self.total = total
        self.placed = placed
    }
}

/// Three of the shop's queries and its order inserts, under none / declared / suggested indexes.
func shopIndexBenchmark(rows: Int) -> IndexBenchmark {
    let statuses = ["open", "paid", "shipped", "returned"]
    var bench = IndexBenchmark(
        "shop", schema: Schema([ShopCustomer.self, ShopOrder.self]),
        data: .generated(rows: rows) { context, i in
            context.insert(ShopCustomer(email: "c\(i)@shop.test", city: "city \(i % 50)"))
            context.insert(
                ShopOrder(
                    status: statuses[i % 4], total: Double(i % 1_000),
                    placed: Date(timeIntervalSinceReferenceDate: Double(i) * 60)))
        })
    let email = "c\(rows / 2)@shop.test"
    bench.query("customer by email", FetchDescriptor<ShopCustomer>(predicate: #Predicate { $0.email == email }))
    bench.query(
        "big open orders", FetchDescriptor<ShopOrder>(predicate: #Predicate { $0.status == "open" && $0.total > 990 }))
    var latest = FetchDescriptor<ShopOrder>(sortBy: [SortDescriptor(\.placed, order: .reverse)])
    latest.fetchLimit = 20
    bench.query("latest orders", latest)
    bench.writes("new orders", operations: 100) { context, i in
        context.insert(
            ShopOrder(status: "open", total: Double(i % 1_000), placed: Date(timeIntervalSinceReferenceDate: Double(i)))
        )
    }
    return bench
}

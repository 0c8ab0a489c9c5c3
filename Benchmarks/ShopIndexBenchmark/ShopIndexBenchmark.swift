// A team's own index benchmark in one file: `swift run -c release ShopIndexBenchmark [rows]`.
import BenchmarkKit
import Foundation
import OpenSwiftData

@Model final class Customer {
    @Attribute(.unique) var email: String
    var city: String
    init(email: String, city: String) {
        self.email = email
        self.city = city
    }
}

@Model final class Order {
    #Index<Order>([\.status])
    var status: String
    var total: Double
    var placed: Date
    init(_ i: Int) {
        status = ["open", "paid", "shipped", "returned"][i % 4]
        total = Double(i % 1_000)
        placed = Date(timeIntervalSinceReferenceDate: Double(i) * 60)
    }
}

@main struct ShopIndexBenchmark {
    static func main() throws {
        let rows = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 20_000
        var bench = IndexBenchmark(
            "shop", schema: Schema([Customer.self, Order.self]),
            data: .generated(rows: rows) { context, i in
                context.insert(Customer(email: "c\(i)@shop.test", city: "city \(i % 50)"))
                context.insert(Order(i))
            })
        let email = "c\(rows / 2)@shop.test"
        bench.query("customer by email", FetchDescriptor<Customer>(predicate: #Predicate { $0.email == email }))
        bench.query(
            "big open orders", FetchDescriptor<Order>(predicate: #Predicate { $0.status == "open" && $0.total > 990 }))
        var latest = FetchDescriptor<Order>(sortBy: [SortDescriptor(\.placed, order: .reverse)])
        latest.fetchLimit = 20
        bench.query("latest orders", latest)
        bench.writes("new orders", operations: 100) { context, i in context.insert(Order(i)) }
        let report = try bench.run(configuration: RunnerConfiguration(mode: .iterations(15)), showsProgress: true)
        try report.write(to: URL(fileURLWithPath: "Reports/shop-index"))
        print(report.markdown())
    }
}

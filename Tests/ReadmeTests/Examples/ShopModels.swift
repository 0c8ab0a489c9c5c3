import Foundation
import OpenSwiftData

/// A shop's customers: a unique email, orders deleted with them, an optional billing address.
@Model final class Customer {
    @Attribute(.unique) var email: String
    var name: String
    var tier: Tier
    var since: Date
    var billingAddress: Address?
    @Relationship(deleteRule: .cascade, inverse: \Order.customer) var orders: [Order] = []

    init(email: String, name: String, tier: Tier = .free, since: Date = .now) {
        self.email = email
        self.name = name
        self.tier = tier
        self.since = since
    }
}

enum Tier: String, Codable, CaseIterable { case free, pro, enterprise }

@Model final class Order {
    var number: Int
    var total: Decimal
    var note: String?
    var customer: Customer?
    @Relationship(inverse: \Product.orders) var products: [Product] = []

    init(number: Int, total: Decimal) {
        self.number = number
        self.total = total
    }
}

@Model final class Product {
    @Attribute(.unique) var sku: String
    var name: String
    var price: Double
    var orders: [Order] = []

    init(sku: String, name: String, price: Double) {
        self.sku = sku
        self.name = name
        self.price = price
    }
}

@Model final class Address {
    var street: String
    var city: String
    var postcode: String?

    init(street: String, city: String) {
        self.street = street
        self.city = city
    }
}

import Foundation
import OpenSwiftData

/// The benchmark row: a unique key, an indexed and an unindexed copy of the same integer and of
/// the same price (so one schema answers "indexed vs unindexed"), a name, and a group for the
/// cascade-delete workload.
@Model public final class BenchItem {
    #Index<BenchItem>([\.code], [\.price])
    /// The unique key (row number).
    @Attribute(.unique) public var key: Int
    /// A unique-ish integer, indexed under the declared strategy.
    public var code: Int
    /// The same integer, never indexed.
    public var codeUnindexed: Int
    /// A price in 0…999.99, indexed under the declared strategy.
    public var price: Double
    /// The same price, never indexed.
    public var priceUnindexed: Double
    /// `item-<row>`.
    public var name: String
    /// The group (cascade-delete workload), if any.
    public var group: BenchGroup?

    /// Creates row `i` of the deterministic data set.
    public init(row i: Int) {
        let v = BenchData.values(row: i)
        self.key = i
        self.code = v.code
        self.codeUnindexed = v.code
        self.price = v.price
        self.priceUnindexed = v.price
        self.name = v.name
    }
}

/// A group of items; deleting it cascades to its items.
@Model public final class BenchGroup {
    /// `group-<n>`.
    public var name: String
    @Relationship(deleteRule: .cascade, inverse: \BenchItem.group) public var items: [BenchItem] = []
    /// Creates a named group.
    public init(name: String) { self.name = name }
}

/// The deterministic values of row `i` (no randomness: the same on every run and machine).
public enum BenchData {
    /// `code` is a permutation of 0..<2^31 (unique per row); `price` cycles through 0.00…999.99.
    public static func values(row i: Int) -> (code: Int, price: Double, name: String) {
        let code = (i &* 1_103_515_245 &+ 12_345) & 0x7fff_ffff
        let price = Double((i &* 7_919) % 100_000) / 100
        return (code, price, "item-\(i)")
    }

    /// Prices in `[lower, upper)` select about `percent` % of the rows.
    public static func priceRange(percent: Double, at offset: Double = 250) -> (Double, Double) {
        (offset, offset + 1000 * percent / 100)
    }
}

/// A record's details: a `Codable` struct attribute, stored as one column per element
/// (`ZQUANTITY`, `ZAMOUNT`, `ZLABEL`, `ZACTIVE`), as SwiftData stores a composite attribute.
public struct BenchDetails: Codable, Equatable, Sendable {
    /// The same integer as ``BenchItem/code``.
    public var quantity: Int
    /// The same price as ``BenchItem/price``.
    public var amount: Double
    /// `item-<row>`.
    public var label: String
    /// Whether the row number is even.
    public var active: Bool

    /// The details of row `i` of the deterministic data set.
    public init(row i: Int) {
        let v = BenchData.values(row: i)
        self.init(quantity: v.code, amount: v.price, label: v.name, active: i % 2 == 0)
    }

    /// Details with these values.
    public init(quantity: Int, amount: Double, label: String, active: Bool) {
        self.quantity = quantity
        self.amount = amount
        self.label = label
        self.active = active
    }
}

/// The composite-attribute benchmark row: a serial number and a `Codable` struct attribute,
/// the same values as ``BenchItem`` holds in plain columns.
@Model public final class BenchRecord {
    /// The row number.
    public var serial: Int
    /// The row's values, as one composite attribute.
    public var details: BenchDetails

    /// Creates row `i` of the deterministic data set.
    public init(row i: Int) {
        self.serial = i
        self.details = BenchDetails(row: i)
    }
}

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

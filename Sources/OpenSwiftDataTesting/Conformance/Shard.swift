/// A deterministic slice of a conformance run: shard `index` of `count` takes every
/// `count`-th conformance case, starting at case `index - 1`, of the run's fixed order (suite,
/// case; each case on every store), and its share of the differential cases, change scripts
/// and predicate cases dealt round-robin separately (`deal(_:by:)`).
///
/// N machines running shards 1/N … N/N run every item exactly once between them, and
/// ``ConformanceReport/merged(_:)`` of their reports has the totals of one unsharded run.
/// ```swift
/// let shard = Shard("2/4")!                 // harness conform --shard 2/4
/// shard.select(Array(0..<10))               // [1, 5, 9]
/// ```
public struct Shard: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The shard's number, from 1.
    public let index: Int
    /// How many shards the run is split into.
    public let count: Int

    /// Shard `index` of `count` (1 ≤ index ≤ count).
    ///
    /// ```swift
    /// Shard(3, of: 4)
    /// ```
    public init(_ index: Int, of count: Int) {
        precondition(count >= 1 && (1...count).contains(index), "a shard is I/N with 1 ≤ I ≤ N")
        self.index = index
        self.count = count
    }

    /// Parses `I/N` (as `--shard` takes it); `nil` unless 1 ≤ I ≤ N.
    ///
    /// ```swift
    /// Shard("1/4")   // Shard(1, of: 4)
    /// ```
    package init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, (1...n).contains(i) else {
            return nil
        }
        self.init(i, of: n)
    }

    /// The whole run: `1/1`.
    public static let all = Shard(1, of: 1)

    /// `I/N`.
    public var description: String { "\(index)/\(count)" }

    /// Whether the item at `ordinal` (from 0, in the run's order) belongs to this shard.
    ///
    /// ```swift
    /// Shard(2, of: 4).contains(5)   // true
    /// ```
    package func contains(_ ordinal: Int) -> Bool { ordinal % count == index - 1 }

    /// The items of `items` this shard runs.
    ///
    /// ```swift
    /// Shard(1, of: 2).select(["a", "b", "c"])   // ["a", "c"]
    /// ```
    package func select<T>(_ items: [T]) -> [T] {
        items.enumerated().filter { contains($0.offset) }.map(\.element)
    }

    /// The items of `items` this shard runs when items of each kind (`kind(item)`) are dealt
    /// round-robin among themselves: every shard gets the same number of items of each kind,
    /// give or take one, however the kinds are spaced in `items` (``select(_:)`` would give
    /// every item at an odd position to the even shards). Each kind's first item goes to the
    /// shard after the previous kind's, so the odd ones out spread too.
    ///
    /// ```swift
    /// // Change scripts at every 10th case: each of 2 shards gets half of them.
    /// Shard(1, of: 2).deal(Array(0..<40)) { $0 % 10 == 9 ? "script" : "query" }
    /// ```
    package func deal<T, Kind: Hashable>(_ items: [T], by kind: (T) -> Kind) -> [T] {
        var dealt: [Kind: Int] = [:]
        var firstShard: [Kind: Int] = [:]
        return items.filter { item in
            let k = kind(item)
            if firstShard[k] == nil { firstShard[k] = firstShard.count % count }
            let start = firstShard[k]!
            let position = dealt[k, default: 0]
            dealt[k] = position + 1
            return (start + position) % count == index - 1
        }
    }
}

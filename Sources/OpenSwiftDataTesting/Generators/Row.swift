import Foundation

/// One row being generated: its index, and a private random stream for every field.
///
/// A field's values come from a stream derived from the fixture seed, the step label, the field
/// label and the row index (`SeededGenerator.derive(_:labels:index:)`): adding, removing or
/// reordering fields never changes another field's values.
/// ```swift
/// Generate(Product.self, count: 1_000) { row in
///     Product(name: row.words("name", count: .uniform(1...3)),
///             price: row.price("price", cents: 99...49_999))
/// }
/// ```
public struct Row: Sendable {
    /// The row's position in its step, from 0.
    public let index: Int
    /// The step's label (the model type's name unless given).
    public let entity: String
    /// The fixture seed.
    public let seed: UInt64
    /// The fixture's traits.
    public let traits: Traits
    /// Counts the keys ``key(_:duplicateRatio:_:)`` repeated on purpose, so `populate` can tell
    /// requested collisions from accidental ones; `nil` outside a fixture run.
    var ledger: CollisionLedger? = nil

    /// A row; the graph builder makes these, tests of generators may too.
    ///
    /// ```swift
    /// let row = Row(index: 0, entity: "User", seed: 42)
    /// ```
    package init(index: Int, entity: String, seed: UInt64, traits: Traits = []) {
        self.index = index
        self.entity = entity
        self.seed = seed
        self.traits = traits
    }

    /// The same step's row at another index (for duplicate keys).
    ///
    /// ```swift
    /// let earlier = row.at(index: 3)
    /// ```
    package func at(index: Int) -> Row {
        var row = Row(index: index, entity: entity, seed: seed, traits: traits)
        row.ledger = ledger
        return row
    }

    /// The random stream of `field` in this row.
    ///
    /// ```swift
    /// var rng = row.rng("score")
    /// let score = rng.uniform(in: 0...100)
    /// ```
    package func rng(_ field: String) -> SeededGenerator {
        SeededGenerator(seed: SeededGenerator.derive(seed, labels: [entity, field], index: UInt64(index)))
    }

    // MARK: Numbers, choices, enums

    /// An integer from a distribution.
    ///
    /// ```swift
    /// let stock = row.int("stock", .normal(mean: 50, standardDeviation: 20, in: 0...200))
    /// ```
    public func int(_ field: String, _ distribution: Distribution) -> Int {
        var r = rng(field)
        var s = distribution.sampler()
        return s.next(using: &r)
    }

    /// An integer uniformly in the range.
    ///
    /// ```swift
    /// let days = row.int("days", in: 1...21)
    /// ```
    public func int(_ field: String, in range: ClosedRange<Int>) -> Int {
        var r = rng(field)
        return r.uniform(in: range)
    }

    /// A double uniformly in the range (53-bit resolution).
    ///
    /// ```swift
    /// let ratio = row.double("ratio", in: 0...1)
    /// ```
    public func double(_ field: String, in range: ClosedRange<Double>) -> Double {
        var r = rng(field)
        return range.lowerBound + r.double() * (range.upperBound - range.lowerBound)
    }

    /// `true` with the given probability.
    ///
    /// ```swift
    /// let active = row.bool("active", probability: 0.9)
    /// ```
    public func bool(_ field: String, probability: Double = 0.5) -> Bool {
        var r = rng(field)
        return r.bool(probability: probability)
    }

    /// A price with whole cents: an integer number of cents divided by 100.
    ///
    /// ```swift
    /// let price = row.price("price", cents: 99...9_999)   // e.g. 12.49
    /// ```
    public func price(_ field: String, cents: ClosedRange<Int>) -> Double {
        Double(int(field, in: cents)) / 100
    }

    /// A `Decimal` `significand × 10^exponent`: the significand uniform in the range, the
    /// exponent mostly -3…1 (so equal values of different scales occur, `5` and `5.00`) and
    /// now and then -25 or 20.
    ///
    /// ```swift
    /// let amount = row.decimal("amount", significand: -2_000...2_000)   // -12.5, 0.007, 1300 …
    /// ```
    public func decimal(_ field: String, significand: ClosedRange<Int>) -> Decimal {
        let s = int(field, in: significand)
        let exponent = [-3, -2, -2, -1, -1, 0, 0, 1, -25, 20][int(field + "#exponent", in: 0...9)]
        return Decimal(sign: s < 0 ? .minus : .plus, exponent: exponent, significand: Decimal(s.magnitude))
    }

    /// One element of `choices`, uniformly.
    ///
    /// ```swift
    /// let colour = row.pick("colour", from: ["red", "green"])
    /// ```
    public func pick<T>(_ field: String, from choices: [T]) -> T {
        var r = rng(field)
        return r.choice(choices)
    }

    /// One case of a `CaseIterable` enum, uniformly (in `allCases` order).
    ///
    /// ```swift
    /// let reason = row.enumCase("reason", Reason.self)
    /// ```
    public func enumCase<E: CaseIterable>(_ field: String, _ type: E.Type) -> E {
        pick(field, from: Array(type.allCases))
    }

    /// An index chosen with probability proportional to its weight: for a mix of subclasses.
    ///
    /// ```swift
    /// switch row.weighted("kind", [3, 1]) { case 0: return BusinessTrip(…); default: return PersonalTrip(…) }
    /// ```
    public func weighted(_ field: String, _ weights: [Int]) -> Int {
        var r = rng(field)
        return r.weightedIndex(weights)
    }

    // MARK: Nulls and duplicates

    /// `nil` with probability `ratio`, else the value `make` builds (from its own fields).
    ///
    /// ```swift
    /// let notes = row.nullable("notes", ratio: 0.3) { row.sentence("notes") }
    /// ```
    public func nullable<T>(_ field: String, ratio: Double, _ make: () -> T) -> T? {
        var r = rng(field + "#null")
        return r.bool(probability: ratio) ? nil : make()
    }

    /// A key that repeats an earlier row's key with probability `ratio` (for uniqueness tests).
    ///
    /// `make` builds the key of a row; with probability `ratio` (and never for row 0) it is given
    /// a uniformly chosen earlier row instead of this one.
    /// ```swift
    /// let sku = row.key("sku", duplicateRatio: 0.05) { "SKU-\($0.index)" }
    /// ```
    public func key<T>(_ field: String, duplicateRatio ratio: Double, _ make: (Row) -> T) -> T {
        var r = rng(field + "#duplicate")
        if index > 0, r.bool(probability: ratio) {
            ledger?.noteRequestedDuplicate()
            return make(at(index: r.uniform(in: 0..<index)))
        }
        return make(self)
    }

    // MARK: Dates and identifiers

    /// A date `seconds` whole seconds after `FixtureEpoch.reference` (2024-01-01T00:00:00Z),
    /// drawn uniformly from `seconds`.
    ///
    /// ```swift
    /// let joined = row.date("joined", seconds: 0...(365 * 86_400))
    /// ```
    public func date(_ field: String, seconds: ClosedRange<Int>) -> Date {
        FixtureEpoch.date(offset: int(field, in: seconds))
    }

    /// A date a whole number of days (uniform in `days`) after the epoch, at midnight UTC.
    ///
    /// ```swift
    /// let start = row.date("start", days: 0...730)
    /// ```
    public func date(_ field: String, days: ClosedRange<Int>) -> Date {
        FixtureEpoch.date(offset: int(field, in: days) * 86_400)
    }

    /// A version-4-shaped UUID whose 122 random bits come from the field's stream.
    ///
    /// ```swift
    /// let id = row.uuid("id")
    /// ```
    public func uuid(_ field: String) -> UUID {
        var r = rng(field)
        let a = r.next()
        let b = r.next()
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 {
            bytes[i] = UInt8(truncatingIfNeeded: a >> (56 - 8 * UInt64(i)))
            bytes[8 + i] = UInt8(truncatingIfNeeded: b >> (56 - 8 * UInt64(i)))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}

/// The fixed instant generated dates count from: 2024-01-01T00:00:00Z.
///
/// Dates are whole-second offsets from it, so they are exact in SQLite's REAL column.
/// ```swift
/// FixtureEpoch.date(offset: 86_400)   // 2024-01-02T00:00:00Z
/// ```
package enum FixtureEpoch {
    /// 2024-01-01T00:00:00Z (1,704,067,200 seconds after 1970).
    package static let reference = Date(timeIntervalSince1970: 1_704_067_200)

    /// The epoch plus `offset` seconds.
    ///
    /// ```swift
    /// let d = FixtureEpoch.date(offset: 3_600)
    /// ```
    package static func date(offset: Int) -> Date {
        Date(timeIntervalSince1970: 1_704_067_200 + Double(offset))
    }
}

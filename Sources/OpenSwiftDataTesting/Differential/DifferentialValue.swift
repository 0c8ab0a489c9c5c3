import Foundation

/// A value type the predicate generator draws constants of: near-misses of stored values, so
/// comparisons land on both sides of real rows and on them exactly.
package protocol DifferentialValue: Comparable, Codable, Sendable {
    /// A constant close to `value` (the value itself, a neighbour, an edge).
    static func variant(of value: Self, using random: inout SeededGenerator) -> Self
    /// The value used with `??` for a nil operand.
    static var fallback: Self { get }
}

/// A ``DifferentialValue`` the generator also does arithmetic on (`+ - *`).
package protocol DifferentialNumber: DifferentialValue, SignedNumeric {
    /// A small non-zero operand for arithmetic.
    static func smallOperand(using random: inout SeededGenerator) -> Self
}

extension Int: DifferentialNumber {
    /// The value, ±1, doubled, or 0.
    package static func variant(of value: Int, using random: inout SeededGenerator) -> Int {
        [value, value, value + 1, value - 1, value * 2, 0, -1][random.below(7)]
    }
    /// `0`.
    package static var fallback: Int { 0 }
    /// One of -3…5 except 0.
    package static func smallOperand(using random: inout SeededGenerator) -> Int {
        [-3, -2, -1, 1, 2, 3, 4, 5][random.below(8)]
    }
}

extension Double: DifferentialNumber {
    /// The value, a cent above or below, half again, or 0.
    package static func variant(of value: Double, using random: inout SeededGenerator) -> Double {
        [value, value, value + 0.01, value - 0.01, value * 1.5, 0][random.below(6)]
    }
    /// `0`.
    package static var fallback: Double { 0 }
    /// One of -2, -0.5, 0.5, 1.5, 2, 3.
    package static func smallOperand(using random: inout SeededGenerator) -> Double {
        [-2, -0.5, 0.5, 1.5, 2, 3][random.below(6)]
    }
}

extension Date: DifferentialValue {
    /// The date, a second or a day either side.
    package static func variant(of value: Date, using random: inout SeededGenerator) -> Date {
        value.addingTimeInterval([0, 0, 1, -1, 86_400, -86_400][random.below(6)])
    }
    /// The reference date (2001-01-01).
    package static var fallback: Date { Date(timeIntervalSinceReferenceDate: 0) }
}

extension Decimal: DifferentialValue {
    /// The value, a cent either side, ten times, negated, the same value at another scale, or 0.
    /// Every variant is a value a `DECIMAL` column keeps exactly (a double's precision): one
    /// that would not be (`1e-25 + 0.01`) is the value itself instead, as app code comparing
    /// stored amounts uses stored-size constants (a store rounds the others to a double).
    package static func variant(of value: Decimal, using random: inout SeededGenerator) -> Decimal {
        let candidate: Decimal
        switch random.below(8) {
        case 0, 1: candidate = value
        case 2: candidate = value + Decimal(sign: .plus, exponent: -2, significand: 1)
        case 3: candidate = value - Decimal(sign: .plus, exponent: -2, significand: 1)
        case 4: candidate = value * 10
        case 5: candidate = -value
        case 6:
            candidate = Decimal(sign: value.sign, exponent: value.exponent - 2, significand: value.significand * 100)
        default: candidate = 0
        }
        return fitsDecimalColumn(candidate) ? candidate : value
    }
    /// `0`.
    package static var fallback: Decimal { 0 }
}

extension String: DifferentialValue {
    /// The string, a prefix, a slice, a case change, an extension, or a hostile string
    /// (`%`, `_`, quotes, a backslash, NFD, the empty string).
    package static func variant(of value: String, using random: inout SeededGenerator) -> String {
        let chars = Array(value)
        switch random.below(12) {
        case 0, 1: return value
        case 2: return String(chars.prefix(1 + random.below(Swift.max(1, chars.count))))
        case 3, 4:
            guard !chars.isEmpty else { return value }
            let start = random.below(chars.count)
            return String(chars[start..<Swift.min(chars.count, start + 1 + random.below(3))])
        case 5: return value.uppercased()
        case 6: return value.prefix(1).uppercased() + value.dropFirst()
        case 7: return value + "z"
        case 8: return hostile[random.below(hostile.count)]
        case 9: return String(chars.prefix(2)) + hostile[random.below(hostile.count)]
        case 10: return value.decomposedStringWithCanonicalMapping
        default: return ""
        }
    }
    /// The empty string.
    package static var fallback: String { "" }

    /// Strings that break naive SQL: LIKE wildcards, quotes, escapes, decomposed accents.
    static let hostile = ["%", "_", "'", "\"", "a%", "%a", "_a", "\\", "''", "e\u{301}", "é", "ß", "İ", " ", "%_%"]
}

extension SeededGenerator {
    /// A uniform integer in `0..<n` (`n` > 0).
    mutating func below(_ n: Int) -> Int { uniform(in: 0..<n) }
    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool { double() < p }
}

/// Whether a `DECIMAL` column keeps `value` exactly: it reads back from the nearest double as
/// the same `Decimal`. The generators keep to such values: a longer one is stored rounded (and
/// reported), so `Predicate.evaluate` on the unrounded value in memory would differ by design.
func fitsDecimalColumn(_ value: Decimal) -> Bool {
    let posix = Locale(identifier: "en_US_POSIX")
    guard let double = Double(NSDecimalNumber(decimal: value).description(withLocale: posix)), double.isFinite else {
        return false
    }
    return Decimal(string: "\(double)", locale: posix) == value
}

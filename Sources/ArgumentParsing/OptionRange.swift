/// The numbers a numeric option accepts, from a lower to an upper bound, both stated in the
/// option's `--help` line and checked by ``ArgumentParser/parse(_:)`` for every value (every
/// comma-separated item of a list option) before any command runs.
///
/// Every numeric option of a command has both bounds, chosen so a real use never meets them and
/// the machine survives the largest value (a row count that fits in memory, a process count a
/// machine can run): a typo such as `--scale 10000000000` then fails at once, with one line
/// naming the option, the value and the range, instead of allocating until memory runs out.
/// ```swift
/// .option("scale", placeholder: "rows", range: .integers(1...10_000_000), help: "Rows to write.")
/// // help:   --scale <rows>   Rows to write. (1 to 10000000)
/// // "--scale 0" throws: --scale takes an integer from 1 to 10000000, not '0'
/// ```
public struct OptionRange: Sendable, Equatable {
    /// The bounds, as the type the command reads the value as.
    enum Bounds: Sendable, Equatable {
        case integers(ClosedRange<Int>)
        case unsigned(ClosedRange<UInt64>)
        case reals(ClosedRange<Double>)
    }

    /// The bounds.
    let bounds: Bounds

    /// Integers from `range.lowerBound` to `range.upperBound`, read with `ParsedArguments.integer(_:in:)`
    /// or `integers(_:in:)` for a list.
    public static func integers(_ range: ClosedRange<Int>) -> OptionRange { OptionRange(bounds: .integers(range)) }

    /// Unsigned 64-bit integers within `range` (a seed: `0...UInt64.max`), read with
    /// ``ParsedArguments/integer(_:as:in:)``.
    public static func unsigned(_ range: ClosedRange<UInt64>) -> OptionRange {
        OptionRange(bounds: .unsigned(range))
    }

    /// Any unsigned 64-bit integer, `0` to `18446744073709551615`: a seed.
    public static let seed = OptionRange.unsigned(0...UInt64.max)

    /// Decimal numbers (`2.5`) within `range`, both bounds finite; read with
    /// ``ParsedArguments/number(_:in:)``.
    public static func reals(_ range: ClosedRange<Double>) -> OptionRange { OptionRange(bounds: .reals(range)) }

    /// `1 to 10000000`, as help and errors state the range.
    public var text: String {
        switch bounds {
        case .integers(let r): return "\(r.lowerBound) to \(r.upperBound)"
        case .unsigned(let r): return "\(r.lowerBound) to \(r.upperBound)"
        case .reals(let r): return "\(Self.format(r.lowerBound)) to \(Self.format(r.upperBound))"
        }
    }

    /// Checks one value (one item of a list) of `--option`.
    ///
    /// - Throws: ``ArgumentError`` `.invalidValue` naming the option, the value and the range.
    func check(_ item: String, option: String) throws {
        switch bounds {
        case .integers(let r): _ = try ParsedArguments.integer(item, option: option, in: r)
        case .unsigned(let r): _ = try ParsedArguments.integer(item, option: option, in: r)
        case .reals(let r): _ = try ParsedArguments.number(item, option: option, in: r)
        }
    }

    /// `86400` for a whole number, `0.5` otherwise.
    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

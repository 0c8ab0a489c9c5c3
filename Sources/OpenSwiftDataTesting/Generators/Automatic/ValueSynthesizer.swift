import Foundation

/// Makes a value of any attribute type from a row's field stream: the engine behind automatic
/// data (``Fixture/init(schema:seed:counts:defaultCount:traits:options:)`` and `Generate` without
/// a closure).
///
/// Strings, every integer width, `Double`, `Float`, `Bool`, `Date`, `UUID`, `URL`, `Data`,
/// `Decimal`, `CaseIterable` enums, optionals (nil with the options' null ratio) and any other
/// `Decodable` value (a struct, an array, a raw-value enum whose raw values are small integers)
/// are generated; anything else needs an override. With `unique`, the value is a function of the
/// row index that no other row of the step can produce (types with few values, `Bool` or a small
/// enum, cannot be unique beyond their number of values).
enum ValueSynthesizer {
    /// Why a value could not be generated.
    struct Unsupported: Error, CustomStringConvertible {
        let type: Any.Type
        var description: String { "no automatic values for type \(type)" }
    }

    /// A value of `type` for `field` of `row`; `nil` stands for `Optional.none`.
    static func value(of type: Any.Type, row: Row, field: String, unique: Bool, nullRatio: Double) throws -> Any? {
        if let optional = type as? any _AutoOptional.Type {
            if row.bool(field + "#nil", probability: nullRatio) { return nil }
            return try value(of: optional.wrappedType, row: row, field: field, unique: unique, nullRatio: nullRatio)
        }
        if let v = scalar(type, row: row, field: field, unique: unique) { return v }
        if let cases = type as? any CaseIterable.Type {
            let all = allCases(cases)
            if !all.isEmpty {
                return unique ? all[row.index % all.count] : all[row.int(field, in: 0...(all.count - 1))]
            }
        }
        if let decodable = type as? any Decodable.Type {
            return try SyntheticDecoder.make(decodable, row: row, field: field, nullRatio: nullRatio)
        }
        throw Unsupported(type: type)
    }

    static func allCases<C: CaseIterable>(_ type: C.Type) -> [Any] { type.allCases.map { $0 as Any } }

    /// A tag that keeps unique values of two steps of one type apart (`Customer#2` → `-2`).
    static func stepTag(_ row: Row) -> String {
        guard let hash = row.entity.lastIndex(of: "#") else { return "" }
        return "-" + row.entity[row.entity.index(after: hash)...]
    }

    /// Values of the standard scalar types, or `nil` when `type` is not one of them.
    static func scalar(_ type: Any.Type, row: Row, field: String, unique: Bool) -> Any? {
        let i = row.index
        func int(_ range: ClosedRange<Int>) -> Int { unique ? i : row.int(field, in: range) }
        switch ObjectIdentifier(type) {
        case ObjectIdentifier(String.self):
            return unique ? row.word(field) + "-\(i)" + stepTag(row) : row.word(field)
        case ObjectIdentifier(Int.self): return int(-1_000...1_000)
        case ObjectIdentifier(Int64.self): return Int64(int(-1_000...1_000))
        case ObjectIdentifier(Int32.self): return Int32(truncatingIfNeeded: int(-1_000...1_000))
        case ObjectIdentifier(Int16.self): return Int16(truncatingIfNeeded: int(-1_000...1_000))
        case ObjectIdentifier(Int8.self): return Int8(truncatingIfNeeded: unique ? i : row.int(field, in: -100...100))
        case ObjectIdentifier(UInt.self): return UInt(int(0...1_000))
        case ObjectIdentifier(UInt64.self): return UInt64(int(0...1_000))
        case ObjectIdentifier(UInt32.self): return UInt32(truncatingIfNeeded: int(0...1_000))
        case ObjectIdentifier(UInt16.self): return UInt16(truncatingIfNeeded: int(0...1_000))
        case ObjectIdentifier(UInt8.self): return UInt8(truncatingIfNeeded: unique ? i : row.int(field, in: 0...200))
        case ObjectIdentifier(Double.self):
            return unique ? Double(i) + 0.25 : Double(row.int(field, in: -100_000...100_000)) / 100
        case ObjectIdentifier(Float.self):
            return unique ? Float(i) + 0.25 : Float(row.int(field, in: -10_000...10_000)) / 4
        case ObjectIdentifier(Bool.self): return unique ? i % 2 == 0 : row.bool(field)
        case ObjectIdentifier(Date.self):
            return unique ? FixtureEpoch.date(offset: i * 61) : row.date(field, seconds: 0...(3 * 365 * 86_400))
        case ObjectIdentifier(UUID.self): return row.uuid(field)
        case ObjectIdentifier(URL.self):
            return URL(
                string: "https://example.com/\(row.int(field, in: 0...999))/\(unique ? "\(i)" + stepTag(row) : "p")")!
        case ObjectIdentifier(Data.self):
            var r = row.rng(field)
            var bytes = (0..<r.uniform(in: 0...24)).map { _ in UInt8(truncatingIfNeeded: r.next()) }
            if unique {
                bytes = withUnsafeBytes(of: UInt64(i).bigEndian, Array.init) + Array(stepTag(row).utf8) + bytes
            }
            return Data(bytes)
        case ObjectIdentifier(Decimal.self):
            return unique ? Decimal(i) + Decimal(string: "0.5")! : row.decimal(field, significand: -2_000...2_000)
        default: return nil
        }
    }

    /// Whether a unique value of `type` can be made for any number of rows.
    static func canBeUnique(_ type: Any.Type) -> Bool {
        let t = (type as? any _AutoOptional.Type)?.wrappedType ?? type
        return t != Bool.self && t != Int8.self && t != UInt8.self && !(t is any CaseIterable.Type)
            && scalar(t, row: Row(index: 0, entity: "", seed: 0), field: "", unique: true) != nil
    }
}

/// `Optional`, seen through a metatype.
protocol _AutoOptional {
    static var wrappedType: Any.Type { get }
}

extension Optional: _AutoOptional {
    static var wrappedType: Any.Type { Wrapped.self }
}

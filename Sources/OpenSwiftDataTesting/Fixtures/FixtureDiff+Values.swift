import Foundation
import OpenSwiftData

extension StoreSnapshot {
    /// `value` of `property` in `row`, printed readably: `nil` for NULL; a to-one key as
    /// `Entity#pk` (the destination from the row's `Z<n>_` column or the schema, `?#pk` when
    /// the file does not record it); `true`/`false` for a schema's `Bool`; a `TIMESTAMP` or a
    /// schema's `Date` as ISO-8601 (UTC, milliseconds); a schema's `UUID` as its string; else
    /// as `renderStored(_:)` prints the stored value.
    func render(_ value: SQLValue, _ property: Property, _ row: Row) -> String {
        switch value {
        case .null:
            return "nil"
        case .integer(let key) where property.isKey:
            let number = property.entityColumn.flatMap { column -> Int? in
                if case .integer(let n)? = row.values[column] { Int(n) } else { nil }
            }
            let destination = number.flatMap { entityNames[$0] } ?? property.destination ?? "?"
            return "\(destination)#\(key)"
        case .integer(let n) where property.swiftType == "Bool":
            return n == 0 ? "false" : n == 1 ? "true" : String(n)
        case .integer(let n) where property.declaredType == "TIMESTAMP" || property.swiftType == "Date":
            return Self.iso8601(Double(n))
        case .real(let seconds) where property.declaredType == "TIMESTAMP" || property.swiftType == "Date":
            return Self.iso8601(seconds)
        case .blob(let bytes) where property.swiftType == "UUID" && bytes.count == 16:
            let b = Array(bytes)
            return UUID(
                uuid: (
                    b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]
                )
            ).uuidString
        default:
            return Self.renderStored(value)
        }
    }

    /// A stored value as SQLite holds it, printed readably: `nil`, the integer, the double
    /// (Swift's shortest form), the string quoted with `"`, `\`, control characters and
    /// non-printing characters escaped, or a blob as `<N bytes sha256:…>` (12 hex digits).
    static func renderStored(_ value: SQLValue) -> String {
        switch value {
        case .null: "nil"
        case .integer(let n): String(n)
        case .real(let d): "\(d)"
        case .text(let s): PredicateValueText.quoted(s, limit: nil)
        case .blob(let bytes):
            "<\(bytes.count) bytes sha256:\(SHA256.digest(of: bytes).prefix(6).map { String(format: "%02x", $0) }.joined())>"
        }
    }

    /// Seconds since 2001-01-01 00:00 UTC (Core Data's dates) as ISO-8601 in UTC with
    /// milliseconds (`2024-03-24T09:01:32.250Z`), computed from the proleptic Gregorian calendar.
    static func iso8601(_ seconds: Double) -> String {
        // Beyond ±100,000 years the value is no date anyone stored; print the number instead.
        guard seconds.isFinite, abs(seconds) < 3e15 else { return "\(seconds)" }
        let milliseconds = Int64(((seconds + 978_307_200) * 1000).rounded())
        let (days, inDay) = floorDivision(milliseconds, 86_400_000)
        // Days since 1970-01-01 to year, month, day, counting in 400-year eras from 0000-03-01.
        let shifted = days + 719_468
        let era = floorDivision(shifted, 146_097).quotient
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(abs(value))
            return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let time = [inDay / 3_600_000, inDay / 60_000 % 60, inDay / 1000 % 60].map { pad($0, 2) }.joined(separator: ":")
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(time).\(pad(inDay % 1000, 3))Z"
    }

    /// `value / divisor` rounded down, and the non-negative remainder.
    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let quotient = value / divisor - ((value % divisor) < 0 ? 1 : 0)
        return (quotient, value - quotient * divisor)
    }
}

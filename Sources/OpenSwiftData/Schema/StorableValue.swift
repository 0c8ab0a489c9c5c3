import CSQLite
import Foundation

/// A Swift value type with a native SQLite column representation (Docs/Design.md, storage format rules):
/// integers and `Bool` → INTEGER; `Double`/`Float` → REAL; `String` → TEXT (NFC);
/// `Date` → REAL seconds since the reference date; `UUID` → 16-byte BLOB; `URL` → TEXT;
/// `Data` → BLOB; `Decimal` → a number (REAL or INTEGER) in a `DECIMAL` column.
protocol StorableValue {
    /// The declared column type.
    static var columnType: String { get }
    /// Reads the value from column `index` of the current row (never called for `NULL`).
    static func read(_ stmt: SQLiteStatement, _ index: Int32) -> Self
    /// Reads column `index`, or `nil` for `NULL`, with as few SQLite calls as the type allows.
    static func readIfPresent(_ stmt: SQLiteStatement, _ index: Int32) -> Self?
    /// Column `index` boxed as `Self` (a non-optional attribute's slot), `nil` for `NULL`.
    ///
    /// A requirement, not a generic helper, so every conformance gets its own specialised copy:
    /// code generic over `Self` that boxes `readIfPresent`'s result looks up `Optional<Self>`'s
    /// metadata at run time on every call, which cost a fifth of a fetch's time per row.
    static func readBoxed(_ stmt: SQLiteStatement, _ index: Int32) -> Any?
    /// Column `index` boxed as `Self?` (an optional attribute's slot; `NULL` gives `Self?.none`).
    static func readBoxedOptional(_ stmt: SQLiteStatement, _ index: Int32) -> Any
    /// The bound value of a slot box holding `Self` or `Self?` (any depth); `NULL` for `nil` or
    /// a box of another type. A requirement for the same reason as ``readBoxed(_:_:)``.
    static func encodeBoxed(_ value: Any?) throws -> SQLValue
    /// Converts the value to what is bound; throws for values SQLite cannot hold faithfully.
    func sqlValue() throws -> SQLValue
    /// Converts a stored value back; `nil` when the storage class does not fit.
    init?(sqlValue: SQLValue)
    /// The value a vanished row's attribute reads (0, "", empty data …).
    static var zeroValue: Self { get }
}

extension StorableValue where Self: FixedWidthInteger {
    static var zeroValue: Self { 0 }
}

extension StorableValue {
    static func readIfPresent(_ stmt: SQLiteStatement, _ index: Int32) -> Self? {
        stmt.isNull(at: index) ? nil : read(stmt, index)
    }
    @inline(__always)
    static func readBoxed(_ stmt: SQLiteStatement, _ index: Int32) -> Any? {
        guard let v = readIfPresent(stmt, index) else { return nil }
        return v
    }
    @inline(__always)
    static func readBoxedOptional(_ stmt: SQLiteStatement, _ index: Int32) -> Any {
        readIfPresent(stmt, index) as Any
    }
    @inline(__always)
    static func encodeBoxed(_ value: Any?) throws -> SQLValue {
        guard let value else { return .null }
        if let v = value as? Self { return try v.sqlValue() }
        guard let v = _flattenOptional(value) as? Self else { return .null }
        return try v.sqlValue()
    }
}

private func outOfRange(_ value: Any) -> SwiftDataError {
    SwiftDataError(
        SwiftDataError.invalidValue.code,
        "\(type(of: value)) value \(value) does not fit SQLite's 64-bit signed INTEGER")
}

extension StorableValue where Self: FixedWidthInteger {
    static var columnType: String { "INTEGER" }
    static func read(_ stmt: SQLiteStatement, _ index: Int32) -> Self {
        Self(truncatingIfNeeded: stmt.int64(at: index))
    }
    func sqlValue() throws -> SQLValue {
        guard let v = Int64(exactly: self) else { throw outOfRange(self) }
        return .integer(v)
    }
    init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .integer(let v): self.init(exactly: v)
        case .real(let d): self.init(exactly: d)
        default: return nil
        }
    }
}
extension Int: StorableValue {
    /// `sqlite3_column_int64` gives 0 for NULL, so only a 0 needs the type check.
    static func readIfPresent(_ stmt: SQLiteStatement, _ index: Int32) -> Int? {
        let v = stmt.int64(at: index)
        return v == 0 && stmt.isNull(at: index) ? nil : Int(v)
    }
}
extension Int8: StorableValue {}
extension Int16: StorableValue {}
extension Int32: StorableValue {}
extension Int64: StorableValue {}
extension UInt: StorableValue {}
extension UInt8: StorableValue {}
extension UInt16: StorableValue {}
extension UInt32: StorableValue {}
extension UInt64: StorableValue {}

extension Bool: StorableValue {
    static var zeroValue: Bool { false }
    static var columnType: String { "INTEGER" }
    static func read(_ stmt: SQLiteStatement, _ index: Int32) -> Bool { stmt.int64(at: index) != 0 }
    func sqlValue() throws -> SQLValue { .integer(self ? 1 : 0) }
    init?(sqlValue: SQLValue) {
        guard case .integer(let v) = sqlValue else { return nil }
        self = v != 0
    }
}

func nanError(_ type: Any.Type) -> SwiftDataError {
    SwiftDataError(
        SwiftDataError.invalidValue.code,
        "\(type) NaN cannot be stored: SQLite would turn it into NULL. Store nil or a number instead")
}

extension Double: StorableValue {
    /// `sqlite3_column_double` gives 0 for NULL, so only a 0 needs the type check.
    static func readIfPresent(_ stmt: SQLiteStatement, _ index: Int32) -> Double? {
        let v = stmt.double(at: index)
        return v == 0 && stmt.isNull(at: index) ? nil : v
    }
    static var zeroValue: Double { 0 }
    static var columnType: String { "REAL" }
    static func read(_ stmt: SQLiteStatement, _ index: Int32) -> Double { stmt.double(at: index) }
    func sqlValue() throws -> SQLValue {
        if isNaN { throw nanError(Double.self) }
        return .real(self)
    }
    init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .real(let d): self = d
        case .integer(let i): self = Double(i)
        default: return nil
        }
    }
}

extension Float: StorableValue {
    static var zeroValue: Float { 0 }
    static var columnType: String { "REAL" }
    static func read(_ stmt: SQLiteStatement, _ index: Int32) -> Float { Float(stmt.double(at: index)) }
    func sqlValue() throws -> SQLValue {
        if isNaN { throw nanError(Float.self) }
        return .real(Double(self))
    }
    init?(sqlValue: SQLValue) {
        guard let d = Double(sqlValue: sqlValue) else { return nil }
        self = Float(d)
    }
}

extension String: StorableValue {
    /// `sqlite3_column_text` gives a null pointer exactly for NULL.
    static func readIfPresent(_ stmt: SQLiteStatement, _ index: Int32) -> String? {
        stmt.textIfPresent(at: index)
    }
    static var zeroValue: String { "" }
    static var columnType: String { "TEXT" }
    static func read(_ stmt: SQLiteStatement, _ index: Int32) -> String { stmt.text(at: index) }
    func sqlValue() throws -> SQLValue { .text(nfcNormalized(self)) }
    init?(sqlValue: SQLValue) {
        guard case .text(let s) = sqlValue else { return nil }
        self = s
    }
}

/// Returns `s` in Unicode Normalization Form C, so SQLite's byte comparisons agree with Swift's
/// `==` and `<` (which compare canonical equivalents as equal). ASCII text is returned as is.
func nfcNormalized(_ s: String) -> String {
    if isASCII(s) || FaultInjection.isActive(.stringNotNormalized) { return s }
    return s.precomposedStringWithCanonicalMapping
}

/// Whether `s` is all ASCII: its UTF-8 bytes read in place, eight at a time (iterating the
/// `utf8` view costs a call per byte).
func isASCII(_ s: String) -> Bool {
    if let answer = s.utf8.withContiguousStorageIfAvailable({ bytes -> Bool in
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var i = 0
        while i + 8 <= bytes.count {
            if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < bytes.count {
            if bytes[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }) {
        return answer
    }
    return !s.utf8.contains { $0 >= 0x80 }
}

extension Date: StorableValue {
    static var zeroValue: Date { Date(timeIntervalSinceReferenceDate: 0) }
    static var columnType: String { "REAL" }
    static func read(_ stmt: SQLiteStatement, _ index: Int32) -> Date {
        Date(timeIntervalSinceReferenceDate: stmt.double(at: index))
    }
    func sqlValue() throws -> SQLValue {
        if timeIntervalSinceReferenceDate.isNaN { throw nanError(Date.self) }
        return .real(
            FaultInjection.isActive(.dateTruncated)
                ? timeIntervalSinceReferenceDate.rounded(.down) : timeIntervalSinceReferenceDate)
    }
    init?(sqlValue: SQLValue) {
        guard let d = Double(sqlValue: sqlValue) else { return nil }
        self = Date(timeIntervalSinceReferenceDate: d)
    }
}

extension UUID: StorableValue {
    static var zeroValue: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
    static var columnType: String { "BLOB" }
    static func read(_ stmt: SQLiteStatement, _ index: Int32) -> UUID {
        UUID(sqlValue: .blob(stmt.data(at: index))) ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    }
    func sqlValue() throws -> SQLValue {
        withUnsafeBytes(of: uuid) { .blob(Data($0)) }
    }
    init?(sqlValue: SQLValue) {
        guard case .blob(let d) = sqlValue, d.count == 16 else { return nil }
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: d) }
        self.init(uuid: raw)
    }
}

extension URL: StorableValue {
    static var zeroValue: URL { URL(string: "about:blank")! }
    static var columnType: String { "TEXT" }
    static func read(_ stmt: SQLiteStatement, _ index: Int32) -> URL {
        URL(string: stmt.text(at: index)) ?? URL(fileURLWithPath: "/")
    }
    func sqlValue() throws -> SQLValue { .text(absoluteString) }
    init?(sqlValue: SQLValue) {
        guard case .text(let s) = sqlValue, let url = URL(string: s) else { return nil }
        self = url
    }
}

extension Data: StorableValue {
    static var zeroValue: Data { Data() }
    static var columnType: String { "BLOB" }
    static func read(_ stmt: SQLiteStatement, _ index: Int32) -> Data { stmt.data(at: index) }
    func sqlValue() throws -> SQLValue { .blob(self) }
    init?(sqlValue: SQLValue) {
        guard case .blob(let d) = sqlValue else { return nil }
        self = d
    }
}

/// `Decimal` → a number in a `DECIMAL` column, as Core Data stores it: REAL (INTEGER when
/// integral, which the column's NUMERIC affinity would make it anyway), read back as the
/// shortest decimal that the stored double prints as (`99.5`, `-1150`, `0.1`).
///
/// Precision: the column holds the nearest 64-bit double, which keeps every decimal of up to 15
/// significant digits exactly; a longer one (`Decimal(UInt64.max)`, 20 digits) is stored
/// rounded to it (`18446744073709552000`), as Apple's store does. A save reports each rounded
/// property once (``ModelContainer/storageWarnings``), or refuses the value with
/// ``SwiftDataError/invalidValue`` when the configuration asks
/// (``ModelConfiguration/refusesInexactDecimals``). A captured `Decimal` in a predicate binds
/// the same double, so it matches the value a save stored. The scale is not kept (`1.00` reads
/// back as `1`; they are equal). Text written by earlier versions (or other writers) still
/// reads, and compares by value through the `osd_decimal` collation (``DecimalCollation``) that
/// translations keep naming. NaN is refused. Arithmetic on a stored `Decimal` in a predicate
/// throws `unsupportedPredicate`.
extension Decimal: StorableValue {
    static var zeroValue: Decimal { 0 }
    static var columnType: String { "DECIMAL" }
    static func read(_ stmt: SQLiteStatement, _ index: Int32) -> Decimal {
        Decimal(sqlValue: stmt.value(at: index)) ?? .nan
    }
    func sqlValue() throws -> SQLValue { try storedValue(checkingExactness: false).value }
    /// The value a `DECIMAL` column stores: the nearest double (an integer when integral), and,
    /// when `checkingExactness`, whether it reads back as exactly this `Decimal` (always so for
    /// up to 15 significant digits; `false` when not checked).
    /// - Throws: ``SwiftDataError/invalidValue`` for NaN.
    func storedValue(checkingExactness: Bool) throws -> (value: SQLValue, isExact: Bool) {
        if isNaN { throw nanError(Decimal.self) }
        let posix = Locale(identifier: "en_US_POSIX")
        // Every finite Decimal (at most about 3.4e165) is within a double's range.
        guard let double = Double(NSDecimalNumber(decimal: self).description(withLocale: posix)), double.isFinite
        else {
            throw SwiftDataError(SwiftDataError.invalidValue.code, "the Decimal \(self) has no double value to store")
        }
        let isExact = checkingExactness && Decimal(string: "\(double)", locale: posix) == self
        if let integer = Int64(exactly: double) { return (.integer(integer), isExact) }
        return (.real(double), isExact)
    }
    /// The value's decimal text (`18446744073709551615`, `-0.1`).
    var text: String { NSDecimalNumber(decimal: self).description(withLocale: Locale(identifier: "en_US_POSIX")) }
    init?(sqlValue: SQLValue) {
        let posix = Locale(identifier: "en_US_POSIX")
        switch sqlValue {
        case .integer(let i): self = Decimal(i)
        case .real(let d):
            guard d.isFinite, let value = Decimal(string: "\(d)", locale: posix) else { return nil }
            self = value
        case .text(let s):
            guard let value = Decimal(string: s, locale: posix) else { return nil }
            self = value
        default: return nil
        }
    }
}

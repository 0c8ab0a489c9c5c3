import CSQLite
import Foundation

/// Thrown inside ``CompositeEncoder`` and ``CompositeDecoder`` when a value or a column takes
/// the JSON codec (another coding shape, an unexpected element, a column the element's type is
/// not read from directly); ``CompositeColumns`` then encodes or decodes the whole value
/// through JSON, which gives the answer, an error included.
struct CompositeCodingFallback: Error {}

extension StoreModel.AttributeType {
    /// An integer element (its columns hold `INTEGER`).
    fileprivate var isInteger: Bool { self == .integer16 || self == .integer32 || self == .integer64 }
    /// A `Double`-valued element (its columns hold `REAL`).
    fileprivate var isReal: Bool { self == .double || self == .float || self == .date || self == .decimal }
}

extension CompositeColumns {
    /// The column of the element a coding key names.
    ///
    /// - Throws: ``CompositeCodingFallback`` for a key that names no element.
    @inline(__always)
    fileprivate func index(of key: some CodingKey) throws -> Int {
        let name = key.stringValue
        for i in names.indices where names[i] == name { return i }
        throw CompositeCodingFallback()
    }
}

// MARK: - Encoding

/// Encodes a composite value's elements straight into their column values: the value's keyed
/// container puts each element as its column holds it (``CompositeColumns``' table), the JSON
/// codec's result for the same value. An element of another type is encoded alone through the
/// JSON codec; any other shape (a nested or unkeyed container at the top, a key that names no
/// element, an element written twice) refuses the value (``Columns/refused``).
struct CompositeEncoder: Encoder {
    /// The most elements a composite may have for this encoder (one bit each in
    /// ``Columns/written``).
    static let maximumElements = 64

    /// The column values being written.
    final class Columns {
        /// One value per element, NULL until written.
        var values: [SQLValue]
        /// Bit `i`: element `i` was written.
        var written: UInt64 = 0
        /// Whether the value took a shape this encoder does not write.
        var refused = false

        init(count: Int) { values = Array(repeating: .null, count: count) }

        /// Writes element `i`'s value.
        ///
        /// - Throws: ``CompositeCodingFallback`` when it was already written.
        @inline(__always)
        func set(_ i: Int, _ value: SQLValue) throws {
            let bit: UInt64 = 1 << UInt64(i)
            guard written & bit == 0 else {
                refused = true
                throw CompositeCodingFallback()
            }
            written |= bit
            values[i] = value
        }
    }

    let owner: CompositeColumns
    let columns: Columns

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(ElementEncoder<Key>(owner: owner, columns: columns))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        columns.refused = true
        return RefusingEncodingContainer<CompositeKey>()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        columns.refused = true
        return RefusingEncodingContainer<CompositeKey>()
    }
}

/// A coding key for the refusing containers, which take none.
private struct CompositeKey: CodingKey {
    var stringValue: String { "" }
    var intValue: Int? { nil }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }
}

/// ``CompositeEncoder``'s keyed container: each element into its column.
private struct ElementEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let owner: CompositeColumns
    let columns: CompositeEncoder.Columns
    var codingPath: [any CodingKey] { [] }

    /// Element `i`'s column value for `value` through the JSON codec: the value's JSON, read
    /// as ``CompositeColumns/encodeThroughJSON(_:)`` reads the element of the whole value's.
    private func slow<T: Encodable>(_ value: T, _ i: Int) throws {
        let json = try jsonText(value)
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])
        try columns.set(i, try owner.column(owner.elements[i], object))
    }

    /// `value` as a REAL, or through JSON when it is not finite (which refuses it).
    @inline(__always)
    private func real(_ value: Double, _ i: Int) throws {
        if owner.kinds[i].isReal, value.isFinite { try columns.set(i, .real(value)) } else { try slow(value, i) }
    }

    mutating func encodeNil(forKey key: Key) throws { try columns.set(try owner.index(of: key), .null) }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        let i = try owner.index(of: key)
        if owner.kinds[i] == .boolean { try columns.set(i, .integer(value ? 1 : 0)) } else { try slow(value, i) }
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        let i = try owner.index(of: key)
        let kind = owner.kinds[i]
        if kind == .string || kind == .uri { try columns.set(i, .text(value)) } else { try slow(value, i) }
    }

    mutating func encode(_ value: Double, forKey key: Key) throws { try real(value, try owner.index(of: key)) }

    mutating func encode(_ value: Float, forKey key: Key) throws { try slow(value, try owner.index(of: key)) }

    mutating func encode(_ value: Int, forKey key: Key) throws {
        let i = try owner.index(of: key)
        if owner.kinds[i].isInteger { try columns.set(i, .integer(Int64(value))) } else { try slow(value, i) }
    }

    mutating func encode(_ value: Int8, forKey key: Key) throws {
        let i = try owner.index(of: key)
        if owner.kinds[i].isInteger { try columns.set(i, .integer(Int64(value))) } else { try slow(value, i) }
    }

    mutating func encode(_ value: Int16, forKey key: Key) throws {
        let i = try owner.index(of: key)
        if owner.kinds[i].isInteger { try columns.set(i, .integer(Int64(value))) } else { try slow(value, i) }
    }

    mutating func encode(_ value: Int32, forKey key: Key) throws {
        let i = try owner.index(of: key)
        if owner.kinds[i].isInteger { try columns.set(i, .integer(Int64(value))) } else { try slow(value, i) }
    }

    mutating func encode(_ value: Int64, forKey key: Key) throws {
        let i = try owner.index(of: key)
        if owner.kinds[i].isInteger { try columns.set(i, .integer(Int64(value))) } else { try slow(value, i) }
    }

    mutating func encode(_ value: UInt, forKey key: Key) throws {
        let i = try owner.index(of: key)
        if owner.kinds[i].isInteger, let v = Int64(exactly: value) {
            try columns.set(i, .integer(v))
        } else {
            try slow(value, i)
        }
    }

    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        let i = try owner.index(of: key)
        if owner.kinds[i].isInteger { try columns.set(i, .integer(Int64(value))) } else { try slow(value, i) }
    }

    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        let i = try owner.index(of: key)
        if owner.kinds[i].isInteger { try columns.set(i, .integer(Int64(value))) } else { try slow(value, i) }
    }

    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        let i = try owner.index(of: key)
        if owner.kinds[i].isInteger { try columns.set(i, .integer(Int64(value))) } else { try slow(value, i) }
    }

    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        let i = try owner.index(of: key)
        if owner.kinds[i].isInteger, let v = Int64(exactly: value) {
            try columns.set(i, .integer(v))
        } else {
            try slow(value, i)
        }
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let i = try owner.index(of: key)
        let kind = owner.kinds[i]
        if T.self == Date.self, kind == .date {
            try real(unsafeBitCast(value, to: Date.self).timeIntervalSinceReferenceDate, i)
        } else if T.self == UUID.self, kind == .uuid {
            try columns.set(i, try unsafeBitCast(value, to: UUID.self).sqlValue())
        } else if T.self == URL.self, kind == .uri || kind == .string {
            try columns.set(i, .text(unsafeBitCast(value, to: URL.self).absoluteString))
        } else {
            try slow(value, i)
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        columns.refused = true
        return KeyedEncodingContainer(RefusingEncodingContainer<NestedKey>())
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        columns.refused = true
        return RefusingEncodingContainer<CompositeKey>()
    }

    mutating func superEncoder() -> any Encoder {
        columns.refused = true
        return RefusingEncoder()
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        columns.refused = true
        return RefusingEncoder()
    }
}

/// The encoder a refused value's super-encoder is: every container refuses.
private struct RefusingEncoder: Encoder {
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(RefusingEncodingContainer<Key>())
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { RefusingEncodingContainer<CompositeKey>() }
    func singleValueContainer() -> any SingleValueEncodingContainer { RefusingEncodingContainer<CompositeKey>() }
}

/// The container ``CompositeEncoder`` hands out for any shape but the top level's keyed
/// container (a nested, unkeyed or single-value container, a super-encoder's): it refuses every
/// value, so the value is encoded through JSON instead (``CompositeColumns/encode(_:)``).
private struct RefusingEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol, UnkeyedEncodingContainer,
    SingleValueEncodingContainer
{
    var codingPath: [any CodingKey] { [] }
    var count: Int { 0 }

    mutating func encodeNil() throws { throw CompositeCodingFallback() }
    mutating func encode<T: Encodable>(_ value: T) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: Bool) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: String) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: Double) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: Float) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: Int) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: Int8) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: Int16) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: Int32) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: Int64) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: UInt) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: UInt8) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: UInt16) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: UInt32) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: UInt64) throws { throw CompositeCodingFallback() }
    mutating func encodeNil(forKey key: Key) throws { throw CompositeCodingFallback() }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: Bool, forKey key: Key) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: String, forKey key: Key) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: Double, forKey key: Key) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: Float, forKey key: Key) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: Int, forKey key: Key) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: Int8, forKey key: Key) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: Int16, forKey key: Key) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: Int32, forKey key: Key) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: Int64, forKey key: Key) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: UInt, forKey key: Key) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { throw CompositeCodingFallback() }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { throw CompositeCodingFallback() }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    { KeyedEncodingContainer(RefusingEncodingContainer<NestedKey>()) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    { KeyedEncodingContainer(RefusingEncodingContainer<NestedKey>()) }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { RefusingEncoder() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { RefusingEncoder() }
}

// MARK: - Decoding

/// Decodes a composite value from its element columns of a row: the value's keyed container
/// reads each element from its column as the JSON codec would have read it from the JSON
/// object ``CompositeColumns`` builds of the columns (a NULL column is an absent key). An
/// element of another type, or a column holding another storage class than its element's, is
/// decoded alone through the JSON codec; any other shape throws ``CompositeCodingFallback``.
struct CompositeDecoder: Decoder {
    let owner: CompositeColumns
    let stmt: SQLiteStatement
    /// The first element's column.
    let first: Int32

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ElementDecoder<Key>(owner: owner, stmt: stmt, first: first))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw CompositeCodingFallback() }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw CompositeCodingFallback() }
}

/// ``CompositeDecoder``'s keyed container: each element from its column.
private struct ElementDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let owner: CompositeColumns
    let stmt: SQLiteStatement
    let first: Int32

    var codingPath: [any CodingKey] { [] }

    var allKeys: [Key] {
        owner.names.indices.compactMap { i in
            stmt.storageClass(at: first + Int32(i)) == SQLITE_NULL ? nil : Key(stringValue: owner.names[i])
        }
    }

    func contains(_ key: Key) -> Bool {
        // try?: a key that names no element is absent, as from the JSON object.
        guard let i = try? owner.index(of: key) else { return false }
        return storageClass(i) != SQLITE_NULL
    }

    /// Element `i`'s column's storage class.
    @inline(__always)
    private func storageClass(_ i: Int) -> Int32 { stmt.storageClass(at: first + Int32(i)) }

    /// Element `i`'s INTEGER, `nil` for another storage class or a Bool element.
    @inline(__always)
    private func integer(_ i: Int) -> Int64? {
        let (type, value) = stmt.integerColumn(at: first + Int32(i))
        return type == SQLITE_INTEGER && owner.kinds[i] != .boolean ? value : nil
    }

    /// Element `i` decoded alone through the JSON codec, from the JSON value
    /// ``CompositeColumns/decode(_:)`` puts in the object for its column.
    ///
    /// - Throws: ``CompositeCodingFallback`` for a NULL column (an absent key); the JSON
    ///   codec's errors.
    private func slow<T: Decodable>(_ type: T.Type, _ i: Int) throws -> T {
        guard let value = try owner.jsonValue(owner.elements[i], stmt.value(at: first + Int32(i))) else {
            throw CompositeCodingFallback()
        }
        let json = try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys])
        return try JSONDecoder().decode(T.self, from: json)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard storageClass(try owner.index(of: key)) != SQLITE_NULL else { throw CompositeCodingFallback() }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        let i = try owner.index(of: key)
        let (storage, value) = stmt.integerColumn(at: first + Int32(i))
        if storage == SQLITE_INTEGER, owner.kinds[i] == .boolean { return value != 0 }
        return try slow(type, i)
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        let i = try owner.index(of: key)
        if storageClass(i) == SQLITE_TEXT { return stmt.text(at: first + Int32(i)) }
        return try slow(type, i)
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        let i = try owner.index(of: key)
        let (storage, value) = stmt.realColumn(at: first + Int32(i))
        if storage == SQLITE_FLOAT { return value }
        return try slow(type, i)
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try slow(type, try owner.index(of: key)) }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        let i = try owner.index(of: key)
        if let v = integer(i), let exact = Int(exactly: v) { return exact }
        return try slow(type, i)
    }

    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        let i = try owner.index(of: key)
        if let v = integer(i), let exact = Int8(exactly: v) { return exact }
        return try slow(type, i)
    }

    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        let i = try owner.index(of: key)
        if let v = integer(i), let exact = Int16(exactly: v) { return exact }
        return try slow(type, i)
    }

    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        let i = try owner.index(of: key)
        if let v = integer(i), let exact = Int32(exactly: v) { return exact }
        return try slow(type, i)
    }

    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        let i = try owner.index(of: key)
        if let v = integer(i), let exact = Int64(exactly: v) { return exact }
        return try slow(type, i)
    }

    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        let i = try owner.index(of: key)
        if let v = integer(i), let exact = UInt(exactly: v) { return exact }
        return try slow(type, i)
    }

    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        let i = try owner.index(of: key)
        if let v = integer(i), let exact = UInt8(exactly: v) { return exact }
        return try slow(type, i)
    }

    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        let i = try owner.index(of: key)
        if let v = integer(i), let exact = UInt16(exactly: v) { return exact }
        return try slow(type, i)
    }

    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        let i = try owner.index(of: key)
        if let v = integer(i), let exact = UInt32(exactly: v) { return exact }
        return try slow(type, i)
    }

    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        let i = try owner.index(of: key)
        if let v = integer(i), let exact = UInt64(exactly: v) { return exact }
        return try slow(type, i)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let i = try owner.index(of: key)
        if T.self == Date.self {
            let (storage, value) = stmt.realColumn(at: first + Int32(i))
            if storage == SQLITE_FLOAT {
                return unsafeBitCast(Date(timeIntervalSinceReferenceDate: value), to: T.self)
            }
        } else if T.self == UUID.self, owner.kinds[i] == .uuid, storageClass(i) == SQLITE_BLOB,
            let uuid = UUID(sqlValue: stmt.value(at: first + Int32(i)))
        {
            return unsafeBitCast(uuid, to: T.self)
        }
        return try slow(type, i)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    { throw CompositeCodingFallback() }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw CompositeCodingFallback()
    }

    func superDecoder() throws -> any Decoder { throw CompositeCodingFallback() }

    func superDecoder(forKey key: Key) throws -> any Decoder { throw CompositeCodingFallback() }
}

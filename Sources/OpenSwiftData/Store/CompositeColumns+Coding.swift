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
    /// `owner`'s coding state on `stmt`, made on first use and kept with the statement: every
    /// row the statement reads or writes reuses its cursor and its containers. Not inlined: the
    /// read of the statement's attachments would then be made for every row the statement
    /// reads, composites or not (the optimiser hoists it out of the column loop).
    @inline(never)
    func state(on stmt: SQLiteStatement) -> CompositeCodingState {
        for attachment in stmt.attachments where type(of: attachment) == CompositeCodingState.self {
            // Checked just above: the type is exactly the state's (a final class), without
            // the runtime's dynamic cast.
            let state = unsafeDowncast(attachment, to: CompositeCodingState.self)
            if state.cursor.owner === self { return state }
        }
        let state = CompositeCodingState(owner: self)
        stmt.attachments.append(state)
        return state
    }
}

/// One composite's coders' state kept from row to row (on the statement that reads or writes
/// the rows, ``CompositeColumns/state(on:)``): the cursor its containers read and write
/// through, and the last keyed container of each direction, handed out again while the value's
/// coding asks for the same key type (a container is a boxed object made per request).
final class CompositeCodingState {
    /// What the containers read and write through.
    let cursor: CompositeCursor
    /// The key type of ``decodingContainer``.
    @exclusivity(unchecked) var decodingKey: ObjectIdentifier?
    /// A ``Holder`` of the last `KeyedDecodingContainer` handed out.
    @exclusivity(unchecked) var decodingContainer: AnyObject?
    /// The key type of ``encodingContainer``.
    @exclusivity(unchecked) var encodingKey: ObjectIdentifier?
    /// A ``Holder`` of the last `KeyedEncodingContainer` handed out.
    @exclusivity(unchecked) var encodingContainer: AnyObject?

    /// A new state of `owner`'s coders.
    init(owner: CompositeColumns) {
        cursor = CompositeCursor(owner: owner)
    }

    /// A container kept as an object, read back as its type when its key type matches.
    final class Holder<Container> {
        let container: Container
        init(_ container: Container) { self.container = container }
    }

    /// The keyed decoding container of `Key`: the kept one, else `make()`'s, kept.
    @inline(__always)
    func decodingContainer<Key: CodingKey>(
        _ key: Key.Type, _ make: () -> KeyedDecodingContainer<Key>
    ) -> KeyedDecodingContainer<Key> {
        if decodingKey == ObjectIdentifier(Key.self), let held = decodingContainer {
            return unsafeDowncast(held, to: Holder<KeyedDecodingContainer<Key>>.self).container
        }
        let container = make()
        decodingContainer = Holder(container)
        decodingKey = ObjectIdentifier(Key.self)
        return container
    }

    /// The keyed encoding container of `Key`: the kept one, else `make()`'s, kept.
    @inline(__always)
    func encodingContainer<Key: CodingKey>(
        _ key: Key.Type, _ make: () -> KeyedEncodingContainer<Key>
    ) -> KeyedEncodingContainer<Key> {
        if encodingKey == ObjectIdentifier(Key.self), let held = encodingContainer {
            return unsafeDowncast(held, to: Holder<KeyedEncodingContainer<Key>>.self).container
        }
        let container = make()
        encodingContainer = Holder(container)
        encodingKey = ObjectIdentifier(Key.self)
        return container
    }
}

/// Where a composite's containers are: the row being read (while a value is decoded from it)
/// and its first element column, the column values being written, and the element the next
/// coding key most likely names. A value's coding names its elements in their order (the order
/// the elements were found in, ``CompositeProbe``), so a key is matched against one element
/// name, not searched for.
final class CompositeCursor {
    /// The composite.
    let owner: CompositeColumns
    /// The elements' names, in column order.
    let names: [String]
    /// The elements' types, in column order.
    let kinds: [StoreModel.AttributeType]
    /// The row a value is being decoded from, `nil` between values: set by
    /// ``beginReading(_:_:)`` for the span of one value's decoding, while its statement is held
    /// by the caller and stands on the row, so the containers read columns without retaining
    /// the statement.
    @exclusivity(unchecked) private var row: SQLiteRow?
    /// The first element's column in the row being read.
    @exclusivity(unchecked) var first: Int32 = 0
    /// The element after the one a key named last.
    @exclusivity(unchecked) var next = 0
    /// One value per element, NULL unless written (``written``).
    @exclusivity(unchecked) var values: [SQLValue]
    /// Bit `i`: element `i` was written.
    @exclusivity(unchecked) var written: UInt64 = 0
    /// Whether the value took a shape ``CompositeEncoder`` does not write.
    @exclusivity(unchecked) var refused = false

    init(owner: CompositeColumns) {
        self.owner = owner
        names = owner.names
        kinds = owner.kinds
        values = Array(repeating: .null, count: owner.names.count)
    }

    /// Starts reading a value from `row`, its elements from column `first`. The caller holds
    /// the row's statement, and calls ``endReading()`` before it steps, until then.
    @inline(__always)
    func beginReading(_ row: SQLiteRow, _ first: Int32) {
        self.row = row
        self.first = first
        next = 0
    }

    /// Ends reading the value: its containers read nothing more.
    @inline(__always)
    func endReading() { row = nil }

    /// The row being read; `nil` between values.
    var currentRow: SQLiteRow? { row }

    /// Starts writing a value: every element NULL and unwritten. The values of the last one
    /// were taken (``take(_:)``), so there is only something to clear after a value that was
    /// refused or not bound to the end.
    @inline(__always)
    func beginWriting() {
        if written != 0 {
            for i in values.indices where written & (1 << UInt64(i)) != 0 { values[i] = .null }
            written = 0
        }
        refused = false
        next = 0
    }

    /// Element `i`'s value, moved out of the buffer (NULL when the value did not write it),
    /// which leaves it NULL and unwritten: bound that way, a value is neither copied nor
    /// cleared again before the next one is written.
    @inline(__always)
    func take(_ i: Int) -> SQLValue {
        let bit: UInt64 = 1 << UInt64(i)
        guard written & bit != 0 else { return .null }
        written &= ~bit
        var value = SQLValue.null
        swap(&value, &values[i])
        return value
    }

    /// Element `i`'s column in the row being read.
    ///
    /// - Throws: ``CompositeCodingFallback`` when no value is being read (a container used
    ///   after its value's decoding returned).
    @inline(__always)
    func column(_ i: Int) throws -> (SQLiteRow, Int32) {
        guard let row else { throw CompositeCodingFallback() }
        return (row, first &+ Int32(truncatingIfNeeded: i))
    }

    /// The element a coding key names: the one after the last named, the last named again,
    /// else the one of that name.
    ///
    /// - Throws: ``CompositeCodingFallback`` for a key that names no element.
    @inline(__always)
    func index(of key: some CodingKey) throws -> Int {
        let name = key.stringValue
        let guess = next
        if guess < names.count, names[guess] == name {
            next = guess + 1
            return guess
        }
        if guess > 0, names[guess - 1] == name { return guess - 1 }
        return try search(name)
    }

    /// The element named `name`, searched for.
    private func search(_ name: String) throws -> Int {
        for i in names.indices where names[i] == name {
            next = i + 1
            return i
        }
        throw CompositeCodingFallback()
    }

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

// MARK: - Encoding

/// Encodes a composite value's elements straight into their column values: the value's keyed
/// container puts each element as its column holds it (``CompositeColumns``' table), the JSON
/// codec's result for the same value. An element of another type is encoded alone through the
/// JSON codec; any other shape (a nested or unkeyed container at the top, a key that names no
/// element, an element written twice) refuses the value (``CompositeCursor/refused``).
struct CompositeEncoder: Encoder {
    /// The most elements a composite may have for this encoder (one bit each in
    /// ``CompositeCursor/written``).
    static let maximumElements = 64

    /// The cursor written through and the container kept.
    let state: CompositeCodingState

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        state.encodingContainer(type) { KeyedEncodingContainer(ElementEncoder<Key>(cursor: state.cursor)) }
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        state.cursor.refused = true
        return RefusingEncodingContainer<CompositeKey>()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        state.cursor.refused = true
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
private final class ElementEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let cursor: CompositeCursor

    init(cursor: CompositeCursor) { self.cursor = cursor }
    var codingPath: [any CodingKey] { [] }

    /// Element `i`'s column value for `value` through the JSON codec: the value's JSON, read
    /// as ``CompositeColumns/encodeThroughJSON(_:)`` reads the element of the whole value's.
    private func slow<T: Encodable>(_ value: T, _ i: Int) throws {
        let json = try jsonText(value)
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])
        try cursor.set(i, try cursor.owner.column(cursor.owner.elements[i], object))
    }

    /// `value` as a REAL, or through JSON when it is not finite (which refuses it).
    @inline(__always)
    private func real(_ value: Double, _ i: Int) throws {
        if cursor.kinds[i].isReal, value.isFinite { try cursor.set(i, .real(value)) } else { try slow(value, i) }
    }

    /// `value` as an INTEGER, or through JSON when the element is not an integer or the value
    /// does not fit in 64 bits (which refuses it).
    @inline(__always)
    private func integer<T: BinaryInteger & Encodable>(_ value: T, _ key: Key) throws {
        let i = try cursor.index(of: key)
        if cursor.kinds[i].isInteger, let v = Int64(exactly: value) {
            try cursor.set(i, .integer(v))
        } else {
            try slow(value, i)
        }
    }

    func encodeNil(forKey key: Key) throws { try cursor.set(try cursor.index(of: key), .null) }

    func encode(_ value: Bool, forKey key: Key) throws {
        let i = try cursor.index(of: key)
        if cursor.kinds[i] == .boolean { try cursor.set(i, .integer(value ? 1 : 0)) } else { try slow(value, i) }
    }

    func encode(_ value: String, forKey key: Key) throws {
        let i = try cursor.index(of: key)
        let kind = cursor.kinds[i]
        if kind == .string || kind == .uri { try cursor.set(i, .text(value)) } else { try slow(value, i) }
    }

    func encode(_ value: Double, forKey key: Key) throws { try real(value, try cursor.index(of: key)) }

    func encode(_ value: Float, forKey key: Key) throws { try slow(value, try cursor.index(of: key)) }

    func encode(_ value: Int, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: Int8, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: Int16, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: Int32, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: Int64, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: UInt, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: UInt8, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: UInt16, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: UInt32, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: UInt64, forKey key: Key) throws { try integer(value, key) }

    func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let i = try cursor.index(of: key)
        let kind = cursor.kinds[i]
        if T.self == Date.self, kind == .date {
            try real(unsafeBitCast(value, to: Date.self).timeIntervalSinceReferenceDate, i)
        } else if T.self == UUID.self, kind == .uuid {
            try cursor.set(i, try unsafeBitCast(value, to: UUID.self).sqlValue())
        } else if T.self == URL.self, kind == .uri || kind == .string {
            try cursor.set(i, .text(unsafeBitCast(value, to: URL.self).absoluteString))
        } else {
            try slow(value, i)
        }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        cursor.refused = true
        return KeyedEncodingContainer(RefusingEncodingContainer<NestedKey>())
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        cursor.refused = true
        return RefusingEncodingContainer<CompositeKey>()
    }

    func superEncoder() -> any Encoder {
        cursor.refused = true
        return RefusingEncoder()
    }

    func superEncoder(forKey key: Key) -> any Encoder {
        cursor.refused = true
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
    /// The cursor read through and the container kept.
    let state: CompositeCodingState

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        state.decodingContainer(type) { KeyedDecodingContainer(ElementDecoder<Key>(cursor: state.cursor)) }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw CompositeCodingFallback() }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw CompositeCodingFallback() }
}

/// ``CompositeDecoder``'s keyed container: each element from its column.
private final class ElementDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let cursor: CompositeCursor

    init(cursor: CompositeCursor) { self.cursor = cursor }

    var codingPath: [any CodingKey] { [] }

    var allKeys: [Key] {
        guard let row = cursor.currentRow else { return [] }
        return cursor.names.indices.compactMap { i in
            row.storageClass(at: cursor.first + Int32(i)) == SQLITE_NULL ? nil : Key(stringValue: cursor.names[i])
        }
    }

    func contains(_ key: Key) -> Bool {
        // try?: a key that names no element is absent, as from the JSON object (and nothing
        // is present once the value's decoding returned).
        guard let i = try? cursor.index(of: key), let storage = try? storageClass(i) else { return false }
        return storage != SQLITE_NULL
    }

    /// Element `i`'s column's storage class.
    @inline(__always)
    private func storageClass(_ i: Int) throws -> Int32 {
        let (row, column) = try cursor.column(i)
        return row.storageClass(at: column)
    }

    /// Element `i`'s INTEGER, `nil` for another storage class or a Bool element.
    @inline(__always)
    private func integer(_ i: Int) throws -> Int64? {
        let (row, column) = try cursor.column(i)
        let (type, value) = row.integerColumn(at: column)
        return type == SQLITE_INTEGER && cursor.kinds[i] != .boolean ? value : nil
    }

    /// Element `i` decoded alone through the JSON codec, from the JSON value
    /// ``CompositeColumns/decode(_:)`` puts in the object for its column.
    ///
    /// - Throws: ``CompositeCodingFallback`` for a NULL column (an absent key); the JSON
    ///   codec's errors.
    private func slow<T: Decodable>(_ type: T.Type, _ i: Int) throws -> T {
        let (row, column) = try cursor.column(i)
        let stored = row.value(at: column)
        guard let value = try cursor.owner.jsonValue(cursor.owner.elements[i], stored) else {
            throw CompositeCodingFallback()
        }
        let json = try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys])
        return try JSONDecoder().decode(T.self, from: json)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard try storageClass(try cursor.index(of: key)) != SQLITE_NULL else { throw CompositeCodingFallback() }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        let i = try cursor.index(of: key)
        let (row, column) = try cursor.column(i)
        let (storage, value) = row.integerColumn(at: column)
        if storage == SQLITE_INTEGER, cursor.kinds[i] == .boolean { return value != 0 }
        return try slow(type, i)
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        let i = try cursor.index(of: key)
        let (row, column) = try cursor.column(i)
        if let text = row.textIfText(at: column) { return text }
        return try slow(type, i)
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        let i = try cursor.index(of: key)
        let (row, column) = try cursor.column(i)
        let (storage, value) = row.realColumn(at: column)
        if storage == SQLITE_FLOAT { return value }
        return try slow(type, i)
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try slow(type, try cursor.index(of: key)) }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        let i = try cursor.index(of: key)
        if let v = try integer(i), let exact = Int(exactly: v) { return exact }
        return try slow(type, i)
    }

    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        let i = try cursor.index(of: key)
        if let v = try integer(i), let exact = Int8(exactly: v) { return exact }
        return try slow(type, i)
    }

    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        let i = try cursor.index(of: key)
        if let v = try integer(i), let exact = Int16(exactly: v) { return exact }
        return try slow(type, i)
    }

    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        let i = try cursor.index(of: key)
        if let v = try integer(i), let exact = Int32(exactly: v) { return exact }
        return try slow(type, i)
    }

    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        let i = try cursor.index(of: key)
        if let v = try integer(i), let exact = Int64(exactly: v) { return exact }
        return try slow(type, i)
    }

    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        let i = try cursor.index(of: key)
        if let v = try integer(i), let exact = UInt(exactly: v) { return exact }
        return try slow(type, i)
    }

    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        let i = try cursor.index(of: key)
        if let v = try integer(i), let exact = UInt8(exactly: v) { return exact }
        return try slow(type, i)
    }

    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        let i = try cursor.index(of: key)
        if let v = try integer(i), let exact = UInt16(exactly: v) { return exact }
        return try slow(type, i)
    }

    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        let i = try cursor.index(of: key)
        if let v = try integer(i), let exact = UInt32(exactly: v) { return exact }
        return try slow(type, i)
    }

    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        let i = try cursor.index(of: key)
        if let v = try integer(i), let exact = UInt64(exactly: v) { return exact }
        return try slow(type, i)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let i = try cursor.index(of: key)
        if T.self == Date.self {
            let (row, column) = try cursor.column(i)
            let (storage, value) = row.realColumn(at: column)
            if storage == SQLITE_FLOAT {
                return unsafeBitCast(Date(timeIntervalSinceReferenceDate: value), to: T.self)
            }
        } else if T.self == UUID.self, cursor.kinds[i] == .uuid {
            let (row, column) = try cursor.column(i)
            if row.storageClass(at: column) == SQLITE_BLOB, let uuid = UUID(sqlValue: row.value(at: column)) {
                return unsafeBitCast(uuid, to: T.self)
            }
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

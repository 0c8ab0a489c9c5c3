import Foundation

/// A `Decoder` that answers every request with a seeded value, so any `Decodable` attribute type
/// (a struct of addresses, an array of tags, a raw-value enum) gets automatic values.
///
/// Each decoded field draws from the row's stream named by its coding path, so adding a field
/// to a struct never changes another's values. Arrays hold 0 to 3 elements; optional fields are
/// nil with the options' null ratio; `Date`, `UUID`, `URL`, `Decimal` and `Data` come from
/// ``ValueSynthesizer`` rather than from their own `Decodable` forms.
struct SyntheticDecoder: Decoder {
    let row: Row
    let path: String
    let nullRatio: Double
    /// Retries after a rejected value (a raw-value enum) use small integers: 0, 1, 2 …
    var attempt = 0
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// A value of `type` for `field`; raw-value enums that reject the first raw value are retried
    /// with other small values.
    static func make(_ type: any Decodable.Type, row: Row, field: String, nullRatio: Double) throws -> Any {
        var lastError: (any Error)?
        for attempt in 0..<8 {
            let decoder = SyntheticDecoder(row: row, path: field, nullRatio: nullRatio, attempt: attempt)
            do { return try type.init(from: decoder) } catch { lastError = error }
        }
        throw lastError ?? ValueSynthesizer.Unsupported(type: type)
    }

    func child(_ key: String) -> SyntheticDecoder {
        SyntheticDecoder(
            row: row, path: path + "." + key, nullRatio: nullRatio, attempt: attempt, codingPath: codingPath)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        Unkeyed(decoder: self, count: row.int(path + "#count", in: 0...3))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(decoder: self) }

    /// A value of `type` at this decoder's path.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if attempt > 0,
            let small = ValueSynthesizer.scalar(type, row: row.at(index: attempt - 1), field: path, unique: true) as? T,
            type != String.self
        {
            return small  // a raw-value enum rejected a random raw value: try 0, 1, 2 …
        }
        if let v = ValueSynthesizer.scalar(type, row: row, field: path, unique: false) as? T { return v }
        if let cases = type as? any CaseIterable.Type,
            let v = try ValueSynthesizer.value(of: cases, row: row, field: path, unique: false, nullRatio: 0) as? T
        {
            return v
        }
        return try T(from: self)
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: SyntheticDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }
        var allKeys: [Key] { [] }
        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool {
            decoder.row.bool(decoder.path + "." + key.stringValue + "#nil", probability: decoder.nullRatio)
        }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try decoder.child(key.stringValue).decodeValue(type)
        }
        func nestedContainer<N: CodingKey>(keyedBy type: N.Type, forKey key: Key) throws -> KeyedDecodingContainer<N> {
            try decoder.child(key.stringValue).container(keyedBy: type)
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try decoder.child(key.stringValue).unkeyedContainer()
        }
        func superDecoder() throws -> any Decoder { decoder.child("super") }
        func superDecoder(forKey key: Key) throws -> any Decoder { decoder.child(key.stringValue) }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let decoder: SyntheticDecoder
        let count: Int?
        var currentIndex = 0
        init(decoder: SyntheticDecoder, count: Int) {
            self.decoder = decoder
            self.count = count
        }
        var codingPath: [any CodingKey] { decoder.codingPath }
        var isAtEnd: Bool { currentIndex >= (count ?? 0) }
        mutating func next() -> SyntheticDecoder {
            defer { currentIndex += 1 }
            return decoder.child("\(currentIndex)")
        }
        mutating func decodeNil() throws -> Bool { false }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decodeValue(type) }
        mutating func nestedContainer<N: CodingKey>(keyedBy type: N.Type) throws -> KeyedDecodingContainer<N> {
            try next().container(keyedBy: type)
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
        mutating func superDecoder() throws -> any Decoder { next() }
    }

    struct Single: SingleValueDecodingContainer {
        let decoder: SyntheticDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }
        func decodeNil() -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type) }
    }
}

import Foundation

/// Finds the elements of a `Codable` struct — the columns SwiftData gives a composite attribute —
/// by decoding the type once with a recording `Decoder`.
///
/// The synthesized `init(from:)` asks its keyed container for each stored property in
/// declaration order (`decode(_:forKey:)`, or `decodeIfPresent` for optionals); the recorder
/// notes each key and the requested type and hands back a stand-in value (0, "", an empty
/// array, the first case of a `CaseIterable` enum …), so no instance and no default value are
/// needed. The keys are the coding keys, which is what SwiftData's composite elements are named
/// after (it encodes the value into a dictionary: the composite's value class is `NSDictionary`).
/// ```swift
/// struct Author: Codable { var id: UUID?; var person: String }
/// CompositeProbe.elements(of: Author.self)
/// // [id: uuid (1100), person: string (700)], both optional
/// ```
/// Returns `nil` — the caller then stores the value as one attribute — when the type is not
/// decoded through a keyed container (enums with associated values, single-value wrappers),
/// reads no key, or asks for a value the recorder cannot stand in for.
enum CompositeProbe {
    /// The elements of `type`, in declaration order; `nil` when it is not a keyed struct.
    static func elements(of type: any Decodable.Type) -> [StoreModel.Attribute]? {
        let recorder = Recorder()
        do {
            _ = try type.init(from: ProbeDecoder(recorder: recorder, records: true))
        } catch {
            return nil
        }
        guard recorder.sawKeyedContainer, !recorder.elements.isEmpty else { return nil }
        var seen = Set<String>()
        return recorder.elements.filter { seen.insert($0.name).inserted }
    }

    /// The type code of an element of Swift type `type` (its `Optional` already removed).
    ///
    /// Standard values map as the store-format README §3 says; a raw-value enum takes its raw
    /// type's code; anything else — arrays, sets, dictionaries, nested structs — is binary data
    /// (1000), as SwiftData stores arrays inside composites (`compiledTags` in the cocktails
    /// vector). Nested structs as binary data is a guess: no vector shows one.
    static func elementType(_ type: Any.Type) -> StoreModel.AttributeType {
        if let optional = type as? any _OptionalProtocol.Type { return elementType(optional._wrappedType) }
        if let code = StoreModel.AttributeType.native(type) { return code }
        if let raw = type as? any RawRepresentable.Type, let code = StoreModel.AttributeType.native(rawValueType(raw)) {
            return code
        }
        return .binaryData
    }

    final class Recorder {
        var elements: [StoreModel.Attribute] = []
        var sawKeyedContainer = false
    }

    struct Unsupported: Error {}
}

/// The `RawValue` type of a `RawRepresentable` type.
func rawValueType<R: RawRepresentable>(_ type: R.Type) -> Any.Type { R.RawValue.self }

/// A value of `type` that decoding can hand back without reading anything: zero, empty, the
/// reference date, the nil UUID, or the first case of a `CaseIterable` enum.
private func standIn(_ type: Any.Type) -> Any? {
    switch type {
    case is String.Type: return ""
    case is Bool.Type: return false
    case is Int.Type: return 0 as Int
    case is Int8.Type: return 0 as Int8
    case is Int16.Type: return 0 as Int16
    case is Int32.Type: return 0 as Int32
    case is Int64.Type: return 0 as Int64
    case is UInt.Type: return 0 as UInt
    case is UInt8.Type: return 0 as UInt8
    case is UInt16.Type: return 0 as UInt16
    case is UInt32.Type: return 0 as UInt32
    case is UInt64.Type: return 0 as UInt64
    case is Double.Type: return 0 as Double
    case is Float.Type: return 0 as Float
    case is Decimal.Type: return Decimal(0)
    case is Date.Type: return Date(timeIntervalSinceReferenceDate: 0)
    case is UUID.Type: return UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    case is URL.Type: return URL(string: "about:blank")
    case is Data.Type: return Data()
    default:
        if let all = type as? any CaseIterable.Type { return firstCase(all) }
        return nil
    }
}

private func firstCase<C: CaseIterable>(_ type: C.Type) -> Any? { C.allCases.first }

/// Decodes any type: records the top level's keys, stands in for every value below.
private struct ProbeDecoder: Decoder {
    let recorder: CompositeProbe.Recorder
    let records: Bool
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if records { recorder.sawKeyedContainer = true }
        return KeyedDecodingContainer(ProbeKeyed<Key>(recorder: recorder, records: records))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { ProbeUnkeyed() }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        if records { throw CompositeProbe.Unsupported() }  // a wrapper, not a struct of fields
        return ProbeSingle(recorder: recorder)
    }
}

/// Produces a stand-in of `T`, decoding it through a non-recording probe when it is not a
/// standard value.
private func probeValue<T: Decodable>(_ type: T.Type, _ recorder: CompositeProbe.Recorder) throws -> T {
    if let value = standIn(T.self) as? T { return value }
    return try T(from: ProbeDecoder(recorder: recorder, records: false))
}

private struct ProbeKeyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let recorder: CompositeProbe.Recorder
    let records: Bool
    var codingPath: [any CodingKey] = []
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try value(type, key) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try value(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try value(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try value(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try value(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try value(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try value(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try value(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try value(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try value(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try value(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try value(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try value(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try value(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try value(type, key) }

    private func value<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        if records {
            recorder.elements.append(
                StoreModel.Attribute(
                    name: key.stringValue, type: CompositeProbe.elementType(T.self),
                    isOptional: true))
        }
        return try probeValue(T.self, recorder)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        if records { throw CompositeProbe.Unsupported() }
        return KeyedDecodingContainer(ProbeKeyed<NestedKey>(recorder: recorder, records: false))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        if records { throw CompositeProbe.Unsupported() }
        return ProbeUnkeyed()
    }

    func superDecoder() throws -> any Decoder { throw CompositeProbe.Unsupported() }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw CompositeProbe.Unsupported() }
}

/// An empty sequence: arrays, sets and dictionaries decode as empty.
private struct ProbeUnkeyed: UnkeyedDecodingContainer {
    var codingPath: [any CodingKey] = []
    var count: Int? { 0 }
    var isAtEnd: Bool { true }
    var currentIndex: Int { 0 }

    mutating func decodeNil() throws -> Bool { throw CompositeProbe.Unsupported() }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { throw CompositeProbe.Unsupported() }
    mutating func decode(_ type: Bool.Type) throws -> Bool { throw CompositeProbe.Unsupported() }
    mutating func decode(_ type: String.Type) throws -> String { throw CompositeProbe.Unsupported() }
    mutating func decode(_ type: Double.Type) throws -> Double { throw CompositeProbe.Unsupported() }
    mutating func decode(_ type: Float.Type) throws -> Float { throw CompositeProbe.Unsupported() }
    mutating func decode(_ type: Int.Type) throws -> Int { throw CompositeProbe.Unsupported() }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { throw CompositeProbe.Unsupported() }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { throw CompositeProbe.Unsupported() }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { throw CompositeProbe.Unsupported() }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { throw CompositeProbe.Unsupported() }
    mutating func decode(_ type: UInt.Type) throws -> UInt { throw CompositeProbe.Unsupported() }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { throw CompositeProbe.Unsupported() }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { throw CompositeProbe.Unsupported() }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { throw CompositeProbe.Unsupported() }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { throw CompositeProbe.Unsupported() }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    { throw CompositeProbe.Unsupported() }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { throw CompositeProbe.Unsupported() }
    mutating func superDecoder() throws -> any Decoder { throw CompositeProbe.Unsupported() }
}

private struct ProbeSingle: SingleValueDecodingContainer {
    let recorder: CompositeProbe.Recorder
    var codingPath: [any CodingKey] = []

    func decodeNil() -> Bool { false }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try probeValue(T.self, recorder) }
    func decode(_ type: Bool.Type) throws -> Bool { try probeValue(type, recorder) }
    func decode(_ type: String.Type) throws -> String { try probeValue(type, recorder) }
    func decode(_ type: Double.Type) throws -> Double { try probeValue(type, recorder) }
    func decode(_ type: Float.Type) throws -> Float { try probeValue(type, recorder) }
    func decode(_ type: Int.Type) throws -> Int { try probeValue(type, recorder) }
    func decode(_ type: Int8.Type) throws -> Int8 { try probeValue(type, recorder) }
    func decode(_ type: Int16.Type) throws -> Int16 { try probeValue(type, recorder) }
    func decode(_ type: Int32.Type) throws -> Int32 { try probeValue(type, recorder) }
    func decode(_ type: Int64.Type) throws -> Int64 { try probeValue(type, recorder) }
    func decode(_ type: UInt.Type) throws -> UInt { try probeValue(type, recorder) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try probeValue(type, recorder) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try probeValue(type, recorder) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try probeValue(type, recorder) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try probeValue(type, recorder) }
}

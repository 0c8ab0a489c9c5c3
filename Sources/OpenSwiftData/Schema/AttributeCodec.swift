import Foundation

/// Lets code look inside an `Optional` whose `Wrapped` type is only known at run time.
protocol _OptionalProtocol {
    static var _wrappedType: Any.Type { get }
    static var _none: Any { get }
    var _wrappedAny: Any? { get }
}

extension Optional: _OptionalProtocol {
    static var _wrappedType: Any.Type { Wrapped.self }
    static var _none: Any { Optional<Wrapped>.none as Any }
    var _wrappedAny: Any? { self.map { $0 as Any } }
}

/// Unwraps any number of `Optional` layers of a boxed value; `nil` when one of them is `nil`.
func _flattenOptional(_ value: Any) -> Any? {
    if let opt = value as? any _OptionalProtocol {
        guard let inner = opt._wrappedAny else { return nil }
        return _flattenOptional(inner)
    }
    return value
}

/// How one attribute's Swift value maps to its SQLite column and back.
///
/// Built once per property from the declared type: native values read and bind directly;
/// raw-value enums store their raw value; other `Codable` values store JSON text (sorted keys);
/// `.transformable(by:)` values store the transformer's bytes. `Decimal` is a number in a
/// `DECIMAL` column, as Core Data stores it; a value the column cannot keep exactly (more than
/// a double's significant digits) is stored rounded, and reported or refused at save
/// (``storesDecimal``, StorableValue.swift).
final class AttributeCodec: @unchecked Sendable {
    enum Kind: Equatable { case native, rawValue, json, transformable }
    let kind: Kind
    /// `INTEGER`, `REAL`, `TEXT` or `BLOB`.
    let columnType: String
    /// The declared type, `Optional` included.
    let valueType: Any.Type
    /// The type with `Optional` removed.
    let storedType: Any.Type
    let isOptional: Bool
    /// Reads column `index` into a box holding exactly `valueType`.
    let read: (SQLiteStatement, Int32) throws -> Any
    /// Converts a box holding `valueType` (or its wrapped type) to the bound value.
    let encode: (Any?) throws -> SQLValue
    /// Converts a stored value to a box holding `valueType`; `nil` when it does not fit.
    let decode: (SQLValue) -> Any?
    /// A stand-in value of `valueType` for a row that no longer exists: `nil` for optionals,
    /// else the type's zero value; `nil` when the type has none.
    let placeholder: () -> Any?
    /// How the row-decoding loop reads a non-NULL value of the commonest attribute types
    /// itself, boxed exactly as ``read`` boxes it, instead of calling ``read`` through a
    /// closure and a protocol witness; `nil` for every other codec. A NULL still goes
    /// through ``read`` (which throws for a non-optional attribute).
    enum DirectRead { case int, double, string }
    /// See ``DirectRead``.
    let directRead: DirectRead?
    /// Whether the attribute is a `Decimal` (or `Decimal?`), whose saved values a save checks
    /// for rounding (``RowDestinations/storingInexactly(_:_:slot:)``).
    let storesDecimal: Bool

    init(
        kind: Kind, columnType: String, valueType: Any.Type, storedType: Any.Type, isOptional: Bool,
        read: @escaping (SQLiteStatement, Int32) throws -> Any, encode: @escaping (Any?) throws -> SQLValue,
        decode: @escaping (SQLValue) -> Any?, placeholder: @escaping () -> Any?, directRead: DirectRead? = nil
    ) {
        self.directRead = directRead
        storesDecimal = kind == .native && storedType == Decimal.self
        self.kind = kind
        self.columnType = columnType
        self.valueType = valueType
        self.storedType = storedType
        self.isOptional = isOptional
        self.read = read
        self.encode = encode
        self.decode = decode
        self.placeholder = placeholder
    }

    /// Whether predicates may compare this column with SQL operators (JSON and transformed
    /// columns are opaque).
    var isComparableInSQL: Bool { kind == .native || kind == .rawValue }

    /// Builds the codec for `type`, or `nil` when the type cannot be an attribute.
    static func make(for type: Any.Type, options: [Schema.Attribute.Option]) -> AttributeCodec? {
        var stored = type
        var optional = false
        if let opt = type as? any _OptionalProtocol.Type {
            stored = opt._wrappedType
            optional = true
        }
        for option in options {
            if case .transformable(let name) = option.kind {
                return transformable(type, stored, optional, name)
            }
        }
        if options.contains(.codable), let c = stored as? any Codable.Type {
            return json(c, valueType: type, optional: optional)
        }
        if let s = stored as? any StorableValue.Type {
            return native(s, valueType: type, optional: optional)
        }
        if let r = stored as? any RawRepresentable.Type, let raw = rawValue(r, valueType: type, optional: optional) {
            return raw
        }
        if stored is any PersistentModel.Type { return nil }
        if let seq = stored as? any _ArrayProtocol.Type, seq._elementType is any PersistentModel.Type { return nil }
        if let c = stored as? any Codable.Type {
            return json(c, valueType: type, optional: optional)
        }
        return nil
    }

    private static func native<T: StorableValue>(_ t: T.Type, valueType: Any.Type, optional: Bool) -> AttributeCodec {
        let readOne: (SQLiteStatement, Int32) throws -> Any
        // Through the boxed readers: `T.readIfPresent(s, i) as Any` here, generic over `T`,
        // would look up `Optional<T>`'s metadata on every row.
        if optional {
            readOne = { s, i in T.readBoxedOptional(s, i) }
        } else {
            readOne = { s, i in
                guard let v = T.readBoxed(s, i) else { throw nullInNonOptional(T.self) }
                return v
            }
        }
        return AttributeCodec(
            kind: .native, columnType: T.columnType, valueType: valueType, storedType: T.self,
            isOptional: optional, read: readOne,
            encode: { any in try T.encodeBoxed(any) },
            decode: { sql in
                if sql == .null { return optional ? (T?.none as Any) : nil }
                guard let v = T(sqlValue: sql) else { return nil }
                return optional ? (Optional(v) as Any) : v
            },
            placeholder: { optional ? (T?.none as Any) : (T.zeroValue as Any) },
            directRead: optional
                ? nil
                : T.self == Int.self ? .int : T.self == Double.self ? .double : T.self == String.self ? .string : nil)
    }

    private static func rawValue<E: RawRepresentable>(_ e: E.Type, valueType: Any.Type, optional: Bool)
        -> AttributeCodec?
    {
        guard let rawType = E.RawValue.self as? any StorableValue.Type else { return nil }
        func wrap(_ v: E?) -> Any { optional ? (v as Any) : (v! as Any) }
        return AttributeCodec(
            kind: .rawValue, columnType: rawType.columnType, valueType: valueType, storedType: E.self,
            isOptional: optional,
            read: { s, i in
                if s.isNull(at: i) {
                    if optional { return E?.none as Any }
                    throw nullInNonOptional(E.self)
                }
                let raw = rawType.read(s, i)
                guard let v = E(rawValue: raw as! E.RawValue) else {
                    throw SwiftDataError(
                        SwiftDataError.corruptStore.code,
                        "stored raw value does not match any case of \(E.self)")
                }
                return wrap(v)
            },
            encode: { any in
                guard let any, let v = _flattenOptional(any) as? E else { return .null }
                return try (v.rawValue as! any StorableValue).sqlValue()
            },
            decode: { sql in
                if sql == .null { return optional ? (E?.none as Any) : nil }
                guard let raw = rawType.init(sqlValue: sql), let v = E(rawValue: raw as! E.RawValue) else { return nil }
                return wrap(v)
            },
            placeholder: {
                if optional { return E?.none as Any }
                if let all = E.self as? any CaseIterable.Type, let first = all.allCases.first(where: { _ in true }) {
                    return first
                }
                return E(rawValue: rawType.zeroValue as! E.RawValue)
            })
    }

    private static func json<C: Codable>(_ c: C.Type, valueType: Any.Type, optional: Bool) -> AttributeCodec {
        func decodeText(_ text: String) throws -> C {
            do { return try JSONDecoder().decode(C.self, from: Data(text.utf8)) } catch {
                throw SwiftDataError(
                    SwiftDataError.corruptStore.code,
                    "stored JSON does not decode as \(C.self)", underlying: error)
            }
        }
        return AttributeCodec(
            kind: .json, columnType: "TEXT", valueType: valueType, storedType: C.self, isOptional: optional,
            read: { s, i in
                if s.isNull(at: i) {
                    if optional { return C?.none as Any }
                    throw nullInNonOptional(C.self)
                }
                let v = try decodeText(s.text(at: i))
                return optional ? (Optional(v) as Any) : v
            },
            encode: { any in
                guard let any, let v = _flattenOptional(any) as? C else { return .null }
                return .text(try jsonText(v))
            },
            decode: { sql in
                if sql == .null { return optional ? (C?.none as Any) : nil }
                // try?: nil is decode's "does not fit" answer: CompositeColumns throws corruptStore; history leaves such a tombstone value out.
                guard case .text(let t) = sql, let v = try? decodeText(t) else { return nil }
                return optional ? (Optional(v) as Any) : v
            },
            placeholder: {
                if optional { return C?.none as Any }
                for empty in ["{}", "[]", "\"\"", "0", "false"] {
                    // try?: searches for a zero value to use as the placeholder; none is nil.
                    if let v = try? JSONDecoder().decode(C.self, from: Data(empty.utf8)) { return v }
                }
                return nil
            })
    }

    private static func transformable(_ type: Any.Type, _ stored: Any.Type, _ optional: Bool, _ name: String)
        -> AttributeCodec?
    {
        let none: Any = (type as? any _OptionalProtocol.Type)?._none ?? ()
        return AttributeCodec(
            kind: .transformable, columnType: "BLOB", valueType: type, storedType: stored, isOptional: optional,
            read: { s, i in
                if s.isNull(at: i) { return none }
                guard let t = _transformer(named: name) else {
                    throw SwiftDataError(
                        SwiftDataError.unknownSchema.code,
                        "no value transformer named \(name) is registered")
                }
                return try t.decode(s.data(at: i))
            },
            encode: { any in
                guard let any, let v = _flattenOptional(any) else { return .null }
                guard let t = _transformer(named: name) else {
                    throw SwiftDataError(
                        SwiftDataError.unknownSchema.code,
                        "no value transformer named \(name) is registered")
                }
                return .blob(try t.encode(v))
            },
            decode: { sql in
                if sql == .null { return none }
                guard case .blob(let d) = sql, let t = _transformer(named: name) else { return nil }
                // try?: nil is decode's "does not fit" answer: CompositeColumns throws corruptStore; history leaves such a tombstone value out.
                return try? t.decode(d)
            },
            placeholder: { optional ? none : nil })
    }
}

/// JSON text with sorted keys, so equal values always store equal text.
func jsonText<C: Encodable>(_ value: C) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.nonConformingFloatEncodingStrategy = .throw
    do {
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    } catch {
        throw SwiftDataError(
            SwiftDataError.invalidValue.code,
            "\(C.self) value cannot be encoded as JSON (NaN or infinity inside?)", underlying: error)
    }
}

private func nullInNonOptional(_ type: Any.Type) -> SwiftDataError {
    SwiftDataError(
        SwiftDataError.corruptStore.code,
        "the store holds NULL for a non-optional \(type) attribute")
}

/// Lets code find an `Array`'s element type at run time.
protocol _ArrayProtocol {
    static var _elementType: Any.Type { get }
    var _elements: [Any] { get }
    static func _make(from elements: [Any]) -> Any
    static func _append(_ element: Any, into box: inout Any?)
}

extension Array: _ArrayProtocol {
    static var _elementType: Any.Type { Element.self }
    var _elements: [Any] { map { $0 as Any } }
    static func _make(from elements: [Any]) -> Any { elements.map { $0 as! Element } as Any }
    /// Appends to the array held by `box` without copying it (the box gives up its reference
    /// before the append, so the array's storage is uniquely referenced).
    static func _append(_ element: Any, into box: inout Any?) {
        guard var array = box as? [Element], let e = element as? Element else { return }
        box = nil
        array.append(e)
        box = array
    }
}

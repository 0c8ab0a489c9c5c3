import CSQLite
import Foundation

/// A composite attribute's columns: SwiftData stores a `Codable` struct as one column per
/// element (`swiftdata-cocktails`: `Cocktail.author` → `ZID BLOB`, `ZPERSON VARCHAR`), named and
/// typed as ``StoreLayout`` says. This type turns a value into those columns and back.
///
/// The value goes through its own `Codable` conformance, keyed by coding key (the element
/// names), so every struct the JSON codec accepts round-trips. ``CompositeEncoder`` and
/// ``CompositeDecoder`` write and read the element columns directly; an element of any other
/// type than the standard ones below, and a value whose coding takes another shape than one
/// keyed container of the elements, go through the JSON codec, with the same result (except
/// that a `Double` is stored exactly, where reading the JSON back could round its 17th digit):
///
/// | element type | column value |
/// |---|---|
/// | String, URL | TEXT |
/// | integers, Bool | INTEGER (Bool 0/1) |
/// | Double, Float, Decimal, Date | REAL (a Date as seconds since 2001, as `TIMESTAMP` columns hold) |
/// | UUID | 16-byte BLOB |
/// | anything else (arrays, nested structs, Data) | BLOB holding the element's JSON |
///
/// An absent element (a `nil` optional) is NULL; a `nil` composite is NULL in every column.
/// Arrays and nested values as JSON bytes is a guess: the reference stores show such columns'
/// types (`compiledTags BLOB`) but no row data.
final class CompositeColumns: @unchecked Sendable {
    /// The element names and types, in column order.
    let elements: [StoreModel.Attribute]
    /// The attribute's JSON codec (encodes the struct; decodes it from JSON text).
    let codec: AttributeCodec
    /// The elements' names, in column order (``CompositeEncoder`` and ``CompositeDecoder``
    /// find a coding key's column by its name).
    let names: [String]
    /// The elements' types, in column order.
    let kinds: [StoreModel.AttributeType]
    /// Whether ``CompositeEncoder`` and ``CompositeDecoder`` write and read the columns;
    /// `false` when they only go through JSON.
    private let direct: Bool
    /// Encodes the value an `Any` holds, read where it is (a model's slot, without copying the
    /// value out of it), when it is of the attribute's type (or a non-`nil` `Optional` of it)
    /// through `encoder`; `false`, encoding nothing, for anything else. Called only when
    /// ``direct``. Not optional: a call through an optional closure property retains and
    /// releases its context, one called where it is does not.
    private let encodeValue: (UnsafePointer<Any>, CompositeEncoder) throws -> Bool
    /// Decodes a box of the attribute's type (`Optional` included) from `decoder`. Called only
    /// when ``direct`` (not optional, as ``encodeValue``).
    private let decodeValue: (CompositeDecoder) throws -> Any

    init(codec: AttributeCodec, elements: [StoreModel.Attribute]) {
        self.codec = codec
        self.elements = elements
        names = elements.map(\.name)
        kinds = elements.map(\.type)
        if codec.kind == .json, elements.count <= CompositeEncoder.maximumElements,
            let type = codec.storedType as? any Codable.Type
        {
            direct = true
            (encodeValue, decodeValue) = Self.coders(type, optional: codec.isOptional)
        } else {
            direct = false
            encodeValue = { _, _ in false }
            decodeValue = { _ in throw CompositeCodingFallback() }
        }
    }

    /// The column coders of `T`, an attribute's stored type.
    private static func coders<T: Codable>(_ type: T.Type, optional: Bool) -> (
        (UnsafePointer<Any>, CompositeEncoder) throws -> Bool, (CompositeDecoder) throws -> Any
    ) {
        let encode: (UnsafePointer<Any>, CompositeEncoder) throws -> Bool = { slot, encoder in
            // A value of exactly `T` is encoded where it is, neither cast nor copied; anything
            // else (an `Optional` of it, another type) is cast.
            if try SlotValues.withExactValue(at: slot, as: T.self, { try $0.pointee.encode(to: encoder) }) {
                return true
            }
            return try encodeCast(slot, as: T.self, encoder)
        }
        if optional { return (encode, { Optional(try T(from: $0)) as Any }) }
        return (encode, { try T(from: $0) })
    }

    /// Encodes the value the `Any` at `slot` holds, cast to `T`, through `encoder`; `false`,
    /// encoding nothing, when the cast fails. Out of line: the cast names `T?`, whose metadata
    /// the runtime would otherwise be asked for on every value encoded, cast or not.
    @inline(never)
    private static func encodeCast<T: Encodable>(
        _ slot: UnsafePointer<Any>, as type: T.Type, _ encoder: CompositeEncoder
    ) throws -> Bool {
        guard let value = slot.pointee as? T else { return false }
        try value.encode(to: encoder)
        return true
    }

    /// One value per element column for `value` (a box of the attribute's type, or `nil`).
    ///
    /// - Throws: ``SwiftDataError/invalidValue`` when the value does not encode (NaN inside).
    func encode(_ value: Any?) throws -> [SQLValue] {
        if let value, direct {
            let state = CompositeCodingState(owner: self)
            if withUnsafePointer(to: value, { encodeDirectly($0, state) }) { return state.cursor.values }
        }
        return try encodeThroughJSON(value)
    }

    /// Puts ``encode(_:)``'s values into `sink`, one per element column, with the coders
    /// `stmt` keeps (``state(on:)``) when there is a statement.
    ///
    /// - Throws: ``SwiftDataError/invalidValue`` when the value does not encode (NaN inside);
    ///   `sink`'s errors.
    func encode<S: ColumnSink>(_ value: Any?, on stmt: SQLiteStatement?, into sink: inout S) throws {
        guard let value else {
            for v in try encodeThroughJSON(nil) { try sink.value(v) }
            return
        }
        try withUnsafePointer(to: value) { try encode(at: $0, on: stmt, into: &sink) }
    }

    /// ``encode(_:on:into:)`` of the value the `Any` at `slot` holds (a loaded slot of a
    /// model), read where it is.
    ///
    /// - Throws: as ``encode(_:on:into:)``.
    func encode<S: ColumnSink>(at slot: UnsafePointer<Any>, on stmt: SQLiteStatement?, into sink: inout S) throws {
        if direct {
            let state = stmt.map { self.state(on: $0) } ?? CompositeCodingState(owner: self)
            if encodeDirectly(slot, state) {
                let cursor = state.cursor
                for i in cursor.values.indices { try sink.value(cursor.take(i)) }
                return
            }
        }
        for v in try encodeThroughJSON(slot.pointee) { try sink.value(v) }
    }

    /// Encodes the value the `Any` at `slot` holds through ``CompositeEncoder`` into
    /// `state`'s cursor; `false` when it takes the JSON codec instead (not the attribute's
    /// type — a `nil` fails the coder's cast, and the JSON codec writes NULLs —, another
    /// coding shape, or an error, which the JSON codec then throws itself).
    private func encodeDirectly(_ slot: UnsafePointer<Any>, _ state: CompositeCodingState) -> Bool {
        guard direct else { return false }
        state.cursor.beginWriting()
        do {
            return try encodeValue(slot, CompositeEncoder(state: state)) && !state.cursor.refused
        } catch {
            // Not swallowed: the JSON codec encodes the value again and throws its own error
            // for a value that does not encode.
            return false
        }
    }

    /// ``encode(_:)`` through the JSON codec: the value's JSON object, one element per column.
    func encodeThroughJSON(_ value: Any?) throws -> [SQLValue] {
        guard case .text(let json) = try codec.encode(value) else {
            return Array(repeating: .null, count: elements.count)
        }
        // Not swallowed: a value that is not a JSON object is thrown just below (invalidValue).
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            throw SwiftDataError(
                SwiftDataError.invalidValue.code,
                "\(codec.storedType) does not encode as a keyed container; it cannot be stored as a composite")
        }
        return try elements.map { try column($0, object[$0.name]) }
    }

    /// Reads the element columns starting at `first` into a box of the attribute's type.
    ///
    /// - Throws: ``SwiftDataError/corruptStore`` when the columns do not decode as the type.
    func read(_ stmt: SQLiteStatement, _ first: Int32) throws -> Any {
        if direct {
            if codec.isOptional, allNull(stmt, first), let none = codec.decode(.null) { return none }
            let state = state(on: stmt)
            state.cursor.beginReading(stmt.currentRow, first)
            defer { state.cursor.endReading() }
            do {
                return try decodeValue(CompositeDecoder(state: state))
            } catch {
                // Not swallowed: the JSON codec below reads the columns again and throws
                // corruptStore for columns that do not decode.
            }
        }
        var values: [SQLValue] = []
        values.reserveCapacity(elements.count)
        for i in elements.indices { values.append(stmt.value(at: first + Int32(i))) }
        return try decode(values)
    }

    /// Whether every element column of the row, from `first`, is NULL.
    private func allNull(_ stmt: SQLiteStatement, _ first: Int32) -> Bool {
        for i in 0..<Int32(elements.count) where stmt.storageClass(at: first + i) != SQLITE_NULL { return false }
        return true
    }

    /// The attribute's value from its element columns' values, through the JSON codec.
    func decode(_ values: [SQLValue]) throws -> Any {
        if values.allSatisfy({ $0 == .null }), codec.isOptional {
            if let none = codec.decode(.null) { return none }
        }
        var object: [String: Any] = [:]
        for (element, value) in zip(elements, values) {
            if let v = try jsonValue(element, value) { object[element.name] = v }
        }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        guard let value = codec.decode(.text(String(decoding: data, as: UTF8.self))) else {
            throw SwiftDataError(
                SwiftDataError.corruptStore.code,
                "the stored columns of a composite do not decode as \(codec.storedType)")
        }
        return value
    }

    /// The column value of `element` for `value`, the element's value in the attribute's JSON
    /// object (`nil` or `NSNull` when absent).
    func column(_ element: StoreModel.Attribute, _ value: Any?) throws -> SQLValue {
        guard let value, !(value is NSNull) else { return .null }
        switch element.type {
        case .string, .uri:
            if let s = value as? String { return .text(s) }
        case .boolean:
            if let b = value as? Bool { return .integer(b ? 1 : 0) }
            if let n = value as? NSNumber { return .integer(n.int64Value != 0 ? 1 : 0) }
        case .integer16, .integer32, .integer64:
            if let n = value as? NSNumber { return .integer(n.int64Value) }
        case .double, .float, .date, .decimal:
            if let n = value as? NSNumber { return .real(n.doubleValue) }
        case .uuid:
            if let s = value as? String, let uuid = UUID(uuidString: s) { return try uuid.sqlValue() }
        default:
            break
        }
        return .blob(try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys]))
    }

    /// The JSON value of `element` for its column's value `value` (`nil` for NULL).
    ///
    /// - Throws: ``SwiftDataError/corruptStore`` for a BLOB that is not JSON.
    func jsonValue(_ element: StoreModel.Attribute, _ value: SQLValue) throws -> Any? {
        switch value {
        case .null:
            return nil
        case .integer(let i):
            return element.type == .boolean ? (i != 0) : NSNumber(value: i)
        case .real(let d):
            return NSNumber(value: d)
        case .text(let s):
            return s
        case .blob(let data):
            if element.type == .uuid, let uuid = UUID(sqlValue: value) { return uuid.uuidString }
            do {
                return try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            } catch {
                throw SwiftDataError(
                    SwiftDataError.corruptStore.code,
                    "the composite element \(element.name) of \(codec.storedType) does not hold JSON",
                    underlying: error)
            }
        }
    }
}

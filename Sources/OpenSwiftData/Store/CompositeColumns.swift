import Foundation

/// A composite attribute's columns: SwiftData stores a `Codable` struct as one column per
/// element (`swiftdata-cocktails`: `Cocktail.author` → `ZID BLOB`, `ZPERSON VARCHAR`), named and
/// typed as ``StoreLayout`` says. This type turns a value into those columns and back.
///
/// The value goes through its own `Codable` conformance, keyed by coding key (the element
/// names), so every struct the JSON codec accepts round-trips:
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

    init(codec: AttributeCodec, elements: [StoreModel.Attribute]) {
        self.codec = codec
        self.elements = elements
    }

    /// One value per element column for `value` (a box of the attribute's type, or `nil`).
    ///
    /// - Throws: ``SwiftDataError/invalidValue`` when the value does not encode (NaN inside).
    func encode(_ value: Any?) throws -> [SQLValue] {
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
        var values: [SQLValue] = []
        values.reserveCapacity(elements.count)
        for i in elements.indices { values.append(stmt.value(at: first + Int32(i))) }
        return try decode(values)
    }

    /// The attribute's value from its element columns' values.
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

    private func column(_ element: StoreModel.Attribute, _ value: Any?) throws -> SQLValue {
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

    private func jsonValue(_ element: StoreModel.Attribute, _ value: SQLValue) throws -> Any? {
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

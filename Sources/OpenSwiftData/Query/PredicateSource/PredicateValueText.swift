import Foundation

/// Captured values as `PredicateSource` prints them: close to Swift literals, exact, and
/// bounded in length.
///
/// Strings are quoted with `"`, `\`, control, format and line-separator characters escaped
/// (`"a\"b\n\u{202E}"`); one longer than `maximumStringLength` characters prints its start and
/// `…` and its length (`"Lorem ipsum"… (5000 characters)`). `nil` is `nil`; enum cases are
/// `.case` (`.shipped(days: 3)` with a payload); `Double` and `Decimal` print their exact
/// shortest form (`100.0`, `0.1`, `.nan`); dates are ISO-8601 in UTC (`2026-01-01T00:00:00Z`,
/// fractions of a second when there are some; `.distantPast`, `.distantFuture`); `UUID("…")`,
/// `URL("…")`; `Data(12 bytes)`; models and identifiers are `<Entity p3>`; collections print
/// their first `maximumElements` elements (sets sorted by their text); other structs print
/// `Type(field: value, …)`, down to `maximumNesting` levels.
package enum PredicateValueText {
    /// The longest string printed whole, in characters.
    static let maximumStringLength = 100
    /// The most elements of a collection printed.
    static let maximumElements = 20
    /// How deep values inside values are printed before `…`.
    static let maximumNesting = 4

    /// `value` as source text.
    static func text(_ value: Any, nesting: Int = 0) -> String {
        if let optional = value as? any _OptionalProtocol {
            guard let wrapped = optional._wrappedAny else { return "nil" }
            return text(wrapped, nesting: nesting)
        }
        if let known = scalarText(value) { return known }
        if let known = foundationText(value) { return known }
        guard nesting < maximumNesting else { return "…" }
        if let source = value as? any PredicateSourceClosureValue { return source.sourceText }
        if let range = value as? any PredicateSourceRangeValue {
            let (lower, op, upper) = range.sourceBounds
            return text(lower, nesting: nesting + 1) + op + text(upper, nesting: nesting + 1)
        }
        return reflectedText(value, nesting: nesting)
    }

    /// How tightly the printed value binds: a negative number is a prefix expression, a range
    /// a range formation, anything else a primary expression.
    static func precedence(of value: Any, text: String) -> PredicateSourcePrecedence {
        if text.hasPrefix("-") { return .prefix }
        if (_flattenOptional(value) ?? ()) is any PredicateSourceRangeValue { return .rangeFormation }
        return .postfix
    }

    /// Strings, characters, numbers and Booleans.
    private static func scalarText(_ value: Any) -> String? {
        switch value {
        case let s as String: return quoted(s)
        case let s as Substring: return quoted(String(s))
        case let c as Character: return quoted(String(c))
        case let b as Bool: return b ? "true" : "false"
        case let d as Double: return floatText(d)
        case let f as Float: return floatText(f)
        case let i as any BinaryInteger: return "\(i)"
        case let d as Decimal: return d.isNaN ? ".nan" : "\(d)"
        default: return nil
        }
    }

    /// Dates, identifiers, URLs, data, models, regular expressions.
    private static func foundationText(_ value: Any) -> String? {
        switch value {
        case let date as Date: return dateText(date)
        case let uuid as UUID: return "UUID(\"\(uuid.uuidString)\")"
        case let url as URL: return "URL(\(quoted(url.absoluteString)))"
        case let data as Data: return "Data(\(data.count) bytes)"
        case let id as PersistentIdentifier: return identifierText(id)
        case let model as any PersistentModel: return identifierText(model.persistentModelID)
        case let regex as PredicateExpressions.PredicateRegex: return "/\(regex.stringRepresentation)/"
        default: return nil
        }
    }

    /// `<Entity p3>`, or `<Entity unsaved>` before the model's first save.
    private static func identifierText(_ id: PersistentIdentifier) -> String {
        "<\(id.entityName) \(id.primaryKey.map { "p\($0)" } ?? "unsaved")>"
    }

    /// The shortest text that reads back as `value`; `.nan`, `.infinity`, `-.infinity`.
    private static func floatText<F: BinaryFloatingPoint & LosslessStringConvertible>(_ value: F) -> String {
        if value.isNaN { return ".nan" }
        if value.isInfinite { return value < 0 ? "-.infinity" : ".infinity" }
        return value.description
    }

    /// ISO-8601 in UTC, with the fraction of a second (to the microsecond) when there is one.
    static func dateText(_ date: Date) -> String {
        if date == .distantPast { return ".distantPast" }
        if date == .distantFuture { return ".distantFuture" }
        let seconds = date.timeIntervalSinceReferenceDate
        let whole = seconds.rounded(.down)
        let micros = Int(((seconds - whole) * 1_000_000).rounded())
        var text = Date(timeIntervalSinceReferenceDate: whole).ISO8601Format()
        guard micros > 0, micros < 1_000_000, text.hasSuffix("Z") else { return text }
        var fraction = String(micros)
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        text.removeLast()
        return text + "." + fraction + "Z"
    }

    /// `s` as a Swift string literal, cut after `limit` characters (`nil`: never cut). The
    /// store-file diff prints whole values with it, predicate sources bounded ones.
    package static func quoted(_ s: String, limit: Int? = maximumStringLength) -> String {
        var out = "\""
        var kept = Substring(s)
        var count = 0
        if let limit {
            count = s.count
            if count > limit { kept = s.prefix(limit) }
        }
        for scalar in kept.unicodeScalars { out += escaped(scalar) }
        out += "\""
        return kept.endIndex < s.endIndex ? out + "… (\(count) characters)" : out
    }

    /// One scalar of a string literal: quotes, backslashes and invisible characters escaped.
    private static func escaped(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\"": return "\\\""
        case "\\": return "\\\\"
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        case "\0": return "\\0"
        // Joiners and tag characters build emoji sequences: kept, or flags and families break.
        case "\u{200D}", "\u{E0020}"..."\u{E007F}": return String(scalar)
        default: break
        }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
            return "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
        default:
            return String(scalar)
        }
    }

    /// Enums, collections, tuples, structs and classes, through `Mirror`.
    private static func reflectedText(_ value: Any, nesting: Int) -> String {
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .enum?:
            return enumText(value, mirror, nesting: nesting)
        case .collection?, .set?, .dictionary?:
            return collectionText(mirror, sorted: mirror.displayStyle == .set, nesting: nesting)
        case .tuple?:
            return "(" + fieldsText(mirror, nesting: nesting) + ")"
        case .struct?, .class?:
            let type = PredicateSource.typeName(type(of: value))
            return mirror.children.isEmpty ? "\(type)()" : "\(type)(\(fieldsText(mirror, nesting: nesting)))"
        default:
            return String(String(describing: value).prefix(maximumStringLength))
        }
    }

    /// `.case` or `.case(payload)`. A case without payload is named by the enum's description,
    /// unless the enum describes itself: then by its raw value, `Type(rawValue: …)`.
    private static func enumText(_ value: Any, _ mirror: Mirror, nesting: Int) -> String {
        if let payload = mirror.children.first, let label = payload.label {
            let inner = Mirror(reflecting: payload.value)
            let arguments =
                inner.displayStyle == .tuple
                ? fieldsText(inner, nesting: nesting) : text(payload.value, nesting: nesting + 1)
            return ".\(label)(\(arguments))"
        }
        if !(value is CustomStringConvertible) { return ".\(value)" }
        if let raw = value as? any RawRepresentable {
            return "\(PredicateSource.typeName(type(of: value)))(rawValue: \(text(raw.rawValue, nesting: nesting + 1)))"
        }
        return "\(PredicateSource.typeName(type(of: value)))(\(quoted(String(describing: value))))"
    }

    /// `[a, b]` or `[k: v]`, at most `maximumElements` elements, then `… (n elements)`.
    private static func collectionText(_ mirror: Mirror, sorted: Bool, nesting: Int) -> String {
        var items: [String] = []
        var total = 0
        for child in mirror.children {
            total += 1
            if sorted || items.count < maximumElements { items.append(elementText(child.value, nesting: nesting)) }
        }
        if sorted { items = Array(items.sorted().prefix(maximumElements)) }
        if mirror.displayStyle == .dictionary && items.isEmpty { return "[:]" }
        let more = total > items.count ? ", … (\(total) elements)" : ""
        return "[" + items.joined(separator: ", ") + more + "]"
    }

    /// An element of a collection; a dictionary's `(key, value)` pairs print as `key: value`.
    private static func elementText(_ element: Any, nesting: Int) -> String {
        let mirror = Mirror(reflecting: element)
        if mirror.displayStyle == .tuple, mirror.children.count == 2,
            mirror.children.first?.label == "key", mirror.children.dropFirst().first?.label == "value"
        {
            let parts = mirror.children.map { text($0.value, nesting: nesting + 1) }
            return parts[0] + ": " + parts[1]
        }
        return text(element, nesting: nesting + 1)
    }

    /// `label: value, …` (positional tuple elements without a label).
    private static func fieldsText(_ mirror: Mirror, nesting: Int) -> String {
        mirror.children.map { child in
            let value = text(child.value, nesting: nesting + 1)
            guard let label = child.label, !label.hasPrefix(".") else { return value }
            return "\(label): \(value)"
        }.joined(separator: ", ")
    }
}

/// A captured range value (`1...5`, `start..<end`), seen without its bound type.
protocol PredicateSourceRangeValue {
    /// The lower bound, the operator and the upper bound.
    var sourceBounds: (Any, String, Any) { get }
}

extension Range: PredicateSourceRangeValue {
    var sourceBounds: (Any, String, Any) { (lowerBound, "..<", upperBound) }
}

extension ClosedRange: PredicateSourceRangeValue {
    var sourceBounds: (Any, String, Any) { (lowerBound, "...", upperBound) }
}

/// A captured `Predicate` or `Expression` (for `evaluate`): printed as its own source.
protocol PredicateSourceClosureValue {
    /// `#Predicate<T> { … }` or `#Expression<T, U> { … }`.
    var sourceText: String { get }
}

extension Predicate: PredicateSourceClosureValue {
    var sourceText: String { PredicateSource.text(self) }
}

extension Expression: PredicateSourceClosureValue {
    var sourceText: String {
        var keys: [PredicateExpressions.VariableID] = []
        var types: [String] = []
        func note<T>(_ variable: PredicateExpressions.Variable<T>) {
            keys.append(variable.key)
            types.append(PredicateSource.typeName(T.self))
        }
        for variable in repeat each self.variable { note(variable) }
        types.append(PredicateSource.typeName(Output.self))
        let body = PredicateSource.text(of: expression, inputs: keys)
        return "#Expression<\(types.joined(separator: ", "))> { \(body) }"
    }
}

/// A type whose members `#Predicate` reads by key path and whose names Swift does not print
/// (computed properties print as addresses): the member `keyPath` names, if it is one of them.
protocol PredicateSourceMembers {
    static func sourceMemberName(_ keyPath: AnyKeyPath) -> String?
}

extension Dictionary: PredicateSourceMembers {
    static func sourceMemberName(_ keyPath: AnyKeyPath) -> String? {
        switch keyPath {
        case \Self.count: "count"
        case \Self.isEmpty: "isEmpty"
        case \Self.keys: "keys"
        case \Self.values: "values"
        default: nil
        }
    }
}

extension String: PredicateSourceMembers {
    static func sourceMemberName(_ keyPath: AnyKeyPath) -> String? {
        switch keyPath {
        case \Self.first: "first"
        case \Self.last: "last"
        default: nil
        }
    }
}

extension UUID: PredicateSourceMembers {
    static func sourceMemberName(_ keyPath: AnyKeyPath) -> String? {
        keyPath == \Self.uuidString ? "uuidString" : nil
    }
}

extension Date: PredicateSourceMembers {
    static func sourceMemberName(_ keyPath: AnyKeyPath) -> String? {
        switch keyPath {
        case \Self.timeIntervalSince1970: "timeIntervalSince1970"
        case \Self.timeIntervalSinceReferenceDate: "timeIntervalSinceReferenceDate"
        default: nil
        }
    }
}

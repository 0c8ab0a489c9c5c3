import Foundation

/// `$0.name.contains("li")` — case- and diacritic-sensitive substring test with Swift's
/// semantics: `instr` finds the NFC bytes (so `%`, `_`, `\\` are literal, never `LIKE`), then
/// `osd_contains` (``SwiftStringFunctions``) confirms the match on `Character` boundaries, so a
/// match inside a grapheme cluster NFC does not compose (`"Zͫ"`, a flag pair, a ZWJ emoji,
/// `"\r\n"`) is a miss, as in Swift:
/// ```sql
/// CASE WHEN instr(t."name", ?) > 0 THEN osd_contains(t."name", ?) ELSE 0 END
/// ```
/// An empty needle matches, as in Swift; NULL text gives 0.
extension PredicateExpressions.CollectionContainsCollection: SQLPredicateExpression
where Base.Output == String, Other.Output == String {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let b = try translate(base, t)
        let o = try translate(other, t)
        if FaultInjection.isActive(.containsIgnoresCase) {
            return SQLFragment(
                sql: "(instr(lower(\(b.sql)), lower(\(o.sql))) > 0)", arguments: b.arguments + o.arguments,
                isCondition: true)
        }
        return SQLFragment(
            sql: "CASE WHEN instr(\(b.sql), \(o.sql)) > 0 THEN osd_contains(\(b.sql), \(o.sql)) ELSE 0 END",
            arguments: b.arguments + o.arguments + b.arguments + o.arguments, isCondition: true)
    }
    func collect(_ leaves: inout PredicateLeaves) {
        collectNode(base, &leaves)
        collectNode(other, &leaves)
    }
}

/// `$0.name.starts(with: "Al")` — case-sensitive prefix test on the NFC text: the first
/// occurrence is at position 1, confirmed on `Character` boundaries by `osd_starts_with`
/// (`"Zͫoo".starts(with: "Z")` is false in Swift); an empty prefix matches, as in Swift:
/// ```sql
/// CASE WHEN instr(t."name", ?) = 1 THEN osd_starts_with(t."name", ?) ELSE 0 END
/// ```
/// (`substr(a, 1, length(p)) = p` would stop counting at an embedded NUL and returns NULL for
/// empty text, so it is not used.)
///
/// When the text is a stored `String` column and the prefix a captured, non-empty value, a
/// range on the column comes first, so SQLite can search an index on it (`SEARCH t USING INDEX
/// … (name>? AND name<?)`):
/// ```sql
/// ((t."name" >= ? AND t."name" < ?) AND CASE WHEN instr(t."name", ?) = 1 THEN osd_starts_with(…) ELSE 0 END)
/// ```
/// The bounds are the prefix and the prefix with its last scalar replaced by the next one
/// (``prefixUpperBound(_:)``). Text is stored NFC and compared byte-wise (BINARY), UTF-8 keeps
/// scalar order and no scalar's bytes are a prefix of another's, so every text whose bytes
/// start with the prefix's lies in the range: the range only narrows what the exact test
/// already requires (`instr(…) = 1` is the same byte-prefix test), so the result is unchanged,
/// case-sensitive as Swift's. A NULL column makes the `CASE` 0, so the term is never NULL.
extension PredicateExpressions.SequenceStartsWith: SQLPredicateExpression
where Base.Output == String, Prefix.Output == String {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let b = try translate(base, t)
        let p = try translate(prefix, t)
        if FaultInjection.isActive(.startsWithAnywhere) {
            return SQLFragment(
                sql: "(instr(\(b.sql), \(p.sql)) > 0)", arguments: b.arguments + p.arguments, isCondition: true)
        }
        let exact = SQLFragment(
            sql: "CASE WHEN instr(\(b.sql), \(p.sql)) = 1 THEN osd_starts_with(\(b.sql), \(p.sql)) ELSE 0 END",
            arguments: b.arguments + p.arguments + b.arguments + p.arguments, isCondition: true)
        guard b.isColumn, b.arguments.isEmpty, b.codec.map({ $0.storedType == String.self }) == true,
            p.sql == "?", p.arguments.count == 1, case .text(let prefix) = p.arguments[0], !prefix.isEmpty,
            let upper = prefixUpperBound(prefix)
        else { return exact }
        return SQLFragment(
            sql: "((\(b.sql) >= ? AND \(b.sql) < ?) AND \(exact.sql))",
            arguments: [.text(prefix), .text(upper)] + exact.arguments, isCondition: true)
    }
    func collect(_ leaves: inout PredicateLeaves) {
        collectNode(base, &leaves)
        collectNode(prefix, &leaves)
    }
}

/// A regex `contains(/…/)` throws ``SwiftDataError/unsupportedPredicate``.
extension PredicateExpressions.StringContainsRegex: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        throw t.unsupported("a regular expression (contains(/…/))")
    }
    func collect(_ leaves: inout PredicateLeaves) { leaves.isCacheable = false }
}

/// The smallest text greater than every text that starts with `prefix` (byte-wise, as SQLite's
/// BINARY collation compares UTF-8): the prefix with its last scalar replaced by the next
/// scalar, dropping trailing U+10FFFF; `nil` when nothing is left.
///
/// ```swift
/// prefixUpperBound("Al")   // "Am"
/// ```
func prefixUpperBound(_ prefix: String) -> String? {
    var scalars = Array(prefix.unicodeScalars)
    while let last = scalars.popLast() {
        var next = last.value + 1
        if (0xD800...0xDFFF).contains(next) { next = 0xE000 }
        if let scalar = Unicode.Scalar(next) {
            scalars.append(scalar)
            var result = String.UnicodeScalarView()
            result.append(contentsOf: scalars)
            return String(result)
        }
    }
    return nil
}

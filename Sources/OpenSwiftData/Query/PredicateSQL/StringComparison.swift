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
        let b = try translate(base, t), o = try translate(other, t)
        return SQLFragment(sql: "CASE WHEN instr(\(b.sql), \(o.sql)) > 0 THEN osd_contains(\(b.sql), \(o.sql)) ELSE 0 END",
                           arguments: b.arguments + o.arguments + b.arguments + o.arguments, isCondition: true)
    }
    func collect(_ leaves: inout PredicateLeaves) { collectLeaves(base, &leaves); collectLeaves(other, &leaves) }
}

/// `$0.name.starts(with: "Al")` — case-sensitive prefix test on the NFC text: the first
/// occurrence is at position 1, confirmed on `Character` boundaries by `osd_starts_with`
/// (`"Zͫoo".starts(with: "Z")` is false in Swift); an empty prefix matches, as in Swift:
/// ```sql
/// CASE WHEN instr(t."name", ?) = 1 THEN osd_starts_with(t."name", ?) ELSE 0 END
/// ```
/// (`substr(a, 1, length(p)) = p` would stop counting at an embedded NUL and returns NULL for
/// empty text, so it is not used.)
extension PredicateExpressions.SequenceStartsWith: SQLPredicateExpression
where Base.Output == String, Prefix.Output == String {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let b = try translate(base, t), p = try translate(prefix, t)
        return SQLFragment(sql: "CASE WHEN instr(\(b.sql), \(p.sql)) = 1 THEN osd_starts_with(\(b.sql), \(p.sql)) ELSE 0 END",
                           arguments: b.arguments + p.arguments + b.arguments + p.arguments, isCondition: true)
    }
    func collect(_ leaves: inout PredicateLeaves) { collectLeaves(base, &leaves); collectLeaves(prefix, &leaves) }
}

/// A regex `contains(/…/)` throws ``SwiftDataError/unsupportedPredicate``.
extension PredicateExpressions.StringContainsRegex: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        throw t.unsupported("a regular expression (contains(/…/))")
    }
    func collect(_ leaves: inout PredicateLeaves) { leaves.isCacheable = false }
}

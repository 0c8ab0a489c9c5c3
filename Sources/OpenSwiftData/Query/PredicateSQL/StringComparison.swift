import Foundation

/// `$0.name.contains("li")` — case- and diacritic-sensitive substring test, compared on the
/// NFC-normalised UTF-8 text byte by byte, so `%`, `_`, `\\` are literal (never `LIKE`):
/// ```sql
/// coalesce(instr(t."name", ?) > 0, 0)
/// ```
/// An empty needle matches, as in Swift. Limitation: Swift compares `Character`s, so a match
/// that starts or ends inside a grapheme cluster that NFC does not compose (a flag pair, a
/// ZWJ emoji, a letter with a combining mark that has no precomposed form) is a Swift miss but
/// an SQL hit.
extension PredicateExpressions.CollectionContainsCollection: SQLPredicateExpression
where Base.Output == String, Other.Output == String {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let b = try translate(base, t), o = try translate(other, t)
        return SQLFragment(sql: "coalesce(instr(\(b.sql), \(o.sql)) > 0, 0)",
                           arguments: b.arguments + o.arguments, isCondition: true)
    }
    func collect(_ leaves: inout PredicateLeaves) { collectLeaves(base, &leaves); collectLeaves(other, &leaves) }
}

/// `$0.name.starts(with: "Al")` — case-sensitive prefix test on the NFC text: the first
/// occurrence is at position 1 (an empty prefix matches, as in Swift):
/// ```sql
/// coalesce(instr(t."name", ?) = 1, 0)
/// ```
/// (`substr(a, 1, length(p)) = p` would stop counting at an embedded NUL and returns NULL for
/// empty text, so it is not used.)
extension PredicateExpressions.SequenceStartsWith: SQLPredicateExpression
where Base.Output == String, Prefix.Output == String {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let b = try translate(base, t), p = try translate(prefix, t)
        return SQLFragment(sql: "coalesce(instr(\(b.sql), \(p.sql)) = 1, 0)",
                           arguments: b.arguments + p.arguments, isCondition: true)
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

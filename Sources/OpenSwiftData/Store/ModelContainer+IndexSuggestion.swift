import Foundation

extension ModelContainer {
    /// Candidate indexes for `descriptor`, derived from the SQL its fetch runs: the columns its
    /// predicate tests for equality (`=`, `IS`, `IN`) first, then one range column (`<`, `>=`, a
    /// `starts(with:)` range), or — without a range — the sort's columns; as entity name → index
    /// groups of property names, ready for ``IndexStrategy/custom(_:)``.
    ///
    /// ```swift
    /// let d = FetchDescriptor<Order>(predicate: #Predicate { $0.status == "open" && $0.total > 400 })
    /// try container.suggestedIndexes(for: d)   // ["Order": [["status", "total"]]]
    /// ```
    /// Only terms SQLite can search an index with count: conditions joined by `AND` on the
    /// fetched entity's own columns. Anything under `OR`/`NOT`, through a relationship, or
    /// computed (`contains`, arithmetic, `Decimal` collations) is left to the scan of the rows the
    /// index narrows to. An empty result means no index would help this query.
    /// - Throws: what a fetch of `descriptor` would throw for its predicate or sort.
    public func suggestedIndexes<T: PersistentModel>(for descriptor: FetchDescriptor<T>) throws -> [String: [[String]]]
    {
        let q = try ModelContext(self).query(descriptor)
        let alias = "t."
        var equality: [String] = []
        var range: [String] = []
        for term in IndexSuggestion.conjuncts(q.compiled.whereSQL) {
            guard let (column, rest) = IndexSuggestion.leadingColumn(term, alias: alias) else { continue }
            if rest == " IS ?" || rest == " = ?" || rest.hasPrefix(" IN (") {
                if !equality.contains(column) { equality.append(column) }
            } else if [" < ?", " <= ?", " > ?", " >= ?"].contains(rest) {
                if !range.contains(column) { range.append(column) }
            }
        }
        var sort: [String] = []
        for term in IndexSuggestion.splitTopLevel(q.compiled.orderBy, separator: ", ") {
            guard let (column, rest) = IndexSuggestion.leadingColumn(term, alias: alias),
                rest == " ASC" || rest == " DESC"
            else { break }
            if column == "Z_PK" { break }
            sort.append(column)
        }
        var columns = equality
        if let r = range.first(where: { !equality.contains($0) }) {
            columns.append(r)
        } else {
            columns += sort.filter { !columns.contains($0) }
        }
        let properties = columns.compactMap { column in
            q.table.slotColumns[ObjectIdentifier(q.layout.type)]?.first { $0.value == column }.map {
                q.layout.slots[$0.key].name
            }
        }
        guard !properties.isEmpty, properties.count == columns.count else { return [:] }
        return [q.layout.name: [properties]]
    }
}

/// The small SQL reading ``ModelContainer/suggestedIndexes(for:)`` needs: the translator's own
/// output only (parenthesised terms, quoted identifiers, no string literals).
enum IndexSuggestion {
    /// The terms of `sql` joined by a top-level `AND`, each with its outer parentheses removed,
    /// recursively (`((a) AND (b IS NOT NULL AND c))` → `a`, `b IS NOT NULL`, `c`).
    static func conjuncts(_ sql: String) -> [String] {
        let term = stripParentheses(sql)
        let parts = splitTopLevel(term, separator: " AND ")
        if parts.count == 1 { return [term] }
        return parts.flatMap(conjuncts)
    }

    /// `sql` without parentheses that enclose all of it.
    static func stripParentheses(_ sql: String) -> String {
        var s = sql.trimmingCharacters(in: .whitespaces)
        while s.hasPrefix("("), s.hasSuffix(")"), closingIndex(of: s) == s.index(before: s.endIndex) {
            s = String(s.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
        }
        return s
    }

    /// The index of the parenthesis closing the one `s` starts with.
    private static func closingIndex(of s: String) -> String.Index? {
        var depth = 0
        var quoted = false
        for i in s.indices {
            let c = s[i]
            if c == "\"" { quoted.toggle() }
            if quoted { continue }
            if c == "(" { depth += 1 }
            if c == ")" {
                depth -= 1
                if depth == 0 { return i }
            }
        }
        return nil
    }

    /// `sql` split at `separator` where it is outside parentheses, quotes and `CASE … END`.
    static func splitTopLevel(_ sql: String, separator: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var depth = 0
        var quoted = false
        var i = sql.startIndex
        while i < sql.endIndex {
            let c = sql[i]
            if c == "\"" { quoted.toggle() }
            if !quoted {
                if c == "(" { depth += 1 }
                if c == ")" { depth -= 1 }
                if sql[i...].hasPrefix("CASE ") && (i == sql.startIndex || !sql[sql.index(before: i)].isLetter) {
                    depth += 1
                }
                if sql[i...].hasPrefix(" END") { depth -= 1 }
                if depth == 0, sql[i...].hasPrefix(separator) {
                    parts.append(current)
                    current = ""
                    i = sql.index(i, offsetBy: separator.count)
                    continue
                }
            }
            current.append(c)
            i = sql.index(after: i)
        }
        parts.append(current)
        return parts.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The column a term starts with (`t."code" > ?` → `code`, ` > ?`), or `nil`.
    static func leadingColumn(_ term: String, alias: String) -> (String, String)? {
        guard term.hasPrefix(alias + "\"") else { return nil }
        var name = ""
        var rest = term.dropFirst(alias.count + 1)
        while let c = rest.first {
            rest = rest.dropFirst()
            if c == "\"" {
                if rest.first == "\"" {
                    name.append("\"")
                    rest = rest.dropFirst()
                    continue
                }
                return (name, String(rest))
            }
            name.append(c)
        }
        return nil
    }
}

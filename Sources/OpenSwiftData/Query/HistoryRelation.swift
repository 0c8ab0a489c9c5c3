import Foundation

/// A comparison of a transaction field with a captured value, as SQL over `ATRANSACTION t`
/// (``HistoryCondition``): each field's SQL returns exactly what Swift's operator returns on the
/// value `fetchHistory` would read from the row.
enum HistoryRelation {
    case less, lessOrEqual, greater, greaterOrEqual, equal, notEqual

    /// The SQL operator.
    var sql: String {
        switch self {
        case .less: "<"
        case .lessOrEqual: "<="
        case .greater: ">"
        case .greaterOrEqual: ">="
        case .equal: "="
        case .notEqual: "<>"
        }
    }

    /// The same relation with its operands swapped (`v < x` is `x > v`).
    var swapped: HistoryRelation {
        switch self {
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        case .equal, .notEqual: self
        }
    }

    /// Swift's answer for two comparable values.
    func holds<C: Comparable>(_ a: C, _ b: C) -> Bool {
        switch self {
        case .less: a < b
        case .lessOrEqual: a <= b
        case .greater: a > b
        case .greaterOrEqual: a >= b
        case .equal: a == b
        case .notEqual: a != b
        }
    }

    /// `lhs relation rhs` where one side is a field and the other a captured value;
    /// ``HistoryCondition/untranslated`` for any other operands.
    static func condition(_ lhs: Any, _ relation: HistoryRelation, _ rhs: Any, _ t: HistoryTranslation)
        -> HistoryCondition
    {
        let left = (lhs as? any HistoryOperandNode)?.historyOperand(t)
        let right = (rhs as? any HistoryOperandNode)?.historyOperand(t)
        switch (left, right) {
        case (.field(let field)?, .value(let value)?):
            return relation.condition(field, value, storeIdentifier: t.storeIdentifier)
        case (.value(let value)?, .field(let field)?):
            return relation.swapped.condition(field, value, storeIdentifier: t.storeIdentifier)
        default:
            return .untranslated
        }
    }

    /// `field relation value` on the rows of store `storeIdentifier`.
    func condition(_ field: HistoryField, _ value: Any, storeIdentifier: String) -> HistoryCondition {
        switch field {
        case .transactionIdentifier:
            guard let key = value as? Int64 else { return .untranslated }
            return .exact(SQLPiece(sql: "t.Z_PK \(sql) ?", arguments: [.integer(key)]))
        case .token:
            guard let token = value as? DefaultHistoryToken else { return .untranslated }
            // Tokens order by store, then transaction: another store's token is before or
            // after every transaction of this one, as the two stores' identifiers order.
            if token.storeIdentifier != storeIdentifier {
                return .exact(.constant(holds(storeIdentifier, token.storeIdentifier)), tokens: [token])
            }
            return .exact(
                SQLPiece(sql: "t.Z_PK \(sql) ?", arguments: [.integer(token.transactionIdentifier)]), tokens: [token])
        case .storeIdentifier:
            guard let other = value as? String else { return .untranslated }
            return .exact(.constant(holds(storeIdentifier, other)))
        case .timestamp:
            return timestampCondition(value)
        case .author:
            return authorCondition(value)
        }
    }

    /// `ZTIMESTAMP` compared as `fetchHistory` reads it: a number as its seconds since 2001,
    /// anything else (NULL, text, a blob) as 0. A NaN date is left to Swift (SQLite binds NULL).
    private func timestampCondition(_ value: Any) -> HistoryCondition {
        guard let date = value as? Date, !date.timeIntervalSinceReferenceDate.isNaN else { return .untranslated }
        let seconds = date.timeIntervalSinceReferenceDate
        let numeric = SQLPiece(
            sql: "(t.ZTIMESTAMP \(sql) ? AND typeof(t.ZTIMESTAMP) IN ('real', 'integer'))",
            arguments: [.real(seconds)])
        guard holds(0.0, seconds) else { return .exact(numeric) }
        return .exact(numeric.or(SQLPiece(sql: "typeof(t.ZTIMESTAMP) NOT IN ('real', 'integer')", arguments: [])))
    }

    /// The author as `fetchHistory` reads it (the joined string's name, else `ZAUTHOR`; `nil`
    /// unless that is text), compared with `==` / `!=` as Swift compares strings
    /// (`osd_equal`: canonical equivalence).
    private func authorCondition(_ value: Any) -> HistoryCondition {
        guard self == .equal || self == .notEqual else { return .untranslated }
        let author = "coalesce(a.ZNAME, t.ZAUTHOR)"
        let equal: SQLPiece
        if let name = value as? String {
            equal = SQLPiece(
                sql: "(typeof(\(author)) = 'text' AND osd_equal(\(author), ?))", arguments: [.text(name)])
        } else if value is String? {
            equal = SQLPiece(sql: "typeof(\(author)) <> 'text'", arguments: [])
        } else {
            return .untranslated
        }
        return .exact(self == .equal ? equal : equal.negated)
    }
}

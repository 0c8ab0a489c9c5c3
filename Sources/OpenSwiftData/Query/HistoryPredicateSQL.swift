import Foundation

/// A `HistoryDescriptor` predicate as SQL over one store's `ATRANSACTION` rows (alias `t`, with
/// the author's `ATRANSACTIONSTRING` row joined as `a`), so that `fetchHistory` reads only the
/// transactions the predicate can select.
///
/// Translated: comparisons (`<`, `<=`, `>`, `>=`, `==`, `!=`) of `token`, `transactionIdentifier`,
/// `token.transactionIdentifier`, `timestamp`, `storeIdentifier` (`==`, `!=` for `author`) with a
/// captured value or `nil`, joined by `&&`, `||` and `!`:
/// ```sql
/// $0.token > lastToken                  →  t.Z_PK > ?            (same store; other stores: 1 or 0)
/// $0.timestamp >= date                  →  (t.ZTIMESTAMP >= ? AND typeof(t.ZTIMESTAMP) IN ('real', 'integer'))
/// $0.author == "widget"                 →  (typeof(coalesce(a.ZNAME, t.ZAUTHOR)) = 'text' AND osd_equal(coalesce(a.ZNAME, t.ZAUTHOR), ?))
/// ```
/// Every other part is left to Swift: the SQL is then a bound ``upper`` that keeps every row
/// the predicate could accept, and every row on which `Predicate.evaluate` could throw, and
/// `fetchHistory` evaluates the whole predicate on the rows it keeps (``isExact`` is false).
/// A bound ``lower`` (rows the predicate surely accepts without throwing) makes `!` and the
/// short-circuit of `&&` and `||` exact: `A && B` drops a row only where `A` is false, or `A`
/// is surely true and `B` false, as Swift evaluates `B` only after `A`.
///
/// Every fragment is 0 or 1, never NULL, so `NOT` is the Boolean negation.
struct HistoryCondition {
    /// Rows outside it are rows the predicate rejects without throwing.
    var upper: SQLPiece
    /// Rows inside it are rows the predicate accepts without throwing.
    var lower: SQLPiece
    /// Whether ``upper`` (and ``lower``) is the predicate itself: no Swift evaluation needed.
    var isExact: Bool
    /// The history tokens the translated comparisons capture: when the condition is exact,
    /// every token the predicate holds (`fetchHistory` checks that none has expired).
    var tokens: [DefaultHistoryToken] = []

    /// A part with no SQL: any row may pass.
    static let untranslated = HistoryCondition(upper: .constant(true), lower: .constant(false), isExact: false)

    /// An exact condition.
    static func exact(_ piece: SQLPiece, tokens: [DefaultHistoryToken] = []) -> HistoryCondition {
        HistoryCondition(upper: piece, lower: piece, isExact: true, tokens: tokens)
    }

    /// `!self`: the bounds swap and negate.
    var negated: HistoryCondition {
        HistoryCondition(upper: lower.negated, lower: upper.negated, isExact: isExact, tokens: tokens)
    }

    /// `self && other`, with Swift's left-to-right short-circuit.
    func and(_ other: HistoryCondition) -> HistoryCondition {
        let upper = isExact ? self.upper.and(other.upper) : self.upper.and(lower.negated.or(other.upper))
        return HistoryCondition(
            upper: upper, lower: lower.and(other.lower), isExact: isExact && other.isExact,
            tokens: tokens + other.tokens)
    }

    /// `self || other`, with Swift's left-to-right short-circuit.
    func or(_ other: HistoryCondition) -> HistoryCondition {
        let lower = isExact ? self.lower.or(other.lower) : self.lower.or(upper.negated.and(other.lower))
        return HistoryCondition(
            upper: upper.or(other.upper), lower: lower, isExact: isExact && other.isExact,
            tokens: tokens + other.tokens)
    }
}

/// A 0-or-1 SQL expression and its arguments, with constants folded.
struct SQLPiece: Equatable {
    var sql: String
    var arguments: [SQLValue]

    /// `1` or `0`.
    static func constant(_ value: Bool) -> SQLPiece { SQLPiece(sql: value ? "1" : "0", arguments: []) }

    /// Whether the piece is the constant `value`.
    func isConstant(_ value: Bool) -> Bool { arguments.isEmpty && sql == (value ? "1" : "0") }

    var negated: SQLPiece {
        if isConstant(true) { return .constant(false) }
        if isConstant(false) { return .constant(true) }
        return SQLPiece(sql: "NOT (\(sql))", arguments: arguments)
    }

    func and(_ other: SQLPiece) -> SQLPiece {
        if isConstant(false) || other.isConstant(false) { return .constant(false) }
        if isConstant(true) { return other }
        if other.isConstant(true) { return self }
        return SQLPiece(sql: "(\(sql) AND \(other.sql))", arguments: arguments + other.arguments)
    }

    func or(_ other: SQLPiece) -> SQLPiece {
        if isConstant(true) || other.isConstant(true) { return .constant(true) }
        if isConstant(false) { return other }
        if other.isConstant(false) { return self }
        return SQLPiece(sql: "(\(sql) OR \(other.sql))", arguments: arguments + other.arguments)
    }
}

/// What a history predicate is translated against: its row variable and the store whose rows
/// the SQL reads (tokens and store identifiers of other stores fold to constants).
struct HistoryTranslation {
    let variable: PredicateExpressions.VariableID
    let storeIdentifier: String
    /// How many `&&`, `||` and `!` enclose the part being translated.
    var nesting = 0

    /// Deeper parts are left to Swift: SQLite's parser has a fixed stack (see
    /// `SQLTranslation.maximumNesting`), and each level here may add two parentheses.
    static let maximumNesting = 12

    /// The condition of a predicate's whole expression.
    static func condition<T>(of predicate: Predicate<T>, storeIdentifier: String) -> HistoryCondition {
        let t = HistoryTranslation(variable: predicate.variable.key, storeIdentifier: storeIdentifier)
        return t.condition(of: predicate.expression)
    }

    /// The condition of one Boolean expression, ``HistoryCondition/untranslated`` when it has no SQL.
    func condition(of expression: Any) -> HistoryCondition {
        guard let node = expression as? any HistorySQLNode else { return .untranslated }
        return node.historyCondition(self)
    }

    /// The translation one logic level deeper, or `nil` past ``maximumNesting``.
    func entering() -> HistoryTranslation? {
        guard nesting < Self.maximumNesting else { return nil }
        var inner = self
        inner.nesting += 1
        return inner
    }
}

/// A Boolean `PredicateExpressions` node with a history condition.
protocol HistorySQLNode {
    func historyCondition(_ t: HistoryTranslation) -> HistoryCondition
}

/// A `PredicateExpressions` node that is a transaction field or a captured value.
protocol HistoryOperandNode {
    func historyOperand(_ t: HistoryTranslation) -> HistoryOperand?
}

/// One side of a comparison.
enum HistoryOperand {
    /// A field of the transaction (`$0.token`, …).
    case field(HistoryField)
    /// A captured value (`nil` included, as an `Optional` holding nothing).
    case value(Any)
}

/// The transaction fields the translation reads.
enum HistoryField {
    case token, transactionIdentifier, timestamp, author, storeIdentifier
}

extension PredicateExpressions.Conjunction: HistorySQLNode {
    func historyCondition(_ t: HistoryTranslation) -> HistoryCondition {
        guard let inner = t.entering() else { return .untranslated }
        return inner.condition(of: lhs).and(inner.condition(of: rhs))
    }
}

extension PredicateExpressions.Disjunction: HistorySQLNode {
    func historyCondition(_ t: HistoryTranslation) -> HistoryCondition {
        guard let inner = t.entering() else { return .untranslated }
        return inner.condition(of: lhs).or(inner.condition(of: rhs))
    }
}

extension PredicateExpressions.Negation: HistorySQLNode {
    func historyCondition(_ t: HistoryTranslation) -> HistoryCondition {
        guard let inner = t.entering() else { return .untranslated }
        return inner.condition(of: wrapped).negated
    }
}

extension PredicateExpressions.Value: HistorySQLNode, HistoryOperandNode {
    /// A captured `true` or `false` as a whole condition.
    func historyCondition(_ t: HistoryTranslation) -> HistoryCondition {
        guard let flag = value as? Bool, Output.self == Bool.self else { return .untranslated }
        return .exact(.constant(flag))
    }

    func historyOperand(_ t: HistoryTranslation) -> HistoryOperand? { .value(value) }
}

extension PredicateExpressions.NilLiteral: HistoryOperandNode {
    func historyOperand(_ t: HistoryTranslation) -> HistoryOperand? { .value(Wrapped?.none as Any) }
}

extension PredicateExpressions.KeyPath: HistoryOperandNode {
    /// `$0.field`, or `$0.token.transactionIdentifier` / `$0.token.storeIdentifier`.
    func historyOperand(_ t: HistoryTranslation) -> HistoryOperand? {
        if let variable = root as? PredicateExpressions.Variable<DefaultHistoryTransaction> {
            guard variable.key == t.variable else { return nil }
            switch keyPath as AnyKeyPath {
            case \DefaultHistoryTransaction.token: return .field(.token)
            case \DefaultHistoryTransaction.transactionIdentifier: return .field(.transactionIdentifier)
            case \DefaultHistoryTransaction.timestamp: return .field(.timestamp)
            case \DefaultHistoryTransaction.author: return .field(.author)
            case \DefaultHistoryTransaction.storeIdentifier: return .field(.storeIdentifier)
            default: return nil
            }
        }
        guard let parent = root as? any HistoryOperandNode, case .field(.token)? = parent.historyOperand(t) else {
            return nil
        }
        switch keyPath as AnyKeyPath {
        case \DefaultHistoryToken.transactionIdentifier: return .field(.transactionIdentifier)
        case \DefaultHistoryToken.storeIdentifier: return .field(.storeIdentifier)
        default: return nil
        }
    }
}

extension PredicateExpressions.Comparison: HistorySQLNode {
    func historyCondition(_ t: HistoryTranslation) -> HistoryCondition {
        let relation: HistoryRelation =
            switch op {
            case .lessThan: .less
            case .lessThanOrEqual: .lessOrEqual
            case .greaterThan: .greater
            case .greaterThanOrEqual: .greaterOrEqual
            }
        return HistoryRelation.condition(lhs, relation, rhs, t)
    }
}

extension PredicateExpressions.Equal: HistorySQLNode {
    func historyCondition(_ t: HistoryTranslation) -> HistoryCondition {
        HistoryRelation.condition(lhs, .equal, rhs, t)
    }
}

extension PredicateExpressions.NotEqual: HistorySQLNode {
    func historyCondition(_ t: HistoryTranslation) -> HistoryCondition {
        HistoryRelation.condition(lhs, .notEqual, rhs, t)
    }
}

/// A history sort SQLite can apply: none (oldest first), or a first key of `token` or
/// `transactionIdentifier` (one store's transactions order by both as by `Z_PK`, and no two
/// are equal, so later keys never decide).
struct HistorySortPushdown {
    /// `ORDER BY t.Z_PK DESC` rather than `ASC`.
    let descending: Bool

    /// The pushdown of `sortBy`, or `nil` when Swift must sort.
    init?<T>(_ sortBy: [SortDescriptor<T>]) {
        guard let first = sortBy.first else {
            descending = false
            return
        }
        guard let keyPath = first.keyPath as AnyKeyPath?,
            keyPath == \DefaultHistoryTransaction.token || keyPath == \DefaultHistoryTransaction.transactionIdentifier
        else { return nil }
        descending = first.order == .reverse
    }
}

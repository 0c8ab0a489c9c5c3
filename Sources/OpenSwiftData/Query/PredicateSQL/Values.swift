import Foundation

/// `$0` — the row being tested.
extension PredicateExpressions.Variable: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        SQLFragment(sql: "\(t.tableAlias).\"Z_PK\"", isRow: true)
    }
    func collect(_ leaves: inout PredicateLeaves) {}
}

/// `$0.name` → `t."name"`; a to-one relationship → its foreign-key column.
extension PredicateExpressions.KeyPath: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let base = try translate(root, t)
        guard base.isRow else { throw t.unsupported("a key path on a computed value (\(keyPath))") }
        guard let slot = t.layout.slotByKeyPath[keyPath] else {
            throw SwiftDataError(SwiftDataError.unsupportedKeyPath.code,
                                 "\(keyPath) is not a stored attribute of \(t.layout.name) (transient or computed properties cannot be queried)",
                                 entityName: t.layout.name)
        }
        let s = t.layout.slots[slot]
        guard let column = t.table.column(t.layout, slot) else {
            throw SwiftDataError(SwiftDataError.unsupportedKeyPath.code,
                                 "\(t.layout.name).\(s.name) has no column (to-many relationships need contains/count, ephemeral attributes are not stored)",
                                 entityName: t.layout.name, propertyName: s.name)
        }
        var f = SQLFragment(sql: "\(t.tableAlias).\(quoteIdentifier(column))", codec: s.codec)
        if let target = s.target { f.relationshipTarget = try? ModelLayout.of(target) }
        if let codec = s.codec, !codec.isComparableInSQL {
            throw SwiftDataError(SwiftDataError.unsupportedKeyPath.code,
                                 "\(t.layout.name).\(s.name) is stored as \(codec.kind == .json ? "JSON" : "transformed bytes") and cannot be compared in a predicate",
                                 entityName: t.layout.name, propertyName: s.name)
        }
        if s.codec?.storedType == Bool.self { f.isCondition = false }
        return f
    }
    func collect(_ leaves: inout PredicateLeaves) {
        collectLeaves(root, &leaves)
        leaves.structure.append(AnyHashable(keyPath))
    }
}

/// A captured value → a bound parameter `?`.
extension PredicateExpressions.Value: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        SQLFragment(sql: "?", arguments: [try sqlArgument(value)])
    }
    func collect(_ leaves: inout PredicateLeaves) { leaves.values.append(value) }
}

/// Converts a captured Swift value to a bound argument: native values as stored, raw-value
/// enums by raw value, models by primary key, `nil` as NULL.
func sqlArgument(_ value: Any) throws -> SQLValue {
    guard let v = _flattenOptional(value) else { return .null }
    if let s = v as? any StorableValue { return try s.sqlValue() }
    if let r = v as? any RawRepresentable, let raw = r.rawValue as? any StorableValue { return try raw.sqlValue() }
    if let m = v as? any PersistentModel {
        let pk = m.persistentBackingData.pk
        return pk == 0 ? .integer(-1) : .integer(pk)
    }
    throw SwiftDataError(SwiftDataError.unsupportedPredicate.code,
                         "a captured \(type(of: v)) value cannot be compared in SQL")
}

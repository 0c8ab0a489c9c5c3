import Foundation

/// `$0` — the row being tested (`t."Z_PK"`); a closure parameter of `flatMap` or
/// `contains(where:)` — whatever the enclosing expression bound it to.
extension PredicateExpressions.Variable: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        if let bound = t.variables[key] { return bound }
        var f = SQLFragment(sql: "\(t.tableAlias).\"Z_PK\"", isRow: true)
        f.row = RowScope(layout: t.layout, table: t.table, alias: t.tableAlias)
        return f
    }
    func collect(_ leaves: inout PredicateLeaves) {}
}

/// `$0.name` → `t."name"`; a to-one relationship → its foreign-key column (a row); a to-many
/// relationship → a subquery scope for `count`, `isEmpty`, `contains(where:)` (ToManyCollection.swift).
/// On a row that is not in scope (reached through a to-one relationship):
/// ```sql
/// (SELECT r1."name" FROM "Author" r1 WHERE r1."Z_PK" = t."author")
/// ```
extension PredicateExpressions.KeyPath: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let base = try translate(root, t)
        if let many = base.toMany { return try toManyMember(many, member, KeyPathText.readable(keyPath), t) }
        guard let row = base.row else {
            if let f = valueMember(base, member) { return f }
            throw t.unsupportedKeyPath(
                "\(KeyPathText.readable(keyPath)) reads a property of a value (only stored attributes and relationships of models can be queried; sub-properties such as uuidString, String.count or first/last of a value cannot)"
            )
        }
        let layout = row.layout
        guard let slot = slot(in: layout) else {
            if Output.self == PersistentIdentifier.self {
                // `$0.persistentModelID` → the row's primary key (captured identifiers bind theirs).
                var f = base
                f.row = nil
                f.isRow = false
                f.relationshipTarget = nil
                return f
            }
            throw t.unsupportedKeyPath(
                "\(KeyPathText.readable(keyPath)) is not a stored attribute of \(layout.name) (transient or computed properties cannot be queried)",
                entity: layout.name)
        }
        let s = layout.slots[slot]
        if s.isToMany { return try toManyScope(row, base, s, t) }
        if case .toOne = s.kind, let storage = t.mapping?.storage(of: layout, slot: slot),
            case .inverseForeignKey(let table, let column) = storage
        {
            return ownerKey(of: base, s, table, column, t)
        }
        return try column(of: row, base, slot, t)
    }

    /// The slot the key path reads in `layout`'s rows; a key path through a protocol
    /// requirement (`\T.name`, `T: Keyed`) is identified by probing.
    private func slot(in layout: ModelLayout) -> Int? {
        if let slot = layout.slotByKeyPath[keyPath] { return slot }
        if Output.self != PersistentIdentifier.self, case .attribute(let s)? = layout.probe(keyPath) { return s }
        return nil
    }

    /// A to-one relationship whose target holds the key:
    /// `(SELECT r."Z_PK" FROM "Target" r WHERE r."fk" = <row>)`, a row of the target.
    private func ownerKey(
        of base: SQLFragment, _ s: ModelLayout.Slot, _ table: StoreMapping.Table, _ column: String,
        _ t: SQLTranslation
    ) -> SQLFragment {
        let (alias, _) = t.nested("r")
        var f = SQLFragment(
            sql:
                "(SELECT \(alias).\"Z_PK\" FROM \(quoteIdentifier(table.name)) \(alias) WHERE \(alias).\(quoteIdentifier(column)) = \(base.sql))",
            arguments: base.arguments)
        if let target = s.target, let tl = ModelLayout.known(target) {
            f.relationshipTarget = tl
            f.row = RowScope(layout: tl, table: table, alias: nil)
            f.isRow = true
        }
        return f
    }

    /// The column of `slot` in `row` (the row `base` names): the column itself when the row is
    /// in scope, else a subquery reading it; a to-one relationship's column is a row of its target.
    ///
    /// - Throws: ``SwiftDataError/unsupportedKeyPath`` for an attribute with no column or one
    ///   that cannot be compared in SQL.
    private func column(of row: RowScope, _ base: SQLFragment, _ slot: Int, _ t: SQLTranslation) throws -> SQLFragment {
        let layout = row.layout
        let s = layout.slots[slot]
        guard let column = row.table.column(layout, slot) else {
            throw SwiftDataError(
                SwiftDataError.unsupportedKeyPath.code,
                "\(layout.name).\(s.name) has no column (ephemeral attributes are not stored)",
                entityName: layout.name, propertyName: s.name)
        }
        if let codec = s.codec, !codec.isComparableInSQL {
            throw SwiftDataError(
                SwiftDataError.unsupportedKeyPath.code,
                "\(layout.name).\(s.name) is a \(codec.kind == .json ? "Codable value (stored as one column per element, or as JSON)" : "transformed value") and cannot be compared in a predicate; compare a stored attribute instead",
                entityName: layout.name, propertyName: s.name)
        }
        var f: SQLFragment
        if let alias = row.alias {
            f = SQLFragment(sql: "\(alias).\(quoteIdentifier(column))", codec: s.codec)
            f.isColumn = true
            // A non-optional attribute always has a value in its entity's rows (inserts and
            // migrations write one); rows of other entities sharing the table are filtered by
            // `Z_ENT` outside the predicate, or by a CASE around a cast.
            f.isNonNull = s.codec.map { !$0.isOptional } ?? false
        } else {
            let (alias, _) = t.nested("r")
            f = SQLFragment(
                sql:
                    "(SELECT \(alias).\(quoteIdentifier(column)) FROM \(quoteIdentifier(row.table.name)) \(alias) WHERE \(alias).\"Z_PK\" = \(base.sql))",
                arguments: base.arguments, codec: s.codec)
        }
        if let target = s.target, let tl = ModelLayout.known(target) {
            f.relationshipTarget = tl
            if let table = t.mapping?.table(for: tl) {
                f.row = RowScope(layout: tl, table: table, alias: nil)
                f.isRow = true
            }
        }
        if s.codec?.storedType == Bool.self { f.isCondition = false }
        return f
    }
    func collect(_ leaves: inout PredicateLeaves) {
        collectNode(root, &leaves)
        leaves.note(.keyPath(keyPath))
    }

    /// `count`, `isEmpty`, `first`, `last` of a collection.
    var member: CollectionMember? {
        switch kind {
        case .collectionCount?: .count
        case .collectionIsEmpty?: .isEmpty
        case .collectionFirst?: .first
        case .bidirectionalCollectionLast?: .last
        default: nil
        }
    }
}

/// `.isEmpty` of a String value → `(s = '')`; other members of values cannot be translated
/// (`String.count` counts grapheme clusters, SQLite `length` code points).
func valueMember(_ base: SQLFragment, _ member: CollectionMember?) -> SQLFragment? {
    guard base.codec?.storedType == String.self, member == .isEmpty else { return nil }
    return SQLFragment(sql: "(\(base.sql) = '')", arguments: base.arguments, isCondition: true)
}

/// A captured value → a bound parameter `?`. A value of a non-optional type is never NULL
/// (NaN cannot be bound: ``sqlArgument(_:_:)`` throws), which the cached SQL may rely on.
extension PredicateExpressions.Value: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let argument = try sqlArgument(value, t.identifiers)
        var f = SQLFragment(sql: "?", arguments: [argument])
        f.isNonNull = !(Output.self is any _OptionalProtocol.Type) && argument != .null
        return f
    }
    func collect(_ leaves: inout PredicateLeaves) { leaves.bind(value) }
}

/// The schema a predicate is translated for, which decides what a captured identifier binds.
///
/// `$0.persistentModelID == id` compares store, entity and key in Swift, the primary key in
/// SQL (`t."Z_PK" IS ?`). An identifier (or model) of an entity outside this container's
/// schema — another container's model, whose rows have keys 1, 2, … too — binds `-1` and so
/// matches no row, as in Swift; so does an unsaved one.
///
/// Not checked: the store. An identifier of the same schema from another store matches the
/// row with its key here (the differential checks rely on it: they build predicates over a
/// reference container and run them on the stores under test), and one of another entity of
/// this schema matches a row of this table with its key.
struct IdentifierScope {
    let schema: Schema

    /// The primary key `id` stands for in this schema, or `-1`.
    func key(_ id: PersistentIdentifier) -> Int64 {
        guard let pk = id.primaryKey, schema.entitiesByName[id.entityName] != nil else { return -1 }
        return pk
    }

    /// The primary key of `model`'s row, or `-1` (unsaved, or a class outside this schema).
    func key(_ model: any PersistentModel) -> Int64 {
        let d = model.persistentBackingData
        guard d.pk != 0, let name = d.layout?.name, schema.entitiesByName[name] != nil else { return -1 }
        return d.pk
    }
}

/// Converts a captured Swift value to a bound argument: native values as stored, raw-value
/// enums by raw value, models and `PersistentIdentifier`s by primary key (`-1`, matching
/// nothing, while unsaved or when `scope` says they belong elsewhere), `nil` as NULL.
///
/// - Throws: ``SwiftDataError/unsupportedPredicate`` for a NaN (``nanComparisonError(_:property:)``:
///   the comparison that holds it adds the property's name), ``SwiftDataError/invalidValue``
///   for another value SQLite cannot hold.
func sqlArgument<V>(_ value: V, _ scope: IdentifierScope?) throws -> SQLValue {
    do {
        return try boundArgument(value, scope)
    } catch let e as SwiftDataError where e.code == SwiftDataError.invalidValue.code {
        guard let type = nanType(value) else { throw e }
        throw nanComparisonError(type, property: nil)
    }
}

/// Why a predicate's captured NaN cannot be translated, as ``SwiftDataError/unsupportedPredicate``
/// naming `property` (the other side of the comparison) when it is known.
///
/// ```swift
/// let nan = Double.nan
/// #Predicate<Item> { $0.price == nan }   // unsupportedPredicate: … compares Item.price with NaN …
/// ```
func nanComparisonError(_ type: Any.Type, property: String?, entity: String? = nil) -> SwiftDataError {
    let subject = property.map { "compares \(entity.map { "\($0)." } ?? "")\($0) with" } ?? "compares with"
    return SwiftDataError(
        SwiftDataError.unsupportedPredicate.code,
        "the predicate \(subject) a \(type) NaN, which SQLite cannot represent (a bound NaN is NULL). No stored value "
            + "is NaN (saving one throws), so in Swift `== nan` is false for every model and `!= nan` true: test the "
            + "captured value with `.isNaN` before building the predicate and leave the comparison out "
            + "(`.isNaN` inside a predicate cannot be translated either)",
        entityName: entity, propertyName: property, underlying: NaNInPredicate(type: type))
}

/// The marker ``nanComparisonError(_:property:entity:)`` leaves in `underlying`, so the
/// comparison around the value can name its property.
struct NaNInPredicate: Error {
    /// The captured value's type (`Double`, `Float`, `Date` …).
    let type: Any.Type
}

/// The type of `value` when it is (an optional of) a floating-point number or date holding NaN.
private func nanType(_ value: Any) -> Any.Type? {
    guard let v = _flattenOptional(value) else { return nil }
    if let d = v as? Double, d.isNaN { return Double.self }
    if let f = v as? Float, f.isNaN { return Float.self }
    if let d = v as? Date, d.timeIntervalSinceReferenceDate.isNaN { return Date.self }
    return nil
}

/// A comparison's operands translated, a captured NaN on either side reported with the
/// property on the other (``nanComparisonError(_:property:entity:)``).
///
/// ```swift
/// let (l, r) = try translateOperands(lhs, rhs, t)
/// ```
func translateOperands(_ lhs: Any, _ rhs: Any, _ t: SQLTranslation) throws -> (SQLFragment, SQLFragment) {
    do {
        return (try translate(lhs, t), try translate(rhs, t))
    } catch let e as SwiftDataError where e.propertyName == nil {
        guard let nan = e.underlying as? NaNInPredicate else { throw e }
        let other = (lhs as? any KeyPathNaming) ?? (rhs as? any KeyPathNaming)
        let name = other.map { expression -> String in
            let keyPath = expression.anyKeyPath
            return t.layout.slotByKeyPath[keyPath].map { t.layout.slots[$0].name } ?? KeyPathText.readable(keyPath)
        }
        throw nanComparisonError(nan.type, property: name, entity: t.layout.name)
    }
}

/// A key-path expression, seen without its generic parameters (to name a compared property).
protocol KeyPathNaming {
    /// The expression's key path.
    var anyKeyPath: AnyKeyPath { get }
}

extension PredicateExpressions.KeyPath: KeyPathNaming {
    var anyKeyPath: AnyKeyPath { keyPath }
}

/// ``sqlArgument(_:_:)``'s conversion, before a NaN's error is made a predicate's.
private func boundArgument<V>(_ value: V, _ scope: IdentifierScope?) throws -> SQLValue {
    // The common captured types first, by a type comparison (of the static type, then of the
    // dynamic one for a value in an `Any`): each fetch binds its values again, and the
    // existential casts below cost more than the rest of the binding.
    if V.self == Int.self { return try unsafeBitCast(value, to: Int.self).sqlValue() }
    if V.self == String.self { return try unsafeBitCast(value, to: String.self).sqlValue() }
    if V.self == Double.self { return try unsafeBitCast(value, to: Double.self).sqlValue() }
    let value = value as Any
    let valueType = type(of: value)
    if valueType == Int.self { return try (value as! Int).sqlValue() }
    if valueType == String.self { return try (value as! String).sqlValue() }
    if valueType == Double.self { return try (value as! Double).sqlValue() }
    guard let v = _flattenOptional(value) else { return .null }
    if let s = v as? any StorableValue { return try s.sqlValue() }
    if let r = v as? any RawRepresentable, let raw = r.rawValue as? any StorableValue { return try raw.sqlValue() }
    if let id = v as? PersistentIdentifier { return .integer(scope.map { $0.key(id) } ?? id.primaryKey ?? -1) }
    if let m = v as? any PersistentModel {
        if let scope { return .integer(scope.key(m)) }
        let pk = m.persistentBackingData.pk
        return pk == 0 ? .integer(-1) : .integer(pk)
    }
    throw SwiftDataError(
        SwiftDataError.unsupportedPredicate.code,
        "a captured \(type(of: v)) value cannot be compared in SQL")
}

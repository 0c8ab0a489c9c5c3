import Foundation

/// The collection members a key path can name (`PredicateExpressions.KeyPath.kind`).
enum CollectionMember { case count, isEmpty, first, last }

/// `$0.tags` — a to-many relationship as a subquery scope; only `count`, `isEmpty`,
/// `contains(where:)`, `allSatisfy`, `filter` and `contains(model)` may use it.
///
/// Inverse foreign key: `FROM "Tag" m1 WHERE m1."owner" = t."Z_PK"`.
/// Join table: `FROM "Tag" m1 WHERE m1."Z_PK" IN (SELECT m1j."target_pk" FROM "Z_Post_tags" m1j WHERE m1j."source_pk" = t."Z_PK")`.
func toManyScope(_ row: RowScope, _ base: SQLFragment, _ slot: ModelLayout.Slot, _ t: SQLTranslation) throws
    -> SQLFragment
{
    guard let mapping = t.mapping, let target = slot.target, let tl = ModelLayout.known(target),
        let tt = mapping.table(for: tl), let storage = mapping.storage(of: row.layout, slot: slot.index)
    else {
        throw t.unsupportedKeyPath(
            "\(row.layout.name).\(slot.name) has no relationship storage in this store", entity: row.layout.name)
    }
    let (alias, inner) = t.nested("m")
    var condition: String
    switch storage {
    case .inverseForeignKey(_, let column):
        condition = "\(alias).\(quoteIdentifier(column)) = \(base.sql)"
    case .joinTable(let name, let own, let other):
        let j = alias + "j"
        condition =
            "\(alias).\"Z_PK\" IN (SELECT \(j).\(quoteIdentifier(other)) FROM \(quoteIdentifier(name)) \(j) WHERE \(j).\(quoteIdentifier(own)) = \(base.sql))"
    case .foreignKey:
        throw t.unsupportedKeyPath(
            "\(row.layout.name).\(slot.name) is stored as a foreign key, not a to-many relationship",
            entity: row.layout.name)
    }
    let kinds = tt.entityIDs(kindOf: tl)
    if kinds.count < tt.entities.count {
        condition += " AND \(alias).\"Z_ENT\" IN (\(kinds.map(String.init).joined(separator: ", ")))"
    }
    var f = SQLFragment(sql: "NULL")
    f.toMany = ToManyScope(
        layout: tl, table: tt, alias: alias, from: "\(quoteIdentifier(tt.name)) \(alias)",
        condition: condition, arguments: base.arguments, depth: inner.depth)
    return f
}

/// `$0.tags.count` → `(SELECT count(*) FROM "Tag" m1 WHERE <link>)`;
/// `$0.tags.isEmpty` → `(NOT EXISTS (SELECT 1 FROM "Tag" m1 WHERE <link>))`, a condition, so both
/// `!$0.tags.isEmpty` and `$0.tags.isEmpty == false` work. `first` / `last` throw: to-many
/// relationships have no stored order.
func toManyMember(_ many: ToManyScope, _ member: CollectionMember?, _ what: String, _ t: SQLTranslation) throws
    -> SQLFragment
{
    let sub = "FROM \(many.from) WHERE \(many.condition)"
    switch member {
    case .count?:
        return SQLFragment(sql: "(SELECT count(*) \(sub))", arguments: many.arguments)
    case .isEmpty?:
        return SQLFragment(sql: "(NOT EXISTS (SELECT 1 \(sub)))", arguments: many.arguments, isCondition: true)
    default:
        throw t.unsupportedKeyPath(
            "\(what) on a to-many relationship (relationships are unordered sets in the store; only count, isEmpty, contains(where:), allSatisfy and filter are supported)"
        )
    }
}

/// The translation for a closure over the elements of `many`, with `variable` bound to an element.
func elementTranslation(_ many: ToManyScope, _ key: PredicateExpressions.VariableID, _ t: SQLTranslation)
    -> SQLTranslation
{
    var inner = t
    inner.depth = many.depth
    inner.variables[key] = many.element
    return inner
}

/// `$0.tags.contains { $0.name == x }` →
/// ```sql
/// EXISTS (SELECT 1 FROM "Tag" m1 WHERE <link> AND (m1."name" IS ?))
/// ```
extension PredicateExpressions.SequenceContainsWhere: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let seq = try translate(sequence, t)
        guard let many = seq.toMany else {
            throw t.unsupported("contains(where:) on a value that is not a to-many relationship")
        }
        let test = condition(try translate(self.test, elementTranslation(many, variable.key, t)))
        return SQLFragment(
            sql: "EXISTS (SELECT 1 FROM \(many.from) WHERE \(many.condition) AND \(test.sql))",
            arguments: many.arguments + test.arguments, isCondition: true)
    }
    func collect(_ leaves: inout PredicateLeaves) {
        collectNode(sequence, &leaves)
        collectNode(test, &leaves)
    }
}

/// `$0.tags.allSatisfy { $0.isPublic }` — true when `tags` is empty, as in Swift:
/// ```sql
/// (NOT EXISTS (SELECT 1 FROM "Tag" m1 WHERE <link> AND NOT coalesce((m1."isPublic" != 0), 0)))
/// ```
extension PredicateExpressions.SequenceAllSatisfy: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let seq = try translate(sequence, t)
        guard let many = seq.toMany else {
            throw t.unsupported("allSatisfy on a value that is not a to-many relationship")
        }
        let test = nonNull(try translate(self.test, elementTranslation(many, variable.key, t)))
        return SQLFragment(
            sql: "(NOT EXISTS (SELECT 1 FROM \(many.from) WHERE \(many.condition) AND NOT \(test.sql)))",
            arguments: many.arguments + test.arguments, isCondition: true)
    }
    func collect(_ leaves: inout PredicateLeaves) {
        collectNode(sequence, &leaves)
        collectNode(test, &leaves)
    }
}

/// `$0.tags.filter { $0.isPublic }` — the same subquery scope with the test added, for
/// `.count` / `.isEmpty` / `contains(where:)`:
/// ```sql
/// (SELECT count(*) FROM "Tag" m1 WHERE <link> AND (m1."isPublic" != 0))
/// ```
extension PredicateExpressions.Filter: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let seq = try translate(sequence, t)
        guard var many = seq.toMany else {
            throw t.unsupported("filter on a value that is not a to-many relationship")
        }
        let test = condition(try translate(filter, elementTranslation(many, variable.key, t)))
        many.condition += " AND \(test.sql)"
        many.arguments += test.arguments
        var f = seq
        f.toMany = many
        return f
    }
    func collect(_ leaves: inout PredicateLeaves) {
        collectNode(sequence, &leaves)
        collectNode(filter, &leaves)
    }
}

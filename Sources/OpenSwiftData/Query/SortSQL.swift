import Foundation

/// Translates sort descriptors to an `ORDER BY` list ending with the primary key, so ties
/// are broken the same way every time and paging is stable (FET-12).
///
/// `SortDescriptor(\.name)` → `ORDER BY t."name" ASC, t."Z_PK" ASC`. NULLs sort first
/// ascending and last descending, as Swift orders `nil`. A `Decimal` (stored as text) sorts by
/// value through ``DecimalCollation``: `ORDER BY (t."balance") COLLATE osd_decimal ASC, t."Z_PK" ASC`.
/// With ``StringSortStyle/natural`` (the default), `String` keys of descriptors made without a
/// comparator sort through ``NaturalCollation``: `ORDER BY (t."name") COLLATE osd_natural ASC,
/// t."Z_PK" ASC`; `SortDescriptor(\.name, comparator: .lexical)` sorts by the column as it is
/// (`ORDER BY t."name" ASC, …`), which an index can serve. `SortDescriptor(\.persistentModelID)`
/// sorts by key, as Core Data sorts object IDs (``identifierSortTerms(_:direction:)``).
func orderByClause<T: PersistentModel>(
    _ sorts: [SortDescriptor<T>], _ t: SQLTranslation,
    stringSortStyle style: StringSortStyle = .lexical
) throws -> String {
    var terms: [String] = []
    for sort in sorts {
        guard let kp = sort.keyPath else {
            throw SwiftDataError(
                SwiftDataError.unsupportedSortDescriptor.code,
                "a sort descriptor without a key path cannot be translated", entityName: t.layout.name)
        }
        if let c = sort.stringComparator, String.StandardComparator(c, order: .forward) != .lexical {
            throw SwiftDataError(
                SwiftDataError.unsupportedSortDescriptor.code,
                "localized string sorting (\(c)) has no SQL equivalent on Linux; use SortDescriptor(\\.x) or comparator: .lexical",
                entityName: t.layout.name)
        }
        // A comparator the descriptor names (only `.lexical` reaches here) overrides the style.
        let natural =
            style == .natural && sort.stringComparator == nil && !FaultInjection.isActive(.naturalSortLexical)
        let direction = sort.order == .forward || FaultInjection.isActive(.sortIgnoresReverse) ? "ASC" : "DESC"
        if kp == \T.persistentModelID {
            terms += identifierSortTerms(t, direction: direction)
            continue
        }
        if let slot = t.layout.slotByKeyPath[kp], let column = t.table.column(t.layout, slot),
            t.layout.slots[slot].codec?.isComparableInSQL == true
        {
            terms.append(
                "\(sortTerm("\(t.tableAlias).\(quoteIdentifier(column))", t.layout.slots[slot], natural: natural)) \(direction)"
            )
        } else if let term = toOneSortTerm(kp, t, natural: natural) {
            terms.append("\(term) \(direction)")
        } else {
            throw SwiftDataError(
                SwiftDataError.unsupportedSortDescriptor.code,
                "\(KeyPathText.readable(kp, layout: t.layout)) is not a stored, sortable attribute of \(t.layout.name), nor one of a to-one relationship's target (computed, transient, to-many and JSON values cannot be sorted by the store)",
                entityName: t.layout.name)
        }
    }
    terms.append("\(t.tableAlias).\"Z_PK\" \(FaultInjection.isActive(.sortTieBreakReversed) ? "DESC" : "ASC")")
    return terms.joined(separator: ", ")
}

/// `SortDescriptor(\.persistentModelID)`, in the order of ``PersistentIdentifier``'s `<`: by
/// store (one per fetch), entity name, then key. A table holding one entity sorts by `Z_PK`; one
/// holding a hierarchy first by the rank of each row's entity name:
/// `CASE t."Z_ENT" WHEN 3 THEN 0 WHEN 2 THEN 1 END ASC, t."Z_PK" ASC`.
private func identifierSortTerms(_ t: SQLTranslation, direction: String) -> [String] {
    let key = "\(t.tableAlias).\"Z_PK\" \(direction)"
    let kinds = t.table.entities.compactMap { e in t.table.entityID(e).map { (name: e.name, id: $0) } }
    guard kinds.count > 1 else { return [key] }
    let ranks = kinds.sorted { $0.name < $1.name }.enumerated().map { "WHEN \($1.id) THEN \($0)" }
    return ["CASE \(t.tableAlias).\"Z_ENT\" \(ranks.joined(separator: " ")) END \(direction)", key]
}

/// `SortDescriptor(\Book.author?.name)`: an attribute reached through a to-one relationship,
/// sorted by a correlated subquery, `(SELECT r."name" FROM "Author" r WHERE r."Z_PK" = t."author")`;
/// rows without a target sort as nil (first ascending, last descending), as Swift sorts them.
/// Also key paths written through a protocol requirement. The path is found by
/// ``ModelLayout/probe(_:)``.
func toOneSortTerm<T: PersistentModel>(_ keyPath: PartialKeyPath<T>, _ t: SQLTranslation, natural: Bool = false)
    -> String?
{
    switch t.layout.probe(keyPath) {
    case .attribute(let slot)?:
        guard let column = t.table.column(t.layout, slot) else { return nil }
        return sortTerm("\(t.tableAlias).\(quoteIdentifier(column))", t.layout.slots[slot], natural: natural)
    case .toOne(let relSlot, _, let attributeSlot)?:
        guard case .toOne(let targetType, _) = t.layout.slots[relSlot].kind,
            let target = ModelLayout.known(targetType),
            let targetTable = t.table.mapping?.table(for: target),
            let column = targetTable.column(target, attributeSlot)
        else { return nil }
        let link: String
        switch t.table.mapping?.storage(of: t.layout, slot: relSlot) {
        case .foreignKey(let fk)?: link = "r.\"Z_PK\" = \(t.tableAlias).\(quoteIdentifier(fk))"
        case .inverseForeignKey(_, let fk)?: link = "r.\(quoteIdentifier(fk)) = \(t.tableAlias).\"Z_PK\""
        default: return nil
        }
        return sortTerm(
            "(SELECT r.\(quoteIdentifier(column)) FROM \(quoteIdentifier(targetTable.name)) r WHERE \(link) LIMIT 1)",
            target.slots[attributeSlot], natural: natural)
    case nil:
        return nil
    }
}

/// `term`, with ``DecimalCollation`` named on it when `slot` holds a `Decimal`, and
/// ``NaturalCollation`` when `natural` and `slot` holds a `String` (not a raw-value enum, which
/// Swift sorts by its own `<`).
private func sortTerm(_ term: String, _ slot: ModelLayout.Slot, natural: Bool = false) -> String {
    guard let codec = slot.codec else { return term }
    if natural, codec.kind == .native, codec.storedType == String.self { return naturalCollated(term) }
    guard comparesAsDecimal(codec.valueType) else { return term }
    return decimalCollated(term)
}

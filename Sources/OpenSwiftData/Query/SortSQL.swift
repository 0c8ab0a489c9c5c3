import Foundation

/// Translates sort descriptors to an `ORDER BY` list ending with the primary key, so ties
/// are broken the same way every time and paging is stable (FET-12).
///
/// `SortDescriptor(\.name)` → `ORDER BY t."name" ASC, t."Z_PK" ASC`. NULLs sort first
/// ascending and last descending, as Swift orders `nil`.
func orderByClause<T: PersistentModel>(_ sorts: [SortDescriptor<T>], _ t: SQLTranslation) throws -> String {
    var terms: [String] = []
    for sort in sorts {
        guard let kp = sort.keyPath else {
            throw SwiftDataError(SwiftDataError.unsupportedSortDescriptor.code,
                                 "a sort descriptor without a key path cannot be translated", entityName: t.layout.name)
        }
        if let c = sort.stringComparator, c != .lexical, c != String.StandardComparator(.lexical) {
            throw SwiftDataError(SwiftDataError.unsupportedSortDescriptor.code,
                                 "localized string sorting (\(c)) has no SQL equivalent on Linux; use SortDescriptor(\\.x) or comparator: .lexical",
                                 entityName: t.layout.name)
        }
        let direction = sort.order == .forward ? "ASC" : "DESC"
        if let slot = t.layout.slotByKeyPath[kp], let column = t.table.column(t.layout, slot),
           t.layout.slots[slot].codec?.isComparableInSQL == true {
            terms.append("\(t.tableAlias).\(quoteIdentifier(column)) \(direction)")
        } else if let term = toOneSortTerm(kp, t) {
            terms.append("\(term) \(direction)")
        } else {
            throw SwiftDataError(SwiftDataError.unsupportedSortDescriptor.code,
                                 "\(kp) is not a stored, sortable attribute of \(t.layout.name), nor one of a to-one relationship's target (computed, transient, to-many and JSON values cannot be sorted by the store)",
                                 entityName: t.layout.name)
        }
    }
    terms.append("\(t.tableAlias).\"Z_PK\" ASC")
    return terms.joined(separator: ", ")
}

/// `SortDescriptor(\Book.author?.name)`: an attribute reached through a to-one relationship,
/// sorted by a correlated subquery, `(SELECT r."name" FROM "Author" r WHERE r."Z_PK" = t."author")`;
/// rows without a target sort as nil (first ascending, last descending), as Swift sorts them.
///
/// Key paths through computed accessors cannot be taken apart at run time, so the path is found
/// by probing: a stand-in row whose relationship holds a stand-in target with a distinct value
/// in every attribute is read through the key path, and the value that comes back names the
/// attribute. Attributes whose type cannot carry a distinct probe value are not found.
func toOneSortTerm<T: PersistentModel>(_ keyPath: PartialKeyPath<T>, _ t: SQLTranslation) -> String? {
    for relSlot in t.layout.relationshipSlots {
        let rel = t.layout.slots[relSlot]
        guard case .toOne(let targetType, _) = rel.kind, let target = try? ModelLayout.of(targetType),
              let targetTable = t.table.mapping?.table(for: target) else { continue }
        var sentinels: [Int: Any] = [:]
        var values = ContiguousArray<Any?>(repeating: nil, count: target.slots.count)
        for s in target.slots {
            guard let codec = s.codec, codec.isComparableInSQL else { continue }
            let n = 1_000_003 + s.index
            let probe: Any?
            switch codec.storedType {
            case is Int.Type: probe = n
            case is Int64.Type: probe = Int64(n)
            case is Int32.Type: probe = Int32(n)
            case is Double.Type: probe = Double(n) + 0.25
            case is String.Type: probe = "\u{1}probe-\(n)"
            case is Date.Type: probe = Date(timeIntervalSinceReferenceDate: Double(n))
            default: probe = nil
            }
            guard let probe else { continue }
            sentinels[s.index] = probe
            values[s.index] = codec.isOptional ? ((try? codec.encode(probe)).flatMap(codec.decode) ?? probe) : probe
        }
        guard !sentinels.isEmpty else { continue }
        let targetModel = MaterializationScope.run {
            target.type.init(backingData: BackingData(layout: target, values: values, pk: 0, storeIdentifier: "",
                                                     contextHandle: nil))
        }
        var rootValues = ContiguousArray<Any?>(repeating: nil, count: t.layout.slots.count)
        rootValues[relSlot] = targetModel
        let root = MaterializationScope.run {
            t.layout.type.init(backingData: BackingData(layout: t.layout, values: rootValues, pk: 0, storeIdentifier: "",
                                                       contextHandle: nil))
        }
        guard let typedRoot = root as? T, let result = _flattenOptional(typedRoot[keyPath: keyPath] as Any) else { continue }
        for (slot, sentinel) in sentinels where "\(sentinel)" == "\(result)" && type(of: sentinel) == type(of: result) {
            guard let column = targetTable.column(target, slot) else { continue }
            let link: String
            switch t.table.mapping?.storage(of: t.layout, slot: relSlot) {
            case .foreignKey(let fk)?:
                link = "r.\"Z_PK\" = \(t.tableAlias).\(quoteIdentifier(fk))"
            case .inverseForeignKey(_, let fk)?:
                link = "r.\(quoteIdentifier(fk)) = \(t.tableAlias).\"Z_PK\""
            default:
                continue
            }
            return "(SELECT r.\(quoteIdentifier(column)) FROM \(quoteIdentifier(targetTable.name)) r WHERE \(link) LIMIT 1)"
        }
    }
    return nil
}

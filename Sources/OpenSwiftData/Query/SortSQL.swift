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
        guard let slot = t.layout.slotByKeyPath[kp], let column = t.table.column(t.layout, slot),
              t.layout.slots[slot].codec?.isComparableInSQL == true else {
            throw SwiftDataError(SwiftDataError.unsupportedSortDescriptor.code,
                                 "\(kp) is not a stored, sortable attribute of \(t.layout.name)", entityName: t.layout.name)
        }
        terms.append("\(t.tableAlias).\(quoteIdentifier(column)) \(sort.order == .forward ? "ASC" : "DESC")")
    }
    terms.append("\(t.tableAlias).\"Z_PK\" ASC")
    return terms.joined(separator: ", ")
}

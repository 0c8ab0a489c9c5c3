import Foundation

/// A cascade a save carries out in SQL: the rows of an unloaded to-many list of a deleted
/// model, deleted by their key column without being loaded as models.
///
/// A cascade normally loads the list, so that each related model's own delete rules run and
/// the model reads as deleted. When nothing can observe the difference, the save deletes the
/// rows directly (`DELETE … WHERE "ZPARENT" = ?`), records their history (with tombstones read
/// from the rows) and reports their identifiers in `didSave`, as the loaded cascade does:
/// - the deleted model is stored, and its list is not loaded (nothing in memory to update);
/// - the list is stored as the related rows' key column (not a join table), and the related
///   class is its table's only entity, with no relationship but the inverse of this one;
/// - nothing else refers to the related rows (no other key column or join table);
/// - this context has none of the related class's rows registered, and no new model of it
///   (either could be linked to the deleted model in memory only);
/// - the store's merge policy is not `.error` (which checks each deleted row's version);
/// - every preserved (tombstone) attribute of the related class has a column of its own.
///
/// It is decided at save time only: a fetch before the save still runs the delete rules in
/// memory, so it does not see the cascaded models (behaviour reference §3.3).
struct SetCascade {
    /// The deleted model's key.
    let parentKey: Int64
    /// The related class and its table.
    let layout: ModelLayout
    let table: StoreMapping.Table
    /// The related rows' key column that holds the parent's key.
    let column: String

    /// The rows one cascade deleted, in key order, with their tombstones.
    struct Deleted {
        let layout: ModelLayout
        var keys: [Int64] = []
        var tombstones: [[SQLValue]] = []
    }

    /// What a save has already decided about related classes (asked once per class), and the
    /// classes of its new models.
    struct Eligibility {
        var decided: [ObjectIdentifier: Bool] = [:]
        var insertedRoots: Set<ObjectIdentifier>?
    }
}

extension ModelContext {
    /// The cascade of `layout`'s relationship `slot` of the deleted model `d` as a
    /// ``SetCascade``, or `nil` when it has to load the related models.
    func setCascade(
        _ d: BackingData, _ layout: ModelLayout, _ slot: Int, _ check: inout SetCascade.Eligibility
    ) -> SetCascade? {
        let s = layout.slots[slot]
        guard s.isToMany, s.relationship?.deleteRule == .cascade, d.pk != 0, d.status == .deleted,
            !d.values.isLoaded(slot),
            case .inverseForeignKey(let table, let column)? = stack.storage(of: layout, slot: slot),
            let target = s.target, let related = try? ModelLayout.of(target)
        else { return nil }
        let key = ObjectIdentifier(related)
        if let decided = check.decided[key] {
            return decided ? SetCascade(parentKey: d.pk, layout: related, table: table, column: column) : nil
        }
        if check.insertedRoots == nil {
            check.insertedRoots = Set(
                inserted.compactMap { $0.persistentBackingData.layout.map { ObjectIdentifier($0.root) } })
        }
        let eligible = isSetCascadeTarget(related, table, inverseOf: (layout, slot), check.insertedRoots ?? [])
        check.decided[key] = eligible
        return eligible ? SetCascade(parentKey: d.pk, layout: related, table: table, column: column) : nil
    }

    /// The conditions of ``SetCascade`` on the related class.
    private func isSetCascadeTarget(
        _ related: ModelLayout, _ table: StoreMapping.Table, inverseOf owner: (ModelLayout, Int),
        _ insertedRoots: Set<ObjectIdentifier>
    ) -> Bool {
        guard table.entities.count == 1, table.entities[0] === related,
            related.relationshipSlots.count == 1, let (inverseLayout, inverseSlot) = owner.0.inverse(of: owner.1),
            inverseLayout === related, related.relationshipSlots[0] == inverseSlot,
            let mapping = stack.store(for: related)?.mapping, mapping.detachStatements(to: table).isEmpty,
            // The strict policy checks each deleted row's version: only loaded rows have one.
            stack.configuration(of: mapping).mergePolicy != .error,
            !insertedRoots.contains(ObjectIdentifier(related.root)),
            registered.table(ObjectIdentifier(table.root), create: false).map({ $0.count == 0 }) ?? true
        else { return false }
        // Tombstones are read from the rows: every preserved attribute needs a column of its own.
        let columns = table.slotColumns[ObjectIdentifier(related.type)] ?? [:]
        let single = Set(table.plan(related).filter { $0.composite == nil && $0.role == .value }.map(\.slot))
        let tombstones = mapping.historyInfo(related)?.tombstoneSlots ?? []
        return tombstones.allSatisfy { columns[$0] != nil && single.contains($0) && related.slots[$0].codec != nil }
    }

    /// Deletes the rows of this save's ``setCascades`` that live in `w`'s store; returns them
    /// (for history and `didSave`).
    func deleteSetCascades(_ w: StoreWriter) throws -> [SetCascade.Deleted] {
        var deleted: [SetCascade.Deleted] = []
        for cascade in setCascades where cascade.table.mapping === w.mapping {
            let columns = cascade.table.slotColumns[ObjectIdentifier(cascade.layout.type)] ?? [:]
            let tombstoneColumns = (w.mapping.historyInfo(cascade.layout)?.tombstoneSlots ?? []).compactMap {
                columns[$0]
            }
            var rows = SetCascade.Deleted(layout: cascade.layout)
            try w.rows(of: cascade.table, whereColumn: cascade.column, is: cascade.parentKey, reading: tombstoneColumns)
            {
                key, tombstone in
                rows.keys.append(key)
                rows.tombstones.append(tombstone)
            }
            guard !rows.keys.isEmpty else { continue }
            // By the key column, as the rows were found (its index, one statement per parent).
            try w.db.run(
                "DELETE FROM \(quoteIdentifier(cascade.table.name)) WHERE \(quoteIdentifier(cascade.column)) = ?",
                [.integer(cascade.parentKey)])
            deleted.append(rows)
        }
        return deleted
    }
}

extension StoreWriter {
    /// The keys of `table`'s rows whose `column` holds `value`, in key order, each with the
    /// values of `columns`.
    ///
    /// ```sql
    /// SELECT "Z_PK", "ZLABEL" FROM "ZSHEET" WHERE "ZBINDER" = ? ORDER BY "Z_PK"
    /// ```
    func rows(
        of table: StoreMapping.Table, whereColumn column: String, is value: Int64, reading columns: [String],
        _ row: (Int64, [SQLValue]) throws -> Void
    ) throws {
        let list = (["Z_PK"] + columns).map(quoteIdentifier).joined(separator: ", ")
        let stmt = try db.cachedStatement(
            "SELECT \(list) FROM \(quoteIdentifier(table.name)) WHERE \(quoteIdentifier(column)) = ? ORDER BY \"Z_PK\"")
        defer { stmt.reset() }
        try stmt.bind(value, at: 1)
        while try stmt.step() {
            try row(stmt.int64(at: 0), (0..<columns.count).map { stmt.value(at: Int32($0 + 1)) })
        }
    }
}

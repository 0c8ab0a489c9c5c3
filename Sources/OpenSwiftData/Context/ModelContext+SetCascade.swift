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
/// memory, so it does not see the cascaded models (Docs/BehaviourReference.md, when delete rules
/// run).
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
        guard s.isToMany, s.relationship?.deleteRule == .cascade, !FaultInjection.isActive(.cascadeNullifies),
            d.pk != 0, d.status == .deleted,
            !d.values.isLoaded(slot),
            case .inverseForeignKey(let table, let column)? = stack.storage(of: layout, slot: slot),
            let target = s.target, let related = ModelLayout.known(target)
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
    /// (for history and `didSave`). With `history` (the save's history transaction, its other
    /// change rows written, and `ACHANGE`'s tombstone column count), the rows' deletes are
    /// recorded in SQL first (``CascadeHistory``). Each run of up to
    /// ``StoreWriter/keyBatchSize`` cascades of one class whose parents' keys ascend is read and
    /// deleted in one statement each (and recorded in one), so rows and change rows come in the
    /// order of the cascades, each one's rows in key order. With `history`, or when the store
    /// records no history, the rows are not read: a run's rows come back as one
    /// ``SetCascade/Deleted``, in the order SQLite deleted them, with empty tombstones.
    func deleteSetCascades(
        _ w: StoreWriter, history: (transaction: Int64, tombstoneColumns: Int)? = nil
    ) throws -> [SetCascade.Deleted] {
        let cascades = setCascades.filter { $0.table.mapping === w.mapping }
        guard !cascades.isEmpty else { return [] }
        let recordsHistory = try stack.store(of: w.mapping).historySettings(w.db).records
        var deleted: [SetCascade.Deleted] = []
        // Per related class: its statements (the same for each of its cascades).
        var statements: [ObjectIdentifier: (delete: KeyColumnDelete, recording: CascadeHistory?)] = [:]
        var start = 0
        while start < cascades.count {
            let first = cascades[start]
            let key = ObjectIdentifier(first.layout)
            let delete: KeyColumnDelete
            let recording: CascadeHistory?
            if let known = statements[key] {
                (delete, recording) = known
            } else {
                (delete, recording) = try setCascadeStatements(first, w, history: history)
                statements[key] = (delete, recording)
            }
            // A run: up to `keyBatchSize` cascades of one class and column whose parents' keys
            // ascend, so that rows read by parent and then by key come in the cascades' order.
            var end = start + 1
            while end < cascades.count, end - start < StoreWriter.keyBatchSize,
                cascades[end].layout === first.layout, cascades[end].column == first.column,
                cascades[end].parentKey > cascades[end - 1].parentKey
            {
                end += 1
            }
            let parents = cascades[start..<end].map(\.parentKey)
            if let recording {
                try w.recordCascadeDeletes(recording, table: first.table, column: first.column, parents: parents)
            }
            // Rows whose values nothing needs (recorded in SQL, or no history at all) are not
            // read: their keys come from the delete itself.
            if recording != nil || !recordsHistory {
                let keys = try delete.delete(parents, of: first.table.name)
                if !keys.isEmpty {
                    deleted.append(
                        SetCascade.Deleted(
                            layout: first.layout, keys: keys, tombstones: Array(repeating: [], count: keys.count)))
                }
                start = end
                continue
            }
            var current = SetCascade.Deleted(layout: first.layout)
            var currentParent: Int64?
            try delete.run(parents) { parent, key, tombstone in
                if parent != currentParent {
                    if !current.keys.isEmpty { deleted.append(current) }
                    current = SetCascade.Deleted(layout: first.layout)
                    currentParent = parent
                }
                current.keys.append(key)
                current.tombstones.append(tombstone)
            }
            if !current.keys.isEmpty { deleted.append(current) }
            start = end
        }
        return deleted
    }

    /// The statements of `cascade`'s class: its delete, reading the tombstone columns unless
    /// its deletes are recorded in SQL (`history`, when the class has a history entity).
    private func setCascadeStatements(
        _ cascade: SetCascade, _ w: StoreWriter, history: (transaction: Int64, tombstoneColumns: Int)?
    ) throws -> (delete: KeyColumnDelete, recording: CascadeHistory?) {
        let byslot = cascade.table.slotColumns[ObjectIdentifier(cascade.layout.type)] ?? [:]
        let info = w.mapping.historyInfo(cascade.layout)
        let tombstones = (info?.tombstoneSlots ?? []).compactMap { byslot[$0] }
        guard let history, let info else {
            return (try w.keyColumnDelete(cascade.table, column: cascade.column, reading: tombstones), nil)
        }
        let recording = CascadeHistory(
            transaction: history.transaction, entity: info.entity,
            tombstones: Array(tombstones.prefix(history.tombstoneColumns)))
        return (try w.keyColumnDelete(cascade.table, column: cascade.column, reading: []), recording)
    }
}

import Foundation

extension SaveTransaction {
    // MARK: Pairs

    /// Writes join-table pairs and one-way keys: every pair of a new model, and the difference
    /// for a changed one. Models of a class without to-many relationships, most of a bulk save,
    /// are passed over without walking their slots; with `newWithToMany` false no new model is
    /// visited at all.
    ///
    /// The join-table pairs of a stored row an upsert takes over (`upserted`) are the new
    /// model's list alone (UNQ-14: the list is replaced whole): another model's link to such a
    /// row is not written (after the commit the context drops it from that model's list unless
    /// the new model's list names that model, ``ModelContext/dropLinksToReplacedRows(_:)``).
    func writePairs(_ w: StoreWriter, newWithToMany: Bool, upserted: Set<ModelContext.RowKey>) throws {
        // (Tested once, not as the loop's `where`: that would still visit every new model.)
        if newWithToMany {
            // A model that collapsed into a later one has that model's key: its pairs are the row's
            // too (UNQ-30).
            for m in inserted { try writePairs(w, of: m, m.persistentBackingData, upserted: upserted) }
        }
        for id in changedOrder {
            if let m = changed[id] {
                try writePairs(w, of: m, m.persistentBackingData, upserted: upserted)
            }
        }
    }

    /// Writes the pairs of model `m` (storage `d`): every to-many relationship stored in a join
    /// table or in keys the destination rows hold for a one-way owner. Join-table links to the
    /// rows of `upserted` are left to the models that take those rows over.
    private func writePairs(
        _ w: StoreWriter, of m: any PersistentModel, _ d: BackingData, upserted: Set<ModelContext.RowKey>
    ) throws {
        // A model deleted in this save (a cascade may reach a changed one) had its pairs
        // removed with its row; writing its list again would leave dangling pairs.
        guard !d.isDeleted, let layout = d.layout, layout.hasToMany, let own = RowCodec.key(of: d) else {
            return
        }
        // A changed model whose own row a new model takes over: that model's lists are the row's.
        if context.isTakenOver(d, upserted) { return }
        for slot in layout.relationshipSlots where layout.slots[slot].isToMany {
            let storage = stack.storage(of: layout, slot: slot)
            let ownerKeys = stack.ownsKeysOnDestination(layout, slot: slot)
            switch storage {
            case .joinTable?: break
            case .inverseForeignKey? where ownerKeys: break
            default: continue
            }
            guard slot < d.values.count, let current = d.values[slot] else { continue }
            let isNew = d.status == .inserted
            guard isNew || (slot < d.changed.count && d.changed[slot]) else { continue }
            var now = RelationshipGraph.models(in: current).filter { !$0.persistentBackingData.isDeleted }
            var before = isNew ? [] : RelationshipGraph.models(in: d.committed?[slot] ?? nil)
            if case .joinTable? = storage, !upserted.isEmpty {
                // The upsert removed the taken-over rows' pairs; their new models write theirs.
                before.removeAll { context.isTakenOver($0.persistentBackingData, upserted) }
                now.removeAll { context.isTakenOver($0.persistentBackingData, upserted) }
            }
            try writeDifference(w, storage, own: own, before: before, now: now)
        }
    }

    /// Removes the pairs of `own` with the models of `before` not in `now`, then adds those with
    /// the models of `now` not in `before`.
    private func writeDifference(
        _ w: StoreWriter, _ storage: StoreMapping.RelationshipStorage?, own: Int64,
        before: [any PersistentModel], now: [any PersistentModel]
    ) throws {
        let nowIDs = Set(now.map { ObjectIdentifier($0) })
        let beforeIDs = Set(before.map { ObjectIdentifier($0) })
        for gone in before where !nowIDs.contains(ObjectIdentifier(gone)) {
            guard let other = RowCodec.key(of: gone.persistentBackingData) else { continue }
            switch storage {
            case .joinTable(let name, let ownCol, let otherCol)?:
                try w.unlink(name, own: ownCol, own, other: otherCol, other)
            case .inverseForeignKey(let table, let column)?:
                try w.clearOwnerKey(table, column: column, owner: own, on: other)
            default: break
            }
        }
        for added in now where !beforeIDs.contains(ObjectIdentifier(added)) {
            guard let other = RowCodec.key(of: added.persistentBackingData) else { continue }
            switch storage {
            case .joinTable(let name, let ownCol, let otherCol)?:
                try w.link(name, own: ownCol, own, other: otherCol, other)
            case .inverseForeignKey(let table, let column)?:
                try w.setOwnerKey(table, column: column, owner: own, on: other)
            default: break
            }
        }
    }

    // MARK: History

    /// Records the save being written as one history transaction (none when it changes no
    /// row, HIS-11): inserts, updates with the bitmap of changed properties (to-many changes
    /// included), upserts as updates of the stored row (HIS-08), deletes with their tombstone.
    /// New rows are recorded from their tables, by the key ranges the save handed out
    /// (`insertedRanges`); `cascaded` are the rows a cascade deleted in SQL.
    func recordHistory(
        _ w: StoreWriter, plan: UpsertPlan, insertedRanges: [(table: String, first: Int64, last: Int64)],
        cascaded: [SetCascade.Deleted] = []
    ) throws {
        let settings = try stack.store(of: w.mapping).historySettings(w.db)
        guard settings.records else { return }
        var rows = historyOfAdoptions(w, plan) + historyOfUpdates(w, plan)
        rows += try historyOfDeletes(w)
        // Rows a cascade deleted in SQL, after the models' (where the loaded cascade puts them).
        for c in cascaded {
            guard let info = w.mapping.historyInfo(c.layout) else { continue }
            for (key, tombstone) in zip(c.keys, c.tombstones) {
                rows.append(
                    HistoryChangeRow(kind: .delete, entity: info.entity, key: key, columns: nil, tombstone: tombstone))
            }
        }
        guard !rows.isEmpty || !insertedRanges.isEmpty else { return }
        let process = ProcessInfo.processInfo.processName
        try w.recordTransaction(
            author: context.author, bundle: Bundle.main.bundleIdentifier ?? process, process: process,
            timestamp: Date(), insertedRanges: insertedRanges,
            changes: rows, tombstoneColumns: settings.tombstones)
    }

    /// Records the history of a save that only deletes rows and has a cascade in SQL in `w`'s
    /// store (``SetCascade``), before the cascades run: the transaction and the deleted models'
    /// change rows. Returns the transaction's key and `ACHANGE`'s tombstone column count, for
    /// ``ModelContext/deleteSetCascades(_:history:)`` to record the cascaded rows after these, as
    /// ``recordHistory(_:plan:insertedRanges:cascaded:)`` orders them; `nil` (nothing written)
    /// for any other save, which records its history at the end.
    func recordHistoryOfDeletes(_ w: StoreWriter) throws -> (transaction: Int64, tombstoneColumns: Int)? {
        guard inserted.isEmpty, changedOrder.isEmpty,
            context.setCascades.contains(where: { $0.table.mapping === w.mapping }),
            !FaultInjection.isActive(.historySeparateTransaction), !FaultInjection.isActive(.historyLosesTombstone),
            !FaultInjection.isActive(.historyDropsLastChange)
        else { return nil }
        let settings = try stack.store(of: w.mapping).historySettings(w.db)
        guard settings.records else { return nil }
        // At least one change row, so the cascaded rows' keys follow the table's largest.
        let rows = try historyOfDeletes(w)
        guard !rows.isEmpty else { return nil }
        let process = ProcessInfo.processInfo.processName
        let transaction = try w.recordTransaction(
            author: context.author, bundle: Bundle.main.bundleIdentifier ?? process, process: process,
            timestamp: Date(), changes: rows, tombstoneColumns: settings.tombstones)
        return (transaction, settings.tombstones)
    }

    /// The history of the new models that upsert: an update of every property of the row each
    /// took over.
    private func historyOfAdoptions(_ w: StoreWriter, _ plan: UpsertPlan) -> [HistoryChangeRow] {
        guard !plan.adoptedRows.isEmpty else { return [] }
        var rows: [HistoryChangeRow] = []
        var infos = PerLayoutMemo<StoreMapping.HistoryInfo?>()
        for m in inserted {
            let d = m.persistentBackingData
            guard let adoption = UpsertPlan.adoption(of: d), let layout = d.layout,
                let info = infos.value(for: layout, w.mapping.historyInfo)
            else { continue }
            rows.append(
                HistoryChangeRow(
                    kind: .update, entity: info.entity, key: adoption.pk, columns: info.allProperties, tombstone: []))
        }
        return rows
    }

    /// The history of the changed models: an update with the bitmap of their changed properties.
    private func historyOfUpdates(_ w: StoreWriter, _ plan: UpsertPlan) -> [HistoryChangeRow] {
        var rows: [HistoryChangeRow] = []
        let upserted = plan.adoptedKeys(if: !changedOrder.isEmpty)
        var infos = PerLayoutMemo<StoreMapping.HistoryInfo?>()
        // The last row's changed slots and bitmap: a save that changes the same properties of
        // many models makes one bitmap and shares it.
        var last: (layout: ObjectIdentifier, changed: [Bool], columns: Data)?
        for id in changedOrder {
            guard let m = changed[id] else { continue }
            let d = m.persistentBackingData
            guard d.status == .persisted, !d.isDeleted, let layout = d.layout, !context.isTakenOver(d, upserted),
                let info = infos.value(for: layout, w.mapping.historyInfo)
            else { continue }
            let columns: Data
            if let last, last.layout == ObjectIdentifier(layout), last.changed == d.changed {
                columns = last.columns
            } else {
                let slots = d.changed.indices.filter { d.changed[$0] && info.bitOfSlot[$0] != nil }
                guard !slots.isEmpty else { continue }
                columns = info.bitmap(slots)
                last = (ObjectIdentifier(layout), d.changed, columns)
            }
            rows.append(
                HistoryChangeRow(kind: .update, entity: info.entity, key: d.pk, columns: columns, tombstone: []))
        }
        return rows
    }

    /// The history of the deleted models: a delete with their tombstone values.
    private func historyOfDeletes(_ w: StoreWriter) throws -> [HistoryChangeRow] {
        var rows: [HistoryChangeRow] = []
        for id in deletedOrder {
            guard let m = deleted[id] else { continue }
            let d = m.persistentBackingData
            guard d.pk != 0, let layout = d.layout, let info = w.mapping.historyInfo(layout) else { continue }
            if d.isFault && !info.tombstoneSlots.isEmpty { context.fulfillFault(d) }
            let tombstone = try info.tombstoneSlots.map { slot -> SQLValue in
                guard slot < d.values.count, let codec = layout.slots[slot].codec else { return .null }
                return try codec.encode(d.values[slot])
            }
            rows.append(
                HistoryChangeRow(kind: .delete, entity: info.entity, key: d.pk, columns: nil, tombstone: tombstone))
        }
        return rows
    }
}

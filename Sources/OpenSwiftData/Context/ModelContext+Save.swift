import Foundation

extension ModelContext {
    /// Writes every pending insert, change and delete in one SQLite transaction
    /// (`BEGIN IMMEDIATE … COMMIT`). On any error the transaction is rolled back, the store is
    /// unchanged, the pending changes stay in the context and a retry can succeed.
    ///
    /// ```sql
    /// INSERT OR FAIL INTO "ZTRIP" ("Z_PK", "Z_ENT", "Z_OPT", "ZNAME", …) VALUES (?, 3, 1, ?, …), …  -- 16 rows a statement
    /// UPDATE "ZTRIP" SET "ZNAME" = ?, "Z_OPT" = "Z_OPT" + 1 WHERE "Z_PK" = ?  -- changed columns only
    /// DELETE FROM "ZTRIP" WHERE "Z_PK" IN (?, ?, …)                                          -- 64 keys per statement
    /// ```
    /// Conflicts with other writers follow the configuration's
    /// ``ModelConfiguration/mergePolicy``: by default (SwiftData's
    /// `NSMergeByPropertyObjectTrumpMergePolicy`) the changed properties overwrite the store and
    /// a model whose row another writer changed meanwhile is refreshed with the store's values
    /// for the properties this context did not change; with `.error`, the `UPDATE` and `DELETE`
    /// also require `"Z_OPT" = ?` (the version this context read), and any row changed or
    /// deleted since makes the save throw ``SwiftDataError/mergeConflict`` with nothing written.
    /// - Throws: ``SwiftDataError`` — `.saveNotAllowed`, `.deleteRuleDenied`,
    ///   `.modelValidationFailure` (minimum/maximumModelCount), `.invalidValue`
    ///   (NaN …), `.uniqueConstraintViolation`, `.mergeConflict`, `.unknownSchema`, `.storeError`.
    ///   A read that could not throw and failed since the last fetch or save is thrown first
    ///   (``OperationFailure``); nothing is written then, and the next save proceeds.
    public func save() throws {
        if let e = deferredErrors.first { throw e }
        try throwPendingReadFailure()
        guard hasChanges else { return }
        guard stack.configurations.contains(where: \.allowsSave) else {
            throw SwiftDataError(
                SwiftDataError.saveNotAllowed.code,
                "the container's configuration was created with allowsSave: false")
        }
        for m in inserted { m._$absorbPendingValues() }
        setCascades = []
        defer { setCascades = [] }
        try propagateDeletes(collectingSetCascades: true)
        insertRelatedModels()
        try validateRelationshipCounts()
        let transactions = try transactionsByStore()
        NotificationCenter.default.post(name: ModelContext.willSave, object: self)

        let outcome: WriteOutcome
        do {
            outcome = try write(transactions)
        } catch {
            for m in inserted { m.persistentBackingData.pendingPK = 0 }
            throw error
        }

        // Committed: apply the new identities and versions and clear pending state.
        for (id, version) in outcome.versions { changed[id]?.persistentBackingData.version = version }
        var saved = SavedIdentifiers()
        finishDeletes(outcome, &saved)
        finishUpdates(&saved)
        finishInserts(outcome, &saved)
        inserted.removeAll()
        changed.removeAll()
        changedOrder.removeAll()
        deleted.removeAll()
        deletedOrder.removeAll()
        propagatedDeletes.removeAll()
        // Another writer changed these rows since they were read: the store now holds this
        // context's changed properties and their other, newer properties; show those.
        for m in outcome.stale where !m.persistentBackingData.isDeleted { refreshFromStore(m) }
        NotificationCenter.default.post(
            name: ModelContext.didSave, object: self,
            userInfo: [
                NotificationKey.insertedIdentifiers.rawValue: saved.inserted,
                NotificationKey.updatedIdentifiers.rawValue: saved.updated,
                NotificationKey.deletedIdentifiers.rawValue: saved.deleted,
            ])
    }

    /// Inserts the new models reached through relationships of inserted or changed models. A
    /// new model whose relationships were not written since its insert walked them then. A
    /// changed model deleted in this save reaches nothing: its row goes, and a dropped insert
    /// it still points at (its delete rule ran before that insert was dropped) stays dropped.
    private func insertRelatedModels() {
        for m in inserted {
            let d = m.persistentBackingData
            if !d.relatedInserted { insertRelated(of: m, d) }
        }
        for id in changedOrder {
            guard let m = changed[id] else { continue }
            let d = m.persistentBackingData
            if !d.isDeleted { insertRelated(of: m, d) }
        }
    }

    /// The identifiers a committed save reports in its `didSave` notification.
    private struct SavedIdentifiers {
        var inserted: [PersistentIdentifier] = []
        var updated: [PersistentIdentifier] = []
        var deleted: [PersistentIdentifier] = []
    }

    /// After the commit: the deleted models leave the context (their to-one relationships read
    /// nil from now on, as their foreign keys did in the rows), and the rows a cascade deleted in
    /// SQL are reported with them.
    private func finishDeletes(_ outcome: WriteOutcome, _ saved: inout SavedIdentifiers) {
        for id in deletedOrder {
            guard let m = deleted[id] else { continue }
            let d = m.persistentBackingData
            saved.deleted.append(m.persistentModelID)
            registered[rowKey(d)] = nil
            d.status = .removed
            d.context = nil
            if let layout = d.layout {
                for slot in layout.relationshipSlots where !layout.slots[slot].isToMany {
                    d.setSlot(slot, ForeignKey(pk: 0), of: m, recordChange: false)
                }
            }
        }
        for rows in outcome.cascaded {
            let storeID = (stack.store(for: rows.layout) ?? store).identifier
            for key in rows.keys {
                saved.deleted.append(
                    PersistentIdentifier(entityName: rows.layout.name, storeIdentifier: storeID, key: .permanent(key)))
            }
        }
    }

    /// After the commit: the changed models' changes are the stored values now.
    private func finishUpdates(_ saved: inout SavedIdentifiers) {
        for id in changedOrder {
            guard let m = changed[id] else { continue }
            let d = m.persistentBackingData
            d.committed = nil
            d.changed = []
            saved.updated.append(m.persistentModelID)
        }
    }

    /// After the commit: the new models take their keys and versions and are registered; one
    /// that upserted into a row another object here represents shares that object's storage,
    /// and one that collapsed into a later new model shares that model's.
    private func finishInserts(_ outcome: WriteOutcome, _ saved: inout SavedIdentifiers) {
        // With one store (the usual container) every new row is in it: its identity is taken
        // once, not looked up through each model's layout (two retains and releases a model).
        let onlyStore = stack.stores.count == 1 ? store.identity : nil
        saved.inserted.reserveCapacity(inserted.count)
        // The rows taken over whose lists may have let go of members (UNQ-14).
        var adopters: [RowKey: any PersistentModel] = [:]
        for m in inserted {
            let d = m.persistentBackingData
            // A new row is at version 1; an adopted one at the version its update made.
            let adoption = UpsertPlan.adoption(of: d)
            d.version = adoption == nil ? 1 : outcome.versions[ObjectIdentifier(m)] ?? 1
            if UpsertPlan.isCollapsed(d) { continue }
            d.pk = d.pendingPK
            d.pendingPK = 0
            d.status = .persisted
            d.storeIdentity = onlyStore ?? (d.layout.flatMap(stack.store(for:)) ?? store).identity
            d.committed = nil
            d.changed = []
            let adopts = adoption != nil
            if adopts, let existing = registered[rowKey(d)], existing !== m {
                adoptStorage(of: existing, into: m)
                if d.layout?.hasToMany == true { adopters[rowKey(d)] = existing }
                saved.updated.append(d.persistentModelID(of: m))
            } else {
                if adopts, d.layout?.hasToMany == true { adopters[rowKey(d)] = m }
                registered[rowKey(d)] = m
                if adopts {
                    saved.updated.append(d.persistentModelID(of: m))
                } else {
                    saved.inserted.append(d.persistentModelID(of: m))
                }
            }
        }
        for (earlier, later) in outcome.plan.collapsed {
            guard let m = inserted.first(where: { ObjectIdentifier($0) == earlier }) else { continue }
            let target = registered[rowKey(later.persistentBackingData)] ?? later
            keepMembers(of: m.persistentBackingData, in: target)
            m.persistentBackingData.pendingPK = 0
            m.persistentBackingData = target.persistentBackingData
        }
        dropLinksToReplacedRows(adopters)
    }

    /// The pending changes of each store (a container has one per configuration), in the
    /// stores' order, as one ``SaveTransaction`` each; one holding everything when the
    /// container has one store.
    ///
    /// - Throws: `.saveNotAllowed` naming the model and configuration when a change belongs to
    ///   a configuration created with `allowsSave: false` (nothing is written).
    private func transactionsByStore() throws -> [SaveTransaction] {
        guard stack.stores.count > 1 else {
            return [
                SaveTransaction(
                    context: self, store: store, inserted: inserted, changed: changed, changedOrder: changedOrder,
                    deleted: deleted, deletedOrder: deletedOrder)
            ]
        }
        var parts = stack.stores.map { SaveTransaction(context: self, store: $0) }
        func index(_ m: any PersistentModel) throws -> Int? {
            guard let layout = m.persistentBackingData.layout, let i = stack.storeIndex(for: layout) else { return nil }
            guard stack.configurations[i].allowsSave else {
                throw SwiftDataError(
                    SwiftDataError.saveNotAllowed.code,
                    "\(layout.name) is stored by the configuration \"\(stack.configurations[i].name)\", created with allowsSave: false; nothing was saved",
                    entityName: layout.name)
            }
            return i
        }
        for m in inserted { if let i = try index(m) { parts[i].inserted.append(m) } }
        for id in changedOrder {
            guard let m = changed[id], let i = try index(m) else { continue }
            parts[i].changed[id] = m
            parts[i].changedOrder.append(id)
        }
        for id in deletedOrder {
            guard let m = deleted[id], let i = try index(m) else { continue }
            parts[i].deleted[id] = m
            parts[i].deletedOrder.append(id)
        }
        return parts.filter { !$0.isEmpty }
    }

    /// Writes every transaction in its store; a failure in any rolls every one back. A save
    /// that writes several on-disk stores keeps them in step even when the process dies between
    /// their commits (``StoreCoordination``): it locks every writable on-disk store of the
    /// container and records the save in each store it writes.
    private func write(_ transactions: [SaveTransaction]) throws -> WriteOutcome {
        if stack.stores.count == 1, let transaction = transactions.first {
            let outcome = try store.write { try transaction.write($0) }
            // Only with the injected fault history-separate-transaction (debug builds): the
            // save's history in a transaction of its own, after the save's commit.
            if let ranges = outcome.historyAfterCommit {
                try store.write { w in
                    try transaction.recordHistory(
                        w, plan: outcome.plan, insertedRanges: ranges, cascaded: outcome.cascaded)
                }
            }
            return outcome
        }
        var outcome = WriteOutcome(plan: UpsertPlan())
        let onDisk = transactions.map(\.store).filter { $0.url != nil }
        let coordinated = onDisk.count > 1 && !FaultInjection.isActive(.multiStoreUnprotected)
        let locked =
            coordinated
            ? stack.stores.filter { s in
                stack.coordinatedStores.contains { $0 === s } || transactions.contains { $0.store === s }
            }
            : transactions.map(\.store)
        try StoreCoordination.write(locked, recording: coordinated ? onDisk : nil) { writers in
            for transaction in transactions {
                let result = try transaction.write(writers[ObjectIdentifier(transaction.store)]!)
                outcome.plan.adoptedRows += result.plan.adoptedRows
                outcome.plan.collapsed.merge(result.plan.collapsed) { a, _ in a }
                outcome.versions.merge(result.versions) { a, _ in a }
                outcome.stale += result.stale
                outcome.cascaded += result.cascaded
            }
        }
        return outcome
    }

    /// What a save's write wrote besides rows: the uniqueness plan, the new version of every
    /// updated row (by model), and the models another writer had changed since they were read.
    struct WriteOutcome {
        var plan: UpsertPlan
        var versions: [ObjectIdentifier: Int64] = [:]
        var stale: [any PersistentModel] = []
        /// The rows deleted by ``setCascades``.
        var cascaded: [SetCascade.Deleted] = []
        /// Set only with ``InjectedFault/historySeparateTransaction``: the inserted key ranges of a
        /// save whose history is recorded in a second transaction after its commit.
        var historyAfterCommit: [(table: String, first: Int64, last: Int64)]?
    }

    /// ``SwiftDataError/mergeConflict`` naming the models whose rows changed since they were read.
    func mergeConflictError(_ models: [any PersistentModel]) -> SwiftDataError {
        let names =
            models.prefix(5).map { m -> String in
                let d = m.persistentBackingData
                return "\(d.layout?.name ?? "?") \(d.pk) (read at version \(d.version))"
            }.joined(separator: ", ") + (models.count > 5 ? " and \(models.count - 5) more" : "")
        return SwiftDataError(
            SwiftDataError.mergeConflict.code,
            "\(models.count) model(s) were changed or deleted by another context or process since this context read them: \(names); nothing was saved and the pending changes are kept. Fetch them again (or rollback()), re-apply the change and save",
            entityName: models.first?.persistentBackingData.layout?.name)
    }

    /// Reads `model`'s row again after a save and shows the stored values of the properties the
    /// context has not changed (every property, right after a save).
    private func refreshFromStore(_ model: any PersistentModel) {
        let d = model.persistentBackingData
        guard let layout = d.layout, let table = stack.table(for: layout) else { return }
        do {
            try stack.store(of: table).readRow(table, pk: d.pk) { row, generation in
                try RowCodec.refresh(row, into: d, model: model, table: table, url: stack.store(of: table).url)
                d.loadedGeneration = generation
            }
        } catch {
            // The save itself committed; a failed re-read only means the next fetch refreshes.
            d.loadedGeneration = .unknown
        }
    }

    /// Whether the stored row of `d` (a registered model with a layout) is one an upsert of
    /// this save takes over (`upserted`: ``UpsertPlan/adoptedKeys(if:)``).
    func isTakenOver(_ d: BackingData, _ upserted: Set<RowKey>) -> Bool {
        !upserted.isEmpty && upserted.contains(rowKey(d))
    }

}

extension ContainerStack: RowDestinations {
    /// The `Z_ENT` of row `pk` of `table`, read from its store.
    func storedEntity(ofRow pk: Int64, in table: StoreMapping.Table) throws -> Int64? {
        try store(of: table).keys(holding: .inverseForeignKey(table: table, column: "Z_ENT"), of: table, pointingAt: pk)
            .first
    }

    /// Refuses `value` when the configuration of `d`'s store asks
    /// (``ModelConfiguration/refusesInexactDecimals``); else reports the rounding the first
    /// time the property stores a rounded value (``ModelContainer/storageWarnings``, standard
    /// error).
    func storingInexactly(_ value: Decimal, _ d: BackingData, slot: Int) throws {
        guard let layout = d.layout else { return }
        if configuration(for: layout).refusesInexactDecimals {
            throw SwiftDataError(
                SwiftDataError.invalidValue.code,
                "the Decimal \(value.text) has more significant digits than a DECIMAL column keeps (a REAL, a 64-bit double: exact up to 15 significant digits), and the configuration refuses inexact decimals (refusesInexactDecimals); round it (NSDecimalRound) or store it as a String or a scaled Int"
            )
        }
        let property = "\(layout.name).\(layout.slots[slot].name)"
        let stored = (try? value.sqlValue()).flatMap(Decimal.init(sqlValue:))?.text ?? "a double"
        let line =
            "\(property): the Decimal \(value.text) has more significant digits than a DECIMAL column keeps (a REAL, a 64-bit double: exact up to 15 significant digits); it is stored as \(stored), as Apple's store keeps it. Later roundings of this property are not reported; ModelConfiguration.refusesInexactDecimals refuses them"
        if addStorageWarning(line, property: property) {
            SQLLog.standardError("OpenSwiftData: warning: " + line + "\n")
        }
    }
}

extension ModelContext {
    /// Applies delete rules to pending deletes, repeatedly, until nothing new is deleted:
    /// `.cascade` deletes the related models, `.nullify` and `.noAction` unlink them, `.deny`
    /// throws ``SwiftDataError/deleteRuleDenied`` while related models remain. References held
    /// through one-way relationships are cleared too (`ModelContext+Delete.swift`).
    ///
    /// Runs at ``save()``, at ``processPendingChanges()`` and before every fetch that includes
    /// pending changes (Docs/BehaviourReference.md), so those fetches do not see cascaded models
    /// and read nullified references as `nil`. Nothing is written; every change is recorded, so
    /// ``rollback()`` restores the deleted models and the links. Only the save refuses a delete:
    /// with `deferringRefusals` a model whose delete a `.deny` rule (or a non-optional inverse
    /// that would need nullifying) refuses is left as it is, rules and all, for the save to
    /// report, so no error surfaces at `delete(_:)` or at a fetch.
    func propagateDeletes(deferringRefusals: Bool = false, collectingSetCascades: Bool = false) throws {
        var cascadeCheck = SetCascade.Eligibility()
        var index = 0
        models: while index < deletedOrder.count {
            guard let m = deleted[deletedOrder[index]] else {
                index += 1
                continue
            }
            index += 1
            let d = m.persistentBackingData
            guard let layout = d.layout else { continue }
            // Every rule is checked before any is applied: a refused delete changes nothing.
            var actions: [(slot: Int, related: [any PersistentModel])] = []
            for slot in layout.relationshipSlots {
                let s = layout.slots[slot]
                // A save deletes the rows of an unloaded cascade list in SQL when nothing else
                // depends on them (the conditions: `SetCascade`).
                let cascades = !FaultInjection.isActive(.cascadeNullifies)
                if cascades, collectingSetCascades, let cascade = setCascade(d, layout, slot, &cascadeCheck) {
                    setCascades.append(cascade)
                    continue
                }
                let related = RelationshipGraph.models(in: RelationshipGraph.currentValue(m, d, s), of: s)
                    .filter { !$0.isDeleted }
                guard !related.isEmpty else { continue }
                var rule = s.relationship?.deleteRule ?? .nullify
                if rule == .cascade, !cascades { rule = .nullify }
                if rule == .deny, !FaultInjection.isActive(.denyIgnored) {
                    if deferringRefusals { continue models }
                    throw SwiftDataError(
                        SwiftDataError.deleteRuleDenied.code,
                        "\(layout.name) cannot be deleted while its '\(s.name)' relationship holds \(related.count) model(s) (delete rule .deny); nothing was saved",
                        entityName: layout.name, propertyName: s.name)
                }
                if rule != .cascade, let (il, islot) = layout.inverse(of: slot),
                    case .toOne(_, optional: false) = il.slots[islot].kind
                {
                    if deferringRefusals { continue models }
                    throw SwiftDataError(
                        SwiftDataError.modelValidationFailure.code,
                        "deleting a \(layout.name) would leave \(il.name).\(il.slots[islot].name) empty, but it is not optional; delete or re-point the \(related.count) \(il.name)(s) first; nothing was saved",
                        entityName: il.name, propertyName: il.slots[islot].name)
                }
                actions.append((slot, related))
            }
            try nullifyOneWayReferences(to: m)
            propagatedDeletes.insert(ObjectIdentifier(m))
            for (slot, related) in actions {
                let rule = layout.slots[slot].relationship?.deleteRule ?? .nullify
                switch FaultInjection.isActive(.cascadeNullifies) && rule == .cascade ? .nullify : rule {
                case .cascade:
                    for r in related where !r.isDeleted { deleteAny(r) }
                case .nullify, .noAction, .deny:
                    if let (il, islot) = layout.inverse(of: slot), !FaultInjection.isActive(.nullifyKeepsInverse) {
                        for r in related { RelationshipGraph.unlink(r, inverse: il.slots[islot], from: m) }
                    }
                }
            }
        }
    }

    /// Applies delete rules before a fetch that includes pending changes (see
    /// ``propagateDeletes(deferringRefusals:)``); a no-op without pending deletes.
    func applyDeleteRulesForFetch() throws {
        guard !deleted.isEmpty else { return }
        try propagateDeletes(deferringRefusals: true)
    }
}

/// How a save's upserts of one entity update the rows they adopt: the columns written, the
/// statement writing all of them, and the statements that leave out indexed columns whose
/// stored value is unchanged (``RowCodec/unchangedIndexedColumns(_:of:_:_:destinations:)``), made on
/// first use.
final class AdoptionShape {
    let reads: [StoreMapping.Table.ColumnRead]
    /// `nil` when the entity has no column at all.
    let update: RowStatement?
    private var leavingOut: [UInt64: (reads: [StoreMapping.Table.ColumnRead], update: RowStatement)] = [:]
    /// The last statement asked for, which the next row of a save most often wants too.
    private var last: (unchanged: UInt64, reads: [StoreMapping.Table.ColumnRead], update: RowStatement)?

    init(reads: [StoreMapping.Table.ColumnRead], update: RowStatement?) {
        self.reads = reads
        self.update = update
    }

    /// The columns to write and the statement when the reads in bit set `unchanged` are left
    /// out; `nil` for the statement when none is (``update`` then).
    func statement(leavingOut unchanged: UInt64, _ w: StoreWriter, _ table: StoreMapping.Table) throws -> (
        [StoreMapping.Table.ColumnRead], RowStatement?
    ) {
        guard unchanged != 0 else { return (reads, nil) }
        if let last, last.unchanged == unchanged { return (last.reads, last.update) }
        let found: (reads: [StoreMapping.Table.ColumnRead], update: RowStatement)
        if let known = leavingOut[unchanged] {
            found = known
        } else {
            let kept = reads.indices.filter { $0 >= 64 || unchanged & (1 << UInt64($0)) == 0 }.map { reads[$0] }
            found = (kept, try w.updateStatement(table, reads: kept, checkingVersion: false))
            leavingOut[unchanged] = found
        }
        last = (unchanged, found.reads, found.update)
        return found
    }
}

import Foundation

extension ModelContext {
    /// Writes every pending insert, change and delete in one SQLite transaction
    /// (`BEGIN IMMEDIATE … COMMIT`). On any error the transaction is rolled back, the store is
    /// unchanged, the pending changes stay in the context and a retry can succeed.
    ///
    /// ```sql
    /// INSERT INTO "ZTRIP" ("Z_PK", "Z_ENT", "Z_OPT", "ZNAME", …) VALUES (?, ?, 1, ?, …)   -- one statement per entity
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
        // New models reached through relationships of inserted or changed models are inserted too.
        // A new model whose relationships were not written since its insert walked them then.
        for m in inserted {
            let d = m.persistentBackingData
            if !d.relatedInserted { insertRelated(of: m, d) }
        }
        for id in changedOrder {
            if let m = changed[id] { insertRelated(of: m, m.persistentBackingData) }
        }
        try validateRelationshipCounts()
        let parts = try pendingChangesByStore()
        NotificationCenter.default.post(name: ModelContext.willSave, object: self)

        let outcome: WriteOutcome
        do {
            outcome = try write(parts)
        } catch {
            for m in inserted { m.persistentBackingData.pendingPK = 0 }
            throw error
        }

        // Committed: apply the new identities and versions and clear pending state.
        let plan = outcome.plan
        for (id, version) in outcome.versions { changed[id]?.persistentBackingData.version = version }
        var insertedIDs: [PersistentIdentifier] = []
        var updatedIDs: [PersistentIdentifier] = []
        var deletedIDs: [PersistentIdentifier] = []
        for id in deletedOrder {
            guard let m = deleted[id] else { continue }
            let d = m.persistentBackingData
            deletedIDs.append(m.persistentModelID)
            registered[rowKey(d)] = nil
            d.status = .removed
            d.context = nil
            // A deleted model's to-one relationships read nil from now on (its row is gone),
            // as its foreign keys did in the row.
            if let layout = d.layout {
                for slot in layout.relationshipSlots where !layout.slots[slot].isToMany {
                    d.setSlot(slot, ForeignKey(pk: 0), of: m, recordChange: false)
                }
            }
        }
        for rows in outcome.cascaded {
            let storeID = (stack.store(for: rows.layout) ?? store).identifier
            for key in rows.keys {
                deletedIDs.append(
                    PersistentIdentifier(entityName: rows.layout.name, storeIdentifier: storeID, key: .permanent(key)))
            }
        }
        for id in changedOrder {
            guard let m = changed[id] else { continue }
            let d = m.persistentBackingData
            d.committed = nil
            d.changed = []
            updatedIDs.append(m.persistentModelID)
        }
        // With one store (the usual container) every new row is in it: its identity is taken
        // once, not looked up through each model's layout (two retains and releases a model).
        let onlyStore = stack.stores.count == 1 ? store.identity : nil
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
                updatedIDs.append(d.persistentModelID(of: m))
            } else {
                registered[rowKey(d)] = m
                if adopts {
                    updatedIDs.append(d.persistentModelID(of: m))
                } else {
                    insertedIDs.append(d.persistentModelID(of: m))
                }
            }
        }
        for (earlier, later) in plan.collapsed {
            guard let m = inserted.first(where: { ObjectIdentifier($0) == earlier }) else { continue }
            let target = registered[rowKey(later.persistentBackingData)] ?? later
            m.persistentBackingData.pendingPK = 0
            m.persistentBackingData = target.persistentBackingData
        }
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
                NotificationKey.insertedIdentifiers.rawValue: insertedIDs,
                NotificationKey.updatedIdentifiers.rawValue: updatedIDs,
                NotificationKey.deletedIdentifiers.rawValue: deletedIDs,
            ])
    }

    /// The pending changes of each store (a container has one per configuration), in the
    /// stores' order; one part holding everything when the container has one store.
    ///
    /// - Throws: `.saveNotAllowed` naming the model and configuration when a change belongs to
    ///   a configuration created with `allowsSave: false` (nothing is written).
    private func pendingChangesByStore() throws -> [(store: SQLiteStore, changes: PendingChanges)] {
        let all = PendingChanges(
            inserted: inserted, changed: changed, changedOrder: changedOrder,
            deleted: deleted, deletedOrder: deletedOrder)
        guard stack.stores.count > 1 else { return [(store, all)] }
        var parts = stack.stores.map { _ in PendingChanges() }
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
        return zip(stack.stores, parts).filter { !$0.1.isEmpty }.map { ($0.0, $0.1) }
    }

    /// One store's share of a save's pending changes (see ``pendingChangesByStore()``).
    struct PendingChanges {
        var inserted: [any PersistentModel] = []
        var changed: [ObjectIdentifier: any PersistentModel] = [:]
        var changedOrder: [ObjectIdentifier] = []
        var deleted: [ObjectIdentifier: any PersistentModel] = [:]
        var deletedOrder: [ObjectIdentifier] = []
        var isEmpty: Bool { inserted.isEmpty && changedOrder.isEmpty && deletedOrder.isEmpty }
    }

    /// Writes every part in its store's transaction; a failure in any part rolls every part
    /// back. A save that writes several on-disk stores keeps them in step even when the
    /// process dies between their commits (``StoreCoordination``): it locks every writable
    /// on-disk store of the container and records the save in each store it writes.
    private func write(_ parts: [(store: SQLiteStore, changes: PendingChanges)]) throws -> WriteOutcome {
        if stack.stores.count == 1 {
            let outcome = try store.write { try self.write($0) }
            // Only with the injected fault history-separate-transaction (debug builds): the
            // save's history in a transaction of its own, after the save's commit.
            if let ranges = outcome.historyAfterCommit {
                try store.write { w in
                    try recordHistory(w, plan: outcome.plan, insertedRanges: ranges, cascaded: outcome.cascaded)
                }
            }
            return outcome
        }
        var outcome = WriteOutcome(plan: UpsertPlan())
        let onDisk = parts.map(\.store).filter { $0.url != nil }
        let coordinated = onDisk.count > 1 && !FaultInjection.isActive(.multiStoreUnprotected)
        let locked =
            coordinated
            ? stack.stores.filter { s in
                stack.coordinatedStores.contains { $0 === s } || parts.contains { $0.store === s }
            }
            : parts.map(\.store)
        try StoreCoordination.write(locked, recording: coordinated ? onDisk : nil) { writers in
            for part in parts {
                let w = writers[ObjectIdentifier(part.store)]!
                let result = try withPendingChanges(part.changes) { try self.write(w) }
                outcome.plan.adoptedRows += result.plan.adoptedRows
                outcome.plan.collapsed.merge(result.plan.collapsed) { a, _ in a }
                outcome.versions.merge(result.versions) { a, _ in a }
                outcome.stale += result.stale
                outcome.cascaded += result.cascaded
            }
        }
        return outcome
    }

    /// Runs `body` with the context's pending changes narrowed to `part`, then restores them.
    private func withPendingChanges<T>(_ part: PendingChanges, _ body: () throws -> T) rethrows -> T {
        let saved = PendingChanges(
            inserted: inserted, changed: changed, changedOrder: changedOrder,
            deleted: deleted, deletedOrder: deletedOrder)
        (inserted, changed, changedOrder, deleted, deletedOrder) =
            (part.inserted, part.changed, part.changedOrder, part.deleted, part.deletedOrder)
        defer {
            (inserted, changed, changedOrder, deleted, deletedOrder) =
                (saved.inserted, saved.changed, saved.changedOrder, saved.deleted, saved.deletedOrder)
        }
        return try body()
    }

    /// Writes the pending changes inside an open transaction, in this order: deletes; then the
    /// uniqueness resolution (`ModelContext+Upsert.swift`) and primary keys for new rows; rows
    /// that upsert into stored ones; inserts; updates; join-table pairs. Touches no in-memory
    /// state but the new rows' `pendingPK`, which `save()` clears on failure, so a failure leaves
    /// the context exactly as it was.
    private func write(_ w: StoreWriter) throws -> WriteOutcome {
        let strict =
            stack.configuration(of: w.mapping).mergePolicy == .error && !FaultInjection.isActive(.ignoreMergeConflict)
        var conflicts: [any PersistentModel] = []
        // Deletes first, so a new model may take the unique values of one deleted in this save.
        // References to the deleted rows are cleared once all of them are gone: a cascade
        // deletes a parent and its children in one save, and clearing the children's keys
        // to the parent first would rewrite rows about to be deleted (and their indexes).
        // Rows are deleted per table in batches of keys (a row whose version is checked, one
        // at a time), tables in the order their first row was deleted.
        var tables = PerLayoutMemo<StoreMapping.Table?>()
        var removed: [ObjectIdentifier: (table: StoreMapping.Table, keys: [Int64], unchecked: [Int64])] = [:]
        var tableOrder: [ObjectIdentifier] = []
        for id in deletedOrder {
            guard let m = deleted[id] else { continue }
            let d = m.persistentBackingData
            guard let layout = d.layout, let table = tables.value(for: layout, stack.table(for:)) else { continue }
            let key = ObjectIdentifier(table)
            if removed[key] == nil {
                removed[key] = (table, [], [])
                tableOrder.append(key)
            }
            removed[key]!.keys.append(d.pk)
            if strict && d.version != 0 {
                if try !w.deleteRow(table, pk: d.pk, ifVersion: d.version) { conflicts.append(m) }
            } else {
                removed[key]!.unchecked.append(d.pk)
            }
        }
        for key in tableOrder {
            guard let (table, _, unchecked) = removed[key] else { continue }
            try w.deleteRows(table, keys: unchecked)
        }
        var outcome = WriteOutcome(plan: UpsertPlan())
        // Cascades decided in SQL: their rows go before references to their parents are cleared
        // (which would detach them from the parents first).
        outcome.cascaded = try deleteSetCascades(w)
        for key in tableOrder {
            guard let (table, keys, _) = removed[key] else { continue }
            try w.detachReferences(to: table, keys: keys)
        }

        let plan = try resolveUniqueness(w)
        let insertedRanges = try allocatePrimaryKeys(w, plan)
        outcome.plan = plan

        // A row an upsert takes over lets go of its stored to-many members first (UNQ-14: the
        // new model's list replaces the stored one), all of them before any row is rewritten:
        // a member that is itself upserted in this save then keeps the owner its new model
        // names, whichever of the two was inserted first.
        // (A save that takes over no row, a batch insert, passes over none of this.)
        var cleared: Set<StoreWriter.KeyColumn> = []
        // Whether a new model's class has a to-many relationship (else no pairs to write for them).
        var newWithToMany = false
        let adopting = plan.adoptedRows.isEmpty ? [] : inserted
        for m in adopting {
            let d = m.persistentBackingData
            guard let adoption = UpsertPlan.adoption(of: d), let layout = d.layout, layout.hasToMany else { continue }
            newWithToMany = true
            try w.detachStoredToMany(of: layout, pk: adoption.pk, cleared: &cleared)
        }
        // Rows that collide with stored ones replace those rows' values (upsert): one prepared
        // statement per entity and set of indexed columns left out, built once and reused for
        // every such row.
        var adoptShapes: [ObjectIdentifier: AdoptionShape] = [:]
        for m in adopting {
            let d = m.persistentBackingData
            guard let adoption = UpsertPlan.adoption(of: d), let layout = d.layout, let table = stack.table(for: layout)
            else { continue }
            let shape: AdoptionShape
            if let known = adoptShapes[ObjectIdentifier(layout)] {
                shape = known
            } else {
                // An upsert rewrites the row and makes a new version of it, also when the unique
                // columns it matched on are its only ones (then the update sets only `Z_OPT`).
                let reads = table.adoptionColumns(layout)
                // A key column the detaching above set to NULL in some rows no longer holds
                // what the lookup read: it is always written.
                var alwaysWritten: UInt64 = 0
                for (index, read) in reads.enumerated().prefix(64)
                where read.role == .foreignKey
                    && cleared.contains(
                        StoreWriter.KeyColumn(
                            table: ObjectIdentifier(table), column: table.columns[Int(read.column) - 2]))
                {
                    alwaysWritten |= 1 << UInt64(index)
                }
                shape = AdoptionShape(
                    reads: reads,
                    update: table.plan(layout).isEmpty
                        ? nil : try w.updateStatement(table, reads: reads, checkingVersion: false),
                    alwaysWritten: alwaysWritten)
                adoptShapes[ObjectIdentifier(layout)] = shape
            }
            if let update = shape.update {
                // Indexed columns whose stored value is already the new one are left out.
                let unchanged = try RowCodec.unchangedIndexedColumns(
                    shape.reads, of: m, d, adoption.storedRow < 0 ? nil : plan.storedRows[Int(adoption.storedRow)],
                    except: shape.alwaysWritten, destinations: stack)
                let (reads, leavingOut) = try shape.statement(leavingOut: unchanged, w, table)
                let statement = leavingOut ?? update
                let bound = try RowCodec.bind(statement, d, reads, model: m, destinations: stack)
                try statement.bindKey(d.pendingPK, at: Int32(bound + 1))
                outcome.versions[ObjectIdentifier(m)] = try statement.runUpdate(
                    layout.name, key: d.pendingPK, knownVersion: adoption.version)
            }
        }
        // Inserts: one prepared statement per entity, reused for every row of it. Models are
        // grouped by runs of one entity (usually the whole save), so a run costs one hash; a
        // group holds the models' positions in `newModels`, not copies of the models (a retain
        // and a release each).
        let newModels = inserted
        var byEntity: [ObjectIdentifier: [Int]] = [:]
        var entityOrder: [ModelLayout] = []
        var runLayout: ModelLayout?
        var run: [Int] = []
        func endRun() {
            guard let layout = runLayout else { return }
            let key = ObjectIdentifier(layout)
            if byEntity[key] == nil { entityOrder.append(layout) }
            byEntity[key, default: []].append(contentsOf: run)
            run.removeAll(keepingCapacity: true)
        }
        for position in newModels.indices {
            let d = newModels[position].persistentBackingData
            guard UpsertPlan.writesNewRow(d), let layout = d.layout else { continue }
            if layout.hasToMany { newWithToMany = true }
            if layout !== runLayout {
                endRun()
                runLayout = layout
            }
            run.append(position)
        }
        endRun()
        for layout in entityOrder {
            guard let table = stack.table(for: layout), let ent = table.entityID(layout) else { continue }
            let reads = table.plan(layout)
            let insert = try w.insertStatement(table, reads: reads)
            for position in byEntity[ObjectIdentifier(layout)] ?? [] {
                let m = newModels[position]
                let d = m.persistentBackingData
                try insert.bindKey(d.pendingPK, at: 1)
                try insert.bindKey(ent, at: 2)
                try RowCodec.bind(insert, d, reads, model: m, destinations: stack)
                try insert.run(layout.name)
            }
        }
        if FaultInjection.isActive(.splitSave) { try w.commitAndContinue() }
        // Updates: only the changed columns (a row an upsert replaced takes the new model's values).
        let upserted = plan.adoptedKeys(if: !changedOrder.isEmpty)
        for id in changedOrder {
            guard let m = changed[id] else { continue }
            let d = m.persistentBackingData
            guard d.status == .persisted, let layout = d.layout, let table = stack.table(for: layout),
                !isTakenOver(d, upserted)
            else { continue }
            // Only a row whose columns change gets a new version: a to-many change lives in the
            // other rows' keys or a join table (set-like, nothing to lose), so it bumps nothing.
            let reads = table.plan(layout).filter { $0.slot < d.changed.count && d.changed[$0.slot] }
            guard !reads.isEmpty else { continue }
            let checked = strict && d.version != 0
            let update = try w.updateStatement(table, reads: reads, checkingVersion: checked)
            let bound = try RowCodec.bind(update, d, reads, model: m, destinations: stack)
            try update.bindKey(d.pk, at: Int32(bound + 1))
            if checked { try update.bindKey(d.version, at: Int32(bound + 2)) }
            guard let version = try update.runUpdate(layout.name, key: d.pk, knownVersion: checked ? d.version : nil)
            else {
                // Strict: the row changed since it was read, or is gone. Default: it is gone
                // (deleted by another writer); the change has nothing left to update.
                if strict { conflicts.append(m) }
                continue
            }
            outcome.versions[id] = version
            // Wrapping: a version read at Int64.max (a hostile store) only makes the row stale;
            // the update itself refused to bump a stored version at the top.
            if d.version != 0 && version != d.version &+ 1 { outcome.stale.append(m) }
        }
        if !conflicts.isEmpty { throw mergeConflictError(conflicts) }
        // Join tables and one-way keys: pairs of new models, and the difference for changed ones.
        // (Models of a class without to-many relationships, most of a bulk save, are passed over
        // without walking their slots.)
        func writePairs(of m: any PersistentModel, _ d: BackingData) throws {
            // A model deleted in this save (a cascade may reach a changed one) had its pairs
            // removed with its row above; writing its list again would leave dangling pairs.
            guard !d.isDeleted, let layout = d.layout, layout.hasToMany, let own = pendingOrStoredPK(m) else { return }
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
                let now = RelationshipGraph.models(in: current).filter { !$0.persistentBackingData.isDeleted }
                let before = isNew ? [] : RelationshipGraph.models(in: d.committed?[slot] ?? nil)
                let nowIDs = Set(now.map { ObjectIdentifier($0) })
                let beforeIDs = Set(before.map { ObjectIdentifier($0) })
                for gone in before where !nowIDs.contains(ObjectIdentifier(gone)) {
                    guard let other = pendingOrStoredPK(gone) else { continue }
                    switch storage {
                    case .joinTable(let name, let ownCol, let otherCol)?:
                        try w.unlink(name, own: ownCol, own, other: otherCol, other)
                    case .inverseForeignKey(let table, let column)?:
                        try w.clearOwnerKey(table, column: column, owner: own, on: other)
                    default: break
                    }
                }
                for added in now where !beforeIDs.contains(ObjectIdentifier(added)) {
                    guard let other = pendingOrStoredPK(added) else { continue }
                    switch storage {
                    case .joinTable(let name, let ownCol, let otherCol)?:
                        try w.link(name, own: ownCol, own, other: otherCol, other)
                    case .inverseForeignKey(let table, let column)?:
                        try w.setOwnerKey(table, column: column, owner: own, on: other)
                    default: break
                    }
                }
            }
        }
        // (Tested once, not as the loop's `where`: that would still visit every new model.)
        if newWithToMany {
            for m in inserted {
                let d = m.persistentBackingData
                if UpsertPlan.isCollapsed(d) { continue }
                try writePairs(of: m, d)
            }
        }
        for id in changedOrder {
            if let m = changed[id] { try writePairs(of: m, m.persistentBackingData) }
        }
        if FaultInjection.isActive(.historySeparateTransaction) && stack.stores.count == 1 {
            outcome.historyAfterCommit = insertedRanges
        } else {
            try recordHistory(w, plan: plan, insertedRanges: insertedRanges, cascaded: outcome.cascaded)
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
    private func mergeConflictError(_ models: [any PersistentModel]) -> SwiftDataError {
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

    /// New rows get keys above both the table's largest key and the largest ever handed out
    /// (`Z_PRIMARYKEY.Z_MAX`, as Core Data keeps it), so a deleted row's identifier is never reused.
    ///
    /// Returns the keys handed out per table, in the order the tables first came: every key of
    /// a range is a new row's (the history records them from the table, in one statement each).
    ///
    /// - Throws: ``SwiftDataError/corruptStore`` naming the entity when its table's largest key
    ///   or `Z_MAX` leaves no room below `Int64.max` for a new row (a store edited by another
    ///   tool); nothing has been written then, and the save's transaction rolls back.
    private func allocatePrimaryKeys(_ w: StoreWriter, _ plan: UpsertPlan) throws -> [(
        table: String, first: Int64, last: Int64
    )] {
        var next: [ObjectIdentifier: (table: StoreMapping.Table, pk: Int64)] = [:]
        // Each table's largest key before this save.
        var start: [ObjectIdentifier: Int64] = [:]
        var order: [ObjectIdentifier] = []
        var tables = PerLayoutMemo<StoreMapping.Table?>()
        // The table being numbered and its last key; written back to `next` when another
        // table's model comes (a save's new models mostly come in runs of one entity).
        var current: (key: ObjectIdentifier, table: StoreMapping.Table, pk: Int64)?
        for m in inserted {
            let d = m.persistentBackingData
            guard UpsertPlan.writesNewRow(d), let layout = d.layout,
                let table = tables.value(for: layout, stack.table(for:))
            else { continue }
            let key = ObjectIdentifier(table)
            if current?.key != key {
                if let c = current { next[c.key] = (c.table, c.pk) }
                if let known = next[key] {
                    current = (key, known.table, known.pk)
                } else {
                    current = (key, table, try w.largestKey(of: table))
                    next[key] = current.map { ($0.table, $0.pk) }
                    start[key] = current!.pk
                    order.append(key)
                }
            }
            let (pk, overflow) = current!.pk.addingReportingOverflow(1)
            if overflow { throw StoreWriter.keySpaceExhausted(entity: layout.name, table: current!.table.name) }
            current!.pk = pk
            d.pendingPK = pk
        }
        if let c = current { next[c.key] = (c.table, c.pk) }
        for key in order {
            let (table, pk) = next[key]!
            try w.recordLargestKey(pk, of: table)
        }
        for (earlier, later) in plan.collapsed {
            guard let m = inserted.first(where: { ObjectIdentifier($0) == earlier }) else { continue }
            m.persistentBackingData.pendingPK = later.persistentBackingData.pendingPK
        }
        return order.map { key in
            let (table, last) = next[key]!
            return (table.name, start[key]! + 1, last)
        }
    }

    func pendingOrStoredPK(_ model: any PersistentModel) -> Int64? {
        RowCodec.key(of: model.persistentBackingData)
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
                if collectingSetCascades, let cascade = setCascade(d, layout, slot, &cascadeCheck) {
                    setCascades.append(cascade)
                    continue
                }
                let related = RelationshipGraph.models(in: RelationshipGraph.currentValue(m, d, s), of: s)
                    .filter { !$0.isDeleted }
                guard !related.isEmpty else { continue }
                let rule = s.relationship?.deleteRule ?? .nullify
                if rule == .deny {
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
                switch layout.slots[slot].relationship?.deleteRule ?? .nullify {
                case .cascade:
                    for r in related where !r.isDeleted { deleteAny(r) }
                case .nullify, .noAction, .deny:
                    if let (il, islot) = layout.inverse(of: slot) {
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
/// stored value is unchanged (``RowCodec/unchangedIndexedColumns(_:of:_:_:except:destinations:)``), made on
/// first use.
final class AdoptionShape {
    let reads: [StoreMapping.Table.ColumnRead]
    /// `nil` when the entity has no column at all.
    let update: RowStatement?
    /// The reads never left out (bit `i` for `reads[i]`): key columns this save set to `NULL`
    /// in some rows after the lookup read them.
    let alwaysWritten: UInt64
    private var leavingOut: [UInt64: (reads: [StoreMapping.Table.ColumnRead], update: RowStatement)] = [:]
    /// The last statement asked for, which the next row of a save most often wants too.
    private var last: (unchanged: UInt64, reads: [StoreMapping.Table.ColumnRead], update: RowStatement)?

    init(
        reads: [StoreMapping.Table.ColumnRead], update: RowStatement?, alwaysWritten: UInt64
    ) {
        self.reads = reads
        self.update = update
        self.alwaysWritten = alwaysWritten
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

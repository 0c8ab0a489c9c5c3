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
    /// new model whose relationships were not written since its insert walked them then.
    private func insertRelatedModels() {
        for m in inserted {
            let d = m.persistentBackingData
            if !d.relatedInserted { insertRelated(of: m, d) }
        }
        for id in changedOrder {
            if let m = changed[id] { insertRelated(of: m, m.persistentBackingData) }
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
                saved.updated.append(d.persistentModelID(of: m))
            } else {
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
            m.persistentBackingData.pendingPK = 0
            m.persistentBackingData = target.persistentBackingData
        }
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
                try decode(row, into: d, model: model, table: table)
                d.loadedGeneration = generation
            }
        } catch {
            // The save itself committed; a failed re-read only means the next fetch refreshes.
            d.loadedGeneration = .unknown
        }
    }

    func pendingOrStoredPK(_ model: any PersistentModel) -> Int64? {
        let d = model.persistentBackingData
        if d.pk != 0 { return d.pk }
        return d.pendingPK != 0 ? d.pendingPK : nil
    }

    /// Binds the columns of `reads` for `d`'s row, from value position 0; returns how many
    /// values were bound (a composite binds one per element).
    @discardableResult
    func bindColumns(
        _ stmt: RowStatement, _ d: BackingData, _ reads: [StoreMapping.Table.ColumnRead],
        model: any PersistentModel
    ) throws -> Int {
        // The slots are read in place, through one borrow of the model's buffer; an `Int`,
        // `Double` or `String` attribute is bound right here (``encodeColumn`` otherwise).
        try d.values.withSlots { slots, count in
            var position = 0
            for index in reads.indices {
                if reads[index].role == .value, let direct = reads[index].codec?.directRead, reads[index].slot < count,
                    try bindDirect(stmt, at: position, slots + reads[index].slot, direct)
                {
                    position += 1
                    continue
                }
                position = try bindColumn(stmt, d, reads[index], model: model, at: position)
            }
            return position
        }
    }

    /// Binds the slot at `slot` as the value of position `position` when it holds exactly
    /// `direct`'s type and needs none of the codec's checks but the ones made here (a string is
    /// NFC-normalised as ``String/sqlValue()`` does), and returns `true`; returns `false`,
    /// binding nothing, for anything else (not loaded, another type, a NaN), which
    /// ``encodeColumn(_:_:model:)`` encodes or refuses with the property named. No
    /// ``SQLValue`` is made.
    @inline(__always)
    private func bindDirect(
        _ stmt: RowStatement, at position: Int, _ slot: UnsafePointer<Any>, _ direct: AttributeCodec.DirectRead
    ) throws -> Bool {
        switch direct {
        case .int:
            guard let v = SlotValues.exactValue(at: slot, as: Int.self) else { return false }
            try stmt.bindInteger(Int64(v), at: position)
        case .double:
            guard let v = SlotValues.exactValue(at: slot, as: Double.self), !v.isNaN else { return false }
            try stmt.bindReal(v, at: position)
        case .string:
            guard let v = SlotValues.exactValue(at: slot, as: String.self) else { return false }
            try stmt.bindText(nfcNormalized(v), at: position)
        }
        return true
    }

    /// Binds one column (or a composite's columns) of `read` from `position`; returns the next position.
    private func bindColumn(
        _ stmt: RowStatement, _ d: BackingData, _ read: StoreMapping.Table.ColumnRead, model: any PersistentModel,
        at start: Int
    ) throws -> Int {
        var position = start
        if let composite = read.composite {
            let value = read.slot < d.values.count ? d.values[read.slot] : nil
            for v in try naming(d, read.slot, { try composite.encode(value) }) {
                try stmt.bind(v, at: position)
                position += 1
            }
        } else {
            try stmt.bind(try encodeColumn(d, read, model: model), at: position)
            position += 1
        }
        return position
    }

    /// The slot at `slot` encoded as a `direct` type's column when it holds exactly that type,
    /// read in place, without the codec's closure (the codec's checks: NaN refused, text
    /// NFC-normalised); `nil` for anything else (not loaded, another type), which the codec
    /// encodes.
    @inline(__always)
    private func encodeDirect(at slot: UnsafePointer<Any>, _ direct: AttributeCodec.DirectRead) throws -> SQLValue? {
        switch direct {
        case .int: try SlotValues.exactValue(at: slot, as: Int.self)?.sqlValue()
        case .double: try SlotValues.exactValue(at: slot, as: Double.self)?.sqlValue()
        case .string: try SlotValues.exactValue(at: slot, as: String.self)?.sqlValue()
        }
    }

    /// Runs `body`, naming `d`'s class and property `slot` in the ``SwiftDataError`` it throws
    /// (a value that does not encode).
    private func naming<T>(_ d: BackingData, _ slot: Int, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch var e as SwiftDataError {
            e.entityName = d.layout?.name
            e.propertyName = d.layout?.slots[slot].name
            throw e
        }
    }

    /// Whether the stored row of `d` (a registered model with a layout) is one an upsert of
    /// this save takes over (`upserted`: ``UpsertPlan/adoptedKeys(if:)``).
    func isTakenOver(_ d: BackingData, _ upserted: Set<RowKey>) -> Bool {
        !upserted.isEmpty && upserted.contains(rowKey(d))
    }

    /// Which of `reads` (at most the first 64) an upsert into a stored row can leave out: the
    /// indexed columns its lookup read (`stored`) whose value is exactly the one `m` would
    /// write (``StoredColumn/isWritten(by:)``), but none in `alwaysWritten`. Bit `i` stands
    /// for `reads[i]`.
    func unchangedIndexedColumns(
        _ reads: [StoreMapping.Table.ColumnRead], of m: any PersistentModel, _ d: BackingData,
        _ stored: StoredRow?, except alwaysWritten: UInt64
    ) throws -> UInt64 {
        guard let stored else { return 0 }
        var unchanged: UInt64 = 0
        for index in reads.indices.prefix(64)
        where reads[index].width == 1 && alwaysWritten & (1 << UInt64(index)) == 0 {
            guard let position = stored.columns.firstIndex(of: reads[index].column) else { continue }
            if stored.values[position].isWritten(by: try encodeColumn(d, reads[index], model: m)) {
                unchanged |= 1 << UInt64(index)
            }
        }
        return unchanged
    }

    /// The columns an upsert writes into the stored row it adopted: all of them, except the
    /// unique group's when the layout has one group of `Int` or `String` columns. The row
    /// matched on exactly those values (SQLite's `=` and Swift's `==` agree on them), so
    /// writing them again would only rewrite the unique index's entry. (A `Double` keeps its
    /// column: `0.0` matches `-0.0`, and the new model's sign must win.)
    static func adoptionColumns(_ table: StoreMapping.Table, _ layout: ModelLayout) -> [StoreMapping.Table.ColumnRead] {
        let reads = table.plan(layout)
        guard let groups = table.uniqueGroups[ObjectIdentifier(layout.type)], groups.count == 1,
            groups[0].reads.allSatisfy({ read in
                read.role == .value && read.composite == nil
                    && (read.codec?.directRead == .int || read.codec?.directRead == .string)
            })
        else { return reads }
        let matched = Set(groups[0].reads.map(\.slot))
        return reads.filter { $0.role != .value || !matched.contains($0.slot) }
    }

    /// The value bound for one column: an attribute through its codec, a foreign key, or the
    /// entity number of a to-one's destination.
    func encodeColumn(_ d: BackingData, _ read: StoreMapping.Table.ColumnRead, model: any PersistentModel) throws
        -> SQLValue
    {
        if read.role == .foreignEntity { return try foreignEntity(d, read.slot) }
        if let codec = read.codec {
            return try naming(d, read.slot) {
                // An `Int`, `Double` or `String` attribute is read where it is stored
                // (``encodeDirect``); anything else — not loaded, another type — takes the codec.
                if let direct = codec.directRead,
                    let v = try d.values.withSlots({ slots, count in
                        read.slot < count ? try encodeDirect(at: slots + read.slot, direct) : nil
                    })
                {
                    return v
                }
                var value = read.slot < d.values.count ? d.values[read.slot] : nil
                if value == nil, let s = d.layout?.slots[read.slot], s.isConstant { value = model[keyPath: s.keyPath] }
                return try codec.encode(value)
            }
        }
        switch d.toOne(read.slot) {
        case .empty: return .null
        case .foreignKey(let fk): return .integer(fk)
        case .model(let target):
            guard !target.isDeleted else { return .null }
            return pendingOrStoredPK(target).map { .integer($0) } ?? .null
        }
    }

    /// The destination's `Z_ENT` of to-one `slot`, or NULL when it is empty.
    private func foreignEntity(_ d: BackingData, _ slot: Int) throws -> SQLValue {
        if let fk = d.unresolvedForeignKey(slot) {
            guard fk != 0, let target = d.layout?.slots[slot].target else { return .null }
            let tl = try ModelLayout.of(target)
            guard let table = stack.table(for: tl) else { return .null }
            // Not loaded: the destination's entity is read back from its row (a missing row
            // keeps the declared destination's number).
            if let stored = try stack.store(of: table).keys(
                holding: .inverseForeignKey(table: table, column: "Z_ENT"), of: table, pointingAt: fk
            ).first,
                stored > 0
            {
                return .integer(stored)
            }
            return table.entityID(tl).map { .integer($0) } ?? .null
        }
        guard case .model(let target) = d.toOne(slot), !target.isDeleted, let tl = target.persistentBackingData.layout,
            let id = stack.table(for: tl)?.entityID(tl)
        else { return .null }
        return .integer(id)
    }

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
/// stored value is unchanged (``ModelContext/unchangedIndexedColumns(_:of:_:_:except:)``), made on
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

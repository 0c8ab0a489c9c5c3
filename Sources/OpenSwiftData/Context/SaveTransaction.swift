import Foundation

/// One store's share of a save: the pending inserts, changes and deletes whose models that
/// store holds, and the steps that write them inside the store's open transaction.
///
/// ``ModelContext/save()`` makes one per store that has changes (the whole of the pending
/// changes when the container has one store). ``write(_:)`` writes, in this order: deletes;
/// the uniqueness resolution (``UniquenessResolution``) and primary keys for new rows; unique
/// values that saved rows give up (``vacateHandedOverValues(_:upserted:)``); rows that upsert into
/// stored ones; inserts; updates; the members those rows let go of
/// (``detachReplacedMembers(_:_:)``); join-table pairs; history. It touches no
/// in-memory state but the new rows' `pendingPK`, which the save clears on failure, and their
/// uniqueness dispositions, which every save's resolution sets afresh; so a failed write leaves
/// the context exactly as it was.
struct SaveTransaction {
    /// The context saving.
    let context: ModelContext
    /// The store written.
    let store: SQLiteStore
    /// New models, in insertion order.
    var inserted: [any PersistentModel] = []
    /// Changed models, by identity.
    var changed: [ObjectIdentifier: any PersistentModel] = [:]
    /// The order in which models were first changed.
    var changedOrder: [ObjectIdentifier] = []
    /// Deleted models, by identity.
    var deleted: [ObjectIdentifier: any PersistentModel] = [:]
    /// The order in which models were deleted.
    var deletedOrder: [ObjectIdentifier] = []

    /// Whether the store has nothing to write.
    var isEmpty: Bool { inserted.isEmpty && changedOrder.isEmpty && deletedOrder.isEmpty }

    /// The context's stores and their mappings.
    var stack: ContainerStack { context.stack }

    /// Writes the transaction's changes with `w`, whose transaction the caller opened and
    /// commits; returns what the save applies to the context after the commit.
    ///
    /// - Throws: the save's errors (``ModelContext/save()``); the caller rolls back.
    func write(_ w: StoreWriter) throws -> ModelContext.WriteOutcome {
        let strict =
            stack.configuration(of: w.mapping).mergePolicy == .error && !FaultInjection.isActive(.ignoreMergeConflict)
        var conflicts: [any PersistentModel] = []
        let removed = try deleteRows(w, strict: strict, conflicts: &conflicts)
        var outcome = ModelContext.WriteOutcome(plan: UpsertPlan())
        // Cascades decided in SQL: their rows go before references to their parents are cleared
        // (which would detach them from the parents first). A save of deletes only records its
        // history first, so that the cascades record theirs in SQL as they go.
        let history = try recordHistoryOfDeletes(w)
        outcome.cascaded = try context.deleteSetCascades(w, history: history)
        if history != nil { try w.recordLargestChangeKey() }
        try detachReferences(w, to: removed)

        var resolution = UniquenessResolution(self, w)
        let plan = try resolution.resolve()
        let insertedRanges = try allocatePrimaryKeys(w, plan)
        outcome.plan = plan
        // The stored rows new models take over: their changed models are written by the upsert.
        let upserted = plan.adoptedKeys(if: !changedOrder.isEmpty)
        try vacateHandedOverValues(w, upserted: upserted)

        let adoptedWithToMany = try adoptStoredRows(w, plan, versions: &outcome.versions)
        let newWithToMany = try insertRows(w) || adoptedWithToMany
        if FaultInjection.isActive(.splitSave) { try w.commitAndContinue() }
        try updateRows(w, upserted: upserted, strict: strict, conflicts: &conflicts, outcome: &outcome)
        if !conflicts.isEmpty { throw context.mergeConflictError(conflicts) }
        if adoptedWithToMany { try detachReplacedMembers(w, plan) }
        // Links to taken-over rows are left out of every list but their new models' own.
        let takenOver = upserted.isEmpty && newWithToMany ? plan.adoptedKeys(if: true) : upserted
        try writePairs(w, newWithToMany: newWithToMany, upserted: takenOver)
        // A save whose history went with its deletes (`history`) records nothing more.
        if history == nil && FaultInjection.isActive(.historySeparateTransaction) && stack.stores.count == 1 {
            outcome.historyAfterCommit = insertedRanges
        } else if history == nil {
            try recordHistory(w, plan: plan, insertedRanges: insertedRanges, cascaded: outcome.cascaded)
        }
        return outcome
    }

    // MARK: Deletes

    /// The rows a save deleted, per table, tables in the order their first row was deleted.
    struct RemovedRows {
        /// Per table: its keys deleted, and those deleted without a version check.
        var byTable: [ObjectIdentifier: (table: StoreMapping.Table, keys: [Int64], unchecked: [Int64])] = [:]
        /// The tables, in the order their first row came.
        var order: [ObjectIdentifier] = []
    }

    /// Deletes the rows of the deleted models: per table in batches of keys, except that with
    /// `strict` a row whose version is known is deleted alone, if still at that version (else its
    /// model goes into `conflicts`).
    ///
    /// Deletes come first, so a new model may take the unique values of one deleted in this
    /// save. References to the deleted rows are cleared once all of them are gone
    /// (``detachReferences(_:to:)``): a cascade deletes a parent and its children in one save,
    /// and clearing the children's keys to the parent first would rewrite rows about to be
    /// deleted (and their indexes).
    private func deleteRows(
        _ w: StoreWriter, strict: Bool, conflicts: inout [any PersistentModel]
    ) throws -> RemovedRows {
        var tables = PerLayoutMemo<StoreMapping.Table?>()
        var removed = RemovedRows()
        for id in deletedOrder {
            guard let m = deleted[id] else { continue }
            let d = m.persistentBackingData
            guard let layout = d.layout, let table = tables.value(for: layout, stack.table(for:)) else { continue }
            let key = ObjectIdentifier(table)
            if removed.byTable[key] == nil {
                removed.byTable[key] = (table, [], [])
                removed.order.append(key)
            }
            removed.byTable[key]!.keys.append(d.pk)
            if strict && d.version != 0 {
                if try !w.deleteRow(table, pk: d.pk, ifVersion: d.version) { conflicts.append(m) }
            } else {
                removed.byTable[key]!.unchecked.append(d.pk)
            }
        }
        for key in removed.order {
            guard let (table, _, unchecked) = removed.byTable[key] else { continue }
            try w.deleteRows(table, keys: unchecked)
        }
        return removed
    }

    /// Clears the keys and join-table pairs that referred to the `removed` rows; not the key
    /// columns the save's cascades in SQL (``ModelContext/setCascades``) emptied for all of them.
    private func detachReferences(_ w: StoreWriter, to removed: RemovedRows) throws {
        // Per key column a cascade in SQL emptied: the parents' keys.
        var emptied: [StoreWriter.KeyColumn: Set<Int64>] = [:]
        for cascade in context.setCascades where cascade.table.mapping === w.mapping {
            let column = StoreWriter.KeyColumn(table: ObjectIdentifier(cascade.table), column: cascade.column)
            emptied[column, default: []].insert(cascade.parentKey)
        }
        for key in removed.order {
            guard let (table, keys, _) = removed.byTable[key] else { continue }
            let skipped = Set(emptied.filter { keys.allSatisfy($0.value.contains) }.keys)
            try w.detachReferences(to: table, keys: keys, except: skipped)
        }
    }

    // MARK: Keys

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
        // Per table, in the order the tables first came: its largest key before this save and
        // the last key handed out. A save's new models are of a few tables, mostly in runs of
        // one entity: a short list, looked through when the table changes, serves better than
        // dictionaries (whose hashing and growth cost more than the keys of a one-model save).
        var ranges: [(table: StoreMapping.Table, start: Int64, last: Int64)] = []
        // The range being numbered (its place in `ranges`, its table and last key), written back
        // when another table's model comes.
        var current: (index: Int, table: StoreMapping.Table, last: Int64)?
        var tables = PerLayoutMemo<StoreMapping.Table?>()
        for m in inserted {
            let d = m.persistentBackingData
            guard UpsertPlan.writesNewRow(d), let layout = d.layout,
                let table = tables.value(for: layout, stack.table(for:))
            else { continue }
            if current?.table !== table {
                if let c = current { ranges[c.index].last = c.last }
                if let known = ranges.firstIndex(where: { $0.table === table }) {
                    current = (known, table, ranges[known].last)
                } else {
                    let largest = try w.largestKey(of: table)
                    ranges.append((table, largest, largest))
                    current = (ranges.count - 1, table, largest)
                }
            }
            let (pk, overflow) = current!.last.addingReportingOverflow(1)
            if overflow { throw StoreWriter.keySpaceExhausted(entity: layout.name, table: table.name) }
            current!.last = pk
            d.pendingPK = pk
        }
        if let c = current { ranges[c.index].last = c.last }
        for range in ranges {
            try w.recordLargestKey(range.last, of: range.table)
        }
        for (earlier, later) in plan.collapsed {
            guard let m = inserted.first(where: { ObjectIdentifier($0) == earlier }) else { continue }
            m.persistentBackingData.pendingPK = later.persistentBackingData.pendingPK
        }
        return ranges.map { ($0.table.name, $0.start + 1, $0.last) }
    }
}

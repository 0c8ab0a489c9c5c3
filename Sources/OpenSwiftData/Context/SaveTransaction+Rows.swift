import Foundation

extension SaveTransaction {
    // MARK: Adoptions

    /// Rewrites the stored rows that new models take over (upserts); returns whether such a
    /// model's class has a to-many relationship (then its members and pairs are written after
    /// the rows, ``detachReplacedMembers(_:_:)``). `versions` gets each adopting model's new row
    /// version. (A save that takes over no row, a batch insert, passes over none of this.)
    func adoptStoredRows(
        _ w: StoreWriter, _ plan: UpsertPlan, versions: inout [ObjectIdentifier: Int64]
    ) throws -> Bool {
        guard !plan.adoptedRows.isEmpty else { return false }
        var newWithToMany = false
        // Rows that collide with stored ones replace those rows' values: one prepared statement
        // per entity and set of indexed columns left out, built once and reused for every row.
        var shapes: [ObjectIdentifier: AdoptionShape] = [:]
        // The last model's class, table and shape: a save's upserts mostly come in runs of one class.
        var last: (layout: ModelLayout, table: StoreMapping.Table, shape: AdoptionShape)?
        versions.reserveCapacity(versions.count + plan.adoptedRows.count)
        for m in inserted {
            let d = m.persistentBackingData
            guard let adoption = UpsertPlan.adoption(of: d), let layout = d.layout else { continue }
            if layout.hasToMany { newWithToMany = true }
            let table: StoreMapping.Table
            let shape: AdoptionShape
            if let last, last.layout === layout {
                (table, shape) = (last.table, last.shape)
            } else {
                guard let found = stack.table(for: layout) else { continue }
                table = found
                if let known = shapes[ObjectIdentifier(layout)] {
                    shape = known
                } else {
                    shape = try adoptionShape(w, table, layout)
                    shapes[ObjectIdentifier(layout)] = shape
                }
                last = (layout, table, shape)
            }
            guard let update = shape.update, !FaultInjection.isActive(.upsertKeepsStoredValues) else { continue }
            // Indexed columns whose stored value is already the new one are left out.
            let unchanged = try RowCodec.unchangedIndexedColumns(
                shape.reads, of: m, d, adoption.storedRow < 0 ? nil : plan.storedRows[Int(adoption.storedRow)],
                destinations: stack)
            let (reads, leavingOut) = try shape.statement(leavingOut: unchanged, w, table)
            let statement = leavingOut ?? update
            let bound = try RowCodec.bind(statement, d, reads, model: m, destinations: stack)
            try statement.bindKey(d.pendingPK, at: Int32(bound + 1))
            versions[ObjectIdentifier(m)] = try statement.runUpdate(
                layout.name, key: d.pendingPK, knownVersion: adoption.version)
        }
        return newWithToMany
    }

    /// How the upserts of `layout`'s models update their rows. An upsert rewrites the row and
    /// makes a new version of it, also when the unique columns it matched on are its only ones
    /// (then the update sets only `Z_OPT`).
    private func adoptionShape(
        _ w: StoreWriter, _ table: StoreMapping.Table, _ layout: ModelLayout
    ) throws -> AdoptionShape {
        let reads = table.adoptionColumns(layout)
        return AdoptionShape(
            reads: reads,
            update: table.plan(layout).isEmpty
                ? nil : try w.updateStatement(table, reads: reads, checkingVersion: false))
    }

    /// Once every row is written: each row a new model took over keeps only the to-many
    /// members the new model's lists name (UNQ-14, the lists are replaced whole), with those of
    /// the new models that collapsed into it (UNQ-30: all their links were made by this save).
    /// The stored members leave it, and so does a model this save linked to the stored row's
    /// object (from either side); a member the new models name stays, whichever of them was
    /// written first. Children are detached, never deleted.
    func detachReplacedMembers(_ w: StoreWriter, _ plan: UpsertPlan) throws {
        var collapsedInto: [ObjectIdentifier: [BackingData]] = [:]
        for m in inserted where UpsertPlan.isCollapsed(m.persistentBackingData) {
            guard let later = plan.collapsed[ObjectIdentifier(m)] else { continue }
            collapsedInto[ObjectIdentifier(later), default: []].append(m.persistentBackingData)
        }
        for m in inserted {
            let d = m.persistentBackingData
            guard let adoption = UpsertPlan.adoption(of: d), let layout = d.layout, layout.hasToMany else { continue }
            let namers = [d] + (collapsedInto[ObjectIdentifier(m)] ?? [])
            try w.detachStoredMembers(of: layout, pk: adoption.pk) { slot in
                var kept: Set<Int64> = []
                for namer in namers where slot < namer.values.count {
                    for member in RelationshipGraph.models(in: namer.values[slot]) {
                        if let key = RowCodec.key(of: member.persistentBackingData) { kept.insert(key) }
                    }
                }
                return kept
            }
        }
    }

    // MARK: Inserts

    /// The positions in ``inserted`` of the models that insert a row of their own, grouped by
    /// entity (entities in the order their first model came), and whether one of those
    /// entities has a to-many relationship.
    ///
    /// Models are grouped by runs of one entity (usually the whole save), so a run costs one
    /// hash; a group holds positions, not copies of the models (a retain and a release each).
    private func newRowsByEntity() -> (
        order: [ModelLayout], positions: [ObjectIdentifier: [Int]], hasToMany: Bool
    ) {
        var byEntity: [ObjectIdentifier: [Int]] = [:]
        var entityOrder: [ModelLayout] = []
        var hasToMany = false
        var runLayout: ModelLayout?
        var run: [Int] = []
        func endRun() {
            guard let layout = runLayout else { return }
            let key = ObjectIdentifier(layout)
            if byEntity[key] == nil { entityOrder.append(layout) }
            byEntity[key, default: []].append(contentsOf: run)
            run.removeAll(keepingCapacity: true)
        }
        for position in inserted.indices {
            let d = inserted[position].persistentBackingData
            guard UpsertPlan.writesNewRow(d), let layout = d.layout else { continue }
            if layout.hasToMany { hasToMany = true }
            if layout !== runLayout {
                endRun()
                runLayout = layout
            }
            run.append(position)
        }
        endRun()
        return (entityOrder, byEntity, hasToMany)
    }

    /// Inserts the rows of the new models that write one: per entity, prepared statements of
    /// ``StoreWriter/rowsPerInsert`` rows and of one row, reused for every row of it. Returns
    /// whether such a model's class has a to-many relationship.
    func insertRows(_ w: StoreWriter) throws -> Bool {
        let newRows = newRowsByEntity()
        for layout in newRows.order {
            guard let table = stack.table(for: layout), let ent = table.entityID(layout) else { continue }
            try insertRows(w, table, layout, entity: ent, positions: newRows.positions[ObjectIdentifier(layout)] ?? [])
        }
        return newRows.hasToMany
    }

    /// Inserts the rows of the new models of `layout` at `positions` of ``inserted``, in that
    /// order: as many as fill a multi-row statement at a time (SQLite's per-statement work —
    /// opening and closing a cursor on the table and each of its indexes — paid once for all of
    /// them), the rest one by one.
    private func insertRows(
        _ w: StoreWriter, _ table: StoreMapping.Table, _ layout: ModelLayout, entity: Int64, positions: [Int]
    ) throws {
        let reads = table.plan(layout)
        let insert = try w.insertStatements(table, reads: reads, entity: entity, count: positions.count)
        let newModels = inserted
        var start = 0
        while start < positions.count {
            let batched = positions.count - start >= insert.rowsPerBatch ? insert.batched : nil
            let statement = batched ?? insert.single
            let rows = batched == nil ? 1 : insert.rowsPerBatch
            for row in 0..<rows {
                let m = newModels[positions[start + row]]
                let d = m.persistentBackingData
                let values = statement.row(row, parametersPerRow: insert.parametersPerRow)
                try values.bindKey(d.pendingPK, at: Int32(row) * insert.parametersPerRow + 1)
                try RowCodec.bind(values, d, reads, model: m, destinations: stack)
            }
            try statement.run(layout.name)
            start += rows
        }
    }

    // MARK: Updates

    /// Updates the changed models' rows: only the changed columns (a row an upsert replaced
    /// takes the new model's values instead). With `strict` the update also requires the version
    /// the context read, and a row changed or deleted since puts its model into `conflicts`.
    /// `outcome` gets each row's new version, and the models another writer changed meanwhile.
    func updateRows(
        _ w: StoreWriter, upserted: Set<ModelContext.RowKey>, strict: Bool, conflicts: inout [any PersistentModel],
        outcome: inout ModelContext.WriteOutcome
    ) throws {
        for id in changedOrder {
            guard let m = changed[id] else { continue }
            let d = m.persistentBackingData
            guard d.status == .persisted, let layout = d.layout, let table = stack.table(for: layout),
                !context.isTakenOver(d, upserted)
            else { continue }
            // Only a row whose columns change gets a new version: a to-many change lives in the
            // other rows' keys or a join table (set-like, nothing to lose), so it bumps nothing.
            let reads = table.plan(layout).filter { $0.slot < d.changed.count && d.changed[$0.slot] }
            guard !reads.isEmpty else { continue }
            // The update checks the version the context read whenever it knows one: strict,
            // a mismatch is a conflict; by default the row usually still has it, and then its
            // new version is known without reading it back. Only when another writer changed
            // or deleted the row meanwhile does the default policy update it unchecked.
            func update(checked: Bool) throws -> Int64? {
                let update = try w.updateStatement(table, reads: reads, checkingVersion: checked)
                let bound = try RowCodec.bind(update, d, reads, model: m, destinations: stack)
                try update.bindKey(d.pk, at: Int32(bound + 1))
                if checked { try update.bindKey(d.version, at: Int32(bound + 2)) }
                return try update.runUpdate(layout.name, key: d.pk, knownVersion: checked ? d.version : nil)
            }
            var newVersion = try update(checked: d.version != 0)
            if newVersion == nil, !strict, d.version != 0 { newVersion = try update(checked: false) }
            guard let version = newVersion else {
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
    }
}

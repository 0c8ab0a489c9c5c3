import Foundation

/// Unique values handed over between rows inside one save (UNQ-33).
///
/// A save is checked against its result: two saved rows may swap unique values, a chain of
/// renames may pass values along, and a new model may take the value a saved row leaves. The
/// store's unique indexes check every write as it happens, so written one row at a time in any
/// order, such a save would meet a value that is still held. Before inserts and updates, the
/// rows that move off a unique group's values therefore clear those columns (`NULL` never
/// collides, UNQ-19); their updates then write the new values. Rows that end the save holding
/// one value still collide at the index, and the save throws with nothing written.
extension SaveTransaction {
    /// Clears the unique columns that saved rows change in this save, in tables where anything
    /// else in the save could take their old values: a second such row, a new row or an upsert.
    /// A lone change has nobody to hand its value to and is written as it is. `upserted` are the
    /// stored rows new models take over (``UpsertPlan/adoptedKeys(if:)``): their changes are the
    /// upsert's to write, and each is a write of its table.
    func vacateHandedOverValues(_ w: StoreWriter, upserted: Set<ModelContext.RowKey>) throws {
        guard !changedOrder.isEmpty else { return }
        var moves: [(table: StoreMapping.Table, pk: Int64, reads: [StoreMapping.Table.ColumnRead])] = []
        var writers: [ObjectIdentifier: Int] = [:]
        for id in changedOrder {
            guard let m = changed[id] else { continue }
            let d = m.persistentBackingData
            guard d.status == .persisted, let layout = d.layout, let table = stack.table(for: layout),
                !context.isTakenOver(d, upserted),
                let groups = table.uniqueGroups[ObjectIdentifier(layout.type)], !groups.isEmpty
            else { continue }
            let reads = movedColumns(groups, d.changed)
            guard !reads.isEmpty else { continue }
            moves.append((table, d.pk, reads))
            writers[ObjectIdentifier(table.root), default: 0] += 1
        }
        guard !moves.isEmpty else { return }
        for row in upserted { writers[row.table, default: 0] += 1 }
        for m in inserted {
            guard let layout = m.persistentBackingData.layout, let table = stack.table(for: layout) else { continue }
            writers[ObjectIdentifier(table.root), default: 0] += 1
        }
        for move in moves where writers[ObjectIdentifier(move.table.root), default: 0] > 1 {
            try w.clearColumns(move.table, move.reads, of: move.pk)
        }
    }

    /// The columns of `groups` whose slots `changed` marks, each once, in column order. Only
    /// those: the row's update rewrites its changed columns, and one `NULL` member is enough to
    /// keep a compound group from colliding.
    private func movedColumns(_ groups: [StoreMapping.Table.UniqueGroup], _ changed: [Bool])
        -> [StoreMapping.Table.ColumnRead]
    {
        var reads: [StoreMapping.Table.ColumnRead] = []
        for group in groups {
            for read in group.reads where read.slot < changed.count && changed[read.slot] {
                if !reads.contains(where: { $0.column == read.column }) { reads.append(read) }
            }
        }
        return reads.sorted { $0.column < $1.column }
    }
}

import Foundation

/// How one store's share of a save resolves the uniqueness groups of its new models against the
/// store and against each other (Docs/BehaviourReference.md, UNQ-10…41); ``resolve()`` gives the
/// ``UpsertPlan`` and sets each new model's ``BackingData/disposition``.
///
/// Lookups go through ``StoreWriter/rows(matching:_:indexed:)`` (one-column groups in batches,
/// ``StoreWriter/rows(matching:anyOf:indexed:found:)``). Rules: a group holding a nil never
/// collides; a collision with one stored row makes the new model update that row (its values
/// win; the row keeps its key); a collision with two different rows, or with a row of another
/// class, throws ``SwiftDataError/uniqueConstraintViolation`` and writes nothing; colliding new
/// models collapse into the later one. A registered row that this save moves off the value does
/// not count as a collision.
///
/// It goes in three steps: each new model's group values, and collisions between new models
/// (``collectValues()``); the stored rows holding those values (``lookUpStoredRows()``); per new
/// model, in insertion order, the one stored row it adopts (``adoptStoredRow(_:)``).
struct UniquenessResolution {
    /// One value of a candidate's group; each candidate's entries are a range of one shared
    /// list, so a model with one one-column group costs an entry, no arrays of its own.
    private struct Entry {
        /// The group's index in its candidate's shape's `groups`.
        let group: Int
        /// A one-column group's value; `values` holds a wider group's.
        let value: SQLValue
        let values: [SQLValue]
        var all: [SQLValue] { values.isEmpty ? [value] : values }
    }

    /// A class with uniqueness groups: its layout, table and groups, shared by its models.
    private struct Shape {
        let layout: ModelLayout
        let table: StoreMapping.Table
        let groups: [StoreMapping.Table.UniqueGroup]
        /// The class's entity number in `table`.
        let entity: Int64?
    }

    /// A new model with values in some group (two references, copied once per model).
    private struct Candidate {
        let model: any PersistentModel
        let data: BackingData
        /// Its index in `shapes`.
        let shape: Int
        let entries: Range<Int>
    }

    /// The stored rows holding one value: one, almost always (no array made for it).
    private struct FoundRows {
        var first: StoreWriter.UniqueMatch
        var more: [StoreWriter.UniqueMatch] = []
    }

    /// One group's claimed values and stored rows, read and written once per new model, in
    /// place in ``states`` (a value, so the writes need no run-time exclusivity check).
    private struct GroupState {
        /// One-column values → the latest new model claiming each (keyed by the value itself,
        /// so the common case hashes one `SQLValue` and allocates nothing per model).
        var single = ValueMap<any PersistentModel>()
        /// Wider groups' values → the latest new model claiming them.
        var multi: [[SQLValue]: any PersistentModel] = [:]
        /// The one-column values to look up in batches.
        var pending: [SQLValue] = []
        /// The stored rows holding each looked-up value.
        var found = ValueMap<FoundRows>()
        var group: StoreMapping.Table.UniqueGroup?
        var table: StoreMapping.Table?

        /// Makes room for `count` one-column values of `value`'s kind.
        mutating func reserve(_ count: Int, like value: SQLValue) {
            single.reserveCapacity(count, like: value)
            pending.reserveCapacity(count)
        }
    }

    /// The stored row a candidate matched, and how many different ones it matched.
    private struct StoredMatch {
        var pk: Int64 = 0
        var ent: Int64 = 0
        var version: Int64?
        var row: StoredRow?
        var count = 0
        /// The groups that matched (indexes in the candidate's shape's `groups`), for the
        /// error; a second one only when there is one.
        var firstGroup = -1
        var moreGroups: [Int] = []
    }

    private let transaction: SaveTransaction
    private let w: StoreWriter
    private var plan = UpsertPlan()
    /// Which new model takes over each stored row, by table and key (a key alone repeats across
    /// tables: two classes' first rows are both 1).
    private var adoptedBy: [ModelContext.RowKey: any PersistentModel] = [:]
    /// Per uniqueness group of the store (by ``StoreMapping/Table/UniqueGroup/id``).
    private var states: [GroupState]
    private var candidates: [Candidate] = []
    private var entries: [Entry] = []
    private var shapes: [Shape] = []
    /// Each table's indexed columns, read once per save and only for a table with rows.
    private var indexed: [ObjectIdentifier: IndexedColumns] = [:]

    /// A resolution of `transaction`'s new models, looking up stored rows with `w`.
    init(_ transaction: SaveTransaction, _ w: StoreWriter) {
        self.transaction = transaction
        self.w = w
        states = Array(repeating: GroupState(), count: w.mapping.uniqueGroupCount)
    }

    /// Resolves every new model's uniqueness groups; returns the plan.
    ///
    /// - Throws: ``SwiftDataError/uniqueConstraintViolation`` (nothing written), and the
    ///   store's and the values' errors.
    mutating func resolve() throws -> UpsertPlan {
        try collectValues()
        try lookUpStoredRows()
        // No candidate can match a stored row when every group was looked up in batches and
        // none found one (a save of new rows only).
        if states.allSatisfy({ $0.found.isEmpty }),
            shapes.allSatisfy({ $0.groups.allSatisfy { $0.batchLookupSQL != nil } })
        {
            return plan
        }
        for c in candidates where !UpsertPlan.isCollapsed(c.data) { try adoptStoredRow(c) }
        return plan
    }

    /// Makes `earlier` collapse into `later`, which takes over the row `earlier` adopted, and
    /// the models that had collapsed into `earlier`.
    private mutating func collapse(_ earlier: any PersistentModel, into later: any PersistentModel) {
        let e = ObjectIdentifier(earlier)
        plan.collapsed[e] = later
        let data = earlier.persistentBackingData
        if case .adopt(let adoption) = data.disposition, let layout = data.layout,
            let table = transaction.stack.table(for: layout)
        {
            let row = ModelContext.RowKey(table, pk: adoption.pk)
            if adoptedBy[row] === earlier { adoptedBy[row] = later }
        }
        data.disposition = .collapse
        for (k, v) in plan.collapsed where v === earlier { plan.collapsed[k] = later }
    }

    /// `table`'s indexed columns (read on first use).
    private mutating func indexedColumns(_ table: StoreMapping.Table) throws -> IndexedColumns {
        if let known = indexed[ObjectIdentifier(table)] { return known }
        let found = try w.indexedColumns(table)
        indexed[ObjectIdentifier(table)] = found
        return found
    }
}

extension UniquenessResolution {
    /// Step 1: each new model's group values (its ``Candidate``), and collisions between new
    /// models (the later one wins).
    private mutating func collectValues() throws {
        let inserted = transaction.inserted
        candidates.reserveCapacity(inserted.count)
        entries.reserveCapacity(inserted.count)
        var shapeOfLayout = PerLayoutMemo<Int?>()
        // The last candidate's shape and its groups, held across models (a save's new models
        // are mostly of one class): taken from `shapes` for every model, the groups cost a
        // retain and a release each time.
        var lastShape = -1
        var groups: [StoreMapping.Table.UniqueGroup] = []
        for m in inserted {
            let d = m.persistentBackingData
            d.disposition = .insert
            guard let layout = d.layout, let shape = shapeOfLayout.value(for: layout, { shapeIndex(of: $0) })
            else { continue }
            if shape != lastShape { (lastShape, groups) = (shape, shapes[shape].groups) }
            let first = entries.count
            for index in groups.indices {
                try collectValue(of: m, d, groups[index], index: index, shape: shape)
            }
            if entries.count > first {
                candidates.append(Candidate(model: m, data: d, shape: shape, entries: first..<entries.count))
            }
        }
    }

    /// The index in `shapes` of `layout`'s class, added on its first model; `nil` for a class
    /// without uniqueness groups.
    private mutating func shapeIndex(of layout: ModelLayout) -> Int? {
        guard let table = transaction.stack.table(for: layout),
            let groups = table.uniqueGroups[ObjectIdentifier(layout.type)], !groups.isEmpty
        else { return nil }
        shapes.append(Shape(layout: layout, table: table, groups: groups, entity: table.entityID(layout)))
        return shapes.count - 1
    }

    /// Claims model `m`'s values of `group` (the `index`-th of shape `shape`); an earlier new
    /// model holding them collapses into `m`. A group holding a nil claims nothing.
    private mutating func collectValue(
        of m: any PersistentModel, _ d: BackingData, _ group: StoreMapping.Table.UniqueGroup, index: Int,
        shape: Int
    ) throws {
        let id = group.id
        // A group belongs to one table: noted by its first model (assigning the same group
        // again, for every model, would retain the new value and release the old).
        if states[id].table == nil {
            states[id].group = group
            states[id].table = shapes[shape].table
        }
        let earlier: (any PersistentModel)?
        if group.reads.count == 1 {
            let v = try RowCodec.encode(d, group.reads[0], model: m, destinations: transaction.stack)
            if v == .null, !FaultInjection.isActive(.uniqueNilCollides) { return }
            // Room for every new model's value at once, not by repeated growth and rehashing.
            if states[id].pending.capacity == 0 { states[id].reserve(transaction.inserted.count, like: v) }
            earlier = states[id].single.updateValue(m, forKey: v)
            if earlier == nil, group.batchLookupSQL != nil { states[id].pending.append(v) }
            entries.append(Entry(group: index, value: v, values: []))
        } else {
            let values = try group.reads.map { try RowCodec.encode(d, $0, model: m, destinations: transaction.stack) }
            if values.contains(.null), !FaultInjection.isActive(.uniqueNilCollides) { return }
            earlier = states[id].multi.updateValue(m, forKey: values)
            entries.append(Entry(group: index, value: .null, values: values))
        }
        if let earlier, earlier !== m, !UpsertPlan.isCollapsed(earlier.persistentBackingData) {
            collapse(earlier, into: m)
        }
    }

    /// Step 2: the stored rows holding the claimed values of one-column groups, in batches
    /// (``StoreWriter/rows(matching:anyOf:indexed:found:)``).
    private mutating func lookUpStoredRows() throws {
        for id in states.indices where !states[id].pending.isEmpty {
            guard let group = states[id].group, let table = states[id].table else { continue }
            var found = ValueMap<FoundRows>()
            try w.rows(matching: group, anyOf: states[id].pending, indexed: { try indexedColumns(table) }) {
                value, match in
                // One hash for the common case, a value held by one row.
                if var earlier = found.updateValue(FoundRows(first: match), forKey: value) {
                    earlier.more.append(match)
                    found[value] = earlier
                }
            }
            states[id].found = found
        }
    }
}

extension UniquenessResolution {
    /// Step 3, for candidate `c`: adopts the one stored row it matches, if any.
    ///
    /// - Throws: ``SwiftDataError/uniqueConstraintViolation`` when it matches several rows, or
    ///   a row of another class.
    private mutating func adoptStoredRow(_ c: Candidate) throws {
        let m = c.model
        let layout = shapes[c.shape].layout
        let table = shapes[c.shape].table
        let stored = try storedMatch(of: c)
        if stored.count > 1 {
            let groups = ([stored.firstGroup] + stored.moreGroups).filter { $0 >= 0 }
                .map { shapes[c.shape].groups[$0].key }.joined(separator: "; ")
            throw SwiftDataError(
                SwiftDataError.uniqueConstraintViolation.code,
                "a new \(layout.name) matches \(stored.count) different stored rows on its unique values (\(groups)); an upsert can replace only one row, so nothing was saved",
                entityName: layout.name)
        }
        guard stored.count == 1, !FaultInjection.isActive(.upsertInsertsDuplicate) else { return }
        if stored.ent != shapes[c.shape].entity {
            let other = table.layout(forEntityID: stored.ent)?.name ?? "another class"
            throw SwiftDataError(
                SwiftDataError.uniqueConstraintViolation.code,
                "a new \(layout.name) has the unique values of a stored \(other); an upsert cannot change a row's class, so nothing was saved",
                entityName: layout.name)
        }
        let row = ModelContext.RowKey(table, pk: stored.pk)
        // One hash: the row's previous taker, if any, collapses into `m`, which ends up taking
        // the row either way.
        if adoptedBy.isEmpty { adoptedBy.reserveCapacity(candidates.count) }
        if let previous = adoptedBy.updateValue(m, forKey: row), previous !== m { collapse(previous, into: m) }
        var adoption = UpsertPlan.Adoption(pk: stored.pk, version: stored.version)
        if let storedRow = stored.row {
            adoption.storedRow = Int32(plan.storedRows.count)
            plan.storedRows.append(storedRow)
        }
        plan.adopt(m, c.data, adoption, in: table)
    }

    /// The stored rows holding candidate `c`'s values: the last one found, and how many
    /// different ones there are. A registered row that this save moves off its value is passed over.
    private mutating func storedMatch(of c: Candidate) throws -> StoredMatch {
        if let found = singleLookedUpMatch(of: c) { return found }
        let table = shapes[c.shape].table
        var stored = StoredMatch()
        for entry in entries[c.entries] {
            let group = shapes[c.shape].groups[entry.group]
            // The stored rows holding the entry's values: one, almost always.
            let found: FoundRows
            if group.batchLookupSQL != nil {
                // Nothing stored matched any value of the group (a save of new rows only).
                guard !states[group.id].found.isEmpty, let rows = states[group.id].found[entry.value] else { continue }
                found = rows
            } else {
                guard let rows = try lookUpRows(entry, group, table) else { continue }
                found = rows
            }
            for index in -1..<found.more.count {
                let match = index < 0 ? found.first : found.more[index]
                let pk = match.pk
                // Only a registered row with pending changes can move away (no array made otherwise).
                if !transaction.changed.isEmpty, movesAway(pk: pk, table: table, group: group, values: entry.all) {
                    continue
                }
                if stored.count == 0 || pk != stored.pk { stored.count += 1 }
                stored.pk = pk
                stored.ent = match.ent
                stored.version = match.version
                stored.row = match.stored
                if stored.firstGroup < 0 {
                    stored.firstGroup = entry.group
                } else {
                    stored.moreGroups.append(entry.group)
                }
            }
        }
        return stored
    }

    /// ``storedMatch(of:)`` in the usual case, read in place: candidate `c` has one value, of a
    /// group looked up in batches, which at most one stored row holds, and no changed model
    /// could move off it. `nil` for any other case.
    private func singleLookedUpMatch(of c: Candidate) -> StoredMatch? {
        guard c.entries.count == 1, transaction.changed.isEmpty else { return nil }
        let entry = c.entries.lowerBound
        let group = entries[entry].group
        guard shapes[c.shape].groups[group].batchLookupSQL != nil else { return nil }
        let id = shapes[c.shape].groups[group].id
        guard !states[id].found.isEmpty, let rows = states[id].found[entries[entry].value] else { return StoredMatch() }
        guard rows.more.isEmpty else { return nil }
        return StoredMatch(
            pk: rows.first.pk, ent: rows.first.ent, version: rows.first.version, row: rows.first.stored, count: 1,
            firstGroup: group)
    }

    /// The stored rows holding `entry`'s values of `group`, a group not looked up in batches:
    /// one, almost always; `nil` for none.
    private mutating func lookUpRows(
        _ entry: Entry, _ group: StoreMapping.Table.UniqueGroup, _ table: StoreMapping.Table
    ) throws -> FoundRows? {
        let rows = try w.rows(matching: group, entry.all, indexed: try indexedColumns(table))
        guard let first = rows.first else { return nil }
        return FoundRows(first: first, more: Array(rows.dropFirst()))
    }

    /// Whether the stored row `pk` is registered here with a pending change that moves its
    /// group values away from `values` (so it will not collide once this save is written).
    private func movesAway(
        pk: Int64, table: StoreMapping.Table, group: StoreMapping.Table.UniqueGroup, values: [SQLValue]
    ) -> Bool {
        guard let model = transaction.context.registered[ModelContext.RowKey(table, pk: pk)],
            transaction.changed[ObjectIdentifier(model)] != nil
        else { return false }
        let d = model.persistentBackingData
        // try?: a value that does not encode makes the save throw when it is written; here it only counts as moved.
        let now = group.reads.map {
            (try? RowCodec.encode(d, $0, model: model, destinations: transaction.stack)) ?? .null
        }
        return now != values
    }
}

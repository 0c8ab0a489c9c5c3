import Foundation

/// How a save resolves uniqueness (Docs/BehaviourReference.md, UNQ-*): which new models upsert into
/// stored rows and which collapse into a later new model.
struct UpsertPlan {
    /// What a save does with one new model (its ``BackingData/disposition``).
    enum Disposition {
        /// Inserts a row of its own.
        case insert
        /// Updates the stored row it matched and takes its key and version (``Adoption``).
        case adopt(Adoption)
        /// Collapses into a later new model of the same save, which writes the row.
        case collapse
    }

    /// A stored row a new model takes over: its key, and its version (`Z_OPT`) when the lookup
    /// read one (this transaction's write lock keeps it, so the upsert's update makes it one
    /// more, without reading it back).
    struct Adoption {
        let pk: Int64
        let version: Int64?
        /// The row's indexed columns as the lookup read them, an index into
        /// ``UpsertPlan/storedRows`` (`-1` for none): the upsert's `UPDATE` leaves out those it
        /// would not change. An index, not the row, so that every model's storage stays as small.
        var storedRow: Int32 = -1
    }
    /// The indexed columns of the stored rows new models take over (``Adoption/storedRow``).
    var storedRows: [StoredRow] = []
    /// The stored rows new models take over, by table and key (each model's own adoption is
    /// its ``BackingData/disposition``); a row may appear twice when a later new model took it
    /// over from an earlier one that collapsed into it. Keys repeat across tables, so a key
    /// alone does not name a row.
    var adoptedRows: [ModelContext.RowKey] = []
    /// New models that collide with a later new model in the same save: the later one wins and
    /// both end up on one row.
    var collapsed: [ObjectIdentifier: any PersistentModel] = [:]

    /// Whether the new model whose storage is `d` needs an `INSERT` of its own.
    static func writesNewRow(_ d: BackingData) -> Bool {
        if case .insert = d.disposition { true } else { false }
    }

    /// Whether the new model whose storage is `d` collapses into a later new model.
    static func isCollapsed(_ d: BackingData) -> Bool {
        if case .collapse = d.disposition { true } else { false }
    }

    /// The stored row the new model whose storage is `d` updates, or `nil` when it does not upsert.
    static func adoption(of d: BackingData) -> Adoption? {
        if case .adopt(let adoption) = d.disposition { adoption } else { nil }
    }

    /// The keys of the stored rows new models take over, for the checks of changed models
    /// (empty when `needed` is false: a save without changed models asks for none).
    func adoptedKeys(if needed: Bool) -> Set<ModelContext.RowKey> { needed ? Set(adoptedRows) : [] }

    /// Records that `model` (storage `d`) adopts the stored row `adoption` of `table`.
    mutating func adopt(
        _ model: any PersistentModel, _ d: BackingData, _ adoption: Adoption, in table: StoreMapping.Table
    ) {
        adoptedRows.append(ModelContext.RowKey(table, pk: adoption.pk))
        d.disposition = .adopt(adoption)
        d.pendingPK = adoption.pk
    }
}

/// A value looked up per model layout (its table, history info, uniqueness groups), remembered
/// from the previous model: a save's loops visit many models of one entity in a row, and each
/// lookup would hash the layout's type.
struct PerLayoutMemo<Value> {
    private var layout: ModelLayout?
    private var value: Value?

    /// `layout`'s value: the previous one when the layout is the same, else `lookUp(layout)`.
    mutating func value(for layout: ModelLayout, _ lookUp: (ModelLayout) -> Value) -> Value {
        if layout === self.layout, let value { return value }
        let value = lookUp(layout)
        self.layout = layout
        self.value = value
        return value
    }
}

extension ModelContext {
    /// Resolves every new model's uniqueness groups against the store and against each other.
    ///
    /// Lookups go through ``StoreWriter/rows(matching:_:)`` (one-column groups in batches).
    /// Rules (UNQ-10…41): a group holding a nil never collides; a collision with one stored row
    /// makes the new model update that row (its values win; the row keeps its key); a
    /// collision with two different rows, or with a row of another class, throws
    /// ``SwiftDataError/uniqueConstraintViolation`` and writes nothing; colliding new models
    /// collapse into the later one. A registered row that this save moves off the value does not
    /// count as a collision.
    func resolveUniqueness(_ w: StoreWriter) throws -> UpsertPlan {
        var plan = UpsertPlan()
        // Which new model takes over each stored row, by table and key (a key alone repeats
        // across tables: two classes' first rows are both 1).
        var adoptedBy: [RowKey: any PersistentModel] = [:]
        func collapse(_ earlier: any PersistentModel, into later: any PersistentModel) {
            let e = ObjectIdentifier(earlier)
            plan.collapsed[e] = later
            let data = earlier.persistentBackingData
            if case .adopt(let adoption) = data.disposition, let layout = data.layout,
                let table = stack.table(for: layout)
            {
                let row = RowKey(table, pk: adoption.pk)
                if adoptedBy[row] === earlier { adoptedBy[row] = later }
            }
            data.disposition = .collapse
            for (k, v) in plan.collapsed where v === earlier { plan.collapsed[k] = later }
        }
        // 1. Each new model's group values, and collisions between new models (last wins).
        //    Per group: claimed values → the latest model (one-column groups key by the value
        //    itself, so the common case hashes one SQLValue and allocates nothing per model).
        //    Each candidate's (group, values) pairs go into one shared list: a model with one
        //    one-column group costs an entry, no arrays of its own.
        struct Entry {
            /// The group's index in its candidate's `groups`.
            let group: Int
            /// A one-column group's value; `values` holds a wider group's.
            let value: SQLValue
            let values: [SQLValue]
            var all: [SQLValue] { values.isEmpty ? [value] : values }
        }
        /// A class with uniqueness groups: its layout, table and groups, shared by its models.
        struct Shape {
            let layout: ModelLayout
            let table: StoreMapping.Table
            let groups: [StoreMapping.Table.UniqueGroup]
        }
        /// A new model with values in some group (two references, copied once per model).
        struct Candidate {
            let model: any PersistentModel
            let data: BackingData
            /// Its index in `shapes`.
            let shape: Int
            let entries: Range<Int>
        }
        /// The stored rows holding one value: one, almost always (no array made for it).
        struct FoundRows {
            var first: StoreWriter.UniqueMatch
            var more: [StoreWriter.UniqueMatch] = []
        }
        // Its fields are read and written once per new model.
        final class GroupState {
            var single = ValueMap<any PersistentModel>()
            var multi: [[SQLValue]: any PersistentModel] = [:]
            var pending: [SQLValue] = []
            var found = ValueMap<FoundRows>()
            var group: StoreMapping.Table.UniqueGroup?
            var table: StoreMapping.Table?
        }
        // Each table's indexed columns, read once per save and only for a table with rows.
        var indexed: [ObjectIdentifier: IndexedColumns] = [:]
        func indexedColumns(_ table: StoreMapping.Table) throws -> IndexedColumns {
            if let known = indexed[ObjectIdentifier(table)] { return known }
            let found = try w.indexedColumns(table)
            indexed[ObjectIdentifier(table)] = found
            return found
        }
        let states = (0..<w.mapping.uniqueGroupCount).map { _ in GroupState() }
        var candidates: [Candidate] = []
        var entries: [Entry] = []
        candidates.reserveCapacity(inserted.count)
        entries.reserveCapacity(inserted.count)
        var shapes: [Shape] = []
        var shapeOfLayout = PerLayoutMemo<Int?>()
        // The last candidate's shape and its groups, held across models (a save's new models
        // are mostly of one class): taken from `shapes` for every model, the groups cost a
        // retain and a release each time.
        var lastShape = -1
        var groups: [StoreMapping.Table.UniqueGroup] = []
        for m in inserted {
            let d = m.persistentBackingData
            d.disposition = .insert
            guard let layout = d.layout,
                let shape = shapeOfLayout.value(
                    for: layout,
                    { layout in
                        guard let table = stack.table(for: layout),
                            let groups = table.uniqueGroups[ObjectIdentifier(layout.type)], !groups.isEmpty
                        else { return nil }
                        shapes.append(Shape(layout: layout, table: table, groups: groups))
                        return shapes.count - 1
                    })
            else { continue }
            if shape != lastShape { (lastShape, groups) = (shape, shapes[shape].groups) }
            let first = entries.count
            for index in groups.indices {
                let group = groups[index]
                let state = states[group.id]
                // A group belongs to one table: noted by its first model (assigning the same
                // group again, for every model, would retain the new value and release the old).
                if state.table == nil {
                    state.group = group
                    state.table = shapes[shape].table
                }
                let earlier: (any PersistentModel)?
                if group.reads.count == 1 {
                    let v = try encodeColumn(d, group.reads[0], model: m)
                    if v == .null { continue }
                    earlier = state.single.updateValue(m, forKey: v)
                    if earlier == nil, group.batchLookupSQL != nil { state.pending.append(v) }
                    entries.append(Entry(group: index, value: v, values: []))
                } else {
                    let values = try group.reads.map { try encodeColumn(d, $0, model: m) }
                    if values.contains(.null) { continue }
                    earlier = state.multi.updateValue(m, forKey: values)
                    entries.append(Entry(group: index, value: .null, values: values))
                }
                if let earlier, earlier !== m, !UpsertPlan.isCollapsed(earlier.persistentBackingData) {
                    collapse(earlier, into: m)
                }
            }
            if entries.count > first {
                candidates.append(
                    Candidate(model: m, data: d, shape: shape, entries: first..<entries.count))
            }
        }
        // 2. Stored rows with those values: one-column groups in batches of `batchSize`.
        for state in states where !state.pending.isEmpty {
            guard let group = state.group, let table = state.table else { continue }
            try w.rows(matching: group, anyOf: state.pending, indexed: { try indexedColumns(table) }) { value, match in
                // One hash for the common case, a value held by one row.
                if var earlier = state.found.updateValue(FoundRows(first: match), forKey: value) {
                    earlier.more.append(match)
                    state.found[value] = earlier
                }
            }
        }
        // 3. Per new model, in insertion order: adopt the one stored row it matches.
        for c in candidates where !UpsertPlan.isCollapsed(c.data) {
            let m = c.model
            let layout = shapes[c.shape].layout
            let table = shapes[c.shape].table
            var storedPK: Int64 = 0
            var storedEnt: Int64 = 0
            var storedVersion: Int64?
            var storedRow: StoredRow?
            var storedCount = 0
            // The groups that matched, for the error; a second one only when there is one.
            var firstGroup: String?
            var moreGroups: [String] = []
            for entry in entries[c.entries] {
                let group = shapes[c.shape].groups[entry.group]
                let state = states[group.id]
                // The stored rows holding the entry's values: one, almost always.
                let found: FoundRows
                if group.batchLookupSQL != nil {
                    // Nothing stored matched any value of the group (a save of new rows only).
                    guard !state.found.isEmpty, let rows = state.found[entry.value] else { continue }
                    found = rows
                } else {
                    let rows = try w.rows(matching: group, entry.all, indexed: try indexedColumns(table))
                    guard let first = rows.first else { continue }
                    found = FoundRows(first: first, more: Array(rows.dropFirst()))
                }
                for index in -1..<found.more.count {
                    let match = index < 0 ? found.first : found.more[index]
                    let pk = match.pk
                    // Only a registered row with pending changes can move away (no array made otherwise).
                    if !changed.isEmpty, movesAway(pk: pk, table: table, group: group, values: entry.all) { continue }
                    if storedCount == 0 || pk != storedPK { storedCount += 1 }
                    storedPK = pk
                    storedEnt = match.ent
                    storedVersion = match.version
                    storedRow = match.stored
                    if firstGroup == nil { firstGroup = group.key } else { moreGroups.append(group.key) }
                }
            }
            if storedCount > 1 {
                let groups = ([firstGroup].compactMap { $0 } + moreGroups).joined(separator: "; ")
                throw SwiftDataError(
                    SwiftDataError.uniqueConstraintViolation.code,
                    "a new \(layout.name) matches \(storedCount) different stored rows on its unique values (\(groups)); an upsert can replace only one row, so nothing was saved",
                    entityName: layout.name)
            }
            guard storedCount == 1 else { continue }
            let pk = storedPK
            let ent = storedEnt
            if ent != table.entityID(layout) {
                let other = table.layout(forEntityID: ent)?.name ?? "another class"
                throw SwiftDataError(
                    SwiftDataError.uniqueConstraintViolation.code,
                    "a new \(layout.name) has the unique values of a stored \(other); an upsert cannot change a row's class, so nothing was saved",
                    entityName: layout.name)
            }
            let row = RowKey(table, pk: pk)
            if let previous = adoptedBy[row], previous !== m { collapse(previous, into: m) }
            var adoption = UpsertPlan.Adoption(pk: pk, version: storedVersion)
            if let storedRow {
                adoption.storedRow = Int32(plan.storedRows.count)
                plan.storedRows.append(storedRow)
            }
            plan.adopt(m, c.data, adoption, in: table)
            adoptedBy[row] = m
        }
        return plan
    }

    /// Whether the stored row `pk` is registered here with a pending change that moves its
    /// group values away from `values` (so it will not collide once this save is written).
    private func movesAway(
        pk: Int64, table: StoreMapping.Table, group: StoreMapping.Table.UniqueGroup,
        values: [SQLValue]
    ) -> Bool {
        guard let model = registered[RowKey(table, pk: pk)],
            changed[ObjectIdentifier(model)] != nil
        else { return false }
        let d = model.persistentBackingData
        // try?: a value that does not encode makes the save throw when it is written; here it only counts as moved.
        let now = group.reads.map { (try? encodeColumn(d, $0, model: model)) ?? .null }
        return now != values
    }

    /// After an upsert into a row that `existing` already represents here: `existing` shows the
    /// new model's values (UNQ-12) and both objects share one storage from now on, so they stay
    /// the same row (one identifier, one set of values, changes through either are saved).
    func adoptStorage(of existing: any PersistentModel, into model: any PersistentModel) {
        let from = model.persistentBackingData
        let to = existing.persistentBackingData
        for slot in 0..<min(from.values.count, to.values.count) {
            to.setSlot(slot, from.values[slot], of: existing, recordChange: false)
        }
        to.committed = nil
        to.changed = []
        model.persistentBackingData = to
    }
}

/// A dictionary keyed by one column's value that keeps integer keys apart: an `Int64` hashes in
/// one step, where hashing an `SQLValue` runs the hasher over its case and payload (a uniqueness
/// lookup hashes each new model's value two or three times). Keys compare as `SQLValue`s do
/// (`.integer(1)` is not `.real(1)`).
struct ValueMap<Value> {
    private var integers: [Int64: Value] = [:]
    private var others: [SQLValue: Value] = [:]

    /// Whether the map holds no key.
    var isEmpty: Bool { integers.isEmpty && others.isEmpty }

    /// The value for `key`.
    subscript(key: SQLValue) -> Value? {
        get {
            if case .integer(let i) = key { return integers[i] }
            return others[key]
        }
        set {
            if case .integer(let i) = key { integers[i] = newValue } else { others[key] = newValue }
        }
    }

    /// Sets `value` for `key` and returns the value it replaced (`Dictionary.updateValue`).
    @discardableResult
    mutating func updateValue(_ value: Value, forKey key: SQLValue) -> Value? {
        if case .integer(let i) = key { return integers.updateValue(value, forKey: i) }
        return others.updateValue(value, forKey: key)
    }
}

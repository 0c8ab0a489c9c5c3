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

extension ModelContext {
    /// After a save's upserts into rows of classes with a to-many relationship (`adopters`: the
    /// model registered for each such row, showing its new model's values): no model here
    /// holds one of those rows through a relationship whose inverse is a to-many unless the
    /// row's new list names that model, as the store no longer links them (UNQ-14,
    /// ``SaveTransaction/detachReplacedMembers(_:_:)``). A to-one pointing at the row, by model
    /// or by key not resolved yet, becomes `nil`; a list lets go of the row. One pass over the
    /// registered models per such save.
    func dropLinksToReplacedRows(_ adopters: [RowKey: any PersistentModel]) {
        guard !adopters.isEmpty else { return }
        // Each taken-over row's list at a slot, as a set, made on first use: one row's list
        // is asked about once per model holding the row (a new owner's thousand gadgets).
        var named: [RowKey: [Int: Set<ObjectIdentifier>]] = [:]
        /// Whether `row` is taken over and its new list at `slot` leaves `holder` out.
        func leaves(_ row: RowKey, _ slot: Int, _ holder: any PersistentModel) -> Bool {
            guard let adopter = adopters[row] else { return false }
            if let members = named[row]?[slot] { return !members.contains(ObjectIdentifier(holder)) }
            let values = adopter.persistentBackingData.values
            let members = Set(
                slot < values.count ? RelationshipGraph.models(in: values[slot]).map(ObjectIdentifier.init) : [])
            named[row, default: [:]][slot] = members
            return !members.contains(ObjectIdentifier(holder))
        }
        func drop(from holder: any PersistentModel) {
            let d = holder.persistentBackingData
            guard let layout = d.layout else { return }
            for slot in layout.relationshipSlots where slot < d.values.count && d.values[slot] != nil {
                guard let (target, inverse) = layout.inverse(of: slot), target.slots[inverse].isToMany else { continue }
                if layout.slots[slot].isToMany {
                    let members = RelationshipGraph.models(in: d.values[slot])
                    let left = members.filter { !leaves(rowKey($0.persistentBackingData), inverse, holder) }
                    if left.count < members.count {
                        d.setSlot(
                            slot, RelationshipGraph.makeArray(layout.slots[slot], left), of: holder, recordChange: false
                        )
                    }
                    continue
                }
                let row: RowKey
                switch d.toOne(slot) {
                case .model(let member):
                    guard member.persistentBackingData.layout != nil else { continue }
                    row = rowKey(member.persistentBackingData)
                case .foreignKey(let pk): row = RowKey(table: ObjectIdentifier(target.root), pk: pk)
                case .empty: continue
                }
                if leaves(row, inverse, holder) { d.setSlot(slot, nil, of: holder, recordChange: false) }
            }
        }
        registered.forEach(drop(from:))
    }
}

extension ModelContext {
    /// Before a new model that collapsed into a later one (storage `collapsed`) takes `target`'s
    /// storage: `target`'s to-many lists gain the members of the collapsed model's, as the save
    /// wrote their links to the row (UNQ-30); its other values are the later model's.
    func keepMembers(of collapsed: BackingData, in target: any PersistentModel) {
        let d = target.persistentBackingData
        guard let layout = collapsed.layout, layout.hasToMany, d !== collapsed else { return }
        for slot in layout.relationshipSlots where layout.slots[slot].isToMany && slot < collapsed.values.count {
            let added = RelationshipGraph.models(in: collapsed.values[slot]).filter { !$0.isDeleted }
            guard !added.isEmpty, slot < d.values.count else { continue }
            var members = RelationshipGraph.models(in: d.values[slot])
            let before = members.count
            for m in added where !members.contains(where: { $0 === m }) { members.append(m) }
            if members.count > before {
                d.setSlot(
                    slot, RelationshipGraph.makeArray(layout.slots[slot], members), of: target, recordChange: false)
            }
        }
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

    /// Makes room for `count` keys of `key`'s kind (integers, or any other value).
    mutating func reserveCapacity(_ count: Int, like key: SQLValue) {
        if case .integer = key { integers.reserveCapacity(count) } else { others.reserveCapacity(count) }
    }

    /// Sets `value` for `key` and returns the value it replaced (`Dictionary.updateValue`).
    @discardableResult
    mutating func updateValue(_ value: Value, forKey key: SQLValue) -> Value? {
        if case .integer(let i) = key { return integers.updateValue(value, forKey: i) }
        return others.updateValue(value, forKey: key)
    }
}

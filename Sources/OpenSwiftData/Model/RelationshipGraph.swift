import Foundation

/// Keeps both sides of a relationship in sync in memory, before any save (REL-02, REL-03):
/// setting `child.parent = p` appends `child` to `p.children`; removing a child from
/// `p.children` clears `child.parent` (and never deletes the child).
enum RelationshipGraph {
    /// Called by a relationship setter before `slot` of `owner` takes `newValue`.
    static func willSet(_ owner: any PersistentModel, _ data: BackingData, slot: Int, to newValue: Any) {
        guard !FaultInjection.isActive(.inverseNotUpdated), let layout = data.layout,
            let (invLayout, invSlot) = layout.inverse(of: slot)
        else { return }
        let oldValue: Any? = data.values.count > slot ? data.values[slot] : nil
        let s = layout.slots[slot]
        let old: [any PersistentModel]
        if oldValue == nil || data.unresolvedForeignKey(slot) != nil,
            data.status == .persisted || data.status == .deleted
        {
            // Not loaded yet: the current targets are needed to unlink them.
            old = models(in: data.load(owner, slot), of: s)
        } else {
            old = models(in: oldValue, of: s)
        }
        let new = models(in: newValue, of: s)
        let inverse = invLayout.slots[invSlot]
        // One model on each side (every to-one assignment): compared directly, no sets.
        if old.count <= 1 && new.count <= 1 {
            if let removed = old.first, new.first !== removed { unlink(removed, inverse: inverse, from: owner) }
            if let added = new.first, old.first !== added { link(added, inverse: inverse, to: owner) }
            return
        }
        let oldIDs = Set(old.map { ObjectIdentifier($0) })
        let newIDs = Set(new.map { ObjectIdentifier($0) })
        for removed in old where !newIDs.contains(ObjectIdentifier(removed)) {
            unlink(removed, inverse: inverse, from: owner)
        }
        for added in new where !oldIDs.contains(ObjectIdentifier(added)) {
            link(added, inverse: inverse, to: owner)
        }
    }

    /// The models in a relationship value (`M`, `M?` or `[M]`).
    ///
    /// Arrays are recognised first: casting an array to `any PersistentModel` (a class-bound
    /// protocol) makes the runtime try to bridge it to an `NSArray` first, which costs tens of
    /// thousands of instructions on every to-many value (a cascade delete reads one per row).
    static func models(in value: Any?) -> [any PersistentModel] {
        guard let value else { return [] }
        if let arr = value as? any _ArrayProtocol {
            if let models = value as? [any PersistentModel] { return models }
            return arr._elements.compactMap { $0 as? any PersistentModel }
        }
        if let m = value as? any PersistentModel { return [m] }
        if let inner = _flattenOptional(value), let m = inner as? any PersistentModel { return [m] }
        return []
    }

    /// The models in relationship `slot`'s value: a to-one's read by type metadata (no
    /// conformance casts, no array for an empty one), a to-many's through ``models(in:)``.
    static func models(in value: Any?, of slot: ModelLayout.Slot) -> [any PersistentModel] {
        guard let value else { return [] }
        if slot.isToMany { return models(in: value) }
        return slot.toOneModel(value).map { [$0] } ?? []
    }

    /// Removes `owner` from `target`'s inverse slot.
    static func unlink(_ target: any PersistentModel, inverse: ModelLayout.Slot, from owner: any PersistentModel) {
        let td = target.persistentBackingData
        guard td.layout != nil, inverse.index < (td.layout?.slots.count ?? 0), !FaultInjection.isActive(.unlinkIgnored)
        else { return }
        if inverse.isToMany, inverse.index >= td.values.count || td.values[inverse.index] == nil,
            td.status == .persisted, td.context != nil
        {
            return
        }  // unloaded: see link(_:inverse:to:)
        let current = currentValue(target, td, inverse)
        if inverse.isToMany {
            let kept = models(in: current).filter { $0 !== owner }
            td.setSlot(inverse.index, makeArray(inverse, kept), of: target, recordChange: true)
        } else if let cur = models(in: current, of: inverse).first, cur === owner {
            td.setSlot(inverse.index, nil, of: target, recordChange: true)
        }
    }

    /// Adds `owner` to `target`'s inverse slot, first unlinking `target` from its previous
    /// partner when the inverse is to-one.
    static func link(_ target: any PersistentModel, inverse: ModelLayout.Slot, to owner: any PersistentModel) {
        let td = target.persistentBackingData
        guard let tl = td.layout, inverse.index < tl.slots.count else { return }
        if inverse.isToMany {
            // A stored target whose list is not loaded stays unloaded: the store plus the
            // context's pending changes give the list when it is read (ModelContext.mergePending).
            if inverse.index >= td.values.count || td.values[inverse.index] == nil,
                td.status == .persisted, let context = td.context
            {
                // A new model linked to a stored one joins its context (it is saved with it).
                if owner.persistentBackingData.status == .unmanaged { context.insertAny(owner) }
                return
            }
            // `owner` just started pointing at `target`, so it is not in `target`'s list yet:
            // append in place (amortised O(1), so attaching n children to a parent is O(n)).
            // (No registrar yet: nothing observes the target.)
            let observed = td.registrarStorage.map { ($0, inverse.notifying) }
            if let (registrar, kp) = observed { kp?._willSet(registrar, target) }
            td.recordChange(inverse.index)
            var box: Any? = currentValue(target, td, inverse) ?? BackingData.emptyValue(for: inverse)
            td.values[inverse.index] = nil
            inverse.arrayType?._append(owner, into: &box)
            td.values[inverse.index] = box
            td.relatedInserted = false
            if let (registrar, kp) = observed { kp?._didSet(registrar, target) }
        } else {
            let current = currentValue(target, td, inverse)
            if let previous = models(in: current, of: inverse).first {
                if previous === owner {
                    // Already linked (e.g. set in the initialiser): the pair is now in sync.
                    if inverse.index < 64 { td.initSlotMask &= ~(1 << UInt64(inverse.index)) }
                    return
                }
                // target moves from `previous` to `owner`: drop it from previous's side.
                if let (pl, ps) = tl.inverse(of: inverse.index) {
                    _ = pl
                    let prevData = previous.persistentBackingData
                    if let prevLayout = prevData.layout, ps < prevLayout.slots.count {
                        let slot = prevLayout.slots[ps]
                        let pv = currentValue(previous, prevData, slot)
                        if slot.isToMany {
                            prevData.setSlot(
                                ps, makeArray(slot, models(in: pv).filter { $0 !== target }), of: previous,
                                recordChange: true)
                        } else if models(in: pv, of: slot).first === target {
                            prevData.setSlot(ps, nil, of: previous, recordChange: true)
                        }
                    }
                }
            }
            td.setSlot(inverse.index, owner, of: target, recordChange: true)
        }
    }

    static func currentValue(_ model: any PersistentModel, _ data: BackingData, _ slot: ModelLayout.Slot) -> Any? {
        model._$absorbPendingValues()
        if data.unresolvedForeignKey(slot.index) == nil, slot.index < data.values.count, let v = data.values[slot.index]
        {
            return v
        }
        return data.load(model, slot.index)
    }

    /// A to-many value without repeated models, first occurrences kept (REL-05): a to-many
    /// relationship is a set, so `trip.items.append(item)` after `item.trip = trip` (which already
    /// added `item`), or appending a member twice, leaves it there once. `value` itself when
    /// nothing repeats.
    static func distinct(_ value: Any, _ slot: ModelLayout.Slot) -> Any {
        let members = models(in: value)
        guard members.count > 1 else { return value }
        var seen = Set<ObjectIdentifier>(minimumCapacity: members.count)
        guard !members.allSatisfy({ seen.insert(ObjectIdentifier($0)).inserted }) else { return value }
        var kept = Set<ObjectIdentifier>(minimumCapacity: members.count)
        return makeArray(slot, members.filter { kept.insert(ObjectIdentifier($0)).inserted })
    }

    /// Boxes models as the slot's array type (`[Target]`, also for a `[Target]?` property).
    static func makeArray(_ slot: ModelLayout.Slot, _ models: [any PersistentModel]) -> Any {
        if case .toMany(let target) = slot.kind { return target.arrayValue(of: models) }
        return models
    }
}

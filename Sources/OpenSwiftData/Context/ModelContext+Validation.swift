import Foundation

extension ModelContext {
    /// Checks the `minimumModelCount` / `maximumModelCount` of every to-many relationship of the
    /// models a save would write (inserted ones, and changed ones whose relationship changed),
    /// and of the lists those models joined or left from the other side.
    ///
    /// ```swift
    /// @Relationship(minimumModelCount: 1, maximumModelCount: 3) var members: [Member] = []
    /// ```
    /// A bound of `0` or `nil` means no bound. Runs before the write transaction, so a violation
    /// writes nothing and leaves the pending changes in place.
    /// - Throws: ``SwiftDataError/modelValidationFailure`` naming the model and the relationship.
    func validateRelationshipCounts() throws {
        // A schema without bounds (most) has nothing to check: no pass over the models.
        guard stack.schema.layouts.contains(where: \.hasCountLimits) else { return }
        var checked: Set<CheckedList> = []
        for m in inserted { try validateCounts(of: m, onlyChanged: false, checked: &checked) }
        for id in changedOrder {
            guard let m = changed[id] else { continue }
            try validateCounts(of: m, onlyChanged: true, checked: &checked)
        }
        for m in inserted { try validateOtherSides(of: m, checked: &checked) }
        for id in changedOrder {
            guard let m = changed[id] else { continue }
            try validateOtherSides(of: m, checked: &checked)
        }
    }

    /// One model's to-many relationship whose count was checked.
    private struct CheckedList: Hashable {
        let model: ObjectIdentifier
        let slot: Int
    }

    private func validateCounts(of model: any PersistentModel, onlyChanged: Bool, checked: inout Set<CheckedList>)
        throws
    {
        let d = model.persistentBackingData
        guard !d.isDeleted, let layout = d.layout, layout.hasCountLimits else { return }
        for slot in layout.relationshipSlots {
            if onlyChanged, !(slot < d.changed.count && d.changed[slot]) { continue }
            try validateCount(of: model, d, layout, slot, checked: &checked)
        }
    }

    /// Checks the bounds of the lists at the other side of `model`'s new or changed
    /// relationships, for the models that joined or left them: a stored model whose list was
    /// not loaded is not marked changed when this save adds or removes a member from the other
    /// side, yet its list changes all the same (REL-04).
    private func validateOtherSides(of model: any PersistentModel, checked: inout Set<CheckedList>) throws {
        let d = model.persistentBackingData
        guard !d.isDeleted, let layout = d.layout else { return }
        let isNew = d.status == .inserted
        for slot in layout.relationshipSlots where isNew || (slot < d.changed.count && d.changed[slot]) {
            guard let (target, inverse) = layout.inverse(of: slot), target.slots[inverse].isToMany,
                target.hasCountLimits, slot < d.values.count
            else { continue }
            let s = layout.slots[slot]
            let now = try members(d.values[slot], s, target: target)
            let before = isNew ? [] : try members(d.committed?[slot] ?? nil, s, target: target)
            let nowIDs = Set(now.map(ObjectIdentifier.init))
            let beforeIDs = Set(before.map(ObjectIdentifier.init))
            for other in now + before
            where nowIDs.contains(ObjectIdentifier(other)) != beforeIDs.contains(ObjectIdentifier(other)) {
                let od = other.persistentBackingData
                guard !od.isDeleted, let otherLayout = od.layout, inverse < otherLayout.slots.count else { continue }
                try validateCount(of: other, od, otherLayout, inverse, checked: &checked)
            }
        }
    }

    /// The models of relationship `slot`'s value `value`, a to-one's key read as its model.
    private func members(_ value: Any?, _ slot: ModelLayout.Slot, target: ModelLayout) throws -> [any PersistentModel] {
        guard let value else { return [] }
        if slot.isToMany { return RelationshipGraph.models(in: value) }
        switch withUnsafePointer(to: value, slot.toOne) {
        case .model(let m): return [m]
        case .foreignKey(let pk):
            guard let table = stack.table(for: target), let m = try materialize(table: table, pk: pk) else { return [] }
            return [m]
        case .empty: return []
        }
    }

    /// Checks the bounds of `model`'s to-many relationship at `slot`, once per save.
    private func validateCount(
        of model: any PersistentModel, _ d: BackingData, _ layout: ModelLayout, _ slot: Int,
        checked: inout Set<CheckedList>
    ) throws {
        let s = layout.slots[slot]
        guard s.isToMany, let rel = s.relationship else { return }
        let minimum = rel.minimumModelCount ?? 0
        let maximum = rel.maximumModelCount ?? 0
        guard minimum > 0 || maximum > 0,
            checked.insert(CheckedList(model: ObjectIdentifier(model), slot: slot)).inserted
        else { return }
        let count = RelationshipGraph.models(in: RelationshipGraph.currentValue(model, d, s))
            .filter { !$0.isDeleted }.count
        if minimum > 0, count < minimum {
            throw SwiftDataError(
                SwiftDataError.modelValidationFailure.code,
                "\(layout.name).\(s.name) holds \(count) model(s) but needs at least \(minimum) (minimumModelCount); nothing was saved",
                entityName: layout.name, propertyName: s.name)
        }
        if maximum > 0, count > maximum {
            throw SwiftDataError(
                SwiftDataError.modelValidationFailure.code,
                "\(layout.name).\(s.name) holds \(count) model(s) but allows at most \(maximum) (maximumModelCount); nothing was saved",
                entityName: layout.name, propertyName: s.name)
        }
    }
}

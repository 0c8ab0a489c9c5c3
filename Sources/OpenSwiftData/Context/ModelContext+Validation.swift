import Foundation

extension ModelContext {
    /// Checks the `minimumModelCount` / `maximumModelCount` of every to-many relationship of the
    /// models a save would write (inserted ones, and changed ones whose relationship changed).
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
        for m in inserted { try validateCounts(of: m, onlyChanged: false) }
        for id in changedOrder {
            guard let m = changed[id] else { continue }
            try validateCounts(of: m, onlyChanged: true)
        }
    }

    private func validateCounts(of model: any PersistentModel, onlyChanged: Bool) throws {
        let d = model.persistentBackingData
        guard !d.isDeleted, let layout = d.layout, layout.hasCountLimits else { return }
        for slot in layout.relationshipSlots {
            let s = layout.slots[slot]
            guard s.isToMany, let rel = s.relationship else { continue }
            let minimum = rel.minimumModelCount ?? 0
            let maximum = rel.maximumModelCount ?? 0
            guard minimum > 0 || maximum > 0 else { continue }
            if onlyChanged, !(slot < d.changed.count && d.changed[slot]) { continue }
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
}

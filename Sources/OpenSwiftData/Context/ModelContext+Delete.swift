import Foundation

extension ModelContext {
    /// Deletes every model of `model` matching `predicate` at the next save, applying delete rules.
    ///
    /// ```swift
    /// try context.delete(model: BusinessTrip.self, where: #Predicate { $0.perdiem < 50 })
    /// try context.save()   // DELETE FROM "ZTRIP" WHERE "Z_PK" = ?   -- one per matching row
    /// ```
    /// The matching models are chosen when this is called (stored rows and pending inserts, like
    /// a fetch with pending changes): stored ones are marked deleted, pending inserts are dropped
    /// at once. Nothing is written before ``save()``. The delete rules run as for ``delete(_:)``:
    /// `.cascade` and `.nullify` already apply to the next fetch with pending changes, and a
    /// `.deny` rule makes `save()` throw
    /// ``SwiftDataError/deleteRuleDenied`` having written nothing (``rollback()`` restores).
    /// - Parameters:
    ///   - model: The model class whose instances are deleted.
    ///   - predicate: Which instances; `nil` deletes all of them.
    ///   - includeSubclasses: Whether instances of subclasses of `model` are deleted too; `false`
    ///     deletes only instances whose class is exactly `model`.
    /// - Throws: what ``fetch(_:)`` throws for a predicate the store cannot evaluate.
    public func delete<T: PersistentModel>(
        model: T.Type, where predicate: Predicate<T>? = nil,
        includeSubclasses: Bool = true
    ) throws {
        let matches = try fetch(FetchDescriptor<T>(predicate: predicate))
        for m in matches where includeSubclasses || ObjectIdentifier(type(of: m)) == ObjectIdentifier(model) {
            deleteAny(m)
        }
    }
}

extension ModelContext {
    /// A relationship with no inverse (declared or inferred) that can point at a model.
    struct OneWaySlot {
        let layout: ModelLayout
        let slot: ModelLayout.Slot
    }

    /// The one-way relationships, declared anywhere in the schema, whose target class is
    /// `layout` or one of its superclasses.
    func oneWaySlots(pointingAt layout: ModelLayout) -> [OneWaySlot] {
        if let cached = oneWaySlotCache[ObjectIdentifier(layout)] { return cached }
        var out: [OneWaySlot] = []
        defer { oneWaySlotCache[ObjectIdentifier(layout)] = out }
        for entity in stack.schema.entitiesByName.values {
            let source = entity.layout
            for index in source.relationshipSlots where source.ownSlots.contains(index) {
                let s = source.slots[index]
                guard source.inverse(of: index) == nil, let target = s.target,
                    let targetLayout = ModelLayout.known(target), layout.isKind(of: targetLayout)
                else { continue }
                out.append(OneWaySlot(layout: source, slot: s))
            }
        }
        return out
    }

    /// Clears every reference a registered or pending model holds to `deleted` through a one-way
    /// relationship (DEL-14): the store's foreign keys and join rows are cleared by the save, and
    /// the in-memory side reads `nil` (or loses the element) from now on. Changes are recorded,
    /// so ``rollback()`` restores them.
    /// The stored holders are read with ``SQLiteStore/keys(holding:of:pointingAt:)``.
    func nullifyOneWayReferences(to deleted: any PersistentModel) throws {
        let d = deleted.persistentBackingData
        guard let layout = d.layout else { return }
        let slots = oneWaySlots(pointingAt: layout)
        guard !slots.isEmpty else { return }
        for ows in slots {
            unlinkPendingOneWay(ows, from: deleted)
            guard d.pk != 0, let table = stack.table(for: ows.layout) else { continue }
            let sources =
                try stack.storage(of: ows.layout, slot: ows.slot.index)
                .map { try stack.store(of: table).keys(holding: $0, of: table, pointingAt: d.pk) } ?? []
            for pk in sources {
                guard let m = registered[RowKey(table: ObjectIdentifier(ows.layout.root), pk: pk)],
                    !m.isDeleted
                else { continue }
                unlinkOneWay(m, ows.slot, from: deleted)
            }
        }
    }

    /// Clears the references the new and changed models hold to `deleted`, a new model whose
    /// insert is dropped, through one-way relationships (DEL-14): no stored model can hold one
    /// yet. Without this the save would insert the dropped model again through the reference
    /// (REL-01).
    func unlinkPendingOneWayReferences(to deleted: any PersistentModel) {
        guard let layout = deleted.persistentBackingData.layout else { return }
        for ows in oneWaySlots(pointingAt: layout) { unlinkPendingOneWay(ows, from: deleted) }
    }

    /// Removes `deleted` from one-way relationship `ows` of the new and changed models.
    private func unlinkPendingOneWay(_ ows: OneWaySlot, from deleted: any PersistentModel) {
        for m in inserted + changedOrder.compactMap({ changed[$0] })
        where m.persistentBackingData.layout?.isKind(of: ows.layout) == true {
            unlinkOneWay(m, ows.slot, from: deleted)
        }
    }

    /// Removes `target` from `model`'s one-way `slot` if the slot holds it (loaded or not).
    private func unlinkOneWay(_ model: any PersistentModel, _ slot: ModelLayout.Slot, from target: any PersistentModel)
    {
        let d = model.persistentBackingData
        model._$absorbPendingValues()
        let index = slot.index
        let targetPK = target.persistentBackingData.pk
        if let fk = d.unresolvedForeignKey(index) {
            if fk == targetPK, targetPK != 0 { d.setSlot(index, nil, of: model, recordChange: true) }
            return
        }
        guard index < d.values.count, let value = d.values[index] else { return }  // unloaded list: read from the store
        if slot.isToMany {
            let current = RelationshipGraph.models(in: value)
            guard current.contains(where: { $0 === target }) else { return }
            d.setSlot(
                index, RelationshipGraph.makeArray(slot, current.filter { $0 !== target }), of: model,
                recordChange: true)
        } else if slot.toOneModel(value) === target {
            d.setSlot(index, nil, of: model, recordChange: true)
        }
    }
}

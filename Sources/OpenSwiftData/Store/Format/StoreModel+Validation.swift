import Foundation

extension StoreModel {
    /// Checks that the model can be laid out: unique entity names, existing superentities
    /// without cycles, unique property names along each inheritance line, existing
    /// destinations and mutual inverses, composites with elements, constraints and indexes naming
    /// stored properties that are not to-many.
    ///
    /// ```swift
    /// try model.validate()   // before StoreLayout(model)
    /// ```
    /// - Throws: ``SwiftDataError/unknownSchema`` naming the entity and property. Ordered
    ///   to-many relationships are refused too: no reference store shows their columns.
    func validate() throws {
        var names = Set<String>()
        for e in entities {
            guard !e.name.isEmpty, names.insert(e.name).inserted else {
                throw invalid("two entities are named '\(e.name)' (or one has no name)", entity: e.name)
            }
        }
        for e in entities {
            if let sup = e.superentity, entity(named: sup) == nil {
                throw invalid("the superentity '\(sup)' is not in the model", entity: e.name)
            }
            if lineage(of: e.name).last?.superentity != nil {
                throw invalid("the inheritance chain is a cycle", entity: e.name)
            }
            var properties = Set<String>()
            for a in allAttributes(of: e.name) {
                guard properties.insert(a.name).inserted else {
                    throw invalid("two properties are named '\(a.name)'", entity: e.name, property: a.name)
                }
                try validate(a, entity: e.name)
            }
            for r in allRelationships(of: e.name) {
                guard properties.insert(r.name).inserted else {
                    throw invalid("two properties are named '\(r.name)'", entity: e.name, property: r.name)
                }
            }
            for r in e.relationships { try validate(r, entity: e.name) }
            for group in e.uniquenessConstraints + e.indexes.map(\.propertyNames) {
                for name in group {
                    let stored = allAttributes(of: e.name).contains { $0.name == name && !$0.isTransient }
                    let toOne = allRelationships(of: e.name).contains {
                        $0.name == name && !$0.isToMany && !$0.isTransient
                    }
                    guard stored || toOne else {
                        throw invalid(
                            "a uniqueness constraint or index names '\(name)', which is not a stored attribute or to-one relationship",
                            entity: e.name, property: name)
                    }
                }
            }
        }
    }

    private func validate(_ a: Attribute, entity: String) throws {
        if a.isComposite {
            guard !a.elements.isEmpty else {
                throw invalid("the composite attribute has no elements", entity: entity, property: a.name)
            }
            for element in a.elements where element.isComposite || element.type == .undefined {
                throw invalid(
                    "the composite element '\(element.name)' must have a plain type", entity: entity, property: a.name)
            }
        } else if a.type == .undefined && !a.isTransient {
            throw invalid("a stored attribute needs a type", entity: entity, property: a.name)
        }
    }

    private func validate(_ r: Relationship, entity: String) throws {
        guard self.entity(named: r.destination) != nil else {
            throw invalid("the destination '\(r.destination)' is not in the model", entity: entity, property: r.name)
        }
        if let inverseName = r.inverse {
            guard let inverse = relationship(inverseName, of: r.destination) else {
                throw invalid(
                    "the inverse '\(inverseName)' is not a relationship of \(r.destination)", entity: entity,
                    property: r.name)
            }
            guard inverse.inverse == r.name else {
                throw invalid(
                    "the inverse \(r.destination).\(inverseName) does not name '\(r.name)' as its own inverse",
                    entity: entity, property: r.name)
            }
        }
        if r.isOrdered && r.isToMany && !r.isTransient {
            throw invalid(
                "ordered to-many relationships are not supported (no reference store shows their columns)",
                entity: entity, property: r.name)
        }
    }

    private func invalid(_ message: String, entity: String, property: String? = nil) -> SwiftDataError {
        SwiftDataError(SwiftDataError.unknownSchema.code, message, entityName: entity, propertyName: property)
    }
}

extension StoreModel {
    /// The names of `entity`'s properties that history records, as Core Data orders them for
    /// `ACHANGE.ZCOLUMNS`: every stored attribute and relationship (inherited ones included,
    /// to-many included), sorted by name. Bit *i* of an update's bitmap, counted from the most
    /// significant bit of the first byte, is the *i*-th of them (store-format README §4).
    func historyProperties(of entity: String) -> [String] {
        var names: [String] = []
        for e in lineage(of: entity) {
            names += e.attributes.filter { !$0.isTransient }.map(\.name)
            names += e.relationships.filter { !$0.isTransient }.map(\.name)
        }
        return StoreModel.sorted(names)
    }

    /// The `.preserveValueOnDeletion` attributes of `entity` (inherited ones included), sorted
    /// by name: their values go to `ZTOMBSTONE0`, `ZTOMBSTONE1`, … of a delete's `ACHANGE` row.
    func tombstoneAttributes(of entity: String) -> [String] {
        StoreModel.sorted(
            lineage(of: entity).flatMap {
                $0.attributes.filter { $0.preservesValueOnDeletion && !$0.isTransient }.map(\.name)
            })
    }

    /// The most `.preserveValueOnDeletion` attributes any entity has.
    var maximumTombstoneCount: Int { entities.map { tombstoneAttributes(of: $0.name).count }.max() ?? 0 }
}

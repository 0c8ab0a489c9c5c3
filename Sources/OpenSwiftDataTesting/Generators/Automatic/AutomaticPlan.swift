import OpenSwiftData

/// What a schema fixture generates: one step per inheritance hierarchy, in an order where the
/// targets of to-one relationships come first, and for every relationship the side that fills it.
///
/// Each pair of inverse relationships is filled from one side only (setting it sets the other):
/// - the entity generated later fills it, so its targets already exist;
/// - inside one hierarchy (an `Employee.manager`), the to-one side fills it from earlier rows;
/// - a one-way relationship is filled by its owner when its targets come earlier, else left empty.
///
/// Order: a hierarchy comes after the hierarchies its to-one and one-way to-many relationships
/// point to, except that a to-many with a `minimumModelCount` comes after its targets and fills
/// itself (a parent needing at least one child is saved with its children). Cycles are broken in
/// schema order.
final class AutomaticPlan: @unchecked Sendable {
    /// One relationship filled from the side that declares it.
    struct Fill {
        let relationship: Schema.Relationship
        let target: Schema.Entity
        let inverse: Schema.Relationship?
        /// The target is in the same hierarchy: pick among earlier rows of the step.
        let sameStep: Bool
        /// The relationship is what makes a unique group unique (`#Unique([\.holder])`).
        var inUniqueGroup = false
        /// Each target can be related to one model only (one-to-one, a to-one in a unique
        /// group, or a to-many whose inverse is to-one).
        var exclusive: Bool {
            if relationship.isToOneRelationship {
                return relationship.isUnique || inUniqueGroup || (inverse?.isToOneRelationship ?? false)
            }
            return inverse?.isToOneRelationship ?? false
        }
    }

    /// One step: a hierarchy, its classes with their counts, what each class fills.
    struct Hierarchy {
        let root: Schema.Entity
        let classes: [(entity: Schema.Entity, count: Int)]
        let fills: [String: [Fill]]
        var total: Int { classes.reduce(0) { $0 + $1.count } }
    }

    let schema: Schema
    let hierarchies: [Hierarchy]
    /// Problems found while planning (an unknown entity name in `counts`), thrown by `populate`.
    let issues: [String]

    init(schema: Schema, counts: [String: Int], defaultCount: Int) {
        self.schema = schema
        var issues: [String] = []
        for name in counts.keys.sorted() where schema.entitiesByName[name] == nil {
            issues.append(
                "counts names \(name), which is not an entity of the schema (entities: \(schema.entities.map(\.name).joined(separator: ", ")))"
            )
        }
        func root(_ e: Schema.Entity) -> Schema.Entity { e.superentity.map(root) ?? e }
        func descendants(_ e: Schema.Entity) -> [Schema.Entity] { [e] + e.subentities.flatMap(descendants) }
        let roots = schema.entities.filter { $0.superentity == nil }
        let rootIndex = Dictionary(uniqueKeysWithValues: roots.enumerated().map { ($1.name, $0) })

        func inverse(of r: Schema.Relationship) -> Schema.Relationship? {
            guard let name = r.inverseName, let d = schema.entitiesByName[r.destination] else { return nil }
            return d.relationships.first { $0.name == name }
        }

        // Dependencies between hierarchies.
        var deps = [Set<Int>](repeating: [], count: roots.count)
        for (i, r) in roots.enumerated() {
            for e in descendants(r) {
                for rel in e.relationships {
                    guard let d = schema.entitiesByName[rel.destination], let j = rootIndex[root(d).name], j != i else {
                        continue
                    }
                    let inv = inverse(of: rel)
                    if rel.isToOneRelationship {
                        if (inv?.minimumModelCount ?? 0) > 0 && !(inv?.isToOneRelationship ?? true) { continue }
                        deps[i].insert(j)
                    } else if inv == nil || (rel.minimumModelCount ?? 0) > 0 {
                        deps[i].insert(j)
                    }
                }
            }
        }
        var order: [Int] = []
        var placed = Set<Int>()
        while order.count < roots.count {
            let next =
                (0..<roots.count).first { !placed.contains($0) && deps[$0].isSubset(of: placed) }
                ?? (0..<roots.count).first { !placed.contains($0) }!
            order.append(next)
            placed.insert(next)
        }
        let position = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })

        var hierarchies: [Hierarchy] = []
        for i in order {
            let classes = descendants(roots[i]).map { ($0, max(0, counts[$0.name] ?? defaultCount)) }
            var fills: [String: [Fill]] = [:]
            for (e, _) in classes {
                // Relationships that must differ per row: in a unique group no attribute can make unique.
                let attributes = Dictionary(e.attributes.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
                let exclusiveNames = Set(
                    e.uniquenessConstraints.filter { group in
                        !group.contains { attributes[$0].map { ValueSynthesizer.canBeUnique($0.valueType) } ?? false }
                    }.joined())
                fills[e.name] = e.relationships.compactMap { rel -> Fill? in
                    guard let d = schema.entitiesByName[rel.destination], let j = rootIndex[root(d).name] else {
                        return nil
                    }
                    let inv = inverse(of: rel)
                    var fill = Fill(relationship: rel, target: d, inverse: inv, sameStep: j == i)
                    fill.inUniqueGroup = exclusiveNames.contains(rel.name)
                    if j == i {
                        guard let inv else { return fill }
                        if rel.isToOneRelationship != inv.isToOneRelationship {
                            return rel.isToOneRelationship ? fill : nil
                        }
                        return "\(e.name).\(rel.name)" <= "\(d.name).\(inv.name)" ? fill : nil
                    }
                    // Targets generated earlier could not fill the inverse (this side did not exist yet).
                    return position[j]! < position[i]! ? fill : nil
                }
            }
            hierarchies.append(Hierarchy(root: roots[i], classes: classes, fills: fills))
        }
        self.hierarchies = hierarchies
        self.issues = issues
    }
}

import OpenSwiftData

/// What the reference model knows of a schema: per class, its stored attributes, its
/// relationships with their delete rules, inverses and bounds, and its unique groups. Read from
/// the schema's declarations only (no context, store or layout logic of the library).
struct OracleSchema {
    /// One relationship as declared.
    struct Relationship {
        let name: String
        let toMany: Bool
        let optional: Bool
        let rule: Schema.Relationship.DeleteRule
        /// The relationship on the destination that mirrors this one, if any.
        let inverse: String?
        let minimum: Int
        let maximum: Int
    }

    /// One class: a root class of a hierarchy is its own `root`.
    struct Entity {
        let name: String
        let root: String
        /// Stored attributes (`.ephemeral` ones left out), in declaration order.
        let attributes: [String]
        let relationships: [Relationship]
        /// `.unique` attributes and relationships and `#Unique` groups, inherited ones included
        /// (a constraint of a base class covers the hierarchy, UNQ-40).
        let uniqueGroups: [[String]]

        func relationship(_ name: String) -> Relationship? { relationships.first { $0.name == name } }
    }

    let entities: [String: Entity]
    /// Root classes, by name, in a stable order.
    let roots: [String]

    init(_ schema: Schema) {
        var entities: [String: Entity] = [:]
        for e in schema.entities {
            var root = e
            var chain = [e]
            while let s = root.superentity {
                root = s
                chain.append(s)
            }
            var groups: [[String]] = []
            for c in chain {
                let declared =
                    c.uniquenessConstraints + c.attributes.filter(\.isUnique).map { [$0.name] }
                    + c.relationships.filter(\.isUnique).map { [$0.name] }
                for g in declared where !groups.contains(g) { groups.append(g) }
            }
            entities[e.name] = Entity(
                name: e.name, root: root.name, attributes: e.attributes.filter { !$0.isTransient }.map(\.name),
                relationships: e.relationships.map {
                    Relationship(
                        name: $0.name, toMany: !$0.isToOneRelationship, optional: $0.isOptional, rule: $0.deleteRule,
                        inverse: $0.inverseName, minimum: $0.minimumModelCount ?? 0,
                        maximum: $0.maximumModelCount ?? 0)
                },
                uniqueGroups: groups)
        }
        self.entities = entities
        roots = schema.entities.filter { $0.superentity == nil }.map(\.name).sorted()
    }
}

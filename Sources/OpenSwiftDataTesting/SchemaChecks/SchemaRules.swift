import Foundation
import OpenSwiftData

/// What a schema declares, and the helpers its generated cases share: models made as automatic
/// data makes them (with the relationships a save requires), counts and reads through
/// type-erased key paths, value comparison.
final class SchemaRules: @unchecked Sendable {
    let schema: Schema

    init(schema: Schema) { self.schema = schema }

    /// Unique groups an entity declares itself (not inherited), `.unique` attributes included.
    func ownUniqueGroups(_ e: Schema.Entity) -> [[String]] {
        var groups = e.uniquenessConstraints
        for a in e.attributes where a.isUnique && !groups.contains([a.name]) { groups.append([a.name]) }
        let inherited = e.superentity.map(ownUniqueGroupsAll) ?? []
        return groups.filter { !inherited.contains($0) }
    }

    private func ownUniqueGroupsAll(_ e: Schema.Entity) -> [[String]] {
        var groups = e.uniquenessConstraints
        for a in e.attributes where a.isUnique && !groups.contains([a.name]) { groups.append([a.name]) }
        return groups
    }

    /// Relationships an entity declares itself (not inherited).
    func ownRelationships(_ e: Schema.Entity) -> [Schema.Relationship] {
        let inherited = Set(e.superentity?.relationships.map(\.name) ?? [])
        return e.relationships.filter { !inherited.contains($0.name) }
    }

    /// Every class of the hierarchy below (and including) `e`: `e` first, then each subclass's
    /// subtree by name, so the order never depends on the order of the schema's array.
    func subtree(_ e: Schema.Entity) -> [Schema.Entity] {
        [e] + e.subentities.sorted { $0.name < $1.name }.flatMap(subtree)
    }

    var declarations: [String] {
        var lines: [String] = []
        for e in schema.entities {
            for g in ownUniqueGroups(e) { lines.append("unique \(e.name)[\(g.joined(separator: ", "))]") }
            for r in ownRelationships(e) { lines.append("delete \(e.name).\(r.name) \(r.deleteRule.rawValue)") }
            if e.superentity == nil && !e.subentities.isEmpty {
                lines.append("hierarchy \(e.name): " + subtree(e).dropFirst().map(\.name).joined(separator: ", "))
            }
        }
        return lines.sorted()
    }

    // MARK: Shared helpers

    /// Makes models for one case: every instance gets a new row index, so unique values never repeat.
    final class Builder {
        let rules: SchemaRules
        let context: ModelContext
        let seed: UInt64
        let maker = AutomaticMaker(overrides: [], options: AutomaticData(nullRatio: 0.3))
        var counter = 0
        init(_ rules: SchemaRules, _ context: ModelContext, seed: UInt64) {
            self.rules = rules
            self.context = context
            self.seed = seed
        }

        /// A new model of `e`, inserted, with new models for its required to-one relationships
        /// and minimum to-many counts.
        func make(_ e: Schema.Entity, fixed: [String: Any?] = [:], depth: Int = 0) throws -> any PersistentModel {
            counter += 1
            var required: [String: any PersistentModel] = [:]
            if depth < 3 {
                for rel in e.relationships where rel.isToOneRelationship && !rel.isOptional {
                    guard let d = rules.schema.entitiesByName[rel.destination] else { continue }
                    required[rel.name] = try make(d, depth: depth + 1)
                }
            }
            let model = try maker.instance(
                of: e, row: Row(index: counter, entity: e.name, seed: seed), fixed: fixed,
                related: required)
            context.insert(model)
            guard depth < 3 else { return model }
            for rel in e.relationships where !rel.isToOneRelationship && (rel.minimumModelCount ?? 0) > 0 {
                guard let d = rules.schema.entitiesByName[rel.destination] else { continue }
                let targets = try (0..<rel.minimumModelCount!).map { _ in try make(d, depth: depth + 1) }
                SchemaRules.assign(rel, targets, to: model)
            }
            return model
        }
    }

    static func assign(_ rel: Schema.Relationship, _ targets: [any PersistentModel], to model: any PersistentModel) {
        (rel.keypath as? any _AutoKeyPath)?._assign(targets, to: model)
    }

    static func count(_ type: any PersistentModel.Type, _ context: ModelContext) throws -> Int {
        func count<M: PersistentModel>(_: M.Type) throws -> Int { try context.fetchCount(FetchDescriptor<M>()) }
        return try count(type)
    }

    static func fetchAll(_ type: any PersistentModel.Type, _ context: ModelContext) throws -> [any PersistentModel] {
        func fetch<M: PersistentModel>(_: M.Type) throws -> [any PersistentModel] {
            try context.fetch(FetchDescriptor<M>())
        }
        return try fetch(type)
    }

    static func identifiers(_ type: any PersistentModel.Type, _ context: ModelContext) throws -> Set<
        PersistentIdentifier
    > {
        func ids<M: PersistentModel>(_: M.Type) throws -> [PersistentIdentifier] {
            try context.fetchIdentifiers(FetchDescriptor<M>())
        }
        return Set(try ids(type))
    }

    /// The value of a property, read through its key path (`nil` for an empty optional).
    static func read(_ model: any PersistentModel, _ property: any SchemaProperty) -> Any? {
        guard let kp = property.keypath, let value = model[keyPath: kp] else { return nil }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional { return mirror.children.first?.value }
        return value
    }

    /// The models a relationship holds (one or none for a to-one).
    static func related(_ model: any PersistentModel, _ rel: Schema.Relationship) -> [any PersistentModel] {
        guard let value = read(model, rel) else { return [] }
        if let many = value as? [any PersistentModel] { return many }
        return (value as? any PersistentModel).map { [$0] } ?? []
    }

    /// Whether two attribute values are equal as Swift compares them (`Hashable`), else by
    /// their sorted-key JSON encoding, else by description.
    static func same(_ a: Any?, _ b: Any?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (nil, _), (_, nil): return false
        case (let x?, let y?):
            if let hx = x as? AnyHashable, let hy = y as? AnyHashable { return hx == hy }
            if let ex = x as? any Encodable, let ey = y as? any Encodable {
                let encoder = JSONEncoder()
                encoder.outputFormatting = .sortedKeys
                // try?: a comparison helper; values that do not encode compare as equal only if neither encodes.
                return (try? encoder.encode(ex)) == (try? encoder.encode(ey))
            }
            return String(describing: x) == String(describing: y)
        }
    }

    static func describe(_ v: Any?) -> String {
        guard let v else { return "nil" }
        let text = String(describing: v)
        return text.count > 80 ? String(text.prefix(77)) + "… (\(text.count) characters)" : text
    }
}

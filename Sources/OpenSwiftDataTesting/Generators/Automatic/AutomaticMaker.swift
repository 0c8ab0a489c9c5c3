import OpenSwiftData

/// Makes model instances without calling their initialisers: empty storage from
/// `createBackingData()`, every persisted attribute filled from an override or
/// ``ValueSynthesizer``, relationships empty, then `init(backingData:)` — as SwiftData does when
/// it materialises a row.
///
/// Unique constraints: in every uniqueness group (`.unique`, `#Unique`) one attribute that can
/// hold a value per row (a string, a number, a date …) gets one; the others get ordinary values.
final class AutomaticMaker {
    /// Why an instance could not be made: the entity, the attribute and the cause.
    struct Failure: Error, CustomStringConvertible {
        let entity: String
        let attribute: String
        let reason: String
        var description: String {
            "automatic data cannot fill \(entity).\(attribute): \(reason); give it values with "
                + ".override(\\\(entity).\(attribute)) { row in … } on the fixture"
        }
    }

    let overrides: [AnyKeyPath: AttributeOverride]
    let options: AutomaticData
    private var uniqueByEntity: [String: Set<String>] = [:]

    init(overrides: [AttributeOverride], options: AutomaticData) {
        self.overrides = Dictionary(overrides.map { ($0.keyPath, $0) }, uniquingKeysWith: { _, last in last })
        self.options = options
    }

    /// The attributes of `entity` that get a different value in every row.
    func uniqueAttributes(of entity: Schema.Entity) -> Set<String> {
        if let known = uniqueByEntity[entity.name] { return known }
        var names = Set<String>()
        let byName = Dictionary(entity.attributes.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var groups = entity.uniquenessConstraints
        for a in entity.attributes where a.isUnique && !groups.contains([a.name]) { groups.append([a.name]) }
        for group in groups {
            let members = group.compactMap { byName[$0] }
            if let pick = members.first(where: { ValueSynthesizer.canBeUnique($0.valueType) }) {
                names.insert(pick.name)
            } else {
                names.formUnion(members.map(\.name))  // small domains: as unique as they can be
            }
        }
        uniqueByEntity[entity.name] = names
        return names
    }

    /// A new, unmanaged instance of `entity`'s class with every attribute filled for `row`.
    ///
    /// `fixed` gives some attributes their values by name (`nil`: `Optional.none`); `related`
    /// gives to-one relationships their model before the instance exists (required ones must be
    /// set this way: a non-optional to-one has no empty value to replace).
    func instance(
        of entity: Schema.Entity, row: Row, fixed: [String: Any?] = [:],
        related: [String: any PersistentModel] = [:]
    ) throws -> any PersistentModel {
        let type = entity.modelType
        let data = type.createBackingData()
        let unique = uniqueAttributes(of: entity)
        for attribute in entity.attributes {
            guard let keyPath = attribute.keypath, let writer = keyPath as? any _AutoKeyPath else { continue }
            let value: Any?
            if let given = fixed[attribute.name] {
                value = given
            } else if let o = overrides[keyPath] {
                value = o.make(row)
            } else {
                do {
                    value = try ValueSynthesizer.value(
                        of: attribute.valueType, row: row, field: attribute.name,
                        unique: unique.contains(attribute.name), nullRatio: options.nullRatio)
                } catch {
                    throw Failure(entity: entity.name, attribute: attribute.name, reason: "\(error)")
                }
            }
            if !writer._store(value, in: data) {
                throw Failure(
                    entity: entity.name, attribute: attribute.name,
                    reason:
                        "a value of type \(value.map { "\(Swift.type(of: $0))" } ?? "nil") does not fit \(attribute.valueType)"
                )
            }
        }
        for relationship in entity.relationships {
            guard let writer = relationship.keypath as? any _AutoKeyPath else { continue }
            if let target = related[relationship.name] {
                _ = writer._store(target, in: data)
            } else {
                writer._storeEmpty(in: data)
            }
        }
        return type.init(backingData: data)
    }

    /// A new instance of `M` (or throws), for `Generate(M.self, count:)` without a closure.
    func instance<M: PersistentModel>(_ type: M.Type, schema: Schema, row: Row) throws -> M {
        guard let entity = schema.entity(for: type) else {
            throw Failure(entity: "\(type)", attribute: "*", reason: "\(type) is not in the container's schema")
        }
        return try instance(of: entity, row: row) as! M
    }
}

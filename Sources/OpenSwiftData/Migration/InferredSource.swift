import Foundation

/// The model a store file was written with, reconstructed from the file and the container's
/// models, for an inferred lightweight migration (a container opening a store of other models
/// without a migration plan, as Core Data infers a mapping model).
///
/// Core Data reads the old model from the app's model versions or the store's model cache;
/// OpenSwiftData has neither (stores it writes keep `Z_MODELCACHE` empty), so it rebuilds the
/// old model from what the store records:
/// 1. the entities, their numbers and parents from `Z_PRIMARYKEY`;
/// 2. an entity whose version hash is the models' is taken as the models declare it;
/// 3. for a changed entity, each property of the models is looked up in the old table under
///    its original name (`@Attribute(originalName:)`, `@Relationship(originalName:)`): a
///    column (or join table) there means it was stored before, none means it is new;
/// 4. the old table's columns no property claims are properties the models removed (their
///    values are dropped; their names and types are only guessed, as nothing reads them);
/// 5. the rebuilt entity's version hash is compared with the one the store records, trying the
///    differences Core Data's inference allows (optionality, added uniqueness constraints) and
///    the ones it refuses (a type with the same column type, a relationship's destination): a
///    match proves what changed. An
///    entity that lost properties cannot be proved (their exact names are unknown); its kept
///    attributes are then treated as possibly NULL, so a new non-optional one without a
///    default is refused if the store has NULLs in it.
///
/// A kept attribute whose column type differs from the models' (`INTEGER` now `VARCHAR`) or
/// whose proved type differs is a type change, refused with the other changes that cannot be
/// inferred.
struct InferredSource {
    /// The old layout (with its model).
    let layout: StoreLayout
    /// Store tables neither layout has: join tables of removed many-to-many relationships.
    let obsoleteTables: [String]
    /// What changed, for the log line: `Trip: +rating, name→title, -score, -column ZLEGACY` (a
    /// removed property whose name the store does not record is named by its column).
    let summary: [String]

    /// Reconstructs the model of the store behind `db` (read only) against `target`.
    ///
    /// - Throws: ``SwiftDataError/incompatibleSchema`` naming each change that cannot be
    ///   inferred, or when the store and the models share no entity (the wrong file, or every
    ///   class renamed: nothing would be kept).
    static func infer(
        _ db: SQLiteConnection, stored: StoreMetadata, target: StoreMapping, url: URL?
    ) throws -> InferredSource {
        var builder = try Builder(db, stored: stored, target: target)
        guard builder.storeEntities.contains(where: { target.model.entity(named: $0.name) != nil }) else {
            try target.checkCompatible(stored, db: db, url: url)
            return InferredSource(layout: try StoreLayout(target.model), obsoleteTables: [], summary: [])
        }
        let layout = try builder.build()
        if !builder.refusals.isEmpty {
            throw SwiftDataError(
                SwiftDataError.incompatibleSchema.code,
                "the store was written with other models, and \(builder.refusals.count == 1 ? "this change" : "these changes") cannot be inferred; it was not modified:\n  "
                    + builder.refusals.map { "\($0.entity).\($0.property) \($0.reason)" }.joined(separator: "\n  ")
                    + "\n" + InferredSource.planAdvice,
                entityName: builder.refusals[0].entity, propertyName: builder.refusals[0].property, url: url)
        }
        return InferredSource(
            layout: layout, obsoleteTables: builder.obsoleteTables, summary: builder.summary(layout))
    }

    /// The advice ending every refusal of an inferred migration.
    static let planAdvice =
        "Declare the change in a SchemaMigrationPlan (the old and new VersionedSchema and a custom MigrationStage); see the Migrations article."

    /// One change that cannot be inferred.
    struct Refusal: Equatable {
        var entity: String
        var property: String
        var reason: String
    }

    /// The reconstruction's working state.
    private struct Builder {
        let db: SQLiteConnection
        let stored: StoreMetadata
        let target: StoreMapping
        /// `Z_PRIMARYKEY`'s entity rows.
        var storeEntities: [(number: Int, name: String, superNumber: Int)] = []
        /// Every table's columns and their declared types.
        var columns: [String: [String: String]] = [:]
        /// The entities being rebuilt (their hash differs from the models').
        var changed: Set<String> = []
        /// Rebuilt entities whose hash could not be matched.
        var unproved: Set<String> = []
        /// `Entity.attribute` of the attributes standing for unclaimed old columns.
        var guessed: Set<String> = []
        var entities: [StoreModel.Entity] = []
        var refusals: [Refusal] = []
        var obsoleteTables: [String] = []

        init(_ db: SQLiteConnection, stored: StoreMetadata, target: StoreMapping) throws {
            self.db = db
            self.stored = stored
            self.target = target
            for row in try db.rows("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT < 16000 ORDER BY Z_ENT")
            {
                guard case .integer(let number)? = row.first, case .text(let name) = row[1] else { continue }
                let superNumber: Int64 = if case .integer(let s) = row[2] { s } else { 0 }
                storeEntities.append((Int(number), name, Int(superNumber)))
            }
            for table in try SQLiteStore.tableNames(db) where !table.hasPrefix("sqlite_") {
                var byName: [String: String] = [:]
                for row in try db.rows("SELECT name, type FROM pragma_table_info(?)", [.text(table)]) {
                    guard case .text(let name)? = row.first else { continue }
                    byName[name] = if case .text(let type) = row[1] { type.uppercased() } else { "" }
                }
                columns[table] = byName
            }
        }

        /// Rebuilds the old model and lays it out.
        mutating func build() throws -> StoreLayout {
            let newHashes = target.versionHashes
            let nameByNumber = Dictionary(storeEntities.map { ($0.number, $0.name) }, uniquingKeysWith: { a, _ in a })
            let storeNames = Set(storeEntities.map(\.name))
            for s in storeEntities {
                let parent = s.superNumber == 0 ? nil : nameByNumber[s.superNumber]
                guard var e = target.model.entity(named: s.name) else {
                    entities.append(StoreModel.Entity(name: s.name, superentity: parent))
                    changed.insert(s.name)
                    continue
                }
                if newHashes[s.name] != nil, newHashes[s.name] == stored.versionHashes[s.name] {
                    entities.append(e)
                    continue
                }
                changed.insert(s.name)
                e.superentity = parent
                e.indexes = []
                e.attributes = e.attributes.map { a in
                    var a = a
                    a.name = target.originalName(of: a.name, in: s.name)
                    return a
                }
                e.relationships = e.relationships.compactMap { r in
                    guard storeNames.contains(r.destination) else { return nil }
                    var r = r
                    r.name = target.originalName(of: r.name, in: s.name)
                    r.inverse = r.inverse.map { target.originalName(of: $0, in: r.destination) }
                    return r
                }
                e.uniquenessConstraints = e.uniquenessConstraints.map { group in
                    group.map { target.originalName(of: $0, in: s.name) }
                }
                entities.append(e)
            }
            // Properties of the models the old tables have no storage for are new: drop them
            // until every remaining one is found (a removed relationship renames nothing, so
            // this settles in a few rounds).
            var layout = try layOut()
            if repairPairs(layout) { layout = try layOut() }
            for _ in 0..<4 {
                guard dropMissingProperties(layout) else { break }
                layout = try layOut()
            }
            // Columns no property claims belong to removed properties.
            if addRemovedColumns(layout) { layout = try layOut() }
            for s in storeEntities where layout.entity(named: s.name)?.number != s.number {
                throw SwiftDataError(
                    SwiftDataError.incompatibleSchema.code,
                    "the store's entity numbers do not follow from its entities (\(s.name) is \(s.number)); the model it was written with cannot be inferred and it was not modified. "
                        + InferredSource.planAdvice)
            }
            let known = Set(layout.tables.map(\.name) + layout.joinTables.map(\.name))
            let fixed: Set<String> = [
                "Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE", "ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING",
            ]
            obsoleteTables = columns.keys.filter { !known.contains($0) && !fixed.contains($0) }.sorted()
            checkColumnTypes(layout)
            prove()
            return try layOut()
        }

        private func layOut() throws -> StoreLayout {
            do {
                return try StoreLayout(StoreModel(entities: entities, versionIdentifiers: stored.versionIdentifiers))
            } catch let e as SwiftDataError {
                throw SwiftDataError(
                    SwiftDataError.incompatibleSchema.code,
                    "the model the store was written with cannot be inferred (\(e.message)); it was not modified. "
                        + InferredSource.planAdvice,
                    entityName: e.entityName, propertyName: e.propertyName, underlying: e)
            }
        }

        /// Whether the store has the storage `layout` gives a property (`nil`: partly, a
        /// composite whose elements changed).
        private func isStored(_ storage: StoreLayout.PropertyStorage, table: String) -> Bool? {
            let have = columns[table] ?? [:]
            switch storage {
            case .column(let c): return have[c] != nil
            case .composite(let elements):
                let found = elements.filter { have[$0.column] != nil }.count
                return found == elements.count ? true : found == 0 ? false : nil
            case .toOne(let key, _): return have[key] != nil
            case .toManyThroughInverse(let t, let key), .toManyWithoutInverse(let t, let key):
                return columns[t]?[key] != nil
            case .manyToMany(let join, _, _): return columns[join] != nil
            case .notStored: return true
            }
        }

        /// Pairs or unpairs to-manys of changed entities so their storage is the store's: two
        /// one-way to-manys between two entities whose join table the store has were a
        /// many-to-many pair; a pair whose join table is missing while one-way keys exist were two
        /// one-way relationships. Whether anything changed.
        private mutating func repairPairs(_ layout: StoreLayout) -> Bool {
            var repaired = false
            for i in entities.indices where changed.contains(entities[i].name) {
                guard let e = layout.entity(named: entities[i].name) else { continue }
                for j in entities[i].relationships.indices where entities[i].relationships[j].isToMany {
                    let r = entities[i].relationships[j]
                    guard let storage = e.properties[r.name], isStored(storage, table: e.table) == false,
                        let d = entities.firstIndex(where: { $0.name == r.destination }),
                        changed.contains(entities[d].name)
                    else { continue }
                    let back = entities[d].relationships.indices.filter { k in
                        let other = entities[d].relationships[k]
                        return other.isToMany && other.destination == entities[i].name && other.name != r.name
                            && (r.inverse == nil ? other.inverse == nil : other.inverse == r.name)
                    }
                    guard back.count == 1, let k = back.first else { continue }
                    let pairing = r.inverse == nil
                    var trial = entities
                    trial[i].relationships[j].inverse = pairing ? entities[d].relationships[k].name : nil
                    trial[d].relationships[k].inverse = pairing ? r.name : nil
                    // try?: a pairing the layout rejects is not the store's shape; the property then
                    // keeps its declared shape and the usual checks refuse or drop it.
                    guard
                        let candidate = try? StoreLayout(
                            StoreModel(entities: trial, versionIdentifiers: stored.versionIdentifiers)),
                        let te = candidate.entity(named: entities[i].name), let ts = te.properties[r.name],
                        isStored(ts, table: te.table) == true
                    else { continue }
                    entities = trial
                    repaired = true
                }
            }
            return repaired
        }

        /// Drops the properties of changed entities the store has no storage for; whether any went.
        private mutating func dropMissingProperties(_ layout: StoreLayout) -> Bool {
            var dropped = false
            for i in entities.indices where changed.contains(entities[i].name) {
                guard let e = layout.entity(named: entities[i].name) else { continue }
                var attributes: [StoreModel.Attribute] = []
                for a in entities[i].attributes {
                    let stored: Bool?? = e.properties[a.name].map { isStored($0, table: e.table) }
                    switch stored {
                    case .some(.some(false)): dropped = true
                    case .some(.none):
                        refuse(
                            e.name, newName(of: a.name, in: e.name),
                            "changes its composite elements; a lightweight migration cannot convert stored values")
                        attributes.append(a)
                    default: attributes.append(a)
                    }
                }
                entities[i].attributes = attributes
                let relationships = entities[i].relationships.filter { r in
                    guard let storage = e.properties[r.name] else { return true }
                    return isStored(storage, table: e.table) != false
                }
                if relationships.count != entities[i].relationships.count { dropped = true }
                entities[i].relationships = relationships
                let names = Set(entities[i].attributes.map(\.name) + entities[i].relationships.map(\.name))
                entities[i].uniquenessConstraints.removeAll { !$0.allSatisfy(names.contains) }
            }
            // An inverse whose relationship went is no inverse.
            for i in entities.indices {
                for j in entities[i].relationships.indices {
                    let r = entities[i].relationships[j]
                    guard let inverse = r.inverse else { continue }
                    let model = StoreModel(entities: entities)
                    if model.relationship(inverse, of: r.destination) == nil {
                        entities[i].relationships[j].inverse = nil
                    }
                }
            }
            return dropped
        }

        /// Adds the old tables' unclaimed columns as attributes of the table's root entity;
        /// whether there were any. Those entities cannot be proved.
        private mutating func addRemovedColumns(_ layout: StoreLayout) -> Bool {
            var added = false
            for table in layout.tables {
                let claimed = Set(["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name))
                let extra = (columns[table.name] ?? [:]).filter { !claimed.contains($0.key) }
                guard !extra.isEmpty, let root = entities.firstIndex(where: { $0.name == table.root }) else { continue }
                let taken = Set(StoreModel(entities: entities).allAttributes(of: table.root).map(\.name))
                for (column, type) in extra.sorted(by: { $0.key < $1.key }) {
                    let name = Builder.removedPrefix + column
                    guard !taken.contains(name) else { continue }
                    guessed.insert(table.root + "." + name)
                    entities[root].attributes.append(
                        StoreModel.Attribute(name: name, type: Builder.attributeType(declared: type), isOptional: true))
                    added = true
                }
                unproved.formUnion(table.entities)
            }
            return added
        }

        /// The name prefix of the attributes standing for unclaimed columns (`removedZSCORE`).
        static let removedPrefix = "removed"

        /// An attribute type stored in a column declared `type`.
        static func attributeType(declared type: String) -> StoreModel.AttributeType {
            switch type {
            case "INTEGER": .integer64
            case "FLOAT": .double
            case "TIMESTAMP": .date
            case "DECIMAL": .decimal
            case "VARCHAR": .string
            default: .binaryData
            }
        }

        /// The attribute types stored in a column declared like `type` that a version hash can
        /// tell apart (transformables and composites are not tried).
        static func alternatives(declared type: String) -> [StoreModel.AttributeType] {
            switch type {
            case "INTEGER": [.integer16, .integer32, .integer64, .boolean]
            case "FLOAT": [.double, .float]
            case "VARCHAR": [.string, .uri]
            case "BLOB": [.binaryData, .uuid]
            default: []
            }
        }

        /// Refuses kept attributes whose old column is declared with another type than the models'.
        private mutating func checkColumnTypes(_ layout: StoreLayout) {
            for table in layout.tables {
                let have = columns[table.name] ?? [:]
                for column in table.columns {
                    guard case .attribute(let entity, let name) = column.role, changed.contains(entity),
                        let declared = have[column.name], declared != column.type.rawValue,
                        !guessed.contains(entity + "." + name)
                    else { continue }
                    let newName = newName(of: name, in: entity)
                    let newType = target.model.allAttributes(of: entity).first { $0.name == newName }?.type
                    refuse(
                        entity, newName,
                        "changes type: the store keeps it in a \(declared) column, the models as \(newType.map(\.swiftName) ?? "another type") (\(column.type.rawValue)); a lightweight migration cannot convert stored values"
                    )
                }
            }
        }

        /// The models' name of the property called `original` in the old model.
        private func newName(of original: String, in entity: String) -> String {
            let declared =
                target.model.allAttributes(of: entity).map(\.name)
                + target.model.allRelationships(of: entity).map(\.name)
            return declared.first { target.originalName(of: $0, in: entity) == original } ?? original
        }

        private mutating func refuse(_ entity: String, _ property: String, _ reason: String) {
            let refusal = Refusal(entity: entity, property: property, reason: reason)
            if !refusals.contains(refusal) { refusals.append(refusal) }
        }

        // MARK: Proving with the version hashes

        /// One difference to try between the rebuilt entity and the old one.
        private enum Variation {
            case optionality(attribute: Int)
            case relationshipOptionality(Int)
            case type(attribute: Int, StoreModel.AttributeType)
            case constraint(Int)
            /// `.externalStorage` added or removed (stored inline here either way).
            case externalStorage(attribute: Int)
            /// `.preserveValueOnDeletion` added or removed (history tombstones follow).
            case preserved(attribute: Int)
            /// A `hashModifier` added.
            case hashModifier(attribute: Int)
            /// Another destination (with no inverse, or the same inverse name): refused.
            case destination(relationship: Int, String, keepsInverse: Bool)
        }

        /// Matches each rebuilt entity's hash with the store's, parents first; see the type's
        /// documentation. Unmatched entities keep every attribute optional.
        private mutating func prove() {
            let model = StoreModel(entities: entities)
            let order = changed.filter { target.model.entity(named: $0) != nil }.sorted {
                (model.lineage(of: $0).count, $0) < (model.lineage(of: $1).count, $1)
            }
            for name in order {
                guard !unproved.contains(name), let index = entities.firstIndex(where: { $0.name == name }),
                    let expected = stored.versionHashes[name].map({ [UInt8]($0) })
                else {
                    relaxOptionality(of: name)
                    continue
                }
                if let found = search(index, expected) {
                    apply(found, to: index)
                } else {
                    unproved.insert(name)
                    relaxOptionality(of: name)
                }
            }
        }

        /// The kept attributes of an unproved entity, as possibly NULL in the store.
        private mutating func relaxOptionality(of name: String) {
            guard let i = entities.firstIndex(where: { $0.name == name }) else { return }
            for j in entities[i].attributes.indices { entities[i].attributes[j].isOptional = true }
        }

        /// The smallest set of variations (at most three, a bounded number of tries) giving
        /// the expected hash.
        private func search(_ index: Int, _ expected: [UInt8]) -> [Variation]? {
            let e = entities[index]
            // try?: the model was laid out before; without a layout no type is tried.
            let layout = try? StoreLayout(StoreModel(entities: entities))
            let tableName = layout?.entity(named: e.name)?.table ?? ""
            var options: [Variation] = []
            for (i, a) in e.attributes.enumerated() where !a.isTransient {
                options.append(.optionality(attribute: i))
                options.append(.externalStorage(attribute: i))
                options.append(.preserved(attribute: i))
                if a.versionHashModifier != nil { options.append(.hashModifier(attribute: i)) }
                guard !a.isComposite, a.valueTransformerName == nil, a.derivation == nil,
                    case .column(let c)? = layout?.entity(named: e.name)?.properties[a.name],
                    let declared = columns[tableName]?[c]
                else { continue }
                for t in Builder.alternatives(declared: declared) where t != a.type {
                    options.append(.type(attribute: i, t))
                }
            }
            for (i, r) in e.relationships.enumerated() where !r.isTransient {
                options.append(.relationshipOptionality(i))
            }
            for (i, r) in e.relationships.enumerated() where !r.isTransient {
                for other in storeEntities.map(\.name) where other != r.destination {
                    options.append(.destination(relationship: i, other, keepsInverse: false))
                    if r.inverse != nil { options.append(.destination(relationship: i, other, keepsInverse: true)) }
                }
            }
            for i in e.uniquenessConstraints.indices { options.append(.constraint(i)) }
            var tries = 0
            func matches(_ chosen: [Variation]) -> Bool {
                tries += 1
                var copy = self.entities
                Builder.apply(chosen, to: &copy[index])
                return VersionHash.entity(e.name, in: StoreModel(entities: copy)) == expected
            }
            if matches([]) { return [] }
            for a in options.indices where matches([options[a]]) { return [options[a]] }
            for a in options.indices {
                for b in options.indices where b > a && tries < 4000 {
                    if matches([options[a], options[b]]) { return [options[a], options[b]] }
                }
            }
            for a in options.indices where tries < 4000 {
                for b in options.indices where b > a && tries < 4000 {
                    for c in options.indices where c > b && tries < 4000 {
                        if matches([options[a], options[b], options[c]]) {
                            return [options[a], options[b], options[c]]
                        }
                    }
                }
            }
            return nil
        }

        private static func apply(_ variations: [Variation], to e: inout StoreModel.Entity) {
            var dropped: [Int] = []
            for v in variations {
                switch v {
                case .optionality(let i): e.attributes[i].isOptional.toggle()
                case .relationshipOptionality(let i): e.relationships[i].isOptional.toggle()
                case .type(let i, let t): e.attributes[i].type = t
                case .constraint(let i): dropped.append(i)
                case .externalStorage(let i): e.attributes[i].allowsExternalStorage.toggle()
                case .preserved(let i): e.attributes[i].preservesValueOnDeletion.toggle()
                case .hashModifier(let i): e.attributes[i].versionHashModifier = nil
                case .destination(let i, let other, let keepsInverse):
                    e.relationships[i].destination = other
                    if !keepsInverse { e.relationships[i].inverse = nil }
                }
            }
            for i in dropped.sorted(by: >) { e.uniquenessConstraints.remove(at: i) }
        }

        /// Records what a proof found: old optionality, options and constraints stay in the
        /// rebuilt entity; a type or destination change is refused.
        private mutating func apply(_ variations: [Variation], to index: Int) {
            let before = entities[index]
            Builder.apply(variations, to: &entities[index])
            for v in variations {
                switch v {
                case .type(let i, let t):
                    refuse(
                        before.name, newName(of: before.attributes[i].name, in: before.name),
                        "changes type from \(t.swiftName) to \(before.attributes[i].type.swiftName); a lightweight migration cannot convert stored values"
                    )
                    // The migration itself runs only without refusals; keep the models' type.
                    entities[index].attributes[i].type = before.attributes[i].type
                case .destination(let i, let other, _):
                    let r = before.relationships[i]
                    refuse(
                        before.name, newName(of: r.name, in: before.name),
                        "changes its destination from \(other) to \(r.destination); a lightweight migration cannot move its links"
                    )
                    entities[index].relationships[i] = r
                default: break
                }
            }
        }

        /// `Trip: +rating, -score, rating?` lines for the log.
        func summary(_ old: StoreLayout) -> [String] {
            var lines: [String] = []
            let oldNames = Set(old.model.entities.map(\.name))
            let added = target.model.entities.map(\.name).filter { !oldNames.contains($0) }
            let removed = old.model.entities.map(\.name).filter { target.model.entity(named: $0) == nil }
            if !added.isEmpty { lines.append("entities added: \(StoreModel.sorted(added).joined(separator: ", "))") }
            if !removed.isEmpty {
                lines.append(
                    "entities removed: \(StoreModel.sorted(removed).joined(separator: ", ")) (their rows dropped)")
            }
            for entity in StoreModel.sorted(Array(changed)) {
                guard let before = old.model.entity(named: entity), let after = target.model.entity(named: entity)
                else { continue }
                let oldProperties = before.attributes.map(\.name) + before.relationships.map(\.name)
                let newProperties = after.attributes.map(\.name) + after.relationships.map(\.name)
                var parts: [String] = []
                for p in newProperties {
                    let original = target.originalName(of: p, in: entity)
                    if !oldProperties.contains(original) {
                        parts.append("+\(p)")
                    } else if original != p {
                        parts.append("\(original)→\(p)")
                    }
                }
                let originals = Set(newProperties.map { target.originalName(of: $0, in: entity) })
                let gone = oldProperties.filter { !originals.contains($0) }
                if !gone.isEmpty {
                    parts += gone.map { name in
                        guessed.contains(entity + "." + name)
                            ? "-column \(name.dropFirst(Builder.removedPrefix.count))" : "-\(name)"
                    }
                }
                if before.uniquenessConstraints.count < after.uniquenessConstraints.count {
                    parts.append("uniqueness constraints added")
                }
                lines.append(
                    "\(entity): \(parts.isEmpty ? "optionality, an inverse or a count changed" : parts.joined(separator: ", "))"
                )
            }
            return lines
        }
    }
}

extension StoreMapping {
    /// The name `property` of `entity` had in the model before: its `originalName`, else its name.
    func originalName(of property: String, in entity: String) -> String {
        for table in tables {
            guard let layout = table.entities.first(where: { $0.name == entity }),
                let slot = layout.slotByName[property]
            else { continue }
            let declared = layout.slots[slot]
            return declared.attribute?.originalName ?? declared.relationship?.originalName ?? property
        }
        return property
    }
}

import Foundation

extension StoreLayout {
    /// Lays out `model` by the rules in ``StoreLayout``.
    ///
    /// ```swift
    /// let layout = try StoreLayout(model, options: .init(includesHistory: false))
    /// ```
    /// - Throws: ``SwiftDataError/unknownSchema`` when the model is inconsistent (see
    ///   ``StoreModel/validate()``) or uses what no reference store shows the layout of
    ///   (ordered to-many relationships).
    init(_ model: StoreModel, options: Options = Options()) throws {
        try model.validate()
        self.model = model
        var builder = Builder(model: model)
        builder.nameColumns()
        builder.nameJoinTables()
        builder.assignStorage()
        entities = builder.entityLayouts
        tables = builder.tables
        joinTables = builder.joinTables
        primaryKeyRows =
            builder.order.map {
                PrimaryKeyRow(entity: builder.number[$0]!, name: $0, superEntity: builder.superNumber($0))
            }
            + (options.includesHistory ? StoreLayout.historyPrimaryKeyRows : [])
        let (triggers, skipped) = builder.derivedAttributeTriggers()
        statements =
            builder.tableStatements() + StoreLayout.metadataTableStatements
            + (options.includesHistory
                ? StoreLayout.historyTableStatements(tombstones: model.maximumTombstoneCount) : [])
            + builder.indexStatements()
            + (options.includesHistory ? StoreLayout.historyIndexStatements : [])
            + triggers
        derivedAttributesWithoutTriggers = skipped
    }

    /// The upper-cased form Core Data uses in table and column names.
    static func upper(_ name: String) -> String { name.uppercased() }

    /// The column type and the sort class of an attribute type (see ``StoreLayout``).
    static func columnType(_ type: StoreModel.AttributeType) -> (type: ColumnType, rank: Int) {
        switch type {
        case .integer16, .integer32, .integer64, .boolean, .objectID, .undefined, .composite: (.integer, 0)
        case .double, .float: (.float, 1)
        case .date: (.timestamp, 1)
        case .decimal: (.decimal, 2)
        case .string, .uri: (.varchar, 3)
        case .uuid: (.blob, 4)
        case .binaryData, .transformable: (.blob, 5)
        }
    }

    /// The layout's working state: entity numbers, then names, then storage.
    private struct Builder {
        let model: StoreModel
        /// Entity names in entity-number order.
        var order: [String] = []
        var number: [String: Int] = [:]
        var tables: [Table] = []
        var joinTables: [JoinTable] = []
        var entityLayouts: [EntityLayout] = []
        /// (entity, property) → its columns in its table, for constraints and storage.
        var columnsOf: [String: [String: [String]]] = [:]

        init(model: StoreModel) {
            self.model = model
            func visit(_ name: String) {
                order.append(name)
                number[name] = order.count
                for sub in model.subentities(of: name) { visit(sub) }
            }
            for root in StoreModel.sorted(model.entities.filter { $0.superentity == nil }.map(\.name)) { visit(root) }
        }

        func superNumber(_ name: String) -> Int { model.entity(named: name)?.superentity.flatMap { number[$0] } ?? 0 }
        func tableName(_ entity: String) -> String { "Z" + StoreLayout.upper(model.root(of: entity)) }
        func hierarchy(of root: String) -> [String] { order.filter { model.root(of: $0) == root } }

        /// A column before naming: its base name, type, sort class, role, and the property
        /// whose value it holds (`nil` for entity and one-way key columns).
        struct Candidate {
            var base: String
            var type: ColumnType
            var rank: Int
            var role: Role
            var property: (entity: String, name: String)?
        }

        /// Names every entity table's columns and sorts them into Core Data's order.
        mutating func nameColumns() {
            for root in order where model.entity(named: root)?.superentity == nil {
                var taken: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
                var named: [(column: Column, rank: Int)] = []
                for c in hierarchy(of: root).flatMap(candidates(of:)) {
                    var name = c.base
                    var suffix = 1
                    while taken.contains(name) {
                        name = c.base + String(suffix)
                        suffix += 1
                    }
                    taken.insert(name)
                    named.append((Column(name: name, type: c.type, role: c.role), c.rank))
                    if let p = c.property { columnsOf[p.entity, default: [:]][p.name, default: []].append(name) }
                }
                // A stable sort by storage class (Swift's sort is not stable: sort the indices).
                let sorted = named.indices.sorted { (named[$0].rank, $0) < (named[$1].rank, $1) }.map {
                    named[$0].column
                }
                tables.append(Table(name: tableName(root), root: root, entities: hierarchy(of: root), columns: sorted))
            }
        }

        /// The columns `name` adds to its table, in naming order: attributes by name (a
        /// composite's elements in declaration order), to-one relationships by name, then the
        /// keys of one-way to-manys pointing at `name`.
        func candidates(of name: String) -> [Candidate] {
            let e = model.entity(named: name)!
            var out: [Candidate] = []
            for a in e.attributes.filter({ !$0.isTransient }).sorted(by: { StoreModel.precedes($0.name, $1.name) }) {
                if a.isComposite {
                    for element in a.elements where !element.isTransient {
                        let (type, rank) = StoreLayout.columnType(element.type)
                        out.append(
                            Candidate(
                                base: "Z" + StoreLayout.upper(element.name), type: type, rank: rank,
                                role: .element(entity: name, attribute: a.name, element: element.name),
                                property: (name, a.name)))
                    }
                } else {
                    let (type, rank) = StoreLayout.columnType(a.type)
                    out.append(
                        Candidate(
                            base: "Z" + StoreLayout.upper(a.name), type: type, rank: rank,
                            role: .attribute(entity: name, attribute: a.name), property: (name, a.name)))
                }
            }
            for r in e.relationships.sorted(by: { StoreModel.precedes($0.name, $1.name) })
            where !r.isTransient && !r.isToMany {
                out.append(
                    Candidate(
                        base: "Z" + StoreLayout.upper(r.name), type: .integer, rank: 0,
                        role: .toOneKey(entity: name, relationship: r.name), property: (name, r.name)))
                if !model.subentities(of: r.destination).isEmpty {
                    out.append(
                        Candidate(
                            base: "Z\(number[r.destination]!)_" + StoreLayout.upper(r.name), type: .integer, rank: 0,
                            role: .toOneEntity(entity: name, relationship: r.name), property: nil))
                }
            }
            for (owner, r) in oneWayToManys(into: name) {
                out.append(
                    Candidate(
                        base: "Z\(number[owner]!)" + StoreLayout.upper(r.name), type: .integer, rank: 0,
                        role: .toManyKey(entity: owner, relationship: r.name), property: nil))
            }
            return out
        }

        /// The to-many relationships without inverse whose destination is `entity`, by owner
        /// number then name.
        func oneWayToManys(into entity: String) -> [(owner: String, relationship: StoreModel.Relationship)] {
            order.flatMap { owner in
                model.entity(named: owner)!.relationships
                    .filter { !$0.isTransient && $0.isToMany && $0.inverse == nil && $0.destination == entity }
                    .sorted { StoreModel.precedes($0.name, $1.name) }
                    .map { (owner, $0) }
            }
        }

        /// Names the join table of every many-to-many pair once, from the side whose
        /// relationship name sorts last (equal names: the lower entity number; a relationship
        /// that is its own inverse names its table alone).
        mutating func nameJoinTables() {
            for owner in order {
                for r in model.entity(named: owner)!.relationships.sorted(by: { StoreModel.precedes($0.name, $1.name) })
                where !r.isTransient && r.isToMany {
                    guard let inverseName = r.inverse, let inverse = model.relationship(inverseName, of: r.destination),
                        inverse.isToMany
                    else { continue }
                    let declarer = declaringEntity(of: inverseName, from: r.destination)
                    let namesTable: Bool
                    if r.name != inverseName {
                        namesTable = StoreModel.precedes(inverseName, r.name)
                    } else {
                        namesTable = declarer == owner || number[owner]! < number[declarer]!
                    }
                    guard namesTable else { continue }
                    let table = "Z_\(number[owner]!)" + StoreLayout.upper(r.name)
                    let first = "Z_\(number[owner]!)" + StoreLayout.upper(inverseName)
                    var second = "Z_\(number[r.destination]!)" + StoreLayout.upper(r.name)
                    if second == first { second += "1" }  // a relationship that is its own inverse (a guess)
                    joinTables.append(
                        JoinTable(
                            name: table, entity: owner, relationship: r.name,
                            ownerColumn: first, destinationColumn: second))
                }
            }
        }

        /// The entity (among `entity` and its superentities) that declares relationship `name`.
        func declaringEntity(of name: String, from entity: String) -> String {
            model.lineage(of: entity).first { $0.relationships.contains { $0.name == name } }?.name ?? entity
        }

        /// Where each entity's properties (inherited ones included) live.
        mutating func assignStorage() {
            for name in order {
                var properties: [String: PropertyStorage] = [:]
                for holder in model.lineage(of: name) {
                    let e = holder
                    for a in e.attributes {
                        guard !a.isTransient, let columns = columnsOf[e.name]?[a.name] else {
                            properties[a.name] = .notStored
                            continue
                        }
                        if a.isComposite {
                            let elements = a.elements.filter { !$0.isTransient }
                            properties[a.name] = .composite(
                                zip(elements, columns).map { ElementColumn(element: $0.name, column: $1) })
                        } else {
                            properties[a.name] = .column(columns[0])
                        }
                    }
                    for p in e.fetchedProperties { properties[p] = .notStored }
                    for r in e.relationships { properties[r.name] = storage(of: r, declaredBy: e.name) }
                }
                entityLayouts.append(
                    EntityLayout(
                        name: name, number: number[name]!, superNumber: superNumber(name),
                        table: tableName(name), properties: properties))
            }
        }

        func storage(of r: StoreModel.Relationship, declaredBy owner: String) -> PropertyStorage {
            if r.isTransient { return .notStored }
            let destinationTable = tables.first { $0.name == tableName(r.destination) }!
            if !r.isToMany {
                let key = columnsOf[owner]?[r.name]?.first ?? ""
                let entity = tables.first { $0.name == tableName(owner) }!.columns
                    .first { $0.role == .toOneEntity(entity: owner, relationship: r.name) }?.name
                return .toOne(key: key, entity: entity)
            }
            guard let inverseName = r.inverse, let inverse = model.relationship(inverseName, of: r.destination) else {
                let key = destinationTable.columns.first { $0.role == .toManyKey(entity: owner, relationship: r.name) }!
                    .name
                return .toManyWithoutInverse(table: destinationTable.name, key: key)
            }
            if !inverse.isToMany {
                let declarer = declaringEntity(of: inverseName, from: r.destination)
                return .toManyThroughInverse(
                    table: destinationTable.name, key: columnsOf[declarer]?[inverseName]?.first ?? "")
            }
            if let join = joinTables.first(where: { $0.entity == owner && $0.relationship == r.name }) {
                return .manyToMany(
                    joinTable: join.name, ownColumn: join.ownerColumn, otherColumn: join.destinationColumn)
            }
            let declarer = declaringEntity(of: inverseName, from: r.destination)
            let join = joinTables.first { $0.entity == declarer && $0.relationship == inverseName }!
            return .manyToMany(joinTable: join.name, ownColumn: join.destinationColumn, otherColumn: join.ownerColumn)
        }

        /// The columns of `property` as seen from `entity` (inherited properties included).
        func columns(of property: String, in entity: String) -> [String] {
            for holder in model.lineage(of: entity) {
                if let columns = columnsOf[holder.name]?[property] { return columns }
            }
            return []
        }

        func tableStatements() -> [String] {
            var out = tables.map { t in
                let columns =
                    (["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
                    + t.columns.map { "\($0.name) \($0.type.rawValue)" }).joined(separator: ", ")
                return "CREATE TABLE \(t.name) ( \(columns) )"
            }
            for j in joinTables {
                out.append(
                    "CREATE TABLE \(j.name) ( \(j.ownerColumn) INTEGER, \(j.destinationColumn) INTEGER, PRIMARY KEY (\(j.ownerColumn), \(j.destinationColumn)) )"
                )
            }
            return out
        }

        func indexStatements() -> [String] {
            var out: [String] = []
            for t in tables {
                if t.entities.count > 1 { out.append("CREATE INDEX \(t.name)_Z_ENT_INDEX ON \(t.name) (Z_ENT)") }
                for c in t.columns {
                    switch c.role {
                    case .toOneKey, .toManyKey:
                        out.append("CREATE INDEX \(t.name)_\(c.name)_INDEX ON \(t.name) (\(c.name))")
                    default: break
                    }
                }
            }
            for j in joinTables {
                out.append(
                    "CREATE INDEX \(j.name)_\(j.destinationColumn)_INDEX ON \(j.name) (\(j.destinationColumn), \(j.ownerColumn))"
                )
            }
            for name in order {
                let e = model.entity(named: name)!
                let table = tableName(name)
                func binary(_ properties: [String]) -> String {
                    properties.flatMap { columns(of: $0, in: name) }.map { "\($0) COLLATE BINARY ASC" }.joined(
                        separator: ", ")
                }
                for constraint in e.uniquenessConstraints {
                    out.append(
                        "CREATE UNIQUE INDEX Z_\(name)_UNIQUE_\(constraint.joined(separator: "_")) ON \(table) (\(binary(constraint)))"
                    )
                }
                for index in e.indexes {
                    out.append("CREATE INDEX Z_\(name)_\(index.name) ON \(table) (\(binary(index.propertyNames)))")
                }
            }
            return out
        }

        /// The triggers of `count:(toMany)` derived attributes, and the attributes skipped.
        func derivedAttributeTriggers() -> (statements: [String], skipped: [String]) {
            var out: [String] = []
            var skipped: [String] = []
            for name in order {
                for a in model.entity(named: name)!.attributes {
                    guard let derivation = a.derivation else { continue }
                    let expression = derivation.expression
                    guard derivation.filter == nil, expression.hasPrefix("count:("), expression.hasSuffix(")"),
                        let r = model.relationship(String(expression.dropFirst(7).dropLast()), of: name),
                        r.isToMany, let inverseName = r.inverse,
                        let inverse = model.relationship(inverseName, of: r.destination), !inverse.isToMany,
                        let column = columns(of: a.name, in: name).first,
                        let key = columns(of: inverseName, in: r.destination).first
                    else {
                        skipped.append("\(name).\(a.name)")
                        continue
                    }
                    out += StoreLayout.countTriggers(
                        entity: name, attribute: a.name, table: tableName(name), column: column,
                        destinationTable: tableName(r.destination), key: key)
                }
            }
            return (out, skipped)
        }
    }
}

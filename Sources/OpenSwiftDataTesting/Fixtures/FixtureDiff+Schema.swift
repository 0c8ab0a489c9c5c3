import Foundation
import OpenSwiftData

extension StoreSnapshot {
    /// The schema differences between `a` and `b`, by entity name (byte order), then kind (in
    /// the order `FixtureDiff.SchemaChange.Kind` declares), then property.
    static func schemaChanges(_ a: StoreSnapshot, _ b: StoreSnapshot) -> [FixtureDiff.SchemaChange] {
        typealias Change = FixtureDiff.SchemaChange
        var changes: [Change] = []
        for name in Set(a.entities.keys).union(b.entities.keys) {
            guard let old = a.entities[name] else {
                changes.append(Change(kind: .entityAdded, entity: name, new: b.entities[name]?.summary))
                continue
            }
            guard let new = b.entities[name] else {
                changes.append(Change(kind: .entityRemoved, entity: name, old: old.summary))
                continue
            }
            var entityChanges: [Change] = []
            if old.description.parent != new.description.parent {
                entityChanges.append(
                    Change(
                        kind: .parentChanged, entity: name, old: old.description.parent ?? "none",
                        new: new.description.parent ?? "none"))
            }
            entityChanges += propertyChanges(name, old, new)
            entityChanges += joinTableChanges(name, a, b)
            for group in Set(old.uniqueness).subtracting(new.uniqueness) {
                entityChanges.append(Change(kind: .uniqueRemoved, entity: name, old: group.joined(separator: ", ")))
            }
            for group in Set(new.uniqueness).subtracting(old.uniqueness) {
                entityChanges.append(Change(kind: .uniqueAdded, entity: name, new: group.joined(separator: ", ")))
            }
            if entityChanges.isEmpty, let oldHash = old.versionHash, let newHash = new.versionHash, oldHash != newHash {
                entityChanges.append(
                    Change(
                        kind: .versionHashChanged, entity: name, old: String(oldHash.prefix(12)),
                        new: String(newHash.prefix(12))))
            }
            changes += entityChanges
        }
        let kinds = Change.Kind.allCases
        return changes.sorted {
            if $0.entity != $1.entity { return $0.entity < $1.entity }
            if $0.kind != $1.kind { return kinds.firstIndex(of: $0.kind)! < kinds.firstIndex(of: $1.kind)! }
            if ($0.property ?? "") != ($1.property ?? "") { return ($0.property ?? "") < ($1.property ?? "") }
            return ($0.old ?? $0.new ?? "") < ($1.old ?? $1.new ?? "")
        }
    }

    /// Added, removed and changed properties `name` declares (inherited ones are its parent's).
    private static func propertyChanges(_ name: String, _ old: Entity, _ new: Entity) -> [FixtureDiff.SchemaChange] {
        typealias Change = FixtureDiff.SchemaChange
        let before = Dictionary(
            old.properties.filter { $0.owner == name }.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let after = Dictionary(
            new.properties.filter { $0.owner == name }.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var changes: [Change] = []
        for (property, was) in before where after[property] == nil {
            changes.append(Change(kind: .propertyRemoved, entity: name, property: property, old: was.signature))
        }
        for (property, now) in after {
            guard let was = before[property] else {
                changes.append(Change(kind: .propertyAdded, entity: name, property: property, new: now.signature))
                continue
            }
            if was.declaredType != now.declaredType
                || (was.swiftType != nil && now.swiftType != nil && was.swiftType != now.swiftType)
            {
                changes.append(
                    Change(kind: .typeChanged, entity: name, property: property, old: was.typeText, new: now.typeText))
            }
            if let before = was.isOptional, let after = now.isOptional, before != after {
                changes.append(
                    Change(
                        kind: .optionalityChanged, entity: name, property: property,
                        old: before ? "optional" : "required", new: after ? "optional" : "required"))
            }
            if let before = was.destination, let after = now.destination, before != after {
                changes.append(
                    Change(kind: .destinationChanged, entity: name, property: property, old: before, new: after))
            }
        }
        return changes
    }

    /// Join tables of `name` (their `Z_<n>` prefix is its number) only one file has.
    private static func joinTableChanges(_ name: String, _ a: StoreSnapshot, _ b: StoreSnapshot) -> [FixtureDiff
        .SchemaChange]
    {
        let before = Set(a.joinTables.values.filter { $0.owner == name }.map(\.name))
        let after = Set(b.joinTables.values.filter { $0.owner == name }.map(\.name))
        return before.subtracting(after).map {
            FixtureDiff.SchemaChange(kind: .propertyRemoved, entity: name, property: $0, old: "many-to-many join table")
        }
            + after.subtracting(before).map {
                FixtureDiff.SchemaChange(
                    kind: .propertyAdded, entity: name, property: $0, new: "many-to-many join table")
            }
    }

    /// Each entity's and join table's rows in both files, by name; history entities left out.
    static func counts(_ a: StoreSnapshot, _ b: StoreSnapshot) -> [FixtureDiff.RowCount] {
        var rows: [String: (a: Int?, b: Int?)] = [:]
        for (name, entity) in a.entities { rows[name, default: (nil, nil)].a = entity.description.rows }
        for (name, entity) in b.entities { rows[name, default: (nil, nil)].b = entity.description.rows }
        for (name, table) in a.joinTables { rows[name, default: (nil, nil)].a = table.rows }
        for (name, table) in b.joinTables { rows[name, default: (nil, nil)].b = table.rows }
        return rows.map {
            FixtureDiff.RowCount(
                name: $0.key, a: $0.value.a, b: $0.value.b, delta: ($0.value.b ?? 0) - ($0.value.a ?? 0))
        }
        .sorted { $0.name < $1.name }
    }
}

extension StoreSnapshot.Entity {
    /// How an added or removed entity is described: its number and table.
    var summary: String { "Z_ENT \(description.number)\(description.table.map { ", table \($0)" } ?? "")" }
}

extension StoreSnapshot.Property {
    /// How an added or removed property is described: `String (VARCHAR), optional, column ZNAME`.
    var signature: String {
        var parts = [typeText]
        if let isOptional { parts.append(isOptional ? "optional" : "required") }
        if let destination { parts.append("to-one \(destination)") } else if isKey { parts.append("to-one key") }
        if column != name { parts.append("column \(column)") }
        return parts.joined(separator: ", ")
    }
}

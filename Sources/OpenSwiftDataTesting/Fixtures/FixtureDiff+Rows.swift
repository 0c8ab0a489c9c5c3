import Foundation
import OpenSwiftData

extension StoreSnapshot {
    /// One row of an entity: its `Z_PK` and its values by column.
    struct Row {
        var key: Int64
        var values: [String: SQLValue]
    }

    /// The rows of the entities and join tables both files have, where they differ; by name.
    static func rowChanges(_ a: StoreSnapshot, _ b: StoreSnapshot) throws -> [FixtureDiff.EntityRows] {
        var out: [FixtureDiff.EntityRows] = []
        for name in Set(a.entities.keys).intersection(b.entities.keys).sorted() {
            guard let old = a.entities[name], let new = b.entities[name],
                let rows = try entityRows(name, old, new, a, b), !rows.changes.isEmpty
            else { continue }
            out.append(rows)
        }
        for name in Set(a.joinTables.keys).intersection(b.joinTables.keys).sorted() {
            guard let old = a.joinTables[name], let new = b.joinTables[name] else { continue }
            let rows = try joinRows(old, new, a, b)
            if !rows.changes.isEmpty { out.append(rows) }
        }
        return out.sorted { $0.name < $1.name }
    }

    /// `entity`'s rows (`Z_ENT` its own number) in its table, by `Z_PK`, with `columns`.
    func rows(of entity: Entity, columns: [String]) throws -> [Row] {
        guard let table = entity.description.table else { return [] }
        let list = (["Z_PK"] + columns).map(Self.quoted).joined(separator: ", ")
        return try FixtureFile.reading(url, purpose: .store) {
            let statement = try db.prepare(
                "SELECT \(list) FROM \(Self.quoted(table)) WHERE Z_ENT = \(entity.description.number) ORDER BY Z_PK")
            var rows: [Row] = []
            while try statement.step() {
                guard case .integer(let key) = statement.value(at: 0) else { continue }
                var values: [String: SQLValue] = [:]
                for (i, column) in columns.enumerated() { values[column] = statement.value(at: Int32(i + 1)) }
                rows.append(Row(key: key, values: values))
            }
            return rows
        }
    }

    static func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// The differing rows of one entity both files have, matched by `Z_PK` or by a uniqueness
    /// constraint both declare whose values are present and distinct on both sides.
    private static func entityRows(
        _ name: String, _ old: Entity, _ new: Entity, _ a: StoreSnapshot, _ b: StoreSnapshot
    ) throws -> FixtureDiff.EntityRows? {
        let newByColumn = Dictionary(new.properties.map { ($0.column, $0) }, uniquingKeysWith: { x, _ in x })
        // The properties both files store, by column, in A's column order.
        let shared = old.properties.compactMap { p in newByColumn[p.column].map { (old: p, new: $0) } }
        func columns(_ side: [StoreSnapshot.Property]) -> [String] {
            side.map(\.column) + side.compactMap(\.entityColumn)
        }
        // Every column of each side: an added or removed row shows all its values.
        let oldRows = try a.rows(of: old, columns: columns(old.properties))
        let newRows = try b.rows(of: new, columns: columns(new.properties))
        var matchedBy = ["Z_PK"]
        var keyOf: (Row, StoreSnapshot, [StoreSnapshot.Property]) -> String? = { row, _, _ in String(row.key) }
        // Readable keys first: a constraint over a blob column (a UUID, data) comes last.
        let blobs = Set(shared.filter { $0.new.declaredType == "BLOB" }.map(\.new.name))
        let groups = old.uniqueness.filter { new.uniqueness.contains($0) }
        for group in groups.filter({ !$0.contains(where: blobs.contains) })
            + groups.filter({ $0.contains(where: blobs.contains) })
        {
            let uniqueKey: (Row, StoreSnapshot, [StoreSnapshot.Property]) -> String? = { row, snapshot, properties in
                var parts: [String] = []
                for property in group {
                    guard let p = properties.first(where: { $0.name == property }),
                        let value = row.values[p.column], value != .null
                    else { return nil }
                    parts.append("\(property)=\(snapshot.render(value, p, row))")
                }
                return parts.joined(separator: " ")
            }
            let oldKeys = oldRows.map { uniqueKey($0, a, old.properties) }
            let newKeys = newRows.map { uniqueKey($0, b, new.properties) }
            let usable = [oldKeys, newKeys].allSatisfy { keys in
                !keys.contains(nil) && Set(keys.compactMap { $0 }).count == keys.count
            }
            if usable {
                matchedBy = group
                keyOf = uniqueKey
                break
            }
        }
        let byPK = matchedBy == ["Z_PK"]
        var before: [String: Row] = [:]
        for row in oldRows { before[keyOf(row, a, old.properties) ?? ""] = row }
        var after: [String: Row] = [:]
        for row in newRows { after[keyOf(row, b, new.properties) ?? ""] = row }
        var changes: [(sort: SortKey, change: FixtureDiff.RowChange)] = []
        func label(_ key: String, _ row: Row) -> String { byPK ? "\(name)#\(row.key)" : "\(name) \(key)" }
        for (key, row) in before where after[key] == nil {
            let values = old.properties.map {
                FixtureDiff.Value(property: $0.name, old: a.render(row.values[$0.column] ?? .null, $0, row))
            }
            changes.append((SortKey(key), FixtureDiff.RowChange(kind: .removed, key: label(key, row), values: values)))
        }
        for (key, row) in after {
            guard let was = before[key] else {
                let values = new.properties.map {
                    FixtureDiff.Value(property: $0.name, new: b.render(row.values[$0.column] ?? .null, $0, row))
                }
                changes.append(
                    (SortKey(key), FixtureDiff.RowChange(kind: .added, key: label(key, row), values: values)))
                continue
            }
            var values: [FixtureDiff.Value] = []
            if was.key != row.key {
                values.append(FixtureDiff.Value(property: "Z_PK", old: String(was.key), new: String(row.key)))
            }
            for pair in shared {
                let oldValue = was.values[pair.old.column] ?? .null
                let newValue = row.values[pair.new.column] ?? .null
                let oldEntity = pair.old.entityColumn.flatMap { was.values[$0] }
                let newEntity = pair.new.entityColumn.flatMap { row.values[$0] }
                guard oldValue != newValue || oldEntity != newEntity else { continue }
                values.append(
                    FixtureDiff.Value(
                        property: pair.new.name, old: a.render(oldValue, pair.old, was),
                        new: b.render(newValue, pair.new, row)))
            }
            if !values.isEmpty {
                changes.append(
                    (SortKey(key), FixtureDiff.RowChange(kind: .changed, key: label(key, was), values: values)))
            }
        }
        // Sorting positions, not the changes themselves, keeps their arrays from being copied.
        changes = changes.indices.sorted { changes[$0].sort < changes[$1].sort }.map { changes[$0] }
        return FixtureDiff.EntityRows(
            name: name, matchedBy: matchedBy,
            added: changes.filter { $0.change.kind == .added }.count,
            removed: changes.filter { $0.change.kind == .removed }.count,
            changed: changes.filter { $0.change.kind == .changed }.count,
            changes: changes.map(\.change))
    }

    /// The links only one file's join table has; a link is its whole row.
    private static func joinRows(_ old: JoinTable, _ new: JoinTable, _ a: StoreSnapshot, _ b: StoreSnapshot) throws
        -> FixtureDiff.EntityRows
    {
        func links(_ table: JoinTable, _ snapshot: StoreSnapshot) throws -> Set<String> {
            let list = table.columns.map(quoted).joined(separator: ", ")
            return try FixtureFile.reading(snapshot.url, purpose: .store) {
                let statement = try snapshot.db.prepare("SELECT \(list) FROM \(quoted(table.name))")
                var out = Set<String>()
                while try statement.step() {
                    out.insert(
                        table.columns.enumerated().map { i, column in
                            let value = statement.value(at: Int32(i))
                            guard case .integer(let key) = value else { return StoreSnapshot.renderStored(value) }
                            return "\(table.entities[column] ?? "?")#\(key)"
                        }.joined(separator: " "))
                }
                return out
            }
        }
        let before = try links(old, a)
        let after = try links(new, b)
        let changes =
            before.subtracting(after).map { (SortKey($0), FixtureDiff.RowChange(kind: .removed, key: $0, values: [])) }
            + after.subtracting(before).map { (SortKey($0), FixtureDiff.RowChange(kind: .added, key: $0, values: [])) }
        let sorted = changes.indices.sorted { changes[$0].0 < changes[$1].0 }.map { changes[$0].1 }
        return FixtureDiff.EntityRows(
            name: new.name, matchedBy: new.columns,
            added: sorted.filter { $0.kind == .added }.count, removed: sorted.filter { $0.kind == .removed }.count,
            changed: 0, changes: sorted)
    }

    /// A row's sort position: its key's text in natural order, digit runs compared as numbers
    /// (`Item#9` before `Item#10`, `name="a2"` before `name="a10"`), other bytes as bytes.
    struct SortKey: Comparable {
        var text: [UInt8]

        /// A key that is a bare `Z_PK`, compared as a number without walking its digits.
        var number: Int64?

        /// The position of `key` (a bare `Z_PK` sorts as a number by the same rule).
        init(_ key: String) {
            text = Array(key.utf8)
            number = text.count < 19 && !text.isEmpty && text.allSatisfy(Self.isDigit) ? Int64(key) : nil
        }

        static func < (x: SortKey, y: SortKey) -> Bool {
            if let m = x.number, let n = y.number, m != n { return m < n }
            let a = x.text
            let b = y.text
            var i = 0
            var j = 0
            while i < a.count, j < b.count {
                if isDigit(a[i]), isDigit(b[j]) {
                    let runA = digitRun(a, from: i)
                    let runB = digitRun(b, from: j)
                    let numberA = a[runA].drop { $0 == UInt8(ascii: "0") }
                    let numberB = b[runB].drop { $0 == UInt8(ascii: "0") }
                    if numberA.count != numberB.count { return numberA.count < numberB.count }
                    if !numberA.elementsEqual(numberB) { return numberA.lexicographicallyPrecedes(numberB) }
                    if runA.count != runB.count { return runA.count < runB.count }
                    i = runA.upperBound
                    j = runB.upperBound
                } else {
                    if a[i] != b[j] { return a[i] < b[j] }
                    i += 1
                    j += 1
                }
            }
            return a.count - i < b.count - j
        }

        private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        private static func digitRun(_ bytes: [UInt8], from start: Int) -> Range<Int> {
            var end = start
            while end < bytes.count, isDigit(bytes[end]) { end += 1 }
            return start..<end
        }
    }
}

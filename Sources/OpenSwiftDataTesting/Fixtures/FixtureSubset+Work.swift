import Foundation
import OpenSwiftData

extension FixtureSubset {
    /// The statements of one subset, on the scratch copy inside one transaction: the kept keys
    /// live in a temporary table `osd_keep (tbl, pk)`, one row per kept row.
    struct Work {
        let graph: StoreGraph
        let db: SQLiteConnection
        let seed: UInt64
        /// Rows kept through required to-ones, by destination entity, then by relationship.
        var requiredBy: [String: [String: Int]] = [:]
        var cleared: [String: Int] = [:]
        var removedJoins: [String: Int] = [:]
        var historyRemoved = 0

        init(graph: StoreGraph, db: SQLiteConnection, seed: UInt64) {
            self.graph = graph
            self.db = db
            self.seed = seed
        }

        /// Keeps `count` rows of each named entity (its sub-entities' rows included), picked by a
        /// partial Fisher–Yates shuffle of the keys in ascending order, from a stream of the seed
        /// named after the entity: the same rows for the same seed and store.
        mutating func keepNamed(_ named: [Named]) throws {
            try db.execute(
                "CREATE TEMP TABLE IF NOT EXISTS osd_keep (tbl TEXT, pk INTEGER, PRIMARY KEY (tbl, pk)) WITHOUT ROWID")
            try db.execute("DELETE FROM temp.osd_keep")
            for entry in named {
                let entity = entry.entity
                var keys = try db.rows(
                    "SELECT Z_PK FROM \(quoted(entity.table)) WHERE Z_ENT IN (\(list(entity.kindNumbers))) ORDER BY Z_PK"
                )
                .compactMap { row -> Int64? in
                    if case .integer(let pk) = row[0] { return pk }
                    return nil
                }
                let count = min(entry.count, keys.count)
                var rng = SeededGenerator(seed: SeededGenerator.derive(seed, labels: ["subset", entity.name]))
                for i in 0..<count {
                    let j = i + Int(rng.uniform(below: UInt64(keys.count - i)))
                    keys.swapAt(i, j)
                }
                for pk in keys.prefix(count) {
                    try db.run(
                        "INSERT OR IGNORE INTO temp.osd_keep (tbl, pk) VALUES (?, ?)",
                        [.text(entity.table), .integer(pk)])
                }
            }
        }

        /// Adds the destinations of kept rows' required to-ones until nothing changes.
        mutating func keepRequired() throws {
            var changed = true
            while changed {
                changed = false
                for entity in graph.entities {
                    for r in entity.toOnes where !r.isOptional {
                        guard let destination = graph.entity(named: r.destination) else { continue }
                        let key = quoted(r.keyColumn)
                        try db.run(
                            """
                            INSERT OR IGNORE INTO temp.osd_keep (tbl, pk) SELECT ?, t.\(key) FROM \(quoted(entity.table)) t
                            WHERE t.Z_ENT = \(entity.number) AND t.\(key) IS NOT NULL
                            AND t.Z_PK IN (SELECT pk FROM temp.osd_keep WHERE tbl = ?)
                            AND t.\(key) IN (SELECT Z_PK FROM \(quoted(destination.table)) WHERE Z_ENT IN (\(list(destination.kindNumbers))))
                            """, [.text(destination.table), .text(entity.table)])
                        let added = db.changes
                        if added > 0 {
                            changed = true
                            requiredBy[destination.name, default: [:]]["\(entity.name).\(r.name)", default: 0] += added
                        }
                    }
                }
            }
        }

        /// Deletes the rows not kept, then clears what pointed at them: optional to-one keys,
        /// to-many keys without inverse, join-table rows; empties the history tables.
        mutating func removeUnkept() throws {
            for table in Set(graph.entities.map(\.table)).sorted() {
                try db.run(
                    "DELETE FROM \(quoted(table)) WHERE Z_PK NOT IN (SELECT pk FROM temp.osd_keep WHERE tbl = ?)",
                    [.text(table)])
            }
            var done: Set<String> = []
            for entity in graph.entities {
                for r in entity.toOnes where r.isOptional && done.insert("\(entity.table).\(r.keyColumn)").inserted {
                    guard let destination = graph.entity(named: r.destination) else { continue }
                    let key = quoted(r.keyColumn)
                    let entityColumn = r.entityColumn.map { ", \(quoted($0)) = NULL" } ?? ""
                    try db.execute(
                        "UPDATE \(quoted(entity.table)) SET \(key) = NULL\(entityColumn) WHERE \(key) IS NOT NULL AND \(key) NOT IN (SELECT Z_PK FROM \(quoted(destination.table)))"
                    )
                    if db.changes > 0 { cleared["\(entity.name).\(r.name)"] = db.changes }
                }
                for r in entity.oneWayToManys where done.insert("\(r.table).\(r.keyColumn)").inserted {
                    let key = quoted(r.keyColumn)
                    try db.execute(
                        "UPDATE \(quoted(r.table)) SET \(key) = NULL WHERE \(key) IS NOT NULL AND \(key) NOT IN (SELECT Z_PK FROM \(quoted(entity.table)))"
                    )
                    if db.changes > 0 { cleared["\(entity.name).\(r.name)"] = db.changes }
                }
            }
            for join in graph.joins {
                guard let owner = graph.entity(named: join.entity),
                    let destination = graph.entity(named: join.destination)
                else { continue }
                try db.execute(
                    "DELETE FROM \(quoted(join.table)) WHERE \(quoted(join.ownerColumn)) NOT IN (SELECT Z_PK FROM \(quoted(owner.table))) OR \(quoted(join.destinationColumn)) NOT IN (SELECT Z_PK FROM \(quoted(destination.table)))"
                )
                if db.changes > 0 { removedJoins["\(join.entity).\(join.relationship)"] = db.changes }
            }
            for table in StoreNames.historyTables.sorted() where try exists(table) {
                try db.execute("DELETE FROM \(quoted(table))")
                historyRemoved += db.changes
            }
            try db.execute(
                "UPDATE Z_PRIMARYKEY SET Z_MAX = 0 WHERE Z_ENT >= 16000 AND Z_NAME IN ('CHANGE', 'TRANSACTION', 'TRANSACTIONSTRING')"
            )
        }

        private func exists(_ table: String) throws -> Bool {
            try db.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table)])
                == .integer(1)
        }

        /// The summary of the work, the input's row counts from `before`.
        func summary(before: StoreFileDescription, named: [Named], scrubbed: [FixtureScrub.Report]) throws -> Summary {
            let rowsBefore = Dictionary(before.entities.map { ($0.name, $0.rows) }, uniquingKeysWith: { a, _ in a })
            let requested = Dictionary(named.map { ($0.entity.name, $0.count) }, uniquingKeysWith: { a, _ in a })
            let entities = try graph.entities.map { entity in
                let after = try db.scalar(
                    "SELECT count(*) FROM \(quoted(entity.table)) WHERE Z_ENT = \(entity.number)")
                var rows = 0
                if case .integer(let n)? = after { rows = Int(n) }
                return EntityResult(
                    name: entity.name, rowsBefore: rowsBefore[entity.name] ?? 0, rowsAfter: rows,
                    requested: requested[entity.name], requiredBy: requiredBy[entity.name] ?? [:])
            }
            var known: Set<String> = ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"]
            known.formUnion(graph.entities.map(\.table))
            known.formUnion(graph.joins.map(\.table))
            known.formUnion(StoreNames.historyTables)
            let other = try db.rows(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"
            )
            .compactMap { row -> String? in
                if case .text(let name) = row[0], !known.contains(name) { return name }
                return nil
            }
            return Summary(
                input: "", output: "", seed: seed, entities: entities, clearedKeys: cleared,
                removedJoinRows: removedJoins, historyRowsRemoved: historyRemoved, otherTables: other,
                scrubbed: scrubbed, integrityProblems: [], referentialProblems: [])
        }
    }
}

import Foundation
import OpenSwiftData

/// The canonical text dump of a store's content, and its SHA-256: how fixtures prove they are
/// the same data, independent of file bytes, page layout or SQLite version.
///
/// The dump is a UTF-8 byte stream, defined exactly as follows:
///
/// 1. The header line `OpenSwiftData canonical dump 2` and a line feed (`\n`, 0x0A). (Version
///    1 dumped the layout this library used before Apple's format; its digests differ.)
/// 2. Every table of `sqlite_master` with `type = 'table'` whose name does not start with
///    `sqlite_`, in ascending byte order of the UTF-8 name. For each table:
///    - `table <name>\n`
///    - `columns <c1>,<c2>,…\n`: the column names in declaration order (`PRAGMA table_info`).
///    - one line per row, rows ordered by every column in declaration order, ascending, in
///      SQLite's order (NULL, then numbers, then text by bytes, then blobs) — for the model
///      tables, whose first column is the `Z_PK` primary key, that is primary-key order. A
///      row is its values, each followed by a single space, then `\n`, where a value is:
///      - NULL → `N`
///      - INTEGER → `I` and the decimal value (`I-42`)
///      - REAL → `R` and the 16 lowercase hex digits of its IEEE-754 bit pattern (`R3ff0000000000000`)
///      - TEXT → `T`, the UTF-8 byte length in decimal, `:`, then the bytes (`T3:abc`)
///      - BLOB → `B`, the byte length in decimal, `:`, then the bytes in lowercase hex (`B2:00ff`)
///    - `end <name> <row count>\n`
/// 3. Of `Z_METADATA`, the `Z_UUID` column is dumped as NULL: it names the store instance,
///    not its data. The property list (`Z_PLIST`: the model's version hashes) is dumped as
///    stored, and of `Z_PRIMARYKEY` the model's entities (entity numbers and the largest key
///    handed out).
/// 4. The persistent history (`ATRANSACTION`, `ACHANGE`, `ATRANSACTIONSTRING`, and their
///    `Z_PRIMARYKEY` rows, `Z_ENT` ≥ 16000) is left out: it records when and by whom the
///    content was saved, not the content (two stores given the same saves differ only there).
///
/// ```swift
/// let db = try SQLiteConnection(path: "Fixtures/catalogue.sqlite", mode: .readOnly)
/// let content = try CanonicalDump.content(of: db)
/// content.digest      // 64 hex digits
/// content.rowCounts   // ["ZCATALOGUEPRODUCT": 200, …]
/// ```
package enum CanonicalDump {
    /// What the dump of one store says: its digest, schema hash and row counts.
    ///
    /// ```swift
    /// let content = try CanonicalDump.content(of: db)
    /// ```
    package struct Content: Sendable, Equatable {
        /// SHA-256 of the canonical dump, lowercase hex.
        package var digest: String
        /// The model's version-hash digest (`NSStoreModelVersionHashesDigest` in `Z_METADATA`):
        /// equal for stores of the same model; empty when the store has none.
        package var schemaHash: String
        /// Rows per entity by entity name — the entity's rows and its sub-entities', as
        /// `fetchCount` counts them — and per join table by table name; the history and
        /// metadata tables (`Z_METADATA`, `Z_PRIMARYKEY`,
        /// `Z_MODELCACHE`) are left out.
        package var rowCounts: [String: Int]
    }

    /// Digests the content of the database behind `connection`.
    ///
    /// ```swift
    /// let digest = try CanonicalDump.content(of: db).digest
    /// ```
    package static func content(of connection: SQLiteConnection) throws -> Content {
        var hash = SHA256()
        var counts: [String: Int] = [:]
        var tableCounts: [String: Int] = [:]
        try write(connection) { chunk in
            hash.update(chunk)
        } rowCount: { table, n in
            tableCounts[table] = n
        }
        let entityTables = try countEntities(connection, into: &counts)
        for (table, n) in tableCounts
        where !entityTables.contains(table) && !["Z_METADATA", "Z_PRIMARYKEY", "Z_MODELCACHE"].contains(table)
            && !historyTables.contains(table)
        {
            counts[table] = n
        }
        var schemaHash = ""
        if try connection.scalar("SELECT count(*) FROM pragma_table_info('Z_METADATA') WHERE name = 'Z_PLIST'")
            == .integer(1),
            case .blob(let plist)? = try connection.scalar("SELECT Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1")
        {
            // A damaged property list throws `corruptStore` rather than reading as no schema.
            schemaHash = try StoreMetadata(propertyList: plist, uuid: "").versionHashesDigest ?? ""
        }
        return Content(digest: hash.finalize(), schemaHash: schemaHash, rowCounts: counts)
    }

    /// Counts each entity's rows (`Z_PRIMARYKEY` names the entities and their parents; an
    /// entity's rows live in its root's `Z<ROOT>` table); returns the entity tables.
    private static func countEntities(_ db: SQLiteConnection, into counts: inout [String: Int]) throws -> Set<String> {
        guard
            try db.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'Z_PRIMARYKEY'")
                == .integer(1)
        else {
            return []
        }
        var entities: [Int64: (name: String, parent: Int64)] = [:]
        for row in try db.rows("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY") {
            guard case .integer(let n) = row[0], case .text(let name) = row[1] else { continue }
            let parent: Int64 = if case .integer(let p) = row[2] { p } else { 0 }
            entities[n] = (name, parent)
        }
        let tables = Set(
            try db.rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { row -> String? in
                if case .text(let name) = row[0] { name } else { nil }
            })
        var used = Set<String>()
        for (number, entity) in entities {
            var root = entity
            var hops = 0
            while root.parent != 0, let parent = entities[root.parent], hops < entities.count {
                root = parent
                hops += 1
            }
            let table = "Z" + root.name.uppercased()
            guard tables.contains(table) else { continue }
            used.insert(table)
            // The entity and every entity below it, as `fetchCount` counts them.
            let kinds = entities.keys.filter { candidate in
                var e: Int64 = candidate
                var hops = 0
                while e != 0, e != number, let parent = entities[e]?.parent, hops <= entities.count {
                    e = parent
                    hops += 1
                }
                return e == number
            }.sorted()
            let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            let list = kinds.map(String.init).joined(separator: ", ")
            if case .integer(let n)? = try db.scalar("SELECT count(*) FROM \(quoted) WHERE Z_ENT IN (\(list))") {
                counts[entity.name] = Int(n)
            }
        }
        return used
    }

    /// The dump as text (for reading a difference; digests stream it instead).
    ///
    /// ```swift
    /// print(try CanonicalDump.text(of: db))
    /// ```
    package static func text(of connection: SQLiteConnection) throws -> String {
        var bytes: [UInt8] = []
        try write(connection) {
            bytes.append(contentsOf: $0)
        } rowCount: { _, _ in
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Streams the dump's bytes to `sink`, and each table's row count to `rowCount`.
    static func write(
        _ db: SQLiteConnection, _ sink: ([UInt8]) -> Void,
        rowCount: (String, Int) -> Void
    ) throws {
        sink(Array("OpenSwiftData canonical dump 2\n".utf8))
        let names = try db.rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, 7) <> 'sqlite_' ORDER BY name COLLATE BINARY"
        )
        .compactMap { row -> String? in if case .text(let s) = row[0] { s } else { nil } }
        .filter { !historyTables.contains($0) }
        for name in names {
            let quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            let columns = try db.rows("PRAGMA table_info(\(quoted))").compactMap { row -> String? in
                if case .text(let s) = row[1] { s } else { nil }
            }
            sink(Array("table \(name)\ncolumns \(columns.joined(separator: ","))\n".utf8))
            let list =
                name == "Z_METADATA"
                ? columns.map {
                    $0 == "Z_UUID" ? "NULL" : "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                }.joined(separator: ", ")
                : "*"
            let order = (1...max(1, columns.count)).map(String.init).joined(separator: ", ")
            let filter = name == "Z_PRIMARYKEY" ? " WHERE Z_ENT < 16000" : ""
            let statement = try db.prepare("SELECT \(list) FROM \(quoted)\(filter) ORDER BY \(order)")
            var n = 0
            var line: [UInt8] = []
            while try statement.step() {
                line.removeAll(keepingCapacity: true)
                for i in 0..<statement.columnCount {
                    append(statement.value(at: i), to: &line)
                    line.append(0x20)
                }
                line.append(0x0A)
                sink(line)
                n += 1
            }
            sink(Array("end \(name) \(n)\n".utf8))
            rowCount(name, n)
        }
    }

    /// Apple's persistent-history tables, left out of the dump.
    static var historyTables: Set<String> { StoreNames.historyTables }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends one type-tagged value.
    static func append(_ value: SQLValue, to line: inout [UInt8]) {
        switch value {
        case .null:
            line.append(UInt8(ascii: "N"))
        case .integer(let v):
            line.append(UInt8(ascii: "I"))
            line.append(contentsOf: String(v).utf8)
        case .real(let v):
            line.append(UInt8(ascii: "R"))
            let bits = v.bitPattern
            for shift in stride(from: 60, through: 0, by: -4) {
                line.append(hexDigits[Int((bits >> UInt64(shift)) & 0xF)])
            }
        case .text(let s):
            line.append(UInt8(ascii: "T"))
            line.append(contentsOf: String(s.utf8.count).utf8)
            line.append(UInt8(ascii: ":"))
            line.append(contentsOf: s.utf8)
        case .blob(let d):
            line.append(UInt8(ascii: "B"))
            line.append(contentsOf: String(d.count).utf8)
            line.append(UInt8(ascii: ":"))
            for byte in d {
                line.append(hexDigits[Int(byte >> 4)])
                line.append(hexDigits[Int(byte & 0xF)])
            }
        }
    }
}

extension CanonicalDump {
    /// The digest and row counts of what `container`'s store holds (either store kind).
    ///
    /// ```swift
    /// let same = try CanonicalDump.content(of: memory) == CanonicalDump.content(of: disk)
    /// ```
    package static func content(of container: ModelContainer) throws -> Content {
        try container.withStoreConnection { try content(of: $0) }
    }

    /// The dump text of `container`'s store, one line per row; for printing small differences.
    package static func text(of container: ModelContainer) throws -> String {
        try container.withStoreConnection { try text(of: $0) }
    }
}

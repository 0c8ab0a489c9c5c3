import Foundation
import OpenSwiftData

/// What a SwiftData or Core Data store file holds — entities, metadata, tables and indexes —
/// read through SQLite on a read-only connection, for any store in Apple's format.
///
/// Works on a store copied from a simulator or device (its `-wal` and `-shm` beside it: the
/// committed rows in the `-wal` file are counted, nothing is checkpointed), on a fixture, or on
/// a store this library wrote. No schema is needed: everything comes from the file.
/// ```swift
/// let description = try StoreFileDescription(contentsOf: URL(fileURLWithPath: "default.store"))
/// for entity in description.entities { print(entity.name, entity.parent ?? "-", entity.rows) }
/// print(description.versionHashes["Item"] ?? "")   // 64 hex digits
/// ```
/// `harness fixtures describe FILE [--json]` prints it.
public struct StoreFileDescription: Codable, Sendable, Equatable {
    /// One row of `Z_PRIMARYKEY`, with the rows that carry its `Z_ENT`.
    public struct Entity: Codable, Sendable, Equatable {
        /// `Z_ENT`: the entity's number.
        package var number: Int
        /// `Z_NAME`: the entity's name.
        public var name: String
        /// The parent entity's name (from `Z_SUPER`), `nil` for a root entity.
        public var parent: String?
        /// `Z_MAX`: the largest primary key handed out for the entity.
        package var maxKey: Int
        /// Rows whose `Z_ENT` is this entity's number (instances of subentities not included).
        public var rows: Int
        /// The table that holds those rows: the one whose `Z_ENT` column holds the number, else
        /// the inheritance root's `Z<ROOT>` (`A<ROOT>` for history entities); `nil` when neither exists.
        package var table: String?
    }

    /// What `Z_METADATA` says, with every hash in hexadecimal.
    package struct Metadata: Codable, Sendable, Equatable {
        /// `Z_UUID`: the store's identifier.
        package var uuid: String
        /// `NSStoreType` (`"SQLite"`).
        package var storeType: String
        /// `NSPersistenceFrameworkVersion`: the Core Data build that wrote the metadata.
        package var frameworkVersion: Int?
        /// `NSPersistenceMaximumFrameworkVersion`: the newest Core Data build that opened the store.
        package var maximumFrameworkVersion: Int?
        /// `NSStoreModelVersionIdentifiers` (SwiftData writes the schema version, `["1.0.0"]`).
        package var versionIdentifiers: [String]
        /// `NSStoreModelVersionHashesVersion` (3).
        package var versionHashesVersion: Int?
        /// `NSStoreModelVersionHashes`: each entity's version hash, 64 lower-case hex digits, by name.
        package var versionHashes: [String: String]
        /// `NSStoreModelVersionHashesDigest` (base64), in newer stores.
        package var versionHashesDigest: String?
        /// `NSStoreModelVersionChecksumKey` (base64), in newer stores.
        package var versionChecksum: String?

        /// The description of `metadata`.
        package init(_ metadata: StoreMetadata) {
            uuid = metadata.uuid
            storeType = metadata.storeType
            frameworkVersion = metadata.frameworkVersion
            maximumFrameworkVersion = metadata.maximumFrameworkVersion
            versionIdentifiers = metadata.versionIdentifiers
            versionHashesVersion = metadata.versionHashesVersion
            versionHashes = metadata.versionHashes.mapValues { $0.map { String(format: "%02x", $0) }.joined() }
            versionHashesDigest = metadata.versionHashesDigest
            versionChecksum = metadata.versionChecksum
        }
    }

    /// A table and its row count.
    package struct Table: Codable, Sendable, Equatable {
        /// The table's name.
        package var name: String
        /// `SELECT count(*)` of the table.
        package var rows: Int
    }

    /// An index, as `sqlite_master` and `pragma_index_info` describe it.
    package struct Index: Codable, Sendable, Equatable {
        /// The index's name (Core Data's, such as `ZITEM_ZNAME_INDEX` or `Z_Item_UNIQUE_name`).
        package var name: String
        /// The indexed table.
        package var table: String
        /// The indexed columns in order (an expression column is `"<expression>"`).
        package var columns: [String]
        /// `true` for a `UNIQUE` index.
        package var unique: Bool
    }

    /// The file, as the caller named it.
    public var path: String
    /// `PRAGMA page_size`.
    package var pageSize: Int
    /// `PRAGMA journal_mode` as the file records it (`wal` for a store an app wrote).
    package var journalMode: String
    /// The rows of `Z_PRIMARYKEY` in `Z_ENT` order (history entities, 16001…, included).
    public var entities: [Entity]
    /// The `Z_METADATA` row.
    package var metadata: Metadata
    /// Every table but SQLite's own, by name.
    package var tables: [Table]
    /// Every index, by table then name (SQLite's automatic indexes included).
    package var indexes: [Index]

    /// Each entity's version hash from `Z_METADATA`, 64 lower-case hex digits, by entity name.
    /// The rest of the metadata, the tables and the indexes are in ``text`` and ``json()``.
    public var versionHashes: [String: String] { metadata.versionHashes }

    /// Reads the store file at `url` on a read-only SQLite connection; the file, its `-wal` and
    /// its `-shm` keep their bytes.
    ///
    /// ```sql
    /// SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT
    /// SELECT Z_ENT, count(*) FROM "ZITEM" GROUP BY Z_ENT     -- each table with a Z_ENT column
    /// SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1
    /// SELECT name, tbl_name FROM sqlite_master WHERE type = 'index'; pragma_index_info / pragma_index_list
    /// ```
    /// - Throws: `SwiftDataError` with a one-line message naming the file:
    ///   `.loadIssueModelContainer` when it is missing or is an SQLite database without
    ///   `Z_PRIMARYKEY` and `Z_METADATA` (not a Core Data store), `.notADatabase` for a directory,
    ///   an empty file or a file that is not SQLite's, `.corruptStore` when SQLite finds it malformed
    ///   or the metadata is unreadable.
    public init(contentsOf url: URL) throws {
        let db = try FixtureFile.openReadOnly(url, purpose: .store)
        defer { db.close() }
        let path = FixtureFile.displayPath(url)
        self.path = path
        let tableNames = try FixtureFile.reading(url, purpose: .store) {
            try db.rows(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"
            )
            .compactMap(Self.text)
        }
        guard tableNames.contains("Z_PRIMARYKEY"), tableNames.contains("Z_METADATA") else {
            throw SwiftDataError(
                SwiftDataError.loadIssueModelContainer.code,
                "\(path): an SQLite database but not a SwiftData or Core Data store (no Z_PRIMARYKEY and Z_METADATA tables); pass the app's .store file",
                url: url)
        }
        let metadataValue: StoreMetadata
        do {
            metadataValue = try StoreMetadata.read(contentsOf: url)
        } catch let error as SwiftDataError {
            throw SwiftDataError(error.code, "\(path): \(error.message)", url: url, underlying: error)
        }
        metadata = Metadata(metadataValue)
        (pageSize, journalMode, tables, entities, indexes) = try FixtureFile.reading(url, purpose: .store) {
            let pageSize = Self.int(try db.scalar("PRAGMA page_size")) ?? 0
            let journalMode = (try db.scalar("PRAGMA journal_mode")).flatMap { Self.text([$0]) } ?? "unknown"
            var tables: [Table] = []
            var rowsByEntity: [Int: (table: String, rows: Int)] = [:]
            for name in tableNames {
                let quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                tables.append(Table(name: name, rows: Self.int(try db.scalar("SELECT count(*) FROM \(quoted)")) ?? 0))
                let columns = try db.rows("SELECT name FROM pragma_table_info(?)", [.text(name)]).compactMap(Self.text)
                // Entity tables (Z<ENTITY>, A<ENTITY> for history); Z_PRIMARYKEY has a Z_ENT column too.
                guard columns.contains("Z_ENT"), !name.hasPrefix("Z_") else { continue }
                for row in try db.rows("SELECT Z_ENT, count(*) FROM \(quoted) GROUP BY Z_ENT") {
                    guard let entity = Self.int(row[0]), let count = Self.int(row[1]) else { continue }
                    rowsByEntity[entity] = (name, (rowsByEntity[entity]?.rows ?? 0) + count)
                }
            }
            let keyRows = try db.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
            let names = Dictionary(
                keyRows.compactMap { row in Self.int(row[0]).map { ($0, Self.text([row[1]]) ?? "") } },
                uniquingKeysWith: { first, _ in first })
            let supers = Dictionary(
                keyRows.compactMap { row in Self.int(row[0]).map { ($0, Self.int(row[2]) ?? 0) } },
                uniquingKeysWith: { first, _ in first })
            let entities = keyRows.compactMap { row -> Entity? in
                guard let number = Self.int(row[0]) else { return nil }
                let name = Self.text([row[1]]) ?? ""
                let parent = Self.int(row[2]).flatMap { $0 == 0 ? nil : names[$0] }
                // No rows: the inheritance root's table, Z<ROOT> (A<ROOT> for history entities).
                var root = number
                var steps = 0
                while let up = supers[root], up != 0, steps < keyRows.count {
                    root = up
                    steps += 1
                }
                let rootName = (names[root] ?? name).uppercased()
                let fallback = ["Z" + rootName, "A" + rootName].first { tableNames.contains($0) }
                return Entity(
                    number: number, name: name, parent: parent, maxKey: Self.int(row[3]) ?? 0,
                    rows: rowsByEntity[number]?.rows ?? 0,
                    table: rowsByEntity[number]?.table ?? fallback)
            }
            var indexes: [Index] = []
            for row in try db.rows(
                "SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' ORDER BY tbl_name, name")
            {
                guard let name = Self.text([row[0]]), let table = Self.text([row[1]]) else { continue }
                let columns = try db.rows("SELECT name FROM pragma_index_info(?) ORDER BY seqno", [.text(name)])
                    .map { Self.text($0) ?? "<expression>" }
                let unique =
                    try db.rows(
                        "SELECT \"unique\" FROM pragma_index_list(?) WHERE name = ?", [.text(table), .text(name)]
                    )
                    .first.flatMap { Self.int($0[0]) } == 1
                indexes.append(Index(name: name, table: table, columns: columns, unique: unique))
            }
            return (pageSize, journalMode, tables, entities, indexes)
        }
    }

    private static func text(_ row: [SQLValue]) -> String? {
        if case .text(let value)? = row.first { return value }
        return nil
    }

    private static func int(_ value: SQLValue?) -> Int? {
        if case .integer(let value)? = value { return Int(value) }
        return nil
    }

    /// The description as pretty-printed JSON with sorted keys (what `describe --json` prints).
    ///
    /// ```swift
    /// print(String(decoding: try description.json(), as: UTF8.self))
    /// ```
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

import Foundation
import OpenSwiftData

/// What changed between two versions of a fixture or store file, for code review: the schema
/// the files record, each entity's row count, and the rows added, removed and changed.
///
/// Both files are read on read-only SQLite connections (their `-wal` included, nothing
/// checkpointed): an Apple-written store copied from a device, a fixture written by
/// `harness fixtures --out`, or any store this library wrote. Neither file is modified.
///
/// ```swift
/// let diff = try FixtureDiff(URL(fileURLWithPath: "old.sqlite"), URL(fileURLWithPath: "new.sqlite"))
/// print(diff.text(limit: 20))
/// diff.isIdentical        // false: something changed
/// ```
/// `harness fixtures diff A B [--schema NAME] [--json] [--limit N]` prints it and exits 0 when
/// the files hold the same schema and rows, 1 when they differ, 2 when one cannot be read.
///
/// The rules (FIX-20…FIX-28 in the behaviour reference):
/// - **Schema** comes from the files: entities from `Z_PRIMARYKEY`, properties from each
///   entity table's columns and declared types, uniqueness from the unique indexes, many-to-many
///   relationships from the join tables, and each entity's version hash from `Z_METADATA`. A
///   schema (`schema:`) names the properties, their Swift types, optionality and destinations
///   where its columns are in the file; without one a property is named by its column.
/// - **Rows** are matched by `Z_PK`, or by the entity's first uniqueness constraint when every
///   row of both files has a distinct, non-nil value for it. `Z_OPT` (Core Data's save
///   counter), `Z_MAX`, the store's UUID and the persistent history are bookkeeping, not content,
///   and are not compared. An entity only one file has is a schema change and a row count; its
///   rows are not listed one by one.
/// - **Order** is deterministic: entities by name, rows by key, properties in column order.
///
/// Every change, one by one, is in ``text(limit:)`` for people and ``json()`` for programs
/// (format 1: `schema`, `counts` and `rows`, as `fixtures diff --json` prints them).
public struct FixtureDiff: Codable, Sendable, Equatable {
    /// The version of this JSON shape; a change to its meaning increments it.
    package static let currentFormat = 1

    /// The JSON shape's version (``currentFormat``).
    package var format: Int
    /// The first file (the old version), as the caller named it.
    package var a: String
    /// The second file (the new version), as the caller named it.
    package var b: String
    /// `true` when neither the schema nor any row differs (what exit code 0 means).
    package var identical: Bool
    /// Schema differences, by entity name, then kind, then property.
    package var schema: [SchemaChange]
    /// Every entity's and join table's row count in both files, by name.
    package var counts: [RowCount]
    /// The entities and join tables whose rows differ, by name.
    package var rows: [EntityRows]

    /// Whether the files hold the same schema and rows.
    public var isIdentical: Bool { identical }

    /// Whether the files record the same schema: no entity, property, uniqueness constraint or
    /// version hash differs.
    public var schemaIsIdentical: Bool { schema.isEmpty }

    /// How many rows differ, over every entity and join table: rows only B has, rows only A has,
    /// and rows in both whose values differ. An entity only one file has counts as a schema
    /// change, not as rows.
    public var changedRows: Int { rows.reduce(0) { $0 + $1.added + $1.removed + $1.changed } }

    /// One difference between the schemas the two files record.
    package struct SchemaChange: Codable, Sendable, Equatable {
        /// What kind of difference.
        package enum Kind: String, Codable, Sendable, CaseIterable {
            /// An entity only B has.
            case entityAdded
            /// An entity only A has.
            case entityRemoved
            /// The entity's parent differs.
            case parentChanged
            /// A property (column or join table) only B has.
            case propertyAdded
            /// A property only A has.
            case propertyRemoved
            /// The property's type differs (the column's declared type, or the schema's Swift type).
            case typeChanged
            /// The property became optional, or stopped being optional (known from a schema).
            case optionalityChanged
            /// A relationship's destination differs (known from a schema).
            case destinationChanged
            /// A uniqueness constraint only B has.
            case uniqueAdded
            /// A uniqueness constraint only A has.
            case uniqueRemoved
            /// The entity's version hash differs and nothing above explains it.
            case versionHashChanged
        }

        /// What kind of difference.
        package var kind: Kind
        /// The entity.
        package var entity: String
        /// The property (its name, or its column or join table when no schema names it); `nil`
        /// for a change of the entity itself.
        package var property: String?
        /// A's side (a type, a parent, a constraint), when the kind has one.
        package var old: String?
        /// B's side, when the kind has one.
        package var new: String?

        /// The change as one line (`Item.price: type FLOAT → VARCHAR`).
        package var line: String {
            let subject = property.map { "\(entity).\($0)" } ?? entity
            let change = "\(old ?? "-") → \(new ?? "-")"
            switch kind {
            case .entityAdded: return "+ entity \(entity)\(new.map { " (\($0))" } ?? "")"
            case .entityRemoved: return "- entity \(entity)\(old.map { " (\($0))" } ?? "")"
            case .parentChanged: return "~ \(subject): parent \(change)"
            case .propertyAdded: return "+ \(subject)\(new.map { " \($0)" } ?? "")"
            case .propertyRemoved: return "- \(subject)\(old.map { " \($0)" } ?? "")"
            case .typeChanged: return "~ \(subject): type \(change)"
            case .optionalityChanged: return "~ \(subject): \(change)"
            case .destinationChanged: return "~ \(subject): destination \(change)"
            case .uniqueAdded: return "+ \(entity): unique (\(new ?? ""))"
            case .uniqueRemoved: return "- \(entity): unique (\(old ?? ""))"
            case .versionHashChanged:
                return
                    "~ \(entity): version hash \(change); the columns do not show why (optionality, a type kept in the same column type, a delete rule, an index or a hash modifier)"
            }
        }
    }

    /// One entity's (or join table's) rows in each file.
    package struct RowCount: Codable, Sendable, Equatable {
        /// The entity name, or the join table's name.
        package var name: String
        /// Rows in A (an entity's own rows, sub-entities not included); `nil` when A lacks it.
        package var a: Int?
        /// Rows in B; `nil` when B lacks it.
        package var b: Int?
        /// `b - a`, with a missing side counted as 0.
        package var delta: Int
    }

    /// The changed rows of one entity or join table.
    package struct EntityRows: Codable, Sendable, Equatable {
        /// The entity name, or the join table's name.
        package var name: String
        /// What matches a row of A with one of B: `["Z_PK"]`, the properties of a uniqueness
        /// constraint, or a join table's columns (a link is its whole row).
        package var matchedBy: [String]
        /// Rows only B has.
        package var added: Int
        /// Rows only A has.
        package var removed: Int
        /// Rows in both whose values differ.
        package var changed: Int
        /// Every differing row, by key.
        package var changes: [RowChange]
    }

    /// One row added, removed or changed.
    package struct RowChange: Codable, Sendable, Equatable {
        /// Added, removed or changed.
        package enum Kind: String, Codable, Sendable {
            /// Only in B.
            case added
            /// Only in A.
            case removed
            /// In both, with different values.
            case changed
        }

        /// Added, removed or changed.
        package var kind: Kind
        /// The row's key, readable: `Item#3` (by `Z_PK`), `Item name="Plank"` (by a uniqueness
        /// constraint), or a join table's link `CatalogueProduct#3 CatalogueTag#7`.
        package var key: String
        /// For an added or removed row, its values; for a changed row, only the differing ones.
        package var values: [Value]

        /// A row change, as a test expects one.
        ///
        /// ```swift
        /// #expect(rows.changes == [FixtureDiff.RowChange(kind: .removed, key: "Item#2", values: [])])
        /// ```
        package init(kind: Kind, key: String, values: [Value]) {
            self.kind = kind
            self.key = key
            self.values = values
        }
    }

    /// One property's value, printed readably: strings quoted and escaped, dates ISO-8601,
    /// blobs as size and hash, to-one keys as `Entity#pk`, `nil` for NULL.
    package struct Value: Codable, Sendable, Equatable {
        /// The property (or column) name.
        package var property: String
        /// A's value (`nil` for an added row).
        package var old: String?
        /// B's value (`nil` for a removed row).
        package var new: String?

        /// A property's value in A, in B, or both.
        ///
        /// ```swift
        /// FixtureDiff.Value(property: "name", old: "\"Log\"", new: "\"Oak log\"")
        /// ```
        package init(property: String, old: String? = nil, new: String? = nil) {
            self.property = property
            self.old = old
            self.new = new
        }
    }

    /// Compares the store file at `a` (the old version) with the one at `b`, reading both
    /// read-only; `schema`, when given, names the properties of both files.
    ///
    /// ```swift
    /// let diff = try FixtureDiff(old, new, schema: Schema([Item.self]))
    /// ```
    /// - Throws: `SwiftDataError` with a one-line message naming the file, as
    ///   `StoreFileDescription(contentsOf:)` throws it: `.loadIssueModelContainer` for a missing
    ///   file or an SQLite database that is no store, `.notADatabase` for a file that is not
    ///   SQLite's, `.corruptStore` for a damaged one.
    public init(_ a: URL, _ b: URL, schema: Schema? = nil) throws {
        try self.init(a, b, schemaA: schema, schemaB: schema)
    }

    /// Compares `a` with `b` when each was written with its own schema version: `schemaA` names
    /// A's properties and `schemaB` B's, so type and optionality changes between the versions
    /// are named too.
    ///
    /// ```swift
    /// let diff = try FixtureDiff(v1File, v2File, schemaA: Schema(versionedSchema: V1.self),
    ///                            schemaB: Schema(versionedSchema: V2.self))
    /// ```
    /// - Throws: as ``init(_:_:schema:)``.
    public init(_ a: URL, _ b: URL, schemaA: Schema?, schemaB: Schema?) throws {
        let old = try StoreSnapshot(contentsOf: a, schema: schemaA)
        defer { old.close() }
        let new = try StoreSnapshot(contentsOf: b, schema: schemaB)
        defer { new.close() }
        format = Self.currentFormat
        self.a = old.path
        self.b = new.path
        schema = StoreSnapshot.schemaChanges(old, new)
        counts = StoreSnapshot.counts(old, new)
        rows = try StoreSnapshot.rowChanges(old, new)
        identical =
            schema.isEmpty && rows.isEmpty && counts.allSatisfy { $0.delta == 0 && ($0.a == nil) == ($0.b == nil) }
    }

    /// The difference as pretty-printed JSON with sorted keys (what `fixtures diff --json`
    /// prints); `JSONDecoder` reads it back into an equal value.
    ///
    /// ```swift
    /// let again = try JSONDecoder().decode(FixtureDiff.self, from: try diff.json())
    /// ```
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

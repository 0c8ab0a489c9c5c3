import Foundation
import OpenSwiftData

/// A small, referentially complete sample of a store file — one copied from a device (Apple's
/// format) or a fixture — written to a new file, optionally with `String` attributes scrubbed
/// (``FixtureScrub``). `harness fixtures subset` is this on the command line.
///
/// It works on the store's SQL, on a copy: the input is opened read-only and copied through
/// SQLite's backup API (committed rows in its `-wal` included), and every change is made on the
/// copy, whose tables and columns come from the schema's layout (the one the library creates
/// stores with, Apple's). The schema also says which relationships are required. The result is
/// written with `VACUUM INTO`, so no deleted row or replaced value survives in a free page.
///
/// The rules (Docs/BehaviourReference.md, FIX-10 to FIX-15):
/// - `count` rows of each entity named in `keep` (instances of its sub-entities included) are
///   picked by the seed, the same ones for the same seed and store (FIX-10);
/// - a kept row's required (non-optional) to-one destination is kept too, transitively (FIX-11);
/// - an optional to-one key, a to-many key without inverse or a join-table row that points at a
///   row not kept is cleared, so both sides of every relationship agree; entities neither named
///   nor reached end up empty (FIX-11);
/// - the persistent-history tables are emptied; `Z_PRIMARYKEY` keeps its `Z_MAX`es and
///   `Z_METADATA` its model, with a store identifier derived from the input's and the options, so
///   the result opens with a `ModelContainer` for the schema (FIX-12);
/// - the input file, its `-wal` and `-shm` keep their bytes (FIX-14).
/// ```swift
/// let summary = try FixtureSubset.write(
///     from: URL(fileURLWithPath: "default.store"), schema: Schema([Category.self, Product.self]),
///     keep: ["Product": 50], seed: 7, scrub: [FixtureScrub.Rule(entity: "Product", attribute: "name", kind: .name)],
///     to: URL(fileURLWithPath: "Fixtures/products-50.store"))
/// print(summary.text)
/// ```
public enum FixtureSubset {
    /// The count that keeps every row of an entity (`--keep Entity:all`).
    public static let all = Int.max

    /// What happened to one entity.
    package struct EntityResult: Codable, Sendable, Equatable {
        /// The entity's name.
        package var name: String
        /// Its rows in the input (`Z_ENT` equal to its number).
        package var rowsBefore: Int
        /// Its rows in the result.
        package var rowsAfter: Int
        /// The count `keep` named for it (its sub-entities' rows included), `nil` when not named.
        package var requested: Int?
        /// Rows kept because a kept row's required to-one points at them, by relationship
        /// (`"Pet.owner"`).
        package var requiredBy: [String: Int]
    }

    /// What a subset did: rows kept per entity, keys cleared, rows removed, values scrubbed, and
    /// what the library's own checks found in the result. ``text`` prints all of it;
    /// encoded with `JSONEncoder`, it holds every count by name.
    public struct Summary: Codable, Sendable, Equatable {
        /// The input, as the caller named it.
        package var input: String
        /// The result, as the caller named it.
        package var output: String
        /// The seed.
        package var seed: UInt64
        /// Every entity, in `Z_ENT` order.
        package var entities: [EntityResult]
        /// Keys set to `NULL` because they pointed at rows not kept, by relationship.
        package var clearedKeys: [String: Int]
        /// Join-table rows removed because one side was not kept, by relationship.
        package var removedJoinRows: [String: Int]
        /// Rows removed from the persistent-history tables (which the result has empty).
        package var historyRowsRemoved: Int
        /// Tables the schema does not describe (left as they were).
        package var otherTables: [String]
        /// The scrubbed attributes.
        package var scrubbed: [FixtureScrub.Report]
        /// What `PRAGMA integrity_check` reports for the result; empty for `ok`.
        package var integrityProblems: [String]
        /// Keys of the result that point at no row, required relationships left empty
        /// (``referentialProblems(of:schema:)``); empty when complete.
        package var referentialProblems: [String]
        /// Whether the result passed every check.
        public var isValid: Bool { integrityProblems.isEmpty && referentialProblems.isEmpty }
        /// What the checks found in the result, one line each: `PRAGMA integrity_check`'s
        /// findings, then keys that point at no row and required relationships left empty
        /// (``FixtureSubset/referentialProblems(of:schema:)``). Empty when ``isValid``.
        public var problems: [String] { integrityProblems + referentialProblems }
        /// The result's rows of each entity, by name (instances of sub-entities counted with
        /// their own entity).
        public var rowsKept: [String: Int] {
            Dictionary(entities.map { ($0.name, $0.rowsAfter) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// Writes a subset of the store at `input` to `output` (replacing it), keeping `keep[entity]`
    /// rows of each named entity (``all`` for every row) and what they require, then scrubbing the
    /// `scrub` attributes; then checks the result (integrity, references, opening it with `schema`).
    ///
    /// - Throws: ``FixtureSubsetError`` for a name the schema does not have, an attribute that cannot be
    ///   scrubbed, or `output` naming `input`; `SwiftDataError` for an input that is not a store
    ///   (as ``StoreFileDescription/init(contentsOf:)``) or holds another model
    ///   (`.incompatibleSchema`, naming the entities).
    @discardableResult
    public static func write(
        from input: URL, schema: Schema, keep: [String: Int], seed: UInt64 = 1, scrub: [FixtureScrub.Rule] = [],
        to output: URL
    ) throws -> Summary {
        let graph = try StoreGraph(schema)
        let named = try resolveKeep(keep, in: graph)
        let rules = try FixtureScrub.resolve(scrub, in: graph)
        guard !sameFile(input, output) else { throw FixtureSubsetError.outputIsInput(FixtureFile.displayPath(input)) }
        let before = try StoreFileDescription(contentsOf: input)
        try checkModel(before, graph: graph, url: input)

        let scratch = try ScratchDirectory(prefix: "openswiftdata-fixture-subset", keep: true).url
        // try?: best-effort cleanup of scratch files; a leftover is harmless and must not mask the real result.
        defer { try? FileManager.default.removeItem(at: scratch) }
        let copy = scratch.appendingPathComponent("subset.store")
        let source = try FixtureFile.openReadOnly(input, purpose: .store)
        let db: SQLiteConnection
        do {
            defer { source.close() }
            db = try FixtureFile.reading(input, purpose: .store) {
                let db = try SQLiteConnection(path: copy.path, mode: .readWriteCreate)
                do {
                    try db.copyContents(of: source)
                } catch {
                    db.close()
                    throw error
                }
                return db
            }
        }
        defer { db.close() }
        var summary = try FixtureFile.reading(copy, purpose: .store) {
            try db.immediateTransaction {
                var work = Work(graph: graph, db: db, seed: seed)
                try work.keepNamed(named)
                try work.keepRequired()
                try work.removeUnkept()
                let scrubbed = try FixtureScrub.apply(rules, to: db, seed: seed)
                let uuid = fixtureUUID(
                    "subset:\(before.metadata.uuid):\(seed):"
                        + named.map { "\($0.entity.name)=\($0.count)" }.joined(separator: ",") + ":"
                        + scrub.map(\.description).joined(separator: ","))
                try db.run("UPDATE Z_METADATA SET Z_UUID = ? WHERE Z_VERSION = 1", [.text(uuid)])
                return try work.summary(before: before, named: named, scrubbed: scrubbed)
            }
        }
        summary.input = FixtureFile.displayPath(input)
        summary.output = FixtureFile.displayPath(output)
        try writeResult(db, to: output)
        summary.integrityProblems = try FixtureFile.verifyStore(output).integrityProblems
        summary.referentialProblems = try referentialProblems(of: output, schema: schema)
        // Opening a private copy with the schema runs the library's own store checks (metadata,
        // version hashes, tables); the result file itself is not touched.
        _ = try FixtureDatabase(contentsOf: output, schema: schema, store: .memory)
        return summary
    }

    /// Checks `keep` and `scrub` against `schema` without reading any file: every entity and
    /// attribute exists, every count is 0 or more, every scrubbed attribute is a `String`.
    ///
    /// ```swift
    /// try FixtureSubset.validate(schema: schema, keep: ["Product": 10], scrub: [.init(entity: "Product", attribute: "sku")])
    /// ```
    /// - Throws: ``FixtureSubsetError`` listing the valid names; `SwiftDataError.unknownSchema` for a
    ///   schema that cannot be laid out.
    public static func validate(schema: Schema, keep: [String: Int], scrub: [FixtureScrub.Rule]) throws {
        let graph = try StoreGraph(schema)
        _ = try resolveKeep(keep, in: graph)
        _ = try FixtureScrub.resolve(scrub, in: graph)
    }

    /// What is referentially wrong with the store at `url` for `schema`, one line each: to-one,
    /// to-many and join-table keys that point at no row of their destination, rows whose
    /// required to-one is empty, entity tables whose largest `Z_PK` exceeds their `Z_MAX`. Empty
    /// for a complete store. Read-only.
    ///
    /// ```swift
    /// #expect(try FixtureSubset.referentialProblems(of: out, schema: schema).isEmpty)
    /// ```
    /// - Throws: `SwiftDataError` for a file that is not a store (as ``StoreFileDescription/init(contentsOf:)``).
    public static func referentialProblems(of url: URL, schema: Schema) throws -> [String] {
        let graph = try StoreGraph(schema)
        let db = try FixtureFile.openReadOnly(url, purpose: .store)
        defer { db.close() }
        return try FixtureFile.reading(url, purpose: .store) {
            var problems: [String] = []
            func count(_ sql: String) throws -> Int {
                if case .integer(let n)? = try db.scalar(sql) { return Int(n) }
                return 0
            }
            for entity in graph.entities {
                let table = quoted(entity.table)
                for r in entity.toOnes {
                    guard let destination = graph.entity(named: r.destination) else { continue }
                    let key = quoted(r.keyColumn)
                    let dangling = try count(
                        "SELECT count(*) FROM \(table) WHERE Z_ENT = \(entity.number) AND \(key) IS NOT NULL AND \(key) NOT IN (SELECT Z_PK FROM \(quoted(destination.table)) WHERE Z_ENT IN (\(list(destination.kindNumbers))))"
                    )
                    if dangling > 0 { problems.append("\(entity.name).\(r.name): \(dangling) keys point at no row") }
                    guard !r.isOptional else { continue }
                    let empty = try count(
                        "SELECT count(*) FROM \(table) WHERE Z_ENT = \(entity.number) AND \(key) IS NULL")
                    if empty > 0 {
                        problems.append("\(entity.name).\(r.name): \(empty) rows lack the required destination")
                    }
                }
                for r in entity.oneWayToManys {
                    let key = quoted(r.keyColumn)
                    let dangling = try count(
                        "SELECT count(*) FROM \(quoted(r.table)) WHERE \(key) IS NOT NULL AND \(key) NOT IN (SELECT Z_PK FROM \(table) WHERE Z_ENT IN (\(list(entity.kindNumbers))))"
                    )
                    if dangling > 0 { problems.append("\(entity.name).\(r.name): \(dangling) keys point at no owner") }
                }
            }
            for join in graph.joins {
                guard let owner = graph.entity(named: join.entity),
                    let destination = graph.entity(named: join.destination)
                else { continue }
                let dangling = try count(
                    "SELECT count(*) FROM \(quoted(join.table)) WHERE \(quoted(join.ownerColumn)) NOT IN (SELECT Z_PK FROM \(quoted(owner.table))) OR \(quoted(join.destinationColumn)) NOT IN (SELECT Z_PK FROM \(quoted(destination.table)))"
                )
                if dangling > 0 {
                    problems.append("\(join.entity).\(join.relationship): \(dangling) join rows point at no row")
                }
            }
            for table in Set(graph.entities.map(\.table)).sorted() {
                let numbers = list(graph.entities.filter { $0.table == table }.map(\.number))
                let largest = try count("SELECT coalesce(max(Z_PK), 0) FROM \(quoted(table))")
                let max = try count("SELECT coalesce(max(Z_MAX), 0) FROM Z_PRIMARYKEY WHERE Z_ENT IN (\(numbers))")
                if largest > max { problems.append("\(table): Z_PK \(largest) exceeds Z_PRIMARYKEY's Z_MAX \(max)") }
            }
            return problems
        }
    }

    /// `name` as an SQL identifier.
    static func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// Numbers as an SQL list.
    static func list(_ numbers: [Int]) -> String { numbers.map(String.init).joined(separator: ",") }

    /// A `keep` entry checked against the schema.
    struct Named {
        var entity: StoreGraph.Entity
        var count: Int
    }

    /// Checks `keep` against `graph`, in `Z_ENT` order.
    static func resolveKeep(_ keep: [String: Int], in graph: StoreGraph) throws -> [Named] {
        for (name, count) in keep.sorted(by: { $0.key < $1.key }) {
            guard graph.entity(named: name) != nil else {
                throw FixtureSubsetError.unknownEntity(name, valid: graph.entities.map(\.name).sorted())
            }
            if count < 0 { throw FixtureSubsetError.negativeCount(entity: name, count: count) }
        }
        return graph.entities.compactMap { e in keep[e.name].map { Named(entity: e, count: $0) } }
    }

    /// Whether two URLs name one file (after resolving links), `-wal` and `-shm` included.
    private static func sameFile(_ a: URL, _ b: URL) -> Bool {
        let pa = a.standardizedFileURL.resolvingSymlinksInPath().path
        let pb = b.standardizedFileURL.resolvingSymlinksInPath().path
        return pa == pb || pb == pa + "-wal" || pb == pa + "-shm" || pb == pa + "-journal"
    }

    /// Throws `.incompatibleSchema` when the store's entity version hashes are not the schema's.
    private static func checkModel(_ store: StoreFileDescription, graph: StoreGraph, url: URL) throws {
        let expected = graph.versionHashes.mapValues { $0.map { String(format: "%02x", $0) }.joined() }
        let names = Set(expected.keys).union(store.metadata.versionHashes.keys)
        let differing = names.filter { expected[$0] != store.metadata.versionHashes[$0] }.sorted()
        guard !differing.isEmpty else { return }
        throw SwiftDataError(
            SwiftDataError.incompatibleSchema.code,
            "\(FixtureFile.displayPath(url)) was written with another model than the schema (entities whose version hash differs: \(differing.joined(separator: ", "))); pass the schema the app used",
            entityName: differing.first, url: url)
    }

    /// Writes the scratch copy to `output` with `VACUUM INTO` (no free pages carry removed data),
    /// in rollback-journal mode so it opens without side files.
    private static func writeResult(_ db: SQLiteConnection, to output: URL) throws {
        let fm = FileManager.default
        try fm.createDirectory(at: output.deletingLastPathComponent(), withIntermediateDirectories: true)
        for suffix in ["", "-wal", "-shm", "-journal"] where fm.fileExists(atPath: output.path + suffix) {
            try fm.removeItem(atPath: output.path + suffix)
        }
        try FixtureFile.reading(output, purpose: .store) {
            try db.run("VACUUM INTO ?", [.text(output.path)])
            let result = try SQLiteConnection(path: output.path, mode: .readWrite)
            defer { result.close() }
            _ = try result.scalar("PRAGMA journal_mode = DELETE")
        }
    }
}

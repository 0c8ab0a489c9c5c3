import Foundation
import OpenSwiftData

/// Writes and verifies fixture files: an SQLite store plus `<file>.manifest.json`.
///
/// Writing generates into a temporary on-disk store, then copies it with
/// `VACUUM INTO` at a fixed 4096-byte page size and in rollback-journal mode, so both
/// `ModelContainer(… url:)` and the `sqlite3` shell open it without side files.
/// ```swift
/// let out = URL(fileURLWithPath: "Fixtures/catalogue.sqlite")
/// let manifest = try FixtureFile.write(.catalogue, seed: 1, scale: 200, to: out)
/// let check = try FixtureFile.verify(out)   // check.isValid
/// ```
public enum FixtureFile {
    /// The page size of every fixture file.
    package static let pageSize = 4096

    /// Writes a sample schema's fixture to `url` (replacing it) and its manifest beside it.
    ///
    /// ```swift
    /// try FixtureFile.write(.users, seed: 7, scale: 1_000, traits: [.hostile], to: out)
    /// ```
    @discardableResult
    package static func write(
        _ sample: SampleSchema, seed: UInt64, scale: Int, traits: Traits = [], to url: URL,
        progress: ((FixtureProgress) -> Void)? = nil
    ) throws -> FixtureManifest {
        try write(
            sample.fixture(seed: seed, scale: scale, traits: traits), schema: sample.schema,
            name: sample.name, scale: scale, to: url, progress: progress)
    }

    /// Writes a fixture of your own models to `url` and its manifest beside it.
    ///
    /// ```swift
    /// try FixtureFile.write(myFixture, schema: Schema([Category.self, Word.self]), name: "words", scale: 10_000, to: out)
    /// ```
    @discardableResult
    public static func write(
        _ fixture: Fixture, schema: Schema, name: String, scale: Int, to url: URL,
        progress: ((FixtureProgress) -> Void)? = nil
    ) throws -> FixtureManifest {
        let work = try ScratchDirectory(prefix: "openswiftdata-fixture-write", keep: true).url
        // try?: best-effort cleanup of scratch files; a leftover is harmless and must not mask the real result.
        defer { try? FileManager.default.removeItem(at: work) }
        let store = work.appendingPathComponent("generate.store")
        try generate(fixture, schema: schema, into: store, progress: progress)

        let fm = FileManager.default
        try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        for suffix in ["", "-wal", "-shm", "-journal"] where fm.fileExists(atPath: url.path + suffix) {
            try fm.removeItem(atPath: url.path + suffix)
        }
        do {
            let source = try SQLiteConnection(path: store.path, mode: .readWrite)
            // The identifier names a store instance; a fixture's is fixed so its bytes repeat.
            try source.run(
                "UPDATE Z_METADATA SET Z_UUID = ? WHERE Z_VERSION = 1",
                [.text(fixtureUUID("fixture:\(name):\(fixture.seed):\(scale)"))])
            // A fixture is data, not a record of how it was generated: no history rows (their
            // save times would make every generated file different).
            try source.immediateTransaction {
                for table in CanonicalDump.historyTables.sorted() { try source.execute("DELETE FROM \(table)") }
                try source.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = 0 WHERE Z_ENT >= 16000")
            }
            try source.execute("PRAGMA page_size = \(pageSize)")
            try source.run("VACUUM INTO ?", [.text(url.path)])
            source.close()
        }
        let output = try SQLiteConnection(path: url.path, mode: .readWrite)
        _ = try output.scalar("PRAGMA journal_mode = DELETE")
        let size = try output.scalar("PRAGMA page_size")
        guard size == .integer(Int64(pageSize)) else {
            throw SwiftDataError(
                SwiftDataError.storeError.code,
                "VACUUM INTO wrote page size \(size.map { "\($0)" } ?? "?"), not \(pageSize)", url: url)
        }
        let manifest = FixtureManifest(
            schema: name, seed: fixture.seed, scale: scale, traits: fixture.traits.names,
            pageSize: pageSize, content: try CanonicalDump.content(of: output))
        output.close()
        try manifest.write(for: url)
        return manifest
    }

    /// Generates `fixture` into a new on-disk store at `url` and closes it.
    static func generate(
        _ fixture: Fixture, schema: Schema, into url: URL,
        progress: ((FixtureProgress) -> Void)?
    ) throws {
        let container = try ModelContainer(for: schema, configurations: ModelConfiguration(url: url))
        _ = try fixture.populate(container, progress: progress)
    }

    /// The content of a fixture file (digest, schema hash, row counts), read-only.
    ///
    /// - Throws: `SwiftDataError` naming the file: `.loadIssueModelContainer` when it is
    ///   missing, `.notADatabase` when it is no SQLite database, `.corruptStore` when it is malformed.
    /// ```swift
    /// let digest = try FixtureFile.content(of: out).digest
    /// ```
    package static func content(of url: URL) throws -> CanonicalDump.Content {
        let db = try openReadOnly(url)
        defer { db.close() }
        return try reading(url) { try CanonicalDump.content(of: db) }
    }

    /// The result of ``verify(_:regenerate:)``: what differs between file and manifest.
    ///
    /// ```swift
    /// let v = try FixtureFile.verify(out)
    /// if !v.isValid { print(v.mismatches.joined(separator: "\n")) }
    /// ```
    public struct Verification: Sendable {
        /// The manifest read beside the file.
        public var manifest: FixtureManifest
        /// What the file holds now.
        package var content: CanonicalDump.Content
        /// What SQLite's `PRAGMA integrity_check` reports, one line per problem (an index that
        /// misses rows, a malformed page …); empty when it answers `ok`.
        public var integrityProblems: [String]
        /// One line per difference or integrity problem; empty when the fixture is intact.
        public var mismatches: [String]
        /// `true` when nothing differs.
        public var isValid: Bool { mismatches.isEmpty }
    }

    /// Runs SQLite's integrity check on the file (read-only), recomputes its digest, schema hash,
    /// row counts and page size and compares them with its manifest; with `regenerate`, also
    /// regenerates the sample schema from the manifest's seed, scale and traits and compares that
    /// digest too.
    ///
    /// A damaged file whose rows are intact (an index that misses rows) still fails: every line
    /// `PRAGMA integrity_check` reports is a mismatch.
    /// - Throws: `SwiftDataError` whose one-line message names the file, when the input is no
    ///   fixture: `.loadIssueModelContainer` for a missing file or a missing or unreadable
    ///   manifest, `.notADatabase` for a directory, an empty file or a non-SQLite file,
    ///   `.corruptStore` when SQLite cannot read the file's content at all.
    /// ```swift
    /// let v = try FixtureFile.verify(URL(fileURLWithPath: "Fixtures/users.sqlite"), regenerate: true)
    /// ```
    public static func verify(_ url: URL, regenerate: Bool = false) throws -> Verification {
        let db = try openReadOnly(url)
        defer { db.close() }
        let manifest = try FixtureManifest.read(for: url)
        let integrityProblems = try integrityProblems(of: db, url: url)
        let content = try reading(url) { try CanonicalDump.content(of: db) }
        let pageSize = try reading(url) { try db.scalar("PRAGMA page_size") }
        var mismatches = integrityProblems.map { "integrity_check: \($0)" }
        if pageSize != .integer(Int64(manifest.pageSize)) {
            mismatches.append("pageSize: manifest \(manifest.pageSize), file \(pageSize.map { "\($0)" } ?? "none")")
        }
        if content.digest != manifest.digest {
            mismatches.append("digest: manifest \(manifest.digest), file \(content.digest)")
        }
        if content.schemaHash != manifest.schemaHash {
            mismatches.append("schemaHash: manifest \(manifest.schemaHash), file \(content.schemaHash)")
        }
        for table in Set(content.rowCounts.keys).union(manifest.rowCounts.keys).sorted()
        where content.rowCounts[table] != manifest.rowCounts[table] {
            mismatches.append(
                "rows in \(table): manifest \(manifest.rowCounts[table].map(String.init) ?? "none"), file \(content.rowCounts[table].map(String.init) ?? "none")"
            )
        }
        if regenerate {
            guard let sample = SampleSchema.named(manifest.schema), let traits = Traits(names: manifest.traits) else {
                throw SwiftDataError(
                    SwiftDataError.unknownSchema.code,
                    "\(displayPath(FixtureManifest.url(for: url))): names schema '\(manifest.schema)' with traits \(manifest.traits), which this harness cannot regenerate; verify without --regenerate",
                    url: url)
            }
            let work = try ScratchDirectory(prefix: "openswiftdata-fixture-verify", keep: true).url
            // try?: best-effort cleanup of scratch files; a leftover is harmless and must not mask the real result.
            defer { try? FileManager.default.removeItem(at: work) }
            let again = try write(
                sample, seed: manifest.seed, scale: manifest.scale, traits: traits,
                to: work.appendingPathComponent("regenerated.sqlite"))
            if again.digest != manifest.digest {
                mismatches.append(
                    "regenerated digest \(again.digest) differs from the manifest's (generator version \(manifest.generatorVersion), now \(FixtureManifest.currentGeneratorVersion))"
                )
            }
        }
        return Verification(
            manifest: manifest, content: content, integrityProblems: integrityProblems,
            mismatches: mismatches)
    }
}

/// A UUID string derived from `name` (the first 16 bytes of its SHA-256, marked as a version-5
/// style name-based UUID): a fixture's `Z_UUID` is a valid store UUID that repeats with its
/// inputs, so the same fixture always has the same bytes.
func fixtureUUID(_ name: String) -> String {
    var bytes = Array(SHA256.digest(of: Array(name.utf8)).prefix(16))
    bytes[6] = (bytes[6] & 0x0F) | 0x50
    bytes[8] = (bytes[8] & 0x3F) | 0x80
    let uuid = UUID(
        uuid: (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
        ))
    return uuid.uuidString
}

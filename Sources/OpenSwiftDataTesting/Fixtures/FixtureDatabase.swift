import Foundation
import OpenSwiftData

/// A fixture file opened as a container, on a private copy: the fixture file is never modified.
///
/// The file may be a fixture (`harness fixtures --out`) or a store copied from a simulator or
/// device — Apple's format, its `-wal` and `-shm` beside it, no manifest: the copy is made through
/// SQLite's backup API on a read-only connection, so committed rows that live only in the `-wal`
/// are included and the file and its `-wal` keep their bytes.
/// The copy (a temporary file, or an in-memory database) is removed when this object goes away;
/// keep it alive as long as you use the container.
/// ```swift
/// let fixture = try FixtureDatabase(contentsOf: URL(fileURLWithPath: "Fixtures/dictionary.sqlite"),
///                                   sample: .dictionary, store: .memory)
/// let context = ModelContext(fixture.container)
/// let words = try context.fetchCount(FetchDescriptor<DictionaryWord>())
/// ```
public final class FixtureDatabase {
    /// The container over the copy.
    public let container: ModelContainer
    /// The store kind.
    public let store: StoreKind
    /// The temporary on-disk copy (`nil` for the in-memory store).
    public let copyURL: URL?
    private let directory: URL?

    /// Opens `url` for `schema` in the chosen store. Without a plan the file must hold `schema`
    /// (the schema it was written with); with a `migrationPlan`, a fixture written with an older
    /// version of the plan's schemas is migrated on the copy, so a V1 fixture serves V2 tests.
    ///
    /// - Throws: `SwiftDataError.incompatibleSchema` when the file holds another schema (naming
    ///   each entity whose version hash differs, as opening the store would), `.notADatabase`,
    ///   `.corruptStore` or `.loadIssueModelContainer` for a file that is no store; with a plan,
    ///   whatever the migration throws (`.backwardMigration`, `.unknownSchema`, a stage's error).
    /// ```swift
    /// let db = try FixtureDatabase(contentsOf: url, schema: Schema([Category.self, Word.self]), store: .disk)
    /// let v2 = try FixtureDatabase(contentsOf: v1FixtureURL, schema: Schema(versionedSchema: TripsV2.self),
    ///                              migrationPlan: TripsPlan.self, store: .memory)
    /// ```
    public init(
        contentsOf url: URL, schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        store: StoreKind
    ) throws {
        self.store = store
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw SwiftDataError(
                SwiftDataError.loadIssueModelContainer.code, "no fixture file at \(url.path)", url: url)
        }
        if let migrationPlan {
            // The fixture's pages as they are onto a scratch file with its own identifier, then
            // the plan migrates that file; the in-memory store is loaded from the result.
            let dir = try ScratchDirectory(prefix: "openswiftdata-fixture-open", keep: true).url
            let copy = dir.appendingPathComponent(url.lastPathComponent)
            do {
                try FixtureDatabase.rawCopy(url, to: copy)
                let migrated = try ModelContainer(
                    for: schema, migrationPlan: migrationPlan,
                    configurations: ModelConfiguration(url: copy))
                switch store {
                case .disk:
                    container = migrated
                    directory = dir
                    copyURL = copy
                case .memory:
                    container = try ModelContainer(
                        for: schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
                    try container.restore(from: copy)
                    try? FileManager.default.removeItem(at: dir)  // scratch; failing to remove it loses nothing
                    directory = nil
                    copyURL = nil
                }
            } catch {
                try? FileManager.default.removeItem(at: dir)  // scratch; the error that matters is rethrown
                throw error
            }
            return
        }
        switch store {
        case .memory:
            directory = nil
            copyURL = nil
            container = try ModelContainer(for: schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
            try container.restore(from: url)
        case .disk:
            let dir = try ScratchDirectory(prefix: "openswiftdata-fixture-open", keep: true).url
            let copy = dir.appendingPathComponent(url.lastPathComponent)
            do {
                // A new store, then the fixture's pages through SQLite's backup API: the file is
                // read through SQLite (its WAL included, no descriptor of ours that could drop
                // another connection's locks), and the copy keeps its own store identifier, so
                // identifiers never cross copies.
                container = try ModelContainer(for: schema, configurations: ModelConfiguration(url: copy))
                try container.restore(from: url)
            } catch {
                // try?: cleanup before rethrowing the real error.
                try? FileManager.default.removeItem(at: dir)
                throw error
            }
            directory = dir
            copyURL = copy
        }
    }

    /// Copies a store file's pages (its WAL's committed ones included) through SQLite's backup
    /// API on a read-only connection, and gives the copy a new store identifier.
    private static func rawCopy(_ url: URL, to copy: URL) throws {
        do {
            let source = try SQLiteConnection(path: url.path, mode: .readOnly)
            defer { source.close() }
            let target = try SQLiteConnection(path: copy.path, mode: .readWriteCreate)
            defer { target.close() }
            try target.copyContents(of: source)
            if try target.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'Z_METADATA'") == .integer(1) {
                try target.run("UPDATE Z_METADATA SET Z_UUID = ? WHERE Z_VERSION = 1", [.text(UUID().uuidString)])
            }
        } catch let e as SQLiteError {
            throw SwiftDataError(
                e.code == .notADatabase
                    ? SwiftDataError.notADatabase.code : SwiftDataError.loadIssueModelContainer.code,
                "the fixture file cannot be copied", url: url, underlying: e)
        }
    }

    /// Opens a sample schema's fixture file.
    ///
    /// ```swift
    /// let db = try FixtureDatabase(contentsOf: url, sample: .catalogue, store: .disk)
    /// ```
    package convenience init(contentsOf url: URL, sample: SampleSchema, store: StoreKind) throws {
        try self.init(contentsOf: url, schema: sample.schema, store: store)
    }

    deinit {
        // try?: best-effort cleanup of scratch files; a leftover is harmless and must not mask the real result.
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }
}

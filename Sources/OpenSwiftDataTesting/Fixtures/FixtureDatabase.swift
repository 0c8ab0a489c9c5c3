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

    /// Opens `url` for `schema` (the schema it was written with) in the chosen store.
    ///
    /// - Throws: `SwiftDataError.incompatibleSchema` when the file holds another schema (naming
    ///   each entity whose version hash differs, as opening the store would), `.notADatabase`,
    ///   `.corruptStore` or `.loadIssueModelContainer` for a file that is no store.
    /// ```swift
    /// let db = try FixtureDatabase(contentsOf: url, schema: Schema([Category.self, Word.self]), store: .disk)
    /// ```
    public init(contentsOf url: URL, schema: Schema, store: StoreKind) throws {
        self.store = store
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw SwiftDataError(SwiftDataError.loadIssueModelContainer.code, "no fixture file at \(url.path)", url: url)
        }
        switch store {
        case .memory:
            directory = nil
            copyURL = nil
            container = try ModelContainer(for: schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
            try container.restore(from: url)
        case .disk:
            let dir = try FixtureFile.temporaryDirectory("open")
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

    /// Opens a sample schema's fixture file.
    ///
    /// ```swift
    /// let db = try FixtureDatabase(contentsOf: url, sample: .catalogue, store: .disk)
    /// ```
    public convenience init(contentsOf url: URL, sample: SampleSchema, store: StoreKind) throws {
        try self.init(contentsOf: url, schema: sample.schema, store: store)
    }

    deinit {
        // try?: best-effort cleanup of scratch files; a leftover is harmless and must not mask the real result.
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }
}

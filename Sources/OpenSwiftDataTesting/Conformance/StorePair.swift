import Foundation
import OpenSwiftData

/// An in-memory and an on-disk container for one schema, filled with the same seeded data, that
/// runs the same closure on both and on a Swift reference and reports the first difference.
///
/// ```swift
/// let pair = try StorePair(sample: .catalogue, seed: 7, scale: 200)
/// try pair.run("cheap products", reference: { expectedNames }) { context, _ in
///     try context.fetch(FetchDescriptor(predicate: #Predicate<CatalogueProduct> { $0.price < 5 },
///                                       sortBy: [SortDescriptor(\.name)])).map(\.name)
/// }
/// ```
/// A difference throws a ``ConformanceFailure`` naming the store, the seed and both values.
public final class StorePair {
    /// The schema both containers use.
    public let schema: Schema
    /// The seed the data was generated from; failures report it.
    public let seed: UInt64
    /// The in-memory container.
    public let memory: ModelContainer
    /// The on-disk container; ``reopenDisk()`` replaces it with a fresh one on the same file.
    public private(set) var disk: ModelContainer
    /// The on-disk store's file.
    public let diskURL: URL
    private let scratch: ScratchDirectory

    /// Two empty containers for `schema`; the disk store lives in a private temporary directory.
    public init(schema: Schema, seed: UInt64 = 1) throws {
        self.schema = schema
        self.seed = seed
        scratch = try ScratchDirectory(prefix: "storepair")
        memory = try StoreKind.memory.makeContainer(schema, in: scratch.url)
        disk = try StoreKind.disk.makeContainer(schema, in: scratch.url, name: "pair")
        diskURL = scratch.url.appendingPathComponent("pair.store")
    }

    /// Two containers for a sample schema, both filled with `sample.fixture(seed:scale:traits:)`.
    package convenience init(sample: SampleSchema, seed: UInt64, scale: Int, traits: Traits = []) throws {
        try self.init(schema: sample.schema, seed: seed)
        try populate(sample.fixture(seed: seed, scale: scale, traits: traits))
    }

    /// Two containers for `schema`, both starting from a copy of the store file at `url` — one
    /// your app wrote on a simulator or device (Apple's format, `-wal` and `-shm` beside it), a
    /// fixture, or a store this library wrote.
    ///
    /// Each store gets a private copy through SQLite's backup API (the `-wal` content included);
    /// the file, its `-wal` and its `-shm` keep their bytes. Both stores keep identifiers of their own.
    /// ```swift
    /// let pair = try StorePair(loading: URL(fileURLWithPath: "Tests/Stores/default.store"),
    ///                          schema: Schema([Customer.self, Order.self]))
    /// try pair.run("customers", reference: { 3 }) { context, _ in try context.fetchCount(FetchDescriptor<Customer>()) }
    /// ```
    /// - Throws: `SwiftDataError.incompatibleSchema` naming the entities whose version hashes
    ///   differ when the file was written by other models (as opening it would), `.notADatabase`,
    ///   `.corruptStore` or `.loadIssueModelContainer` for a file that is no store.
    public convenience init(loading url: URL, schema: Schema, seed: UInt64 = 1) throws {
        try self.init(schema: schema, seed: seed)
        try memory.restore(from: url)
        try disk.restore(from: url)
    }

    /// The container of the given kind.
    public func container(_ store: StoreKind) -> ModelContainer {
        store == .memory ? memory : disk
    }

    /// Generates `fixture` into both containers; returns the rows stored per step (the same for both).
    ///
    /// ```swift
    /// try pair.populate(Fixture(schema: pair.schema, seed: pair.seed))
    /// ```
    @discardableResult
    public func populate(_ fixture: Fixture) throws -> [String: Int] {
        _ = try fixture.populate(memory, progress: { _ in })
        return try fixture.populate(disk, progress: { _ in })
    }

    /// Replaces ``disk`` with a new container on the same file, as a relaunched app would open it.
    public func reopenDisk() throws {
        disk = try ModelContainer(for: schema, configurations: [ModelConfiguration(url: diskURL)])
    }

    /// Runs `body` on a fresh context of each store and compares each result with `reference()`.
    ///
    /// Every store runs, even after one failed, so the failure lists each store that differs.
    /// ```swift
    /// try pair.run("open orders", reference: { expected }) { context, _ in try context.fetchCount(open) }
    /// ```
    /// - Throws: a ``ConformanceFailure`` (suite `storePair`, case `label`, ``ConformanceFailure/location``
    ///   the caller's `#fileID:#line`) for the first failing store, with the others in
    ///   ``ConformanceFailure/otherStores``.
    public func run<R: Equatable>(
        _ label: String, reference: () throws -> R,
        fileID: String = #fileID, line: Int = #line,
        _ body: (ModelContext, StoreKind) throws -> R
    ) throws {
        let expected = try reference()
        var failures: [ConformanceFailure] = []
        for store in StoreKind.allCases {
            var failure: ConformanceFailure?
            do {
                let actual = try body(ModelContext(container(store)), store)
                if actual != expected {
                    failure = ConformanceFailure(
                        suite: "storePair", caseID: label, store: store, seed: seed, check: label,
                        expected: String(describing: expected), actual: String(describing: actual))
                }
            } catch let f as ConformanceFailure {
                failure = f
            } catch {
                failure = ConformanceFailure(
                    suite: "storePair", caseID: label, store: store, seed: seed, check: label,
                    expected: String(describing: expected), actual: "\(type(of: error)): \(error)")
            }
            if var f = failure {
                f.location = f.location ?? "\(fileID):\(line)"
                failures.append(f)
            }
        }
        guard var first = failures.first else { return }
        first.otherStores = Array(failures.dropFirst())
        throw first
    }

    /// Throws unless both stores hold the same rows (their canonical dumps are equal); the
    /// failure shows the first differing line of each dump.
    ///
    /// ```swift
    /// try pair.expectSameContents("after the import")
    /// ```
    public func expectSameContents(_ label: String, fileID: String = #fileID, line: Int = #line) throws {
        let (m, d) = (try CanonicalDump.content(of: memory), try CanonicalDump.content(of: disk))
        guard m != d else { return }
        let (mt, dt) = (try CanonicalDump.text(of: memory), try CanonicalDump.text(of: disk))
        let (ml, dl) = (
            mt.split(separator: "\n", omittingEmptySubsequences: false),
            dt.split(separator: "\n", omittingEmptySubsequences: false)
        )
        let i = (0..<min(ml.count, dl.count)).first { ml[$0] != dl[$0] } ?? min(ml.count, dl.count)
        func text(_ lines: [Substring]) -> String { i < lines.count ? String(lines[i]) : "<end of dump>" }
        var failure = ConformanceFailure(
            suite: "storePair", caseID: label, store: nil, seed: seed,
            check: "\(label): memory and disk stores hold the same rows (dump line \(i + 1))",
            expected: "memory: " + text(ml), actual: "disk:   " + text(dl),
            details: [
                "row counts memory \(m.rowCounts.sorted { $0.key < $1.key })",
                "row counts disk   \(d.rowCounts.sorted { $0.key < $1.key })",
            ])
        failure.location = "\(fileID):\(line)"
        throw failure
    }
}

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
    public convenience init(sample: SampleSchema, seed: UInt64, scale: Int, traits: Traits = []) throws {
        try self.init(schema: sample.schema, seed: seed)
        try populate(sample.fixture(seed: seed, scale: scale, traits: traits))
    }

    /// The container of the given kind.
    public func container(_ store: StoreKind) -> ModelContainer {
        store == .memory ? memory : disk
    }

    /// Generates `fixture` into both containers.
    public func populate(_ fixture: Fixture) throws {
        _ = try fixture.populate(memory, progress: { _ in })
        _ = try fixture.populate(disk, progress: { _ in })
    }

    /// Replaces ``disk`` with a new container on the same file, as a relaunched app would open it.
    public func reopenDisk() throws {
        disk = try ModelContainer(for: schema, configurations: [ModelConfiguration(url: diskURL)])
    }

    /// Runs `body` on a fresh context of each store and compares each result with `reference()`.
    ///
    /// - Throws: a ``ConformanceFailure`` (suite `storePair`, case `label`) for the first store
    ///   whose result differs or whose `body` throws.
    public func run<R: Equatable>(_ label: String, reference: () throws -> R,
                                  _ body: (ModelContext, StoreKind) throws -> R) throws {
        let expected = try reference()
        for store in StoreKind.allCases {
            let actual: R
            do {
                actual = try body(ModelContext(container(store)), store)
            } catch let f as ConformanceFailure {
                throw f
            } catch {
                throw ConformanceFailure(suite: "storePair", caseID: label, store: store, seed: seed, check: label,
                                         expected: String(describing: expected), actual: "\(type(of: error)): \(error)")
            }
            if actual != expected {
                throw ConformanceFailure(suite: "storePair", caseID: label, store: store, seed: seed, check: label,
                                         expected: String(describing: expected), actual: String(describing: actual))
            }
        }
    }

    /// Throws unless both stores hold the same rows (their canonical dumps are equal); the
    /// failure shows the first differing line of each dump.
    public func expectSameContents(_ label: String) throws {
        let (m, d) = (try CanonicalDump.content(of: memory), try CanonicalDump.content(of: disk))
        guard m != d else { return }
        let (mt, dt) = (try CanonicalDump.text(of: memory), try CanonicalDump.text(of: disk))
        let (ml, dl) = (mt.split(separator: "\n", omittingEmptySubsequences: false), dt.split(separator: "\n", omittingEmptySubsequences: false))
        let i = (0..<min(ml.count, dl.count)).first { ml[$0] != dl[$0] } ?? min(ml.count, dl.count)
        func line(_ lines: [Substring]) -> String { i < lines.count ? String(lines[i]) : "<end of dump>" }
        throw ConformanceFailure(suite: "storePair", caseID: label, store: nil, seed: seed,
                                 check: "\(label): memory and disk stores hold the same rows (dump line \(i + 1))",
                                 expected: "memory: " + line(ml), actual: "disk:   " + line(dl),
                                 details: ["row counts memory \(m.rowCounts.sorted { $0.key < $1.key })",
                                           "row counts disk   \(d.rowCounts.sorted { $0.key < $1.key })"])
    }
}

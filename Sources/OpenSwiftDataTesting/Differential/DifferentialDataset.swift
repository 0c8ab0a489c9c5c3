import Foundation
import OpenSwiftData

/// A sample schema's seeded data in a ``StorePair``, plus its rows as Swift objects (the
/// reference the predicates are evaluated on in Swift).
///
/// The reference rows live in a third, private in-memory container generated from the same
/// seed (its canonical dump must equal both stores', so primary keys agree): the stores under
/// test are never read by the reference. Its rows are read once with a plain fetch of
/// everything (no predicate, no sort); predicates, sorting and paging are then evaluated in
/// Swift with `Predicate.evaluate`, `SortDescriptor.compare` and array slicing.
final class DifferentialDataset {
    /// The dataset's name in reports: a sample schema's, or `schema` for a user's schema.
    let name: String
    let pair: StorePair
    let reference = ReferenceRows()
    private let referenceContainer: ModelContainer
    private let referenceContext: ModelContext

    convenience init(sample: SampleSchema, seed: UInt64, scale: Int, traits: Traits) throws {
        try self.init(
            name: sample.name, schema: sample.schema, fixture: sample.fixture(seed: seed, scale: scale, traits: traits))
    }

    /// `fixture` generated into a store pair for `schema` and into the private reference container.
    init(name: String, schema: Schema, fixture: Fixture) throws {
        self.name = name
        let seed = fixture.seed
        pair = try StorePair(schema: schema, seed: seed)
        try pair.populate(fixture)
        try pair.expectSameContents("dataset \(name), seed \(seed)")
        referenceContainer = try ModelContainer(
            for: schema, configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        _ = try fixture.populate(referenceContainer, progress: { _ in })
        guard try CanonicalDump.content(of: referenceContainer) == CanonicalDump.content(of: pair.memory) else {
            throw ConformanceFailure(
                suite: "differential", caseID: "dataset \(name)", store: nil, seed: seed,
                check: "the reference data equals the stores' data", expected: "equal canonical dumps",
                actual: "different dumps: generation is not deterministic")
        }
        referenceContext = ModelContext(referenceContainer)
    }

    /// Reads every row of `type` into the reference.
    func load<T: PersistentModel>(_ type: T.Type) throws {
        reference.set(type, try referenceContext.fetch(FetchDescriptor<T>()))
    }

    /// Reads every row of every entity of the schema into the reference.
    func loadAll() throws {
        for entity in pair.schema.entities {
            func load<T: PersistentModel>(_ type: T.Type) throws {
                if !reference.contains(type) { try self.load(type) }
            }
            try load(entity.modelType)
        }
    }

    /// The stored row behind `key` of `entity`'s table, as `column=value` pairs, for reports.
    static func describeRow(_ id: PersistentIdentifier, in container: ModelContainer) -> String {
        var entity = container.schema.entitiesByName[id.entityName]
        while let parent = entity?.superentity { entity = parent }
        guard let table = entity?.name, let pk = id.primaryKey else { return id.description }
        let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        // try?: describes a row inside a failure report; the identifier's description is the fallback.
        let text = try? container.withStoreConnection { db -> String in
            let names = try db.rows("PRAGMA table_info(\(quoted))").map { row -> String in
                if case .text(let s) = row[1] { return s } else { return "?" }
            }
            guard let row = try db.rows("SELECT * FROM \(quoted) WHERE Z_PK = ?", [.integer(pk)]).first else {
                return "missing"
            }
            return zip(names, row).map { "\($0)=\(DifferentialDataset.literal($1))" }.joined(separator: " ")
        }
        return "\(id.entityName) \(pk): \(text ?? "unreadable")"
    }
}

extension DifferentialDataset {
    /// A stored value as a report shows it: generated test data, so text is printed (quoted,
    /// escaped, cut at 80 characters), unlike `SQLValue.description`, which hides values.
    static func literal(_ value: SQLValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let i): return String(i)
        case .real(let d): return String(d)
        case .text(let t):
            let quoted = String(reflecting: t)
            return quoted.count > 80 ? String(quoted.prefix(78)) + "…\"" : quoted
        case .blob(let b):
            return "x'" + b.prefix(16).map { String(format: "%02x", $0) }.joined() + (b.count > 16 ? "…" : "") + "'"
        }
    }
}

/// One entity of one dataset that differential cases query.
struct DifferentialTarget {
    let dataset: String
    let entity: String
    let run: (DifferentialHarness, Int, inout SeededGenerator) throws -> Int

    static func of<Root: PersistentModel>(
        _ dataset: String, _ profile: @escaping @autoclosure () -> EntityProfile<Root>
    ) -> DifferentialTarget {
        DifferentialTarget(dataset: dataset, entity: String(describing: Root.self)) { harness, index, random in
            try PredicateCase(profile(), harness.dataset(dataset), harness: harness, index: index, random: &random)
                .run()
        }
    }
}

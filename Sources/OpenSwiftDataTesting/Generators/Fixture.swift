import Foundation
import OpenSwiftData

/// A seeded, declarative description of a model graph, generated into any container.
///
/// Steps run in order (parents before children); each saves in batches of `batchSize` with a
/// fresh `ModelContext` per batch, so a million rows generate in bounded memory. The same seed
/// and traits give the same rows on every machine.
/// ```swift
/// let fixture = Fixture(seed: 42) {
///     Generate(Category.self, count: 100) { row in Category(name: "\(row.word("name")) \(row.index)") }
///     Generate(Word.self, count: 10_000, parent: \.category, fanOut: .zipf(0.99)) { row in
///         Word(text: row.word("text"))
///     }
/// }
/// let container = try ModelContainer(for: Schema(fixture.modelTypes), configurations: ModelConfiguration(isStoredInMemoryOnly: true))
/// let counts = try fixture.populate(container)   // ["Category": 100, "Word": 10000]
/// ```
///
/// A fixture is `Sendable` (its row closures are `@Sendable`), so it can be a global constant in
/// a Swift 6 test target and shared by parallel tests.
public struct Fixture: Sendable {
    /// The seed every stream derives from.
    public internal(set) var seed: UInt64
    /// The data traits (unicode-heavy, long strings, hostile).
    public let traits: Traits
    /// Rows per save (and per context).
    package var batchSize: Int = 10_000
    /// The steps, in order, with unique labels.
    package let steps: [FixtureStep]
    /// Per-attribute value builders that replace automatic values (``override(_:_:)``).
    package internal(set) var overrides: [AttributeOverride] = []
    /// How automatic data fills nulls and relationships (``options(_:)``).
    package internal(set) var automatic = AutomaticData()
    /// The schema a schema fixture was made from (`nil` for `Generate` steps).
    package internal(set) var schema: Schema? = nil
    /// Problems found when the fixture was described, thrown by ``populate(_:progress:)``.
    var issues: [String] = []

    /// A fixture from its steps.
    ///
    /// Two steps of one type get labels `Type` and `Type#2`, unless labelled explicitly.
    /// ```swift
    /// let f = Fixture(seed: 7, traits: [.hostile]) { Generate(Tag.self, count: 5) { Tag(label: $0.word("label")) } }
    /// ```
    public init(seed: UInt64, traits: Traits = [], @FixtureBuilder _ steps: () -> [FixtureStep]) {
        self.seed = seed
        self.traits = traits
        var seen: [String: Int] = [:]
        self.steps = steps().map { step in
            var s = step
            let n = (seen[s.label] ?? 0) + 1
            seen[s.label] = n
            if n > 1 { s.label += "#\(n)" }
            return s
        }
    }

    /// The distinct model types the steps generate, in step order (pass subclasses to the
    /// schema yourself when a step returns them).
    ///
    /// ```swift
    /// let schema = Schema(fixture.modelTypes)
    /// ```
    package var modelTypes: [any PersistentModel.Type] {
        var seen = Set<ObjectIdentifier>()
        return steps.compactMap { seen.insert(ObjectIdentifier($0.modelType)).inserted ? $0.modelType : nil }
    }

    /// The total number of models the steps generate (links not counted).
    ///
    /// ```swift
    /// fixture.rowCount   // 10_100
    /// ```
    package var rowCount: Int { steps.reduce(0) { $0 + $1.count } }

    /// Generates every step into `container` and returns the number of rows each step stored,
    /// by step label.
    ///
    /// The number is counted in the store (rows of the step's model type before and after it),
    /// so it is what a fetch will see. A step that stores fewer rows than it generated throws
    /// ``FixtureCollisionError`` — an upsert on a unique constraint merged models — unless the
    /// step asked for those collisions (``Row/key(_:duplicateRatio:_:)`` drew an earlier key, or
    /// ``Generate/allowingCollisions()``); then the smaller number is reported.
    /// `progress` is called after every save; by default, fixtures of 100,000 rows or more
    /// report to standard error.
    /// ```swift
    /// let counts = try fixture.populate(container)   // ["Customer": 200, "Order": 1000]
    /// ```
    @discardableResult
    public func populate(
        _ container: ModelContainer,
        progress: ((FixtureProgress) -> Void)? = nil
    ) throws -> [String: Int] {
        if let issue = issues.first {
            throw SwiftDataError(SwiftDataError.modelNotFound.code, "fixture: " + issue)
        }
        let report = progress ?? (rowCount >= 100_000 ? FixtureProgress.printToStandardError : { _ in })
        let runner = FixtureRunner(
            container: container, seed: seed, traits: traits, batchSize: max(1, batchSize),
            totalRows: rowCount, progress: report)
        runner.maker = AutomaticMaker(overrides: overrides, options: automatic)
        var needed = Set<ObjectIdentifier>()
        for step in steps { needed.formUnion(step.needs) }
        runner.neededTypes = needed
        for step in steps {
            for (type, name) in zip(step.needs, step.needNames) where runner.registry[type] == nil {
                throw SwiftDataError(
                    SwiftDataError.modelNotFound.code,
                    "the fixture step \(step.label) links to \(name), but no earlier step generated any; put the \(name) step first",
                    entityName: name)
            }
            let before = try Fixture.storedCount(step.modelType, in: container)
            runner.ledger = CollisionLedger()
            try step.execute(runner, step.label)
            let stored = try Fixture.storedCount(step.modelType, in: container) - before
            let requested = runner.ledger.requestedDuplicates
            if stored < step.count - requested && !step.allowsCollisions {
                let entity = container.schema.entities.first {
                    ObjectIdentifier($0.modelType) == ObjectIdentifier(step.modelType)
                }
                let groups =
                    entity.map { e in e.uniquenessConstraints + e.attributes.filter(\.isUnique).map { [$0.name] } }
                    ?? []
                var seen = Set<[String]>()
                throw FixtureCollisionError(
                    step: step.label, generated: step.count, stored: stored, requested: requested,
                    constraints: groups.filter { seen.insert($0).inserted })
            }
            runner.counts[step.label] = stored
        }
        return runner.counts
    }

    /// Rows of `type` (subclasses included) in `container`.
    static func storedCount(_ type: any PersistentModel.Type, in container: ModelContainer) throws -> Int {
        func count<M: PersistentModel>(_: M.Type) throws -> Int {
            try ModelContext(container).fetchCount(FetchDescriptor<M>())
        }
        return try count(type)
    }
}

/// Where generation stands: reported after every save.
///
/// ```swift
/// try fixture.populate(container) { p in print("\(p.step): \(p.rowsDone)/\(p.totalRows)") }
/// ```
public struct FixtureProgress: Sendable {
    /// The label of the running step.
    public let step: String
    /// Rows saved so far, over all steps.
    public let rowsDone: Int
    /// Rows of the whole fixture.
    public let totalRows: Int

    /// Writes `fixture: <step> <done>/<total> rows (<percent>%)` to standard error.
    ///
    /// ```swift
    /// try fixture.populate(container, progress: FixtureProgress.printToStandardError)
    /// ```
    package static func printToStandardError(_ p: FixtureProgress) {
        let percent = p.totalRows == 0 ? 100 : p.rowsDone * 100 / p.totalRows
        FileHandle.standardError.write(
            Data("fixture: \(p.step) \(p.rowsDone)/\(p.totalRows) rows (\(percent)%)\n".utf8))
    }
}

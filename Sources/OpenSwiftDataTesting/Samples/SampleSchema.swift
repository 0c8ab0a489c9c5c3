import OpenSwiftData

/// A built-in sample schema with its seeded fixture: the harness's and benchmarks' test data.
///
/// ```swift
/// let sample = SampleSchema.named("dictionary")!
/// let container = try ModelContainer(for: sample.schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
/// try sample.fixture(seed: 42, scale: 1_000).populate(container)
/// ```
///
/// `Sendable` (so `@Test(arguments: SampleSchema.all)` works); unchecked only because
/// ``modelTypes`` holds model metatypes, which Swift 6.2+ does not assume `Sendable`.
package struct SampleSchema: @unchecked Sendable {
    /// The name the CLI takes (`--schema catalogue`).
    package let name: String
    /// One line describing the schema.
    package let summary: String
    /// Every model class of the schema, subclasses included.
    package let modelTypes: [any PersistentModel.Type]
    let build: @Sendable (UInt64, Int, Traits) -> Fixture

    init(
        name: String, summary: String, modelTypes: [any PersistentModel.Type],
        build: @escaping @Sendable (UInt64, Int, Traits) -> Fixture
    ) {
        self.name = name
        self.summary = summary
        self.modelTypes = modelTypes
        self.build = build
    }

    /// The schema of ``modelTypes``.
    ///
    /// ```swift
    /// let schema = SampleSchema.trips.schema
    /// ```
    package var schema: Schema { Schema(modelTypes) }

    /// The schema's fixture for a seed, a scale (its main entity's row count) and traits.
    ///
    /// ```swift
    /// let fixture = SampleSchema.users.fixture(seed: 7, scale: 100, traits: [.hostile])
    /// ```
    package func fixture(seed: UInt64, scale: Int, traits: Traits = []) -> Fixture {
        build(seed, max(0, scale), traits)
    }

    /// Every sample schema, by name.
    ///
    /// ```swift
    /// SampleSchema.all.map(\.name)   // ["catalogue", "dictionary", "trips", "users"]
    /// ```
    package static var all: [SampleSchema] { [catalogue, dictionary, trips, users] }

    /// The sample schema with this name, or `nil`.
    ///
    /// ```swift
    /// SampleSchema.named("trips")?.summary
    /// ```
    package static func named(_ name: String) -> SampleSchema? { all.first { $0.name == name } }
}

import OpenSwiftData

extension Fixture {
    /// Data for every entity of `schema`, with no closure to write: attributes from their types,
    /// every relationship filled, unique constraints respected, subclasses mixed in.
    ///
    /// Each inheritance hierarchy is one step (labelled with its root entity's name) generating
    /// `counts[name] ?? defaultCount` instances of every class in it, shuffled together. A
    /// count is the instances of that class itself, not of its subclasses: with subclasses
    /// `Card` and `Transfer`, `counts: ["Payment": 500]` makes 500 `Payment`s and 20 of each
    /// subclass (a fetch of `Payment` counts 540); give each subclass its count (0 for none).
    /// Instances are made through `init(backingData:)`, never through your initialisers (as
    /// SwiftData materialises rows). Attributes: strings, numbers, dates, UUIDs, URLs, `Data`,
    /// `Decimal`, `CaseIterable` enums, `Codable` values, optionals (nil with
    /// ``AutomaticData/nullRatio``); one attribute of every unique constraint gets a value per
    /// row. Relationships: to-one targets spread by ``AutomaticData/fanOut``, one-to-one and
    /// one-to-many targets used once, to-many and many-to-many sizes from
    /// ``AutomaticData/toMany`` within `minimumModelCount`…`maximumModelCount` (see
    /// ``Fixture`` `populate` for what is checked after each step).
    /// ```swift
    /// let fixture = Fixture(schema: Schema([Customer.self, Order.self, Address.self]), seed: 7,
    ///                       counts: ["Customer": 100, "Order": 800])
    ///     .override(\Customer.email) { row in row.unique.email("email") }
    /// try fixture.populate(container)   // ["Address": 20, "Customer": 100, "Order": 800]
    /// ```
    public init(
        schema: Schema, seed: UInt64, counts: [String: Int] = [:], defaultCount: Int = 20,
        traits: Traits = [], options: AutomaticData = AutomaticData()
    ) {
        let plan = AutomaticPlan(schema: schema, counts: counts, defaultCount: defaultCount)
        self.seed = seed
        self.traits = traits
        self.automatic = options
        self.issues = plan.issues
        self.schema = schema
        self.steps = plan.hierarchies.map { h in
            FixtureStep(
                label: h.root.name, modelType: h.root.modelType, count: h.total, needs: [], needNames: [],
                allowsCollisions: false,
                execute: { runner, label in try runner.runAutomatic(h, label: label) })
        }
    }
}

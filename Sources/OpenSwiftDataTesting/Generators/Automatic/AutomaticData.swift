import OpenSwiftData

/// How automatic data fills what no override or closure decides: nulls, to-one fan-out and the
/// size of to-many collections.
///
/// ```swift
/// let fixture = Fixture(schema: schema, seed: 7, counts: ["Customer": 50, "Order": 400],
///                       options: AutomaticData(nullRatio: 0.3, fanOut: .zipf(0.99), toMany: .uniform(0...5)))
/// ```
public struct AutomaticData: Sendable, Hashable {
    /// The probability that an optional attribute or to-one relationship is `nil`.
    public var nullRatio: Double
    /// How to-one references spread over their targets (`.zipf` makes a few popular parents).
    public var fanOut: FanOut
    /// How many models a to-many relationship filled from its own side gets (many-to-many and
    /// one-way to-many), clamped to the relationship's `minimumModelCount`/`maximumModelCount`.
    public var toMany: Distribution

    /// Options with the given values; the defaults suit most schemas.
    ///
    /// ```swift
    /// AutomaticData()   // 20% nil, uniform fan-out, 0…3 related models
    /// ```
    public init(nullRatio: Double = 0.2, fanOut: FanOut = .uniform, toMany: Distribution = .uniform(0...3)) {
        self.nullRatio = nullRatio
        self.fanOut = fanOut
        self.toMany = toMany
    }
}

/// A per-attribute value builder that replaces automatic values: see ``Fixture/override(_:_:)``.
///
/// `@unchecked Sendable`: it holds a `Sendable` key path (as `AnyKeyPath`) and a `@Sendable` closure.
public struct AttributeOverride: @unchecked Sendable {
    /// The attribute's key path.
    package let keyPath: AnyKeyPath
    let make: @Sendable (Row) -> Any
}

/// A fixture's generation stored fewer rows than it generated: an upsert on a unique constraint
/// merged rows that were not meant to collide.
///
/// ```swift
/// do { try fixture.populate(container) }
/// catch let e as FixtureCollisionError { print(e.step, e.generated, e.stored) }
/// ```
public struct FixtureCollisionError: Error, CustomStringConvertible, Sendable {
    /// The step's label.
    public let step: String
    /// Models the step generated.
    public let generated: Int
    /// Rows the store holds for them after the step.
    public let stored: Int
    /// Collisions the step asked for (``Row/key(_:duplicateRatio:_:)`` drew an earlier key).
    public let requested: Int
    /// The unique constraints of the step's entities, as property-name groups.
    public let constraints: [[String]]

    /// A sentence naming the step, the numbers, the constraints and the fix.
    public var description: String {
        let groups = constraints.map { "[" + $0.joined(separator: ", ") + "]" }.joined(separator: ", ")
        return "fixture step \(step) generated \(generated) models but the store holds \(stored): "
            + "\(generated - stored) were merged by upserts on the unique constraints \(groups.isEmpty ? "(none declared)" : groups)"
            + (requested > 0 ? " (only \(requested) duplicate keys were requested)" : "")
            + "; give those attributes unique values (row.unique.email(\"…\"), row.unique.string(\"…\"), .override(\\Type.attribute) { row in row.unique… }) or mark the step .allowingCollisions()"
    }
}

extension Fixture {
    /// The same fixture with `make` building the values of the attribute at `keyPath` wherever
    /// automatic data fills that attribute (a schema fixture, `Generate` without a closure).
    ///
    /// ```swift
    /// let fixture = Fixture(schema: schema, seed: 1)
    ///     .override(\Customer.email) { row in row.unique.email("email") }
    ///     .override(\Customer.name) { row in row.personName("name") }
    /// ```
    public func override<M: PersistentModel, V>(
        _ keyPath: KeyPath<M, V> & Sendable,
        _ make: @escaping @Sendable (Row) -> V
    ) -> Fixture {
        var copy = self
        copy.overrides.append(AttributeOverride(keyPath: keyPath, make: { make($0) }))
        return copy
    }

    /// The same fixture with other automatic-data options.
    ///
    /// ```swift
    /// let fixture = Fixture(schema: schema, seed: 1).options(AutomaticData(nullRatio: 0))
    /// ```
    public func options(_ options: AutomaticData) -> Fixture {
        var copy = self
        copy.automatic = options
        return copy
    }
}

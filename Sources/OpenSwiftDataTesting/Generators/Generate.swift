import OpenSwiftData

/// One step of a ``Fixture``: `count` models of one type, optionally attached to parents and
/// linked many-to-many to models of earlier steps.
///
/// The closure builds a model from a ``Row``; it may return a subclass, which is how a step
/// generates a mix of classes in a hierarchy. Parents must come from an earlier step.
/// ```swift
/// Generate(Category.self, count: 100) { row in Category(name: "c\(row.index)") }
/// Generate(Word.self, count: 10_000, parent: \.category, fanOut: .zipf(0.99)) { row in
///     Word(text: row.word("text"))
/// }
/// Generate(Product.self, count: 1_000) { row in Product(name: row.words("name", count: .uniform(1...3)), price: 1) }
///     .linking(\.tags, count: .uniform(0...3))
/// ```
public struct Generate<M: PersistentModel>: Sendable {
    /// How a child finds its parent: the parent type and an assignment through the key path.
    ///
    /// `@unchecked Sendable`: `assign` captures only a `Sendable` key path and model metatypes
    /// (immutable; Swift 6.2+ warns about metatype captures because of isolated conformances,
    /// which `PersistentModel` conformances never are).
    struct ParentLink: @unchecked Sendable {
        let parentType: ObjectIdentifier
        let parentName: String
        let fanOut: FanOut
        let assign: (M, any PersistentModel) -> Void
    }

    /// A many-to-many link to models of an earlier step (`@unchecked Sendable` as ``ParentLink``).
    struct ManyLink: @unchecked Sendable {
        let targetType: ObjectIdentifier
        let targetName: String
        let count: Distribution
        let label: String
        let append: (M, [any PersistentModel]) -> Void
    }

    let count: Int
    let label: String?
    let make: @Sendable (Row) -> M
    var parent: ParentLink?
    var links: [ManyLink] = []
    /// No closure: attributes come from automatic data (and the fixture's overrides).
    var automatic = false
    /// Upserts may merge this step's rows (``allowingCollisions()``).
    var allowsCollisions = false

    /// `count` models of `type`, each built by `make` from its row.
    ///
    /// ```swift
    /// Generate(Tag.self, count: 30) { row in Tag(label: row.word("label")) }
    /// ```
    public init(_ type: M.Type, count: Int, label: String? = nil, _ make: @escaping @Sendable (Row) -> M) {
        precondition(count >= 0, "Generate needs a non-negative count")
        self.count = count
        self.label = label
        self.make = make
    }

    /// `count` models of `type` made without calling an initialiser: every attribute from
    /// automatic data (by type, unique constraints respected) or the fixture's overrides.
    ///
    /// Relationships stay empty unless `parent:`/`linking` set them, or use
    /// ``Fixture/init(schema:seed:counts:defaultCount:traits:options:)`` for the whole graph.
    /// ```swift
    /// Fixture(seed: 1) { Generate(Customer.self, count: 500) }
    ///     .override(\Customer.email) { row in row.unique.email("email") }
    /// ```
    public init(_ type: M.Type, count: Int, label: String? = nil) {
        self.init(type, count: count, label: label) { _ in preconditionFailure("automatic step") }
        automatic = true
    }

    /// `count` automatic models of `type` (see ``init(_:count:label:)``), each attached through
    /// `parent` to a model of an earlier step.
    ///
    /// ```swift
    /// Generate(Order.self, count: 2_000, parent: \.customer, fanOut: .zipf(0.9))
    /// ```
    public init<P: PersistentModel>(
        _ type: M.Type, count: Int, parent: ReferenceWritableKeyPath<M, P?> & Sendable,
        fanOut: FanOut = .uniform, label: String? = nil
    ) {
        self.init(type, count: count, parent: parent, fanOut: fanOut, label: label) { _ in
            preconditionFailure("automatic step")
        }
        automatic = true
    }

    /// The same step, allowed to store fewer rows than it generates: upserts on unique
    /// constraints may merge its models (without this, `populate` throws ``FixtureCollisionError``).
    ///
    /// ```swift
    /// Generate(Tag.self, count: 100) { row in Tag(label: row.pick("label", from: ["a", "b"])) }.allowingCollisions()
    /// ```
    public func allowingCollisions() -> Generate<M> {
        var copy = self
        copy.allowsCollisions = true
        return copy
    }

    /// `count` models of `type`, each attached through `parent` to a model of an earlier step,
    /// spread over those parents by `fanOut`.
    ///
    /// Children are inserted grouped by parent (each group in row order) so that every parent
    /// is loaded once: memory stays bounded by the batch size and the largest group.
    /// ```swift
    /// Generate(Word.self, count: 10_000, parent: \.category, fanOut: .zipf(0.99)) { row in
    ///     Word(text: row.word("text"))
    /// }
    /// ```
    ///
    /// `children` (the parent's inverse to-many key path) is accepted for clarity and
    /// compatibility; linking through the child's to-one side is already linear and never loads
    /// a stored parent's children, so it does not change the result or the cost.
    /// ```swift
    /// Generate(Word.self, count: 1_000_000, parent: \.category, children: \Category.words, fanOut: .zipf(0.99)) { … }
    /// ```
    public init<P: PersistentModel>(
        _ type: M.Type, count: Int, parent: ReferenceWritableKeyPath<M, P?> & Sendable,
        children: ReferenceWritableKeyPath<P, [M]>? = nil,
        fanOut: FanOut = .uniform, label: String? = nil,
        _ make: @escaping @Sendable (Row) -> M
    ) {
        self.init(type, count: count, label: label, make)
        self.parent = ParentLink(
            parentType: ObjectIdentifier(P.self), parentName: String(describing: P.self),
            fanOut: fanOut, assign: { child, p in child[keyPath: parent] = (p as! P) })
        _ = children
    }

    /// Also links each model to a number (drawn from `count`) of distinct models of an earlier
    /// step of type `T`, through a to-many relationship.
    ///
    /// ```swift
    /// Generate(Product.self, count: 1_000) { row in … }.linking(\.tags, count: .uniform(0...3))
    /// ```
    public func linking<T: PersistentModel>(
        _ keyPath: ReferenceWritableKeyPath<M, [T]> & Sendable, count: Distribution,
        label: String? = nil
    ) -> Generate<M> {
        var copy = self
        let name = String(describing: T.self)
        copy.links.append(
            ManyLink(
                targetType: ObjectIdentifier(T.self), targetName: name, count: count,
                label: label ?? "#link:\(name):\(links.count)",
                append: { model, targets in
                    model[keyPath: keyPath].append(contentsOf: targets.map { $0 as! T })
                }))
        return copy
    }

    /// The type-erased step the fixture runs.
    var step: FixtureStep {
        var needs: [ObjectIdentifier] = []
        var needNames: [String] = []
        if let parent {
            needs.append(parent.parentType)
            needNames.append(parent.parentName)
        }
        for l in links {
            needs.append(l.targetType)
            needNames.append(l.targetName)
        }
        let generate = self
        return FixtureStep(
            label: label ?? String(describing: M.self), modelType: M.self, count: count,
            needs: needs, needNames: needNames, allowsCollisions: allowsCollisions,
            execute: { runner, label in try runner.run(generate, label: label) })
    }
}

/// A type-erased step of a ``Fixture``; the ``FixtureBuilder`` makes these from ``Generate``.
///
/// ```swift
/// let steps: [FixtureStep] = fixture.steps
/// steps.map(\.label)   // ["Category", "Word"]
/// ```
///
/// `@unchecked Sendable`: besides values, it holds a model metatype and a closure capturing only a
/// `Sendable` ``Generate`` (whose row closure is `@Sendable`) and metatypes.
public struct FixtureStep: @unchecked Sendable {
    /// The step's label: its stream name (the model type's name unless given).
    package internal(set) var label: String
    /// The generated model type.
    package let modelType: any PersistentModel.Type
    /// How many models the step generates.
    package let count: Int
    let needs: [ObjectIdentifier]
    let needNames: [String]
    /// Whether upserts may merge the step's rows without failing `populate`.
    package let allowsCollisions: Bool
    let execute: (FixtureRunner, String) throws -> Void
}

/// Builds a ``Fixture``'s steps from `Generate` expressions, `if`, `for` and `switch`.
///
/// ```swift
/// Fixture(seed: 1) {
///     Generate(Tag.self, count: 10) { row in Tag(label: row.word("label")) }
///     if withProducts { Generate(Product.self, count: 100) { row in … } }
/// }
/// ```
@resultBuilder
public enum FixtureBuilder {
    /// One `Generate` expression.
    public static func buildExpression<M: PersistentModel>(_ generate: Generate<M>) -> [FixtureStep] { [generate.step] }
    /// Steps in order.
    public static func buildBlock(_ parts: [FixtureStep]...) -> [FixtureStep] { parts.flatMap { $0 } }
    /// An `if` without `else`.
    public static func buildOptional(_ part: [FixtureStep]?) -> [FixtureStep] { part ?? [] }
    /// The first branch of an `if`/`else` or `switch`.
    public static func buildEither(first part: [FixtureStep]) -> [FixtureStep] { part }
    /// The second branch of an `if`/`else` or `switch`.
    public static func buildEither(second part: [FixtureStep]) -> [FixtureStep] { part }
    /// A `for` loop.
    public static func buildArray(_ parts: [[FixtureStep]]) -> [FixtureStep] { parts.flatMap { $0 } }
}

import OpenSwiftData

/// One failed conformance or differential check: what was expected, what a store did, and how
/// to reproduce it.
///
/// Thrown by ``ConformanceCase/verify(store:seed:)``, ``StorePair`` and the differential
/// checks; its `description` names the suite, the reference ID, the store and the seed, then
/// the labelled trace (store, fixture, seed, iteration) that led to the failure.
/// ```swift
/// do { try ConformanceSuite.uniqueness.verify(store: .disk) }
/// catch let failure as ConformanceFailure { print(failure.caseID, failure.expected, failure.actual) }
/// ```
public struct ConformanceFailure: Error, CustomStringConvertible, Sendable {
    /// The suite's name, e.g. `uniqueness` or `differential`.
    public var suite: String
    /// The behaviour-reference ID of the case, e.g. `UNQ-10`.
    public var caseID: String
    /// The store that misbehaved; `nil` when the stores disagree with each other.
    public var store: StoreKind?
    /// The seed that reproduces the failure (`harness conform --seed`).
    public var seed: UInt64
    /// What was checked, in words.
    public var check: String
    /// The value the reference behaviour gives.
    public var expected: String
    /// The value the store gave.
    public var actual: String
    /// The labels of the loops the failure happened in, outermost first (`store=disk`, `row=12`…).
    public var trace: [String]
    /// Extra detail for reproducing: the shrunk rows, the predicate, the SQL.
    public var details: [String]

    /// A failure with every field given.
    public init(suite: String, caseID: String, store: StoreKind?, seed: UInt64, check: String,
                expected: String, actual: String, trace: [String] = [], details: [String] = []) {
        self.suite = suite
        self.caseID = caseID
        self.store = store
        self.seed = seed
        self.check = check
        self.expected = expected
        self.actual = actual
        self.trace = trace
        self.details = details
    }

    /// `[uniqueness UNQ-10, disk, seed 1] check: expected …, actual …` followed by trace and details.
    public var description: String {
        var text = "[\(suite) \(caseID), \(store.map(\.rawValue) ?? "memory vs disk"), seed \(seed)] \(check)\n"
        text += "  expected: \(expected)\n  actual:   \(actual)"
        if !trace.isEmpty { text += "\n  trace:    " + trace.joined(separator: " › ") }
        for line in details { text += "\n  " + line }
        return text
    }
}

/// The context a conformance case runs in: its store kind, its seed, a scratch directory, and
/// checks that throw a ``ConformanceFailure`` carrying all of that.
///
/// ```swift
/// ConformanceCase(suite: "uniqueness", id: "UNQ-10", title: "a duplicate insert updates the row") { check in
///     let container = try check.container(for: ConformanceAccount.self)
///     …
///     try check.expectEqual(try context.fetchCount(FetchDescriptor<ConformanceAccount>()), 1, "rows after upsert")
/// }
/// ```
public final class ConformanceCheck {
    /// The suite being run.
    public let suite: String
    /// The reference ID of the case being run.
    public let caseID: String
    /// The store kind every container of this check uses.
    public let store: StoreKind
    /// The seed for any random choices the case makes.
    public let seed: UInt64
    /// A generator seeded from `seed` and the case ID.
    public var random: SeededGenerator
    /// The labels of the loops currently entered (see ``within(_:_:)``).
    public private(set) var trace: [String] = []
    private let scratch: ScratchDirectory
    private var containerCount = 0

    /// A check context; the runner makes one per case and store.
    public init(suite: String, caseID: String, store: StoreKind, seed: UInt64) throws {
        self.suite = suite
        self.caseID = caseID
        self.store = store
        self.seed = seed
        self.random = SeededGenerator(seed: SeededGenerator.derive(seed, labels: [suite, caseID]))
        self.scratch = try ScratchDirectory(prefix: "conformance-\(caseID)")
    }

    /// A new, empty container of this check's store kind for the given model types.
    public func container(for types: any PersistentModel.Type...) throws -> ModelContainer {
        try container(for: Schema(types))
    }

    /// A new, empty container of this check's store kind for `schema`, with its own file on disk.
    public func container(for schema: Schema) throws -> ModelContainer {
        containerCount += 1
        return try store.makeContainer(schema, in: scratch.url, name: "store\(containerCount)")
    }

    /// A second container on the same store as `container`, as an app relaunch would open it.
    ///
    /// On disk this opens the file again, so the check sees what was really written; an
    /// in-memory store cannot be reopened, so `container` itself is returned.
    public func reopen(_ container: ModelContainer) throws -> ModelContainer {
        guard store == .disk, let url = container.configurations.first?.url else { return container }
        return try ModelContainer(for: container.schema, configurations: [ModelConfiguration(url: url)])
    }

    /// Runs `body` with `label` added to the trace, so a failure inside says where it happened.
    public func within<T>(_ label: String, _ body: () throws -> T) rethrows -> T {
        trace.append(label)
        defer { trace.removeLast() }
        return try body()
    }

    /// A failure of this case: `check` went wrong, the reference gives `expected`, the store `actual`.
    public func failure(_ check: String, expected: String, actual: String, details: [String] = []) -> ConformanceFailure {
        ConformanceFailure(suite: suite, caseID: caseID, store: store, seed: seed, check: check,
                           expected: expected, actual: actual, trace: trace, details: details)
    }

    /// Throws unless `actual == expected`.
    public func expectEqual<T: Equatable>(_ actual: T, _ expected: T, _ check: String) throws {
        if actual != expected {
            throw failure(check, expected: String(describing: expected), actual: String(describing: actual))
        }
    }

    /// Throws unless `condition` holds; `expected` and `actual` describe the two sides for the report.
    public func expect(_ condition: Bool, _ check: String, expected: String = "true", actual: String = "false") throws {
        if !condition { throw failure(check, expected: expected, actual: actual) }
    }

    /// Runs `body`, which must throw a ``SwiftDataError`` with `code`; returns that error.
    @discardableResult
    public func expectError<T>(_ code: SwiftDataError, _ check: String, _ body: () throws -> T) throws -> SwiftDataError {
        let result: T
        do {
            result = try body()
        } catch let error as SwiftDataError {
            if error.code != code.code {
                throw failure(check, expected: "SwiftDataError.\(code.code)", actual: "SwiftDataError.\(error.code): \(error.message)")
            }
            return error
        } catch {
            throw failure(check, expected: "SwiftDataError.\(code.code)", actual: "\(type(of: error)): \(error)")
        }
        throw failure(check, expected: "SwiftDataError.\(code.code)", actual: "no error, returned \(result)")
    }

    /// Runs `body`, turning any error it throws (other than a ``ConformanceFailure``) into a
    /// failure of `check`.
    public func expectNoError<T>(_ check: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let f as ConformanceFailure { throw f } catch {
            throw failure(check, expected: "no error", actual: "\(type(of: error)): \(error)")
        }
    }
}

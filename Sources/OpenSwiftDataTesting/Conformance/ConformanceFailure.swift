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
public struct ConformanceFailure: Error, CustomStringConvertible, Sendable, Codable {
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
    /// The caller's source location (`File.swift:42`, from `#fileID` and `#line`), when the
    /// check was called from a test (``StorePair``, ``QueryCheck``).
    public var location: String? = nil
    /// The failures of the other stores that failed the same check (``StorePair/run(_:reference:fileID:line:_:)``
    /// reports every failing store; this failure is the first's).
    public var otherStores: [ConformanceFailure] = []

    /// Every store that failed this check: this failure's store, then ``otherStores``'.
    package var failingStores: [StoreKind] { ([store] + otherStores.map(\.store)).compactMap { $0 } }

    /// A failure with every field given.
    package init(
        suite: String, caseID: String, store: StoreKind?, seed: UInt64, check: String,
        expected: String, actual: String, trace: [String] = [], details: [String] = []
    ) {
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
        let stores =
            otherStores.isEmpty
            ? (store.map(\.rawValue) ?? "memory vs disk")
            : failingStores.map(\.rawValue).joined(separator: " and ")
        var text = "[\(suite) \(caseID), \(stores), seed \(seed)] \(check)\n"
        if let location { text += "  at:       \(location)\n" }
        text +=
            "  expected: \(expected)\n  actual:   \(actual)"
            + (otherStores.isEmpty ? "" : " (\(store?.rawValue ?? "?"))")
        for other in otherStores { text += "\n  actual:   \(other.actual) (\(other.store?.rawValue ?? "?"))" }
        if !trace.isEmpty { text += "\n  trace:    " + trace.joined(separator: " › ") }
        for line in details { text += "\n  " + line }
        return text
    }
}

import Foundation
import OpenSwiftData

/// One conformance check: a behaviour of SwiftData, named by its reference ID, verified on one
/// store kind by a throwing function.
///
/// Cases know nothing about test frameworks: call ``verify(store:seed:)`` from Swift Testing,
/// XCTest or a script; it returns normally or throws a ``ConformanceFailure``.
/// ```swift
/// @Test(arguments: ConformanceSuite.allCases, StoreKind.allCases)
/// func conformance(_ c: ConformanceCase, store: StoreKind) throws { try c.verify(store: store) }
/// ```
public struct ConformanceCase: Sendable, CustomStringConvertible {
    /// The suite this case belongs to (`uniqueness`, `deleteRules`, …).
    public let suite: String
    /// The behaviour-reference ID (`UNQ-10`); several cases may share one ID.
    public let id: String
    /// What the case verifies, in one line.
    public let title: String
    private let body: @Sendable (ConformanceCheck) throws -> Void

    /// A case of `suite` for reference `id`, checked by `body`.
    package init(
        suite: String, id: String, title: String, _ body: @escaping @Sendable (ConformanceCheck) throws -> Void
    ) {
        self.suite = suite
        self.id = id
        self.title = title
        self.body = body
    }

    /// `UNQ-10 a duplicate insert updates the stored row`.
    public var description: String { "\(id) \(title)" }

    /// Runs the case on a fresh `store` of its own; throws the first ``ConformanceFailure``.
    ///
    /// Any other error escaping the case is reported as a failure too, with its type and message.
    public func verify(store: StoreKind, seed: UInt64 = 1) throws {
        let check = try ConformanceCheck(suite: suite, caseID: id, store: store, seed: seed)
        do {
            try body(check)
        } catch let failure as ConformanceFailure {
            throw failure
        } catch {
            throw check.failure(
                "\(title): unexpected error", expected: "no error", actual: "\(type(of: error)): \(error)")
        }
    }
}

/// A named group of ``ConformanceCase``s covering one area of SwiftData's behaviour.
///
/// ```swift
/// for suite in ConformanceSuite.all {
///     let results = suite.run(on: .disk, seed: 1)
///     print(suite.name, results.filter(\.passed).count, "/", results.count)
/// }
/// ```
public struct ConformanceSuite: Sendable {
    /// The name `harness conform --suite` accepts, e.g. `uniqueness`.
    public let name: String
    /// A one-line summary for reports.
    public let title: String
    /// The cases, in reference-ID order.
    public let cases: [ConformanceCase]

    /// A suite from its cases.
    package init(name: String, title: String, cases: [ConformanceCase]) {
        self.name = name
        self.title = title
        self.cases = cases
    }

    /// Every suite, in report order.
    public static var all: [ConformanceSuite] {
        [
            .uniqueness, .deleteRules, .predicates, .inheritance, .fetching, .relationships, .lifecycle, .history,
            .migrations,
        ]
    }

    /// Every case of every suite: the argument list for a parameterised test.
    public static var allCases: [ConformanceCase] { all.flatMap(\.cases) }

    /// The suite called `name`, if any.
    public static func named(_ name: String) -> ConformanceSuite? { all.first { $0.name == name } }

    /// Runs every case on `store`; throws the first failure.
    public func verify(store: StoreKind, seed: UInt64 = 1) throws {
        for c in cases { try c.verify(store: store, seed: seed) }
    }

    /// Runs every case on `store` and collects a result per case, failures included.
    package func run(on store: StoreKind, seed: UInt64 = 1) -> [ConformanceResult] {
        cases.map { c in
            let start = DispatchTime.now().uptimeNanoseconds
            var failure: ConformanceFailure? = nil
            do {
                try c.verify(store: store, seed: seed)
            } catch let f as ConformanceFailure {
                failure = f
            } catch {
                failure = ConformanceFailure(
                    suite: name, caseID: c.id, store: store, seed: seed,
                    check: "setting up the case", expected: "no error", actual: "\(error)")
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            return ConformanceResult(
                suite: name, caseID: c.id, title: c.title, store: store, seed: seed,
                seconds: seconds, failure: failure)
        }
    }
}

/// The outcome of one case on one store, as reports show it.
public struct ConformanceResult: Sendable, Codable {
    /// The suite's name.
    public let suite: String
    /// The case's reference ID.
    public let caseID: String
    /// The case's title.
    public let title: String
    /// The store it ran on.
    public let store: StoreKind
    /// The seed it ran with.
    public let seed: UInt64
    /// Wall time of the case, for the JUnit report only (never gated).
    public let seconds: Double
    /// The failure, or `nil` when the case passed.
    public let failure: ConformanceFailure?

    /// Whether the case passed.
    public var passed: Bool { failure == nil }

    /// A result with every field given.
    package init(
        suite: String, caseID: String, title: String, store: StoreKind, seed: UInt64,
        seconds: Double, failure: ConformanceFailure?
    ) {
        self.suite = suite
        self.caseID = caseID
        self.title = title
        self.store = store
        self.seed = seed
        self.seconds = seconds
        self.failure = failure
    }
}

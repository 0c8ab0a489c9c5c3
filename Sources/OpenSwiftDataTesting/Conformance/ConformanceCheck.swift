import Foundation
import OpenSwiftData

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
package final class ConformanceCheck {
    /// The suite being run.
    package let suite: String
    /// The reference ID of the case being run.
    package let caseID: String
    /// The store kind every container of this check uses.
    package let store: StoreKind
    /// The seed for any random choices the case makes.
    package let seed: UInt64
    /// A generator seeded from `seed` and the case ID.
    package var random: SeededGenerator
    /// The labels of the loops currently entered (see ``within(_:_:)``).
    package private(set) var trace: [String] = []
    let scratch: ScratchDirectory
    var containerCount = 0

    /// A check context; the runner makes one per case and store.
    package init(suite: String, caseID: String, store: StoreKind, seed: UInt64) throws {
        self.suite = suite
        self.caseID = caseID
        self.store = store
        self.seed = seed
        self.random = SeededGenerator(seed: SeededGenerator.derive(seed, labels: [suite, caseID]))
        self.scratch = try ScratchDirectory(prefix: "conformance-\(caseID)")
    }

    /// A new, empty container of this check's store kind for the given model types.
    package func container(for types: any PersistentModel.Type...) throws -> ModelContainer {
        try container(for: Schema(types))
    }

    /// A new, empty container of this check's store kind for `schema`, with its own file on disk.
    package func container(for schema: Schema) throws -> ModelContainer {
        containerCount += 1
        return try store.makeContainer(schema, in: scratch.url, name: "store\(containerCount)")
    }

    /// A second container on the same store as `container`, as an app relaunch would open it.
    ///
    /// On disk this opens the file again, so the check sees what was really written; an
    /// in-memory store cannot be reopened, so `container` itself is returned.
    package func reopen(_ container: ModelContainer) throws -> ModelContainer {
        guard store == .disk, let url = container.configurations.first?.url else { return container }
        return try ModelContainer(for: container.schema, configurations: [ModelConfiguration(url: url)])
    }

    /// Runs `body` with `label` added to the trace, so a failure inside says where it happened.
    package func within<T>(_ label: String, _ body: () throws -> T) rethrows -> T {
        trace.append(label)
        defer { trace.removeLast() }
        return try body()
    }

    /// A failure of this case: `check` went wrong, the reference gives `expected`, the store `actual`.
    package func failure(_ check: String, expected: String, actual: String, details: [String] = [])
        -> ConformanceFailure
    {
        ConformanceFailure(
            suite: suite, caseID: caseID, store: store, seed: seed, check: check,
            expected: expected, actual: actual, trace: trace, details: details)
    }

    /// Throws unless `actual == expected`.
    package func expectEqual<T: Equatable>(_ actual: T, _ expected: T, _ check: String) throws {
        if actual != expected {
            throw failure(check, expected: String(describing: expected), actual: String(describing: actual))
        }
    }

    /// Throws unless `condition` holds; `expected` and `actual` describe the two sides for the report.
    package func expect(_ condition: Bool, _ check: String, expected: String = "true", actual: String = "false") throws
    {
        if !condition { throw failure(check, expected: expected, actual: actual) }
    }

    /// Runs `body`, which must throw a `SwiftDataError` with `code`; returns that error.
    @discardableResult
    package func expectError<T>(_ code: SwiftDataError, _ check: String, _ body: () throws -> T) throws
        -> SwiftDataError
    {
        let result: T
        do {
            result = try body()
        } catch let error as SwiftDataError {
            if error.code != code.code {
                throw failure(
                    check, expected: "SwiftDataError.\(code.code)",
                    actual: "SwiftDataError.\(error.code): \(error.message)")
            }
            return error
        } catch {
            throw failure(check, expected: "SwiftDataError.\(code.code)", actual: "\(type(of: error)): \(error)")
        }
        throw failure(check, expected: "SwiftDataError.\(code.code)", actual: "no error, returned \(result)")
    }

    /// Runs `body`, turning any error it throws (other than a ``ConformanceFailure``) into a
    /// failure of `check`.
    package func expectNoError<T>(_ check: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let f as ConformanceFailure { throw f } catch {
            throw failure(check, expected: "no error", actual: "\(type(of: error)): \(error)")
        }
    }
}

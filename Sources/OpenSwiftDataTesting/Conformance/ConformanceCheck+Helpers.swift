import Foundation
import OpenSwiftData

extension ConformanceCheck {
    /// How many `T`s the store holds, read through a fresh context on a reopened container.
    ///
    /// Pending changes of other contexts are not seen; on disk the file is read again.
    /// ```swift
    /// try check.expectEqual(try check.storedCount(ConformanceRoom.self, in: container), 0, "rooms left")
    /// ```
    package func storedCount<T: PersistentModel>(_ type: T.Type, in container: ModelContainer) throws -> Int {
        try OpenSwiftDataTesting.storedCount(type, in: reopen(container))
    }

    /// The stored `T`s, sorted by `key`, read through a fresh context on a reopened container.
    ///
    /// ```swift
    /// let names = try check.stored(ConformanceChild.self, in: container, key: \.name)
    /// ```
    package func stored<T: PersistentModel, K: Comparable>(
        _ type: T.Type, in container: ModelContainer,
        key: (T) -> K
    ) throws -> [K] {
        try ModelContext(reopen(container)).fetch(FetchDescriptor<T>()).map(key).sorted()
    }

    /// Fetches `predicate` in `context` and throws unless the store returns exactly the rows
    /// `Predicate.evaluate` accepts among every row of `T` (and `fetchCount` agrees); returns the sorted keys.
    ///
    /// ```swift
    /// let names = try check.expectSwiftAgrees(#Predicate<ConformanceRecord> { $0.name.contains("li") },
    ///                                         in: context, key: \.name, "contains li")
    /// ```
    @discardableResult
    package func expectSwiftAgrees<T: PersistentModel, K: Comparable>(
        _ predicate: Predicate<T>, in context: ModelContext,
        key: (T) -> K, _ check: String
    ) throws -> [K] {
        let all = try expectNoError("\(check): fetch every row") { try context.fetch(FetchDescriptor<T>()) }
        let truth = try expectNoError("\(check): Predicate.evaluate") {
            try all.filter { try predicate.evaluate($0) }.map(key).sorted()
        }
        let got = try expectNoError("\(check): fetch") {
            try context.fetch(FetchDescriptor(predicate: predicate)).map(key).sorted()
        }
        try expectEqual(got, truth, "\(check): store result vs Predicate.evaluate")
        let count = try expectNoError("\(check): fetchCount") {
            try context.fetchCount(FetchDescriptor(predicate: predicate))
        }
        try expectEqual(count, truth.count, "\(check): fetchCount vs Predicate.evaluate")
        return got
    }

    /// Throws unless `predicate` and its negation partition the rows of `T`: every row matches
    /// exactly one of them (catches SQL NULL handling that differs from Swift's `!`).
    ///
    /// ```swift
    /// try check.expectPartition(#Predicate<ConformanceRecord> { $0.note == "x" }, in: context, key: \.name, "note == x")
    /// ```
    package func expectPartition<T: PersistentModel, K: Comparable>(
        _ predicate: Predicate<T>, in context: ModelContext,
        key: (T) -> K, _ check: String
    ) throws {
        let all = try expectNoError("\(check): fetch every row") {
            try context.fetch(FetchDescriptor<T>()).map(key).sorted()
        }
        let yes = try expectNoError("\(check): fetch p") {
            try context.fetch(FetchDescriptor(predicate: predicate)).map(key)
        }
        let no = try expectNoError("\(check): fetch !p") {
            try context.fetch(FetchDescriptor(predicate: negation(of: predicate))).map(key)
        }
        try expectEqual((yes + no).sorted(), all, "\(check): fetch(p) + fetch(!p) vs every row")
    }

    /// Runs `body`, which must throw a `SwiftDataError` with one of `codes`; returns that error.
    ///
    /// ```swift
    /// try check.expectError(oneOf: [.unsupportedPredicate, .unsupportedKeyPath], "force unwrap") { try context.fetch(d) }
    /// ```
    @discardableResult
    package func expectError<T>(oneOf codes: [SwiftDataError], _ check: String, _ body: () throws -> T) throws
        -> SwiftDataError
    {
        let expected = codes.map { "SwiftDataError.\($0.code)" }.joined(separator: " or ")
        let result: T
        do {
            result = try body()
        } catch let error as SwiftDataError {
            if !codes.contains(error) {
                throw failure(check, expected: expected, actual: "SwiftDataError.\(error.code): \(error.message)")
            }
            return error
        } catch {
            throw failure(check, expected: expected, actual: "\(type(of: error)): \(error)")
        }
        throw failure(check, expected: expected, actual: "no error, returned \(result)")
    }
}

/// Records the `willSave` / `didSave` notifications one context posts (CTX-10, CTX-12).
final class SaveRecorder: @unchecked Sendable {
    /// One notification: its name and the identifier sets of its user info.
    struct Event {
        let name: Notification.Name
        let hasUserInfo: Bool
        let inserted: Set<PersistentIdentifier>
        let updated: Set<PersistentIdentifier>
        let deleted: Set<PersistentIdentifier>
    }

    private let lock = NSLock()
    private var recorded: [Event] = []
    private var tokens: [any NSObjectProtocol] = []

    /// Starts observing `context`.
    init(_ context: ModelContext) {
        for name in [ModelContext.willSave, ModelContext.didSave] {
            let token = NotificationCenter.default.addObserver(forName: name, object: context, queue: nil) {
                [weak self] note in
                let info = note.userInfo
                func ids(_ key: ModelContext.NotificationKey) -> Set<PersistentIdentifier> {
                    let value = info?[key.rawValue]
                    if let array = value as? [PersistentIdentifier] { return Set(array) }
                    return value as? Set<PersistentIdentifier> ?? []
                }
                let event = Event(
                    name: note.name, hasUserInfo: !(info?.isEmpty ?? true),
                    inserted: ids(.insertedIdentifiers), updated: ids(.updatedIdentifiers),
                    deleted: ids(.deletedIdentifiers))
                self?.append(event)
            }
            tokens.append(token)
        }
    }

    private func append(_ event: Event) { lock.withLock { recorded.append(event) } }

    /// Every notification so far, in order.
    var events: [Event] { lock.withLock { recorded } }

    deinit { for token in tokens { NotificationCenter.default.removeObserver(token) } }
}

/// `!p` built from `p`'s expression; only its SQL translation is used (its variable is `p`'s).
func negation<T>(of predicate: Predicate<T>) -> Predicate<T> {
    func negate<E: StandardPredicateExpression<Bool>>(_ e: E) -> any StandardPredicateExpression<Bool> {
        PredicateExpressions.Negation(e)
    }
    let expression = negate(predicate.expression)
    return Predicate<T> { _ in expression }
}

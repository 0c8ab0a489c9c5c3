import Foundation

/// An error from an operation whose SwiftData signature cannot throw: a property read that loads
/// its model's row, a batched fetch's element, an autosave, ``ModelContainer/deleteAllData()``.
///
/// ```swift
/// let token = NotificationCenter.default.addObserver(forName: ModelContext.operationDidFail,
///                                                    object: context, queue: nil) { note in
///     let failure = note.userInfo?[OperationFailure.userInfoKey] as? OperationFailure
///     print(failure?.operation ?? "", failure?.error.code ?? "")
/// }
/// ```
/// Such a failure is never turned into an answer silently. It is
/// - posted as ``ModelContext/operationDidFail`` (``ModelContainer/operationDidFail`` for the
///   container's own operations), the failure under ``userInfoKey``;
/// - written to standard error as one line, `OpenSwiftData: <operation> failed: <error>`;
/// - for a read (``Operation/faultFill``, ``Operation/batchLoad``, ``Operation/relationshipLoad``,
///   ``Operation/modelLoad``), kept by the context: its next fetch (`fetch`, `fetchCount`,
///   `fetchIdentifiers`, `enumerate`, a batched fetch) or ``ModelContext/save()`` throws it once,
///   because the property read returned a stand-in value (the declared default or the type's
///   zero value, an empty relationship) instead of the stored one.
///
/// A fault whose read failed stays a fault: the next read of the property tries the row again.
/// A row that no longer exists is not a failure: its model reads as deleted (CTX-09).
public struct OperationFailure: Error, CustomStringConvertible, @unchecked Sendable {
    /// Which operation failed: a stable, matchable value. New operations never break callers.
    public struct Operation: Hashable, Sendable, CustomStringConvertible {
        /// The operation's name.
        public let name: String
        init(_ name: String) { self.name = name }
        /// The operation's name.
        public var description: String { name }

        /// A property read that loads its model's row (a fault).
        public static let faultFill = Operation("faultFill")
        /// An element of a batched fetch (``FetchResultsCollection``) whose batch could not be read.
        public static let batchLoad = Operation("batchLoad")
        /// A relationship read that loads the related models.
        public static let relationshipLoad = Operation("relationshipLoad")
        /// ``ModelContext/model(for:)`` reading the model's row.
        public static let modelLoad = Operation("modelLoad")
        /// ``ModelContext/processPendingChanges()`` applying the delete rules of pending deletes
        /// (``ModelContext/save()`` applies them again and throws the error).
        public static let pendingChanges = Operation("pendingChanges")
        /// The autosave of ``ModelContext/processPendingChanges()``; the changes stay pending.
        public static let autosave = Operation("autosave")
        /// ``ModelContainer/deleteAllData()``; the store is unchanged (one transaction).
        public static let deleteAllData = Operation("deleteAllData")

        /// Whether a property read returned a stand-in value because of this failure.
        var isRead: Bool { self == .faultFill || self == .batchLoad || self == .relationshipLoad || self == .modelLoad }
    }

    /// The `userInfo` key of the failure in an `operationDidFail` notification.
    public static let userInfoKey: String = "OpenSwiftData.OperationFailure"

    /// The operation that failed.
    public let operation: Operation
    /// What went wrong.
    public let error: SwiftDataError

    /// Creates a failure.
    public init(_ operation: Operation, _ error: SwiftDataError) {
        self.operation = operation
        self.error = error
    }

    /// `<operation> failed: <error>`.
    public var description: String { "\(operation) failed: \(error)" }

    /// Writes the failure to standard error as one line.
    func log() {
        let line = description.split(whereSeparator: \.isNewline).joined(separator: " ")
        SQLLog.standardError("OpenSwiftData: " + line + "\n")
    }
}

extension ModelContext {
    /// Posted when an operation of this context that cannot throw fails; the ``OperationFailure``
    /// is under ``OperationFailure/userInfoKey``, and the notification's object is the context.
    public static let operationDidFail = Notification.Name("OpenSwiftData.ModelContext.operationDidFail")

    /// Read failures not yet thrown: the next fetch or save throws the first (``OperationFailure``).
    public var pendingReadFailures: [OperationFailure] { readFailures }

    /// Reports `error` of `operation`: logs it, posts ``operationDidFail`` and, for a read, keeps
    /// it for the next fetch or save to throw.
    func recordFailure(_ operation: OperationFailure.Operation, _ error: any Error, sql: String? = nil) {
        let failure = OperationFailure(operation, storeError(error, sql: sql))
        if operation.isRead { readFailures.append(failure) }
        failure.log()
        NotificationCenter.default.post(
            name: ModelContext.operationDidFail, object: self,
            userInfo: [OperationFailure.userInfoKey: failure])
    }

    /// Throws the first read failure not yet thrown (and forgets them all): a property read
    /// returned a stand-in value since the last fetch or save.
    func throwPendingReadFailure() throws {
        guard !readFailures.isEmpty else { return }
        let first = readFailures[0]
        readFailures.removeAll()
        var e = SwiftDataError(
            first.error.code,
            "an earlier read that cannot throw failed (\(first.operation)), and it returned a stand-in value (the default, or an empty relationship) instead of the stored one: \(first.error.message)",
            entityName: first.error.entityName, sql: first.error.sql, url: first.error.url,
            underlying: first.error)
        e.propertyName = first.error.propertyName
        throw e
    }
}

extension ModelContainer {
    /// Posted when an operation of this container that cannot throw fails
    /// (``deleteAllData()``); the ``OperationFailure`` is under ``OperationFailure/userInfoKey``,
    /// and the notification's object is the container.
    public static let operationDidFail = Notification.Name("OpenSwiftData.ModelContainer.operationDidFail")
}

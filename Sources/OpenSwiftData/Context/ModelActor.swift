import Dispatch
import Foundation

/// An executor that owns a ``ModelContext`` and runs the jobs that use it.
///
/// ```swift
/// let executor: any ModelExecutor = DefaultSerialModelExecutor(modelContext: ModelContext(container))
/// let context = executor.modelContext
/// ```
/// The context is not `Sendable`: only code running on the executor (the actor's methods) may
/// use it.
public protocol ModelExecutor: Executor {
    /// The context the executor's jobs read and write.
    var modelContext: ModelContext { get }
}

/// A ``ModelExecutor`` that runs one job at a time, so it can be an actor's executor.
///
/// ```swift
/// let executor: any SerialModelExecutor = DefaultSerialModelExecutor(modelContext: context)
/// ```
public protocol SerialModelExecutor: ModelExecutor, SerialExecutor {}

/// The executor ``ModelActor()`` gives an actor: a serial dispatch queue that runs the actor's
/// jobs one after another, with the context they share.
///
/// ```swift
/// let executor = DefaultSerialModelExecutor(modelContext: ModelContext(container))
/// ```
/// Jobs run in the order they were enqueued, never two at once, so the context (which is not
/// thread-safe) is only ever used by one thread at a time.
public final class DefaultSerialModelExecutor: SerialModelExecutor, @unchecked Sendable {
    /// The context the actor's methods use (`modelContext` inside a ``ModelActor``).
    public let modelContext: ModelContext
    /// Runs the jobs, one at a time.
    private let queue: DispatchQueue

    /// An executor whose jobs use `modelContext`.
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
        queue = DispatchQueue(label: "OpenSwiftData.DefaultSerialModelExecutor")
    }

    /// Schedules `job` after the jobs already enqueued.
    public func enqueue(_ job: consuming ExecutorJob) {
        let unownedJob = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { unownedJob.runSynchronously(on: executor) }
    }

    /// This executor, as the runtime refers to an actor's executor.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Traps unless called from one of this executor's jobs (`assumeIsolated`, `preconditionIsolated`).
    public func checkIsolated() {
        dispatchPrecondition(condition: .onQueue(queue))
    }
}

extension ModelExecutor {
    /// The executor an actor runs on when this executor is its executor: what the
    /// `unownedExecutor` that ``ModelActor()`` generates returns. Not for direct use.
    public var _unownedSerialExecutor: UnownedSerialExecutor {
        guard let serial = self as? any SerialExecutor else {
            preconditionFailure(
                "\(type(of: self)) is not a SerialExecutor, so it cannot run an actor; use DefaultSerialModelExecutor")
        }
        return serial.asUnownedSerialExecutor()
    }
}

/// An actor with its own ``ModelContext``, for work off the main actor (imports, batch updates).
///
/// ```swift
/// @ModelActor
/// actor Importer {
///     func importTrips(_ names: [String]) throws -> [PersistentIdentifier] {
///         let trips = names.map { Trip(name: $0) }
///         for trip in trips { modelContext.insert(trip) }
///         try modelContext.save()
///         return trips.map(\.persistentModelID)
///     }
/// }
/// let ids = try await Importer(modelContainer: container).importTrips(["Lisbon", "Porto"])
/// ```
/// Models never cross the actor's boundary; pass ``PersistentIdentifier``s (which are `Sendable`)
/// and look them up with ``ModelContext/model(for:)`` on the other side. Usually written with
/// the ``ModelActor()`` macro, which generates the conformance.
public protocol ModelActor: Actor {
    /// The container whose store the actor's context reads and writes.
    nonisolated var modelContainer: ModelContainer { get }
    /// The executor that runs the actor's jobs and owns its context.
    nonisolated var modelExecutor: any ModelExecutor { get }
}

extension ModelActor {
    /// The actor's context; use it only inside the actor (it is not `Sendable`).
    ///
    /// ```swift
    /// func count() throws -> Int { try modelContext.fetchCount(FetchDescriptor<Trip>()) }
    /// ```
    public var modelContext: ModelContext {
        modelExecutor.modelContext
    }

    /// The model with identifier `id` in the actor's context, or nil when there is no such row
    /// (or it is of another type).
    ///
    /// ```swift
    /// if let trip = self[tripID, as: Trip.self] { trip.name = "Lisboa" }
    /// ```
    /// A model registered in the context is returned without reading the store; otherwise the
    /// row is loaded. A row deleted from the store gives nil, where ``ModelContext/model(for:)``
    /// gives a deleted-looking stand-in.
    public subscript<T: PersistentModel>(id: PersistentIdentifier, as as: T.Type) -> T? {
        let context = modelContext
        if let registered: T = context.registeredModel(for: id) { return registered }
        guard let model = context.model(for: id) as? T, !model.persistentBackingData.vanished else { return nil }
        return model
    }
}

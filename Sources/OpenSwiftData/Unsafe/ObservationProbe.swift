import Observation

/// Tells a model's first property read whether an observation tracking scope
/// (`withObservationTracking`, `Observations`) may be recording reads on this thread, so that a
/// read outside every scope makes no observation registrar.
///
/// A model's registrar costs two allocations when it is made and about 830 instructions when
/// the model is freed, which is a quarter of a streamed row. It is needed only when something
/// observes the model, and an observer can register only through a read made inside a tracking
/// scope. Observation does not say whether a scope is active (its thread-local is private), so
/// the probe asks it indirectly: it records a read of its own registrar, which inside a scope
/// adds that registrar's shared state to the scope's list of reads and so retains the state
/// once more. The probe compares the state's strong reference count with its count when
/// nothing tracks.
///
/// - A scope on this thread always shows: the read retains the state before the count is read,
///   on the same thread.
/// - A scope on another thread, or a tracking installed and not yet fired or cancelled, also
///   raises the count: reads then make a registrar as if observed, which is correct and only
///   slower.
/// - The state is found by reflection (`Mirror`) through the registrar's private fields.
///   ``shared`` is `nil` when those fields are not found, or when the self-check in `init?()`
///   (a read inside a scope of its own must show, and the count must return once the scope's
///   tracking fires) fails; every read then makes a registrar.
///
/// Listed as item 8 of `ABIAssumptions.swift`.
@usableFromInline final class ObservationProbe: Observable, @unchecked Sendable {
    /// The process's probe; `nil` when the self-check failed (every read then makes a registrar).
    @usableFromInline static let shared = ObservationProbe()

    /// The probe's own registrar, read by ``mayBeTracking()``.
    private let registrar = ObservationRegistrar()
    /// The registrar's shared state object, not retained (the registrar keeps it alive).
    private let state: UnsafeMutableRawPointer
    /// The state's strong reference count when no scope holds it.
    private let idleCount: Int
    /// The key path the probe's reads record.
    private let marker = \ObservationProbe.mark

    /// What the probe's reads name; never read.
    private var mark: Int { 0 }

    /// Finds the registrar's shared state and checks that a read inside a tracking scope
    /// shows; `nil` when either fails.
    init?() {
        guard let state = ObservationProbe.sharedState(of: registrar) else { return nil }
        self.state = state
        idleCount = swiftRetainCount(state)
        guard selfCheck() else { return nil }
    }

    /// Whether a tracking scope may be recording reads on this thread: records a read of the
    /// probe's registrar and compares its state's reference count with the idle count.
    @usableFromInline func mayBeTracking() -> Bool {
        registrar.access(self, keyPath: marker)
        return swiftRetainCount(state) != idleCount
    }

    /// A read inside a scope of the probe's own must show; once a write fires and cancels that
    /// scope's tracking, the count must be the idle count again.
    private func selfCheck() -> Bool {
        var inside = false
        withObservationTracking {
            inside = mayBeTracking()
        } onChange: {
        }
        registrar.withMutation(of: self, keyPath: marker) {}
        return inside && swiftRetainCount(state) == idleCount
    }

    /// The object holding `registrar`'s shared state (`extent.context.state.buffer` in
    /// Observation's source), not retained; `nil` when reflection does not find it.
    private static func sharedState(of registrar: ObservationRegistrar) -> UnsafeMutableRawPointer? {
        var value: Any = registrar
        for label in ["extent", "context", "state", "buffer"] {
            guard let child = Mirror(reflecting: value).children.first(where: { $0.label == label }) else {
                return nil
            }
            value = child.value
        }
        guard Mirror(reflecting: value).displayStyle == .class else { return nil }
        return Unmanaged.passUnretained(value as AnyObject).toOpaque()
    }
}

/// The Swift runtime's count of strong references to the native object at `object`.
@_silgen_name("swift_retainCount")
private func swiftRetainCount(_ object: UnsafeMutableRawPointer) -> Int

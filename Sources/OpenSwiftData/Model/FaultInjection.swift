import Foundation

/// A fault the reliability probes inject into the library to show that each probe detects what
/// it guards against: with the fault active, the probe must fail.
///
/// Only this package's modules see it (`package`), and only a debug build reads it: in a
/// release build ``FaultInjection/isActive(_:)`` is a constant `false`, so no behaviour of a
/// user's build depends on it. A probe's worker process activates a fault through the
/// environment variable ``FaultInjection/environmentVariable`` (comma-separated raw values).
package enum InjectedFault: String, CaseIterable, Sendable {
    /// A save that spans several stores commits them without recording the save in each
    /// store's metadata, and opening a container repairs nothing: a crash between two commits
    /// leaves the stores out of step.
    case multiStoreUnprotected = "multi-store-unprotected"
    /// Opening a store removes no working copy of a killed migration
    /// (``MigrationLock/removeStaleScratch()`` does nothing): each kill mid-migration leaves its
    /// `.<store>.migrating-<UUID>` files beside the store for good.
    case migrationLeavesScratch = "migration-leaves-scratch"
    /// A save's history transaction is written in a transaction of its own after the save's
    /// commit instead of inside it: a crash between the two leaves a committed save without
    /// its history transaction.
    case historySeparateTransaction = "history-separate-transaction"
}

/// Reads which ``InjectedFault``s are active in this process (debug builds only).
package enum FaultInjection {
    /// `OPENSWIFTDATA_INJECT_FAULT`: the raw values of the active faults, comma-separated.
    package static let environmentVariable = "OPENSWIFTDATA_INJECT_FAULT"

    #if DEBUG
        /// The faults named in the environment when the process first asked.
        private static let active: Set<InjectedFault> = {
            let value = ProcessInfo.processInfo.environment[environmentVariable] ?? ""
            return Set(value.split(separator: ",").compactMap { InjectedFault(rawValue: String($0)) })
        }()
    #endif

    /// Whether `fault` is active: named in ``environmentVariable`` in a debug build; never in a
    /// release build.
    @inline(__always)
    package static func isActive(_ fault: InjectedFault) -> Bool {
        #if DEBUG
            return active.contains(fault)
        #else
            return false
        #endif
    }
}

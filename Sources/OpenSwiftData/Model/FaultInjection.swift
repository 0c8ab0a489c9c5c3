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
    /// A save commits its deletes and inserts in one transaction and its updates in a second,
    /// with a few milliseconds between them: a kill or a reader can land between the two
    /// (`crash-loop`, `readers-during-writes` must fail).
    case splitSave = "split-save"
    /// Saves under `mergePolicy = .error` write without checking the version they read, as
    /// the default policy does: a stale increment overwrites a newer one (`concurrent-writers`
    /// must lose updates and fail).
    case ignoreMergeConflict = "ignore-merge-conflict"
    /// The binary property-list decoder skips its bounds — nesting depth, objects and bytes
    /// decoded — and its check for a collection that contains itself: a cyclic `Z_PLIST`
    /// recurses until the stack overflows, a bomb expands without end (`hostile-metadata`
    /// must fail).
    case plistUnbounded = "plist-unbounded"
    /// A store's connection is used without the lock that serialises the contexts of one
    /// container, so two threads' statements and transactions interleave on it (`actors` must fail).
    case unserializedConnection = "unserialized-connection"
    /// A `.cascade` delete rule acts as `.nullify` on every store alike: the members of a
    /// deleted model stay, unlinked (the differential change scripts' reference model must
    /// notice; the stores still agree with each other).
    case cascadeActsAsNullify = "cascade-acts-as-nullify"
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

    #if DEBUG
        /// Store paths whose several-store saves stop as a dying process would, after that
        /// many of their stores committed (the later ones roll back, nothing runs after).
        nonisolated(unsafe) private static var stops: [String: Int] = [:]
        private static let stopsLock = NSLock()

        /// Debug builds: the next several-store saves whose first store is at `url` stop as a
        /// process killed right after `commits` of its stores committed would leave them: the
        /// later stores roll back and the save throws ``SimulatedCrash`` without repairing or
        /// tidying anything. `nil` ends it.
        package static func stopSeveralStoreSaves(at url: URL, afterCommits commits: Int?) {
            stopsLock.withLock { stops[url.standardizedFileURL.path] = commits }
        }

        /// How many commits a several-store save whose first store is at `url` makes before it stops.
        static func stop(at url: URL?) -> Int? {
            guard let url else { return nil }
            return stopsLock.withLock { stops.isEmpty ? nil : stops[url.standardizedFileURL.path] }
        }
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

/// What a several-store save stopped by ``FaultInjection/stopSeveralStoreSaves(at:afterCommits:)``
/// throws (debug builds, tests only).
package struct SimulatedCrash: Error, CustomStringConvertible {
    /// How many stores had committed.
    package let commits: Int
    /// Says so.
    package var description: String { "the save stopped as a dying process would, after \(commits) commit(s)" }
}

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

    // MARK: Semantic mutants (`harness conform --mutants`)

    /// Mutant: UNQ-10 a new model with a stored row's unique values inserts a second row instead of updating it.
    case upsertInsertsDuplicate = "upsert-inserts-duplicate"
    /// Mutant: UNQ-19 two new models whose unique group holds nil collide and collapse into one.
    case uniqueNilCollides = "unique-nil-collides"
    /// Mutant: UNQ-13 an upsert adopts the stored row but leaves its stored values (the inserted values do not win).
    case upsertKeepsStoredValues = "upsert-keeps-stored-values"
    /// Mutant: DEL-02 a .cascade rule nullifies the related models instead of deleting them.
    case cascadeNullifies = "cascade-nullifies"
    /// Mutant: DEL-08 a .deny rule is ignored: the save deletes the owner and nullifies the related models.
    case denyIgnored = "deny-ignored"
    /// Mutant: DEL-01 deleting an owner under .nullify leaves the related models pointing at it.
    case nullifyKeepsInverse = "nullify-keeps-inverse"
    /// Mutant: DEL-09 deleting an unsaved insert leaves it in the lists of the models it was linked to.
    case deletedInsertKeepsLinks = "deleted-insert-keeps-links"
    /// Mutant: REL-02 setting a relationship does not update its inverse in memory.
    case inverseNotUpdated = "inverse-not-updated"
    /// Mutant: REL-03 removing a model from a relationship leaves the inverse pointing back.
    case unlinkIgnored = "unlink-ignored"
    /// Mutant: PRD-07 a != b follows SQL's NULL (a row whose value is nil never matches != x).
    case notEqualSQLNull = "not-equal-sql-null"
    /// Mutant: PRD-07 a == b follows SQL's NULL (nil == nil is false).
    case equalSQLNull = "equal-sql-null"
    /// Mutant: PRD-02 String.contains compares case-insensitively.
    case containsIgnoresCase = "contains-ignores-case"
    /// Mutant: PRD-03 starts(with:) matches the text anywhere in the string.
    case startsWithAnywhere = "starts-with-anywhere"
    /// Mutant: PRD-15 <= is translated as <.
    case lessOrEqualStrict = "less-or-equal-strict"
    /// Mutant: PRD-15 > is translated as >=.
    case greaterThanInclusive = "greater-than-inclusive"
    /// Mutant: PRD-20 a comparison with a NULL-able operand (inf - inf) is SQL NULL, so !p drops the row as p does.
    case orderingSQLNull = "ordering-sql-null"
    /// Mutant: PRD-14 a half-open captured range a..<b includes b.
    case rangeUpperClosed = "range-upper-closed"
    /// Mutant: PRD-08 x ?? d ignores d: nil stays nil.
    case nilCoalesceIgnored = "nil-coalesce-ignored"
    /// Mutant: PRD-15 a chain of || loses its parentheses inside && (SQL's AND binds tighter).
    case disjunctionUnparenthesized = "disjunction-unparenthesized"
    /// Mutant: PRD-15 !!p is translated as !p.
    case doubleNegationKept = "double-negation-kept"
    /// Mutant: PRD-15 Decimal values compare as text in predicates.
    case decimalComparedAsText = "decimal-compared-as-text"
    /// Mutant: INH-04 $0 is Sub matches instances of Sub only, not of its subclasses.
    case typeCheckExactClass = "type-check-exact-class"
    /// Mutant: INH-01 a fetch of a base class leaves out the rows of its subclasses.
    case baseFetchOmitsSubclasses = "base-fetch-omits-subclasses"
    /// Mutant: FET-04 a sort descriptor's .reverse order is ignored in SQL.
    case sortIgnoresReverse = "sort-ignores-reverse"
    /// Mutant: FET-12 ties of a sort are broken by descending key, so equal keys come out in reverse insertion order.
    case sortTieBreakReversed = "sort-tie-break-reversed"
    /// Mutant: FET-06 stringSortStyle .natural sorts lexically in SQL.
    case naturalSortLexical = "natural-sort-lexical"
    /// Mutant: FET-01 fetchOffset skips one row too many.
    case offsetOffByOne = "offset-off-by-one"
    /// Mutant: FET-01 fetchLimit returns one row too many.
    case limitOffByOne = "limit-off-by-one"
    /// Mutant: FET-03 fetchCount counts stored rows only, ignoring pending inserts and deletes.
    case fetchCountIgnoresPending = "fetch-count-ignores-pending"
    /// Mutant: FET-07 a fetch with pending changes still returns models deleted in the context.
    case fetchShowsPendingDeletes = "fetch-shows-pending-deletes"
    /// Mutant: FET-07 a fetch with pending changes leaves out models inserted in the context.
    case fetchIgnoresPendingInserts = "fetch-ignores-pending-inserts"
    /// Mutant: PRD-24 a changed model matches a fetch's predicate by its stored values as well as its new ones.
    case fetchMatchesStoredValues = "fetch-matches-stored-values"
    /// Mutant: FET-12 a fetch merged with pending changes breaks sort ties by descending key.
    case mergedSortUnstable = "merged-sort-unstable"
    /// Mutant: CTX-03 rollback() keeps the pending inserts.
    case rollbackKeepsInserts = "rollback-keeps-inserts"
    /// Mutant: CTX-02 rollback() keeps changed values while forgetting that they changed.
    case rollbackKeepsChanges = "rollback-keeps-changes"
    /// Mutant: DEL-15 rollback() forgets pending deletes without restoring the models.
    case rollbackKeepsDeletes = "rollback-keeps-deletes"
    /// Mutant: CTX-11 an update leaves the row's version (Z_OPT) as it was, so other contexts miss the change.
    case versionNotBumped = "version-not-bumped"
    /// Mutant: HIS-02 a save's inserted rows are left out of its history transaction.
    case historyDropsInserts = "history-drops-inserts"
    /// Mutant: HIS-01 the last update or delete of a save is left out of its history transaction.
    case historyDropsLastChange = "history-drops-last-change"
    /// Mutant: HIS-05 a history transaction records no author.
    case historyLosesAuthor = "history-loses-author"
    /// Mutant: HIS-03 a delete's history change records no tombstone values.
    case historyLosesTombstone = "history-loses-tombstone"
    /// Mutant: MIG-03 a migration ignores originalName, so a renamed attribute's values are lost.
    case migrationIgnoresOriginalName = "migration-ignores-original-name"
    /// Mutant: MIG-05 a migration copies nil instead of the values of optional attributes.
    case migrationDropsOptionalValues = "migration-drops-optional-values"
    /// Mutant: MIG-02 a migration fills a new non-optional attribute without its default value.
    case migrationIgnoresDefault = "migration-ignores-default"
    /// Mutant: PRD-05 strings are stored and compared without NFC normalisation.
    case stringNotNormalized = "string-not-normalized"
    /// Mutant: ATT-10 a Date is stored truncated to whole seconds.
    case dateTruncated = "date-truncated"
    /// Mutant: DEL-02 a statement over a batch of keys or values leaves out the batch's last
    /// (a deleted or cascaded row stays, a unique value is not looked up).
    case keyBatchDropsLast = "key-batch-drops-last"
}

extension InjectedFault {
    /// The semantic mutants: one-line behaviour changes a real implementation could get wrong,
    /// which `harness conform --mutants` runs the conformance checks against, one process each.
    package static let mutants: [InjectedFault] = [
        .upsertInsertsDuplicate,
        .uniqueNilCollides,
        .upsertKeepsStoredValues,
        .cascadeNullifies,
        .denyIgnored,
        .nullifyKeepsInverse,
        .deletedInsertKeepsLinks,
        .inverseNotUpdated,
        .unlinkIgnored,
        .notEqualSQLNull,
        .equalSQLNull,
        .containsIgnoresCase,
        .startsWithAnywhere,
        .lessOrEqualStrict,
        .greaterThanInclusive,
        .orderingSQLNull,
        .rangeUpperClosed,
        .nilCoalesceIgnored,
        .disjunctionUnparenthesized,
        .doubleNegationKept,
        .decimalComparedAsText,
        .typeCheckExactClass,
        .baseFetchOmitsSubclasses,
        .sortIgnoresReverse,
        .sortTieBreakReversed,
        .naturalSortLexical,
        .offsetOffByOne,
        .limitOffByOne,
        .fetchCountIgnoresPending,
        .fetchShowsPendingDeletes,
        .fetchIgnoresPendingInserts,
        .fetchMatchesStoredValues,
        .mergedSortUnstable,
        .rollbackKeepsInserts,
        .rollbackKeepsChanges,
        .rollbackKeepsDeletes,
        .versionNotBumped,
        .historyDropsInserts,
        .historyDropsLastChange,
        .historyLosesAuthor,
        .historyLosesTombstone,
        .migrationIgnoresOriginalName,
        .migrationDropsOptionalValues,
        .migrationIgnoresDefault,
        .stringNotNormalized,
        .dateTruncated,
        .keyBatchDropsLast,
    ]

    /// A mutant's behaviour-reference ID and what it breaks, in one line; `nil` for the faults
    /// the reliability probes inject.
    package var summary: String? {
        switch self {
        case .upsertInsertsDuplicate:
            return "UNQ-10 a new model with a stored row's unique values inserts a second row instead of updating it"
        case .uniqueNilCollides:
            return "UNQ-19 two new models whose unique group holds nil collide and collapse into one"
        case .upsertKeepsStoredValues:
            return
                "UNQ-13 an upsert adopts the stored row but leaves its stored values (the inserted values do not win)"
        case .cascadeNullifies: return "DEL-02 a .cascade rule nullifies the related models instead of deleting them"
        case .denyIgnored:
            return "DEL-08 a .deny rule is ignored: the save deletes the owner and nullifies the related models"
        case .nullifyKeepsInverse:
            return "DEL-01 deleting an owner under .nullify leaves the related models pointing at it"
        case .deletedInsertKeepsLinks:
            return "DEL-09 deleting an unsaved insert leaves it in the lists of the models it was linked to"
        case .inverseNotUpdated: return "REL-02 setting a relationship does not update its inverse in memory"
        case .unlinkIgnored: return "REL-03 removing a model from a relationship leaves the inverse pointing back"
        case .notEqualSQLNull: return "PRD-07 a != b follows SQL's NULL (a row whose value is nil never matches != x)"
        case .equalSQLNull: return "PRD-07 a == b follows SQL's NULL (nil == nil is false)"
        case .containsIgnoresCase: return "PRD-02 String.contains compares case-insensitively"
        case .startsWithAnywhere: return "PRD-03 starts(with:) matches the text anywhere in the string"
        case .lessOrEqualStrict: return "PRD-15 <= is translated as <"
        case .greaterThanInclusive: return "PRD-15 > is translated as >="
        case .orderingSQLNull:
            return "PRD-20 a comparison with a NULL-able operand (inf - inf) is SQL NULL, so !p drops the row as p does"
        case .rangeUpperClosed: return "PRD-14 a half-open captured range a..<b includes b"
        case .nilCoalesceIgnored: return "PRD-08 x ?? d ignores d: nil stays nil"
        case .disjunctionUnparenthesized:
            return "PRD-15 a chain of || loses its parentheses inside && (SQL's AND binds tighter)"
        case .doubleNegationKept: return "PRD-15 !!p is translated as !p"
        case .decimalComparedAsText: return "PRD-15 Decimal values compare as text in predicates"
        case .typeCheckExactClass: return "INH-04 $0 is Sub matches instances of Sub only, not of its subclasses"
        case .baseFetchOmitsSubclasses: return "INH-01 a fetch of a base class leaves out the rows of its subclasses"
        case .sortIgnoresReverse: return "FET-04 a sort descriptor's .reverse order is ignored in SQL"
        case .sortTieBreakReversed:
            return
                "FET-12 ties of a sort are broken by descending key, so equal keys come out in reverse insertion order"
        case .naturalSortLexical: return "FET-06 stringSortStyle .natural sorts lexically in SQL"
        case .offsetOffByOne: return "FET-01 fetchOffset skips one row too many"
        case .limitOffByOne: return "FET-01 fetchLimit returns one row too many"
        case .fetchCountIgnoresPending:
            return "FET-03 fetchCount counts stored rows only, ignoring pending inserts and deletes"
        case .fetchShowsPendingDeletes:
            return "FET-07 a fetch with pending changes still returns models deleted in the context"
        case .fetchIgnoresPendingInserts:
            return "FET-07 a fetch with pending changes leaves out models inserted in the context"
        case .fetchMatchesStoredValues:
            return "PRD-24 a changed model matches a fetch's predicate by its stored values as well as its new ones"
        case .mergedSortUnstable: return "FET-12 a fetch merged with pending changes breaks sort ties by descending key"
        case .rollbackKeepsInserts: return "CTX-03 rollback() keeps the pending inserts"
        case .rollbackKeepsChanges: return "CTX-02 rollback() keeps changed values while forgetting that they changed"
        case .rollbackKeepsDeletes: return "DEL-15 rollback() forgets pending deletes without restoring the models"
        case .versionNotBumped:
            return "CTX-11 an update leaves the row's version (Z_OPT) as it was, so other contexts miss the change"
        case .historyDropsInserts: return "HIS-02 a save's inserted rows are left out of its history transaction"
        case .historyDropsLastChange:
            return "HIS-01 the last update or delete of a save is left out of its history transaction"
        case .historyLosesAuthor: return "HIS-05 a history transaction records no author"
        case .historyLosesTombstone: return "HIS-03 a delete's history change records no tombstone values"
        case .migrationIgnoresOriginalName:
            return "MIG-03 a migration ignores originalName, so a renamed attribute's values are lost"
        case .migrationDropsOptionalValues:
            return "MIG-05 a migration copies nil instead of the values of optional attributes"
        case .migrationIgnoresDefault:
            return "MIG-02 a migration fills a new non-optional attribute without its default value"
        case .stringNotNormalized: return "PRD-05 strings are stored and compared without NFC normalisation"
        case .dateTruncated: return "ATT-10 a Date is stored truncated to whole seconds"
        case .keyBatchDropsLast:
            return "DEL-02 a statement over a batch of keys or values leaves out the batch's last "
                + "(a deleted or cascaded row stays, a unique value is not looked up)"
        default: return nil
        }
    }
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

    /// Whether faults can be injected at all: true in a debug build, false in a release build
    /// (which compiles no check of them).
    package static var isAvailable: Bool {
        #if DEBUG
            return true
        #else
            return false
        #endif
    }

    /// Whether `fault` is active: named in ``environmentVariable`` in a debug build; never in a
    /// release build.
    @inline(__always)
    package static func isActive(_ fault: InjectedFault) -> Bool {
        #if DEBUG
            return !active.isEmpty && active.contains(fault)
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

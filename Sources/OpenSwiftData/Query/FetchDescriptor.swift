import Foundation

/// What to fetch: a predicate, sort order, paging, and loading hints.
///
/// ```swift
/// var d = FetchDescriptor<Trip>(predicate: #Predicate { $0.price < 500 },
///                               sortBy: [SortDescriptor(\.start, order: .reverse)])
/// d.fetchLimit = 20
/// ```
public struct FetchDescriptor<T: PersistentModel> {
    /// Which models match; `nil` matches all.
    public var predicate: Predicate<T>? {
        didSet { predicateExpression = predicate?.expression ?? NoPredicateExpression() }
    }
    /// ``predicate``'s expression, kept beside it: a fetch reads it on every call, and reading
    /// it through the optional `Predicate` copies the whole predicate first (a copy of a
    /// `Predicate` looks up several generic metadata, about 800 instructions). Not optional
    /// (``NoPredicateExpression`` stands for no predicate), so a fetch opens it where it is:
    /// unwrapping an optional existential copies the expression, and destroys the copy after.
    @usableFromInline var predicateExpression: any StandardPredicateExpression<Bool>
    /// Sort order, first descriptor first; the primary key breaks remaining ties.
    public var sortBy: [SortDescriptor<T>]
    /// At most this many models; `nil` (or 0) means no limit.
    public var fetchLimit: Int?
    /// Skip this many models first; `nil` means 0.
    public var fetchOffset: Int?
    /// Merge unsaved inserts, changes and deletes into the result (before sort and paging).
    public var includePendingChanges: Bool = true
    /// Attributes to load now; others load on first access. Empty means all.
    public var propertiesToFetch: [PartialKeyPath<T>] = []
    /// Relationships to load with the models (a performance hint; results are the same).
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] = []
    /// How `String` sort keys are ordered; `nil` (the default) uses the container's
    /// ``ModelConfiguration/stringSortStyle`` (``StringSortStyle/natural`` unless configured).
    /// A sort descriptor made with `comparator: .lexical` sorts lexically whatever this says.
    /// An OpenSwiftData addition (see ``StringSortStyle``).
    ///
    /// ```swift
    /// var d = FetchDescriptor<User>(sortBy: [SortDescriptor(\.name)])
    /// d.stringSortStyle = .lexical   // "User 10" before "User 2", and an index can serve it
    /// ```
    public var stringSortStyle: StringSortStyle? = nil

    /// Creates a descriptor.
    @inlinable
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        predicateExpression = predicate?.expression ?? NoPredicateExpression()
        self.predicate = predicate
        self.sortBy = sortBy
    }

    /// Creates a descriptor with a predicate (`FetchDescriptor(predicate: #Predicate { … })`):
    /// the same as the initialiser taking an optional one, which this one spares a copy of
    /// the predicate (see ``predicate``). Both are inlined into the caller, specialised for `T`.
    @inlinable
    public init(predicate: Predicate<T>, sortBy: [SortDescriptor<T>] = []) {
        predicateExpression = predicate.expression
        self.predicate = predicate
        self.sortBy = sortBy
    }
}

/// The expression of a ``FetchDescriptor`` without a predicate: what its
/// ``FetchDescriptor/predicateExpression`` holds then. A fetch collects no leaves from it and
/// translates no SQL for it; it is never evaluated.
@usableFromInline
struct NoPredicateExpression: StandardPredicateExpression {
    @usableFromInline init() {}
    /// Every model matches (a descriptor without a predicate fetches all).
    @usableFromInline func evaluate(_ bindings: PredicateBindings) -> Bool { true }
}

/// A ``FetchDescriptor`` without its model type and predicate: what finds a cached query and
/// runs it, beside the descriptor's ``FetchDescriptor/predicateExpression`` (passed apart,
/// borrowed, so the expression is not copied).
///
/// Built by ``ModelContext/fetch(_:)``'s inlined entry in the caller's code, specialised for
/// the model type, so the library's fetch path looks up no generic metadata (`Predicate<T>`,
/// `[SortDescriptor<T>]`, `[T]`) on each call.
@usableFromInline
struct FetchRequest {
    /// The model type fetched.
    @usableFromInline let entity: any PersistentModel.Type
    /// The sort descriptors, `nil` when there are none.
    @usableFromInline let sorts: AnyHashable?
    /// Whether ``sorts`` is not `nil` (see ``QueryCache/Key/isSorted``).
    @usableFromInline let isSorted: Bool
    /// Where the sort descriptors' array keeps its elements, `nil` when there are none (see
    /// ``QueryCache/Key/sortsStorage``).
    @usableFromInline let sortsStorage: UnsafeRawPointer?
    /// ``FetchDescriptor/stringSortStyle``.
    @usableFromInline let stringSortStyle: StringSortStyle?
    /// ``FetchDescriptor/fetchLimit``.
    @usableFromInline let fetchLimit: Int?
    /// ``FetchDescriptor/fetchOffset``.
    @usableFromInline let fetchOffset: Int?
    /// ``FetchDescriptor/includePendingChanges``.
    @usableFromInline let includePendingChanges: Bool

    /// The parts of `descriptor` that a fetch of a cached shape reads.
    @inlinable
    init<T>(_ descriptor: borrowing FetchDescriptor<T>) {
        entity = T.self
        isSorted = !descriptor.sortBy.isEmpty
        sorts = isSorted ? AnyHashable(descriptor.sortBy) : nil
        sortsStorage = isSorted ? descriptor.sortBy.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } : nil
        stringSortStyle = descriptor.stringSortStyle
        fetchLimit = descriptor.fetchLimit
        fetchOffset = descriptor.fetchOffset
        includePendingChanges = descriptor.includePendingChanges
    }
}

/// A descriptor's `fetchLimit` and `fetchOffset` as every fetch applies them: a limit of 0 or
/// less is no limit, a negative offset is 0.
struct FetchPaging {
    /// The number of rows at most, `nil` for all.
    let limit: Int?
    /// The number of rows skipped.
    let offset: Int

    /// The paging of a descriptor's `fetchLimit` and `fetchOffset`.
    init(limit: Int?, offset: Int?) {
        self.limit = limit.flatMap { $0 > 0 ? $0 + (FaultInjection.isActive(.limitOffByOne) ? 1 : 0) : nil }
        self.offset = max(offset ?? 0, 0) + (FaultInjection.isActive(.offsetOffByOne) && (offset ?? 0) > 0 ? 1 : 0)
    }

    /// `total` matching rows as a paged count: less the offset (not below 0), at most the limit.
    func apply(toCount total: Int) -> Int {
        let left = max(total - offset, 0)
        return limit.map { min(left, $0) } ?? left
    }

    /// The positions of the page in `count` rows fetched whole: the offset's rows skipped,
    /// then at most the limit's. (`offset + limit` would overflow for `fetchLimit = .max`, so
    /// the limit is compared with what is left instead.)
    func range(in count: Int) -> Range<Int> {
        let start = min(offset, count)
        return start..<(limit.map { start + min($0, count - start) } ?? count)
    }

    /// Whether the rows are paged in SQL (`LIMIT ? OFFSET ?`).
    var isPaged: Bool { limit != nil || offset > 0 }

    /// The values bound to `LIMIT ? OFFSET ?` (`-1`: no limit).
    var arguments: [SQLValue] { [.integer(Int64(limit ?? -1)), .integer(Int64(offset))] }
}

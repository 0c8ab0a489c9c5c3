import OpenSwiftData

/// SQLite statement counters accrued during one run: VM steps, full-scan steps, sorts, auto-index rows.
///
/// These are deterministic, so they gate CI alongside malloc counts. Read a container's with
/// ``init(statementsOf:reset:)``, or add several runs' counters together:
/// ```swift
/// let counters = SQLiteCounters(statementsOf: container) + SQLiteCounters(statementsOf: other)
/// ```
public struct SQLiteCounters: Sendable, Equatable, Codable {
    /// Virtual-machine steps (`SQLITE_STMTSTATUS_VM_STEP`).
    public var vmSteps: Int
    /// Steps of full table scans (`SQLITE_STMTSTATUS_FULLSCAN_STEP`); 0 when every access used an index.
    public var fullScanSteps: Int
    /// Sort operations (`SQLITE_STMTSTATUS_SORT`); 0 when an index delivered the order.
    public var sorts: Int
    /// Rows inserted into automatic (transient) indexes (`SQLITE_STMTSTATUS_AUTOINDEX`).
    public var autoIndexRows: Int

    /// Creates counters from explicit values.
    public init(vmSteps: Int = 0, fullScanSteps: Int = 0, sorts: Int = 0, autoIndexRows: Int = 0) {
        self.vmSteps = vmSteps
        self.fullScanSteps = fullScanSteps
        self.sorts = sorts
        self.autoIndexRows = autoIndexRows
    }

    /// The counters summed over the prepared statements of `container`'s store since the last
    /// reset; `reset` zeroes them afterwards, so the next read covers the next run only.
    public init(statementsOf container: ModelContainer, reset: Bool = true) {
        self.init(container.statementCounters(reset: reset))
    }

    /// Converts the counters of OpenSwiftData's SQLite layer.
    package init(_ counters: SQLiteStatement.Counters) {
        self.init(
            vmSteps: counters.vmSteps, fullScanSteps: counters.fullScanSteps,
            sorts: counters.sorts, autoIndexRows: counters.autoIndexRows)
    }

    /// All zeros.
    public static let zero = SQLiteCounters()

    /// The field-wise sum, for a run that used several statements.
    public static func + (lhs: SQLiteCounters, rhs: SQLiteCounters) -> SQLiteCounters {
        SQLiteCounters(
            vmSteps: lhs.vmSteps + rhs.vmSteps, fullScanSteps: lhs.fullScanSteps + rhs.fullScanSteps,
            sorts: lhs.sorts + rhs.sorts, autoIndexRows: lhs.autoIndexRows + rhs.autoIndexRows)
    }

    /// The field-wise difference, `after - before`, for providers that report running totals.
    public static func - (lhs: SQLiteCounters, rhs: SQLiteCounters) -> SQLiteCounters {
        SQLiteCounters(
            vmSteps: lhs.vmSteps - rhs.vmSteps, fullScanSteps: lhs.fullScanSteps - rhs.fullScanSteps,
            sorts: lhs.sorts - rhs.sorts, autoIndexRows: lhs.autoIndexRows - rhs.autoIndexRows)
    }

    /// The counters as metric entries: `vmSteps`, `fullScanSteps`, `sorts`, `autoIndexRows` (per run).
    public var metrics: [String: Double] {
        [
            "vmSteps": Double(vmSteps), "fullScanSteps": Double(fullScanSteps),
            "sorts": Double(sorts), "autoIndexRows": Double(autoIndexRows),
        ]
    }
}

/// One measurable workload: a name, its scales, an untimed set-up per run and a timed body.
///
/// The context type is erased, so benchmarks over different contexts live in one array. A
/// benchmark can carry a **raw baseline** (the same work through raw SQLite); the runner then runs
/// ours and raw interleaved (ours, raw, ours, raw, …) and reports `ratioToRaw`.
///
/// ```swift
/// let insert = Benchmark("batch insert", group: "insert", store: "disk", scales: [1_000, 10_000],
///                        operationsPerRun: { $0 },
///                        setUp: { rows in try InsertFixture(rows: rows) },
///                        body: { fixture in try fixture.insertAll() },
///                        counters: { fixture in SQLiteCounters(statementsOf: fixture.container) })
///     .withRawBaseline(setUp: { rows in try RawFixture(rows: rows) },
///                      body: { raw in try raw.insertAll() })
/// ```
public struct Benchmark {
    /// The workload's name, e.g. `"batch insert"`.
    public var name: String
    /// The group the report tabulates it under, e.g. `"insert"` or `"fetch"`.
    public var group: String
    /// The store it runs on, e.g. `"disk"` or `"memory"`; empty when not applicable.
    public var store: String
    /// The index strategy, e.g. `"none"`, `"declared"`; empty when not applicable.
    public var strategy: String
    /// The scales (usually row counts) to run at, each giving one result.
    public var scales: [Int]
    /// The operations one run performs at a scale (for throughput and per-operation metrics).
    public var operationsPerRun: ((Int) -> Int)?
    /// The largest ratio to the raw baseline this benchmark is meant to reach at every scale
    /// (e.g. `2.0`: at most twice raw SQLite's median wall time); `nil` for none. Each result
    /// carries it, and a baseline comparison fails a result above it.
    public var ratioTarget: Double?

    let prepareOurs: (Int) throws -> PreparedRun
    var prepareRaw: ((Int) throws -> PreparedRun)?

    /// Whether a raw baseline is attached (``withRawBaseline(setUp:body:counters:)``).
    public var hasRawBaseline: Bool { prepareRaw != nil }

    /// Defines a benchmark.
    ///
    /// - Parameters:
    ///   - name: The benchmark's name, e.g. `"fetch by indexed key"`.
    ///   - group: The operation group it belongs to, e.g. `"fetch"`, `"insert"`.
    ///   - store: The store it runs on, e.g. `"disk"` or `"memory"`; empty when not applicable.
    ///   - strategy: The index strategy, e.g. `"none"`, `"declared"`; empty when not applicable.
    ///   - scales: The scales (usually row counts) to run at, each giving one result.
    ///   - operationsPerRun: The operations one run performs at a scale (for throughput and
    ///     per-operation metrics); `nil` when per-operation figures do not apply.
    ///   - setUp: Untimed; called before **every** run (warm-up and measured) with the scale.
    ///   - body: Timed; receives the context `setUp` made. The context is released after the
    ///     clock stops, so tear-down in `deinit` is untimed.
    ///   - counters: Untimed; called after each run, returns the SQLite counters accrued in it.
    ///   - queryPlan: Untimed; called once per scale after the last run, e.g. the
    ///     `EXPLAIN QUERY PLAN` rows of the workload's query.
    public init<Context>(
        _ name: String,
        group: String,
        store: String = "",
        strategy: String = "",
        scales: [Int],
        operationsPerRun: ((Int) -> Int)? = nil,
        setUp: @escaping (Int) throws -> Context,
        body: @escaping (Context) throws -> Void,
        counters: ((Context) throws -> SQLiteCounters)? = nil,
        queryPlan: ((Context) throws -> [String])? = nil
    ) {
        self.name = name
        self.group = group
        self.store = store
        self.strategy = strategy
        self.scales = scales
        self.operationsPerRun = operationsPerRun
        self.prepareOurs = PreparedRun.eraser(setUp: setUp, body: body, counters: counters, queryPlan: queryPlan)
    }

    /// Returns a copy that also runs `body` through raw SQLite, interleaved with ours.
    ///
    /// `setUp` is untimed and runs before every raw run; `counters`, if given, become the
    /// `raw`-prefixed metrics (`rawVmSteps`, …).
    public func withRawBaseline<RawContext>(
        setUp: @escaping (Int) throws -> RawContext,
        body: @escaping (RawContext) throws -> Void,
        counters: ((RawContext) throws -> SQLiteCounters)? = nil
    ) -> Benchmark {
        var copy = self
        copy.prepareRaw = PreparedRun.eraser(setUp: setUp, body: body, counters: counters, queryPlan: nil)
        return copy
    }

    /// Returns a copy whose results must stay at or below `target` × raw SQLite's time
    /// (``ratioTarget``); `nil` removes the target.
    public func withRatioTarget(_ target: Double?) -> Benchmark {
        var copy = self
        copy.ratioTarget = target
        return copy
    }
}

/// A set-up context with its timed body and untimed probes bound in, ready to run once.
struct PreparedRun {
    let body: () throws -> Void
    let counters: (() throws -> SQLiteCounters)?
    let queryPlan: (() throws -> [String])?

    static func eraser<Context>(
        setUp: @escaping (Int) throws -> Context,
        body: @escaping (Context) throws -> Void,
        counters: ((Context) throws -> SQLiteCounters)?,
        queryPlan: ((Context) throws -> [String])?
    ) -> (Int) throws -> PreparedRun {
        { scale in
            let context = try setUp(scale)
            return PreparedRun(
                body: { try body(context) },
                counters: counters.map { c in { try c(context) } },
                queryPlan: queryPlan.map { q in { try q(context) } })
        }
    }
}

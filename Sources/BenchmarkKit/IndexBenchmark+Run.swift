import Foundation
import OpenSwiftData

extension IndexBenchmark {
    /// Runs every query and write workload under every strategy and returns the report.
    ///
    /// ```swift
    /// let report = try bench.run(configuration: RunnerConfiguration(mode: .iterations(15)), showsProgress: true)
    /// ```
    ///
    /// Per strategy: a copy of the data in a new store, the strategy's indexes applied, then
    /// each query operation (ours and its raw twin, interleaved) and each write workload, with
    /// `configuration`'s warm-up and iterations. The copies are removed afterwards.
    /// With `showsProgress`, one updating line on standard error counts the runs and estimates
    /// the time left (``ProgressLine``); `progress` receives every event as well.
    /// - Throws: ``BenchmarkError`` (a debug build without `allowDebug`, a failing body),
    ///   or the `SwiftDataError` of a store, query or strategy that cannot be set up.
    public func run(
        configuration: RunnerConfiguration = RunnerConfiguration(), showsProgress: Bool = false,
        progress: ((BenchmarkProgress) -> Void)? = nil
    ) throws -> IndexBenchmarkReport {
        let perStrategy = queries.reduce(0) { $0 + $1.operations.count } + writes.count
        let line = showsProgress ? ProgressLine(label: name, total: perStrategy * strategies.count) : nil
        defer { line?.finish() }
        let runner = BenchmarkRunner(
            configuration: configuration,
            progress: { event in
                line?.update(event)
                progress?(event)
            })
        try runner.validate()
        let fm = FileManager.default
        try fm.createDirectory(at: directory, withIntermediateDirectories: true)
        // try?: best-effort cleanup of scratch files; a leftover is harmless and must not mask the real result.
        defer { try? fm.removeItem(at: directory) }
        let source = try makeSource()
        var results: [BenchmarkResult] = []
        var summaries: [IndexBenchmarkReport.StrategySummary] = []
        var statements: [IndexBenchmarkReport.Statement] = []
        for strategy in strategies {
            let label = strategy.description
            let container = try makeContainer(label: label, source: source)
            let (indexStrategy, policy) = try resolve(strategy, container)
            let indexes = try container.applyIndexStrategy(indexStrategy, uniqueIndexes: policy)
            var note: String?
            if strategy == .none {
                note =
                    policy == .drop
                    ? "unique indexes dropped too: no write workload runs, so no save looks a unique value up"
                    : "unique indexes kept: every save of the write workloads looks unique values up through them (an insert to upsert, an update to reject a duplicate), as every app's store does"
            }
            summaries.append(
                .init(
                    strategy: label, indexStrategy: indexStrategy.description, uniqueIndexes: policy,
                    note: note, indexes: indexes))
            var benchmarks: [Benchmark] = []
            for q in queries {
                for operation in q.operations {
                    let explanation = try q.explain(ModelContext(container), operation)
                    if !statements.contains(where: { $0.query == q.name && $0.operation == operation }) {
                        statements.append(.init(query: q.name, operation: operation, sql: explanation.sql))
                    }
                    benchmarks.append(queryBenchmark(q, operation, explanation, container, label))
                }
            }
            for w in writes { benchmarks.append(writeBenchmark(w, container, label)) }
            results += try runner.run(benchmarks)
        }
        let report = BenchmarkReport.current(results: results)
        return IndexBenchmarkReport(
            name: name, store: store.rawValue, rows: data.rows, benchmark: report,
            strategies: summaries, statements: statements,
            queryNames: queries.map(\.name), writeNames: writes.map(\.name))
    }

    /// One query operation: ours through a fresh context, the raw twin running the explained
    /// statement with its arguments through the store's connection (every column read).
    func queryBenchmark(
        _ q: Query, _ operation: QueryExplanation.Operation, _ e: QueryExplanation,
        _ container: ModelContainer, _ label: String
    ) -> Benchmark {
        let arguments = e.arguments.map(\.sqlValue)
        return Benchmark(
            "\(q.name) · \(operation.rawValue)", group: name, store: store.rawValue, strategy: label,
            scales: [data.rows], operationsPerRun: { _ in 1 },
            setUp: { _ in
                _ = container.statementCounters(reset: true)
                return ModelContext(container)
            },
            body: { context in try q.run(context, operation) },
            counters: { _ in SQLiteCounters(statementsOf: container) },
            queryPlan: { context in try q.explain(context, operation).plan }
        )
        .withRawBaseline(
            setUp: { _ in _ = container.statementCounters(reset: true) },
            body: { _ in
                try container.withStoreConnection { db in
                    let stmt = try db.cachedStatement(e.sql)
                    defer { stmt.reset() }
                    try stmt.bind(arguments)
                    let columns = stmt.columnCount
                    while try stmt.step() {
                        for c in 0..<columns { _ = stmt.value(at: c) }
                    }
                }
            },
            counters: { _ in SQLiteCounters(statementsOf: container) })
    }

    /// One write workload: `operations` calls of the body on a fresh context, then one save.
    func writeBenchmark(_ w: Writes, _ container: ModelContainer, _ label: String) -> Benchmark {
        let next = WriteIndex()
        return Benchmark(
            "\(w.name) · \(w.kind.rawValue)", group: name, store: store.rawValue, strategy: label,
            scales: [data.rows], operationsPerRun: { _ in w.operations },
            setUp: { _ -> (ModelContext, Int) in
                _ = container.statementCounters(reset: true)
                return (ModelContext(container), next.take(w.operations))
            },
            body: { context, base in
                for i in 0..<w.operations { try w.body(context, base + i) }
                try context.save()
            },
            counters: { _ in SQLiteCounters(statementsOf: container) })
    }

    /// The strategy's index sets and unique-index policy on `container`.
    func resolve(_ strategy: Strategy, _ container: ModelContainer) throws -> (
        IndexStrategy, ModelContainer.UniqueIndexPolicy
    ) {
        switch strategy {
        case .none: return (.none, dropsUniqueIndexesUnderNone ? .drop : .keep)
        case .declared: return (.declared, .keep)
        case .suggested: return (.custom(try suggestedIndexes(container)), .keep)
        case .custom(_, let sets): return (.custom(sets), .keep)
        }
    }

    /// The data as a store file: the given file, or the generated rows written to one.
    func makeSource() throws -> URL {
        switch data {
        case .storeFile(let url, _):
            return url
        case .generated(let rows, let batchSize, let make):
            let container = try ModelContainer(
                for: schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
            let context = ModelContext(container)
            context.autosaveEnabled = false
            for i in 0..<rows {
                try make(context, i)
                if (i + 1) % max(batchSize, 1) == 0 { try context.save() }
            }
            try context.save()
            let url = directory.appendingPathComponent("source.store")
            try container.backup(to: url)
            return url
        }
    }

    /// A new store of ``store``'s kind holding a copy of `source`.
    func makeContainer(label: String, source: URL) throws -> ModelContainer {
        let configuration: ModelConfiguration
        switch store {
        case .memory: configuration = ModelConfiguration(isStoredInMemoryOnly: true)
        case .disk:
            let safe = String(label.map { $0.isLetter || $0.isNumber ? $0 : "-" })
            configuration = ModelConfiguration(
                url: directory.appendingPathComponent("\(safe)-\(UUID().uuidString).store"))
        }
        let container = try ModelContainer(for: schema, configurations: configuration)
        try container.restore(from: source)
        return container
    }
}

/// Hands out fresh index ranges to write runs, so inserted unique values never repeat.
final class WriteIndex {
    private var next = 1_000_000_000
    func take(_ count: Int) -> Int {
        defer { next += count }
        return next
    }
}

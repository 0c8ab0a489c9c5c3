import Foundation
import OpenSwiftData

/// What ``IndexBenchmark/run(configuration:showsProgress:progress:)`` measured: every result, the indexes of
/// each strategy with their sizes, the statements, and a recommendation per query.
///
/// ```swift
/// let report = try bench.run()
/// for r in report.recommendations { print(r.query, r.operation, r.strategy, r.speedupOverNone ?? 1) }
/// try report.write(to: URL(fileURLWithPath: "Reports/orders"))   // JSON, Markdown, SVG charts
/// ```
public struct IndexBenchmarkReport: Codable, Sendable {
    /// One strategy's indexes as measured.
    public struct StrategySummary: Codable, Sendable {
        /// The strategy's label (`none`, `declared`, `suggested`, a custom name).
        public var strategy: String
        /// The index sets applied, as `IndexStrategy.description` spells them.
        public var indexStrategy: String
        /// Whether unique indexes were kept or dropped.
        public var uniqueIndexes: ModelContainer.UniqueIndexPolicy
        /// Why unique indexes were kept or dropped (under `none`).
        public var note: String?
        /// Every index of the store after the strategy was applied, with its size.
        public var indexes: [StoreIndex]
    }

    /// The SQL one query operation runs (the same under every strategy).
    public struct Statement: Codable, Sendable {
        /// The query's name.
        public var query: String
        /// The operation.
        public var operation: QueryExplanation.Operation
        /// The statement, with `?` placeholders.
        public var sql: String
    }

    /// The cheapest strategy for one query operation, and what it costs writes.
    public struct Recommendation: Codable, Sendable {
        /// The query's name.
        public var query: String
        /// The operation.
        public var operation: QueryExplanation.Operation
        /// The strategy with the lowest median time; among those within 10 % of it, the one
        /// with the fewest index bytes.
        public var strategy: String
        /// Its median time per run, in nanoseconds.
        public var medianNanoseconds: Double
        /// `none`'s median ÷ this strategy's; `nil` without a `none` run.
        public var speedupOverNone: Double?
        /// Our median ÷ the raw twin's, under this strategy.
        public var ratioToRaw: Double?
        /// The write workloads' time per operation under this strategy ÷ under `none`; `nil`
        /// without write workloads or a `none` run.
        public var writeCostOverNone: Double?
        /// The plan of the statement under this strategy.
        public var plan: [String]
    }

    /// The benchmark's name.
    public var name: String
    /// The store kind (`disk`, `memory`).
    public var store: String
    /// The data's scale (rows).
    public var rows: Int
    /// Every measurement, in the format the other reports use.
    public var benchmark: BenchmarkReport
    /// The strategies, in run order.
    public var strategies: [StrategySummary]
    /// The statements, one per query operation.
    public var statements: [Statement]
    /// The query names, in the order they were added.
    public var queryNames: [String]
    /// The write workload names, in the order they were added.
    public var writeNames: [String]

    /// One per query operation: the strategy with the lowest median.
    public var recommendations: [Recommendation] = []

    /// Creates a report and derives its ``recommendations``.
    public init(
        name: String, store: String, rows: Int, benchmark: BenchmarkReport, strategies: [StrategySummary],
        statements: [Statement], queryNames: [String], writeNames: [String]
    ) {
        self.name = name
        self.store = store
        self.rows = rows
        self.benchmark = benchmark
        self.strategies = strategies
        self.statements = statements
        self.queryNames = queryNames
        self.writeNames = writeNames
        recommendations = recommend()
    }

    /// How ``recommendations`` picks a strategy, as the reports state it.
    static let recommendationRule =
        "The cheapest strategy is the one with the lowest median; strategies within 10 % of it count as tied "
        + "(closer than the noise of a shared machine), and a tie goes to the strategy with the fewest index "
        + "bytes, which costs writes least."

    /// The cheapest strategy per query operation (ties within 10 % go to the smaller indexes),
    /// with its write cost.
    func recommend() -> [Recommendation] {
        let results = benchmark.results
        let writeCost = writeNanosecondsPerOperation
        var indexBytes: [String: Int] = [:]
        for summary in strategies {
            indexBytes[summary.strategy] = summary.indexes.filter { $0.role != .required }.reduce(0) {
                $0 + ($1.sizeBytes ?? 1)
            }
        }
        return statements.compactMap { s in
            let name = "\(s.query) · \(s.operation.rawValue)"
            let runs = results.filter { $0.name == name }
            guard let fastest = runs.min(by: { median($0) < median($1) }) else { return nil }
            // Within 10 % of the fastest is a tie on a shared machine: the tie goes to the
            // strategy with the smaller index footprint (fewer bytes of index to keep up to date).
            let ties = runs.filter { median($0) <= median(fastest) * 1.1 }
            let best = ties.min { indexBytes[$0.strategy] ?? 0 < indexBytes[$1.strategy] ?? 0 } ?? fastest
            let none = runs.first { $0.strategy == "none" }
            let speedup = none.map { median($0) / max(median(best), 1) }
            let writes = writeCost[best.strategy].flatMap { w in writeCost["none"].map { w / max($0, 1) } }
            return Recommendation(
                query: s.query, operation: s.operation, strategy: best.strategy,
                medianNanoseconds: median(best), speedupOverNone: speedup,
                ratioToRaw: best.ratioToRaw, writeCostOverNone: writes, plan: best.queryPlan)
        }
    }

    /// Per strategy, the write workloads' median time per operation summed over workloads.
    public var writeNanosecondsPerOperation: [String: Double] {
        var cost: [String: Double] = [:]
        for r in benchmark.results where writeNames.contains(where: { r.name.hasPrefix($0 + " · ") }) {
            if let v = r.metrics[MetricName.wallNanosecondsMedianPerOperation] { cost[r.strategy, default: 0] += v }
        }
        return cost
    }

    private func median(_ r: BenchmarkResult) -> Double { r.metrics[MetricName.wallNanosecondsMedian] ?? .infinity }

    /// The report as Markdown: the recommendation first, then write costs, indexes and sizes per
    /// strategy, the statements, and every measurement with its plan.
    public func markdown() -> String {
        var lines = [
            "# Index benchmark: \(name)", "",
            "\(rows) rows, \(store) store; strategies: \(strategies.map(\.strategy).joined(separator: ", ")). "
                + "Query times are per call (one fetch, count or identifier fetch); write times are per "
                + "operation (one model written, the save included pro rata); ratio to raw compares with the "
                + "same SQL run through SQLite directly. The measurements table at the end shows medians per "
                + "run: one call for a query, `operations` writes and one save for a write workload.", "",
            "## Recommendation", "",
            IndexBenchmarkReport.recommendationRule, "",
            "| query | operation | cheapest strategy | median | speed-up over none | ratio to raw | write cost over none | plan |",
            "|---|---|---|---:|---:|---:|---:|---|",
        ]
        for r in recommendations {
            lines.append(
                "| "
                    + [
                        cell(r.query), r.operation.rawValue, cell(r.strategy),
                        MarkdownReportWriter.duration(r.medianNanoseconds),
                        r.speedupOverNone.map { String(format: "%.1f×", $0) } ?? "—",
                        r.ratioToRaw.map { String(format: "%.2f×", $0) } ?? "—",
                        r.writeCostOverNone.map { String(format: "%.2f×", $0) } ?? "—",
                        cell(r.plan.joined(separator: "; ")),
                    ].joined(separator: " | ") + " |")
        }
        let writeCost = writeNanosecondsPerOperation
        lines += [
            "", "## Indexes and write cost per strategy", "",
            "| strategy | secondary indexes | unique indexes | index bytes | write time per operation |",
            "|---|---|---|---:|---:|",
        ]
        for s in strategies {
            let secondary = s.indexes.filter { $0.role == .secondary }.map(\.description)
            let bytes = s.indexes.compactMap(\.sizeBytes).reduce(0, +)
            lines.append(
                "| "
                    + [
                        cell(s.strategy), secondary.isEmpty ? "—" : cell(secondary.joined(separator: ", ")),
                        s.uniqueIndexes.rawValue + (s.note.map { " (\(cell($0)))" } ?? ""),
                        s.indexes.contains { $0.sizeBytes != nil } ? "\(bytes)" : "—",
                        MarkdownReportWriter.duration(writeCost[s.strategy]),
                    ].joined(separator: " | ") + " |")
        }
        for s in strategies {
            lines += ["", "### Indexes under \(cell(s.strategy))", ""]
            if s.indexes.isEmpty {
                lines.append("No indexes: every lookup scans its table.")
                continue
            }
            lines += ["| index | role | bytes |", "|---|---|---:|"]
            for i in s.indexes {
                lines.append(
                    "| \(cell(i.entity))(\(cell(i.properties.joined(separator: ", ")))) | \(i.role.rawValue) | \(i.sizeBytes.map(String.init) ?? "—") |"
                )
            }
        }
        lines += ["", "## Statements", ""]
        for s in statements { lines.append("- \(cell(s.query)) · \(s.operation.rawValue): `\(s.sql)`") }
        lines += ["", "## Measurements", ""]
        lines += MarkdownReportWriter.table(benchmark.results)
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes `index-benchmark.md`, `index-benchmark.json`, `index.html` (``html()``) and the
    /// usual benchmark files (JSON, `latest.md`, SVG charts) into `directory`; returns the URLs written.
    @discardableResult
    public func write(to directory: URL) throws -> [URL] {
        var written = try ReportDirectoryWriter.write(benchmark, to: directory)
        let markdownURL = directory.appendingPathComponent("index-benchmark.md")
        try markdown().write(to: markdownURL, atomically: true, encoding: .utf8)
        let jsonURL = directory.appendingPathComponent("index-benchmark.json")
        try encoded().write(to: jsonURL, options: .atomic)
        let htmlURL = directory.appendingPathComponent("index.html")
        try html().write(to: htmlURL, atomically: true, encoding: .utf8)
        written += [markdownURL, jsonURL, htmlURL]
        return written
    }

    /// The report as JSON, in ``JSONReportCoder``'s conventions (sorted keys, ISO 8601 dates).
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try encoder.encode(self)
    }

    /// Decodes a report written by ``encoded()`` (`index-benchmark.json`).
    public static func decode(_ data: Data) throws -> IndexBenchmarkReport {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try decoder.decode(IndexBenchmarkReport.self, from: data)
    }

    private func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }
}

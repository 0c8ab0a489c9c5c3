import Foundation

/// Running a slice of the conformance run, and merging the reports of N slices into one.
extension ConformanceReport {
    /// Why shard reports cannot be merged: they come from different runs, or a shard is missing
    /// or repeated.
    public struct MergeError: Error, CustomStringConvertible, Sendable {
        /// What is wrong, naming the shards.
        public let description: String
    }

    /// Runs `suites` on `stores` and `differential` differential cases (numbers `0..<differential`),
    /// keeping only what `shard` selects: the Swift equivalent of `harness conform --shard I/N`.
    ///
    /// Conformance cases are numbered suite by suite, case by case (a case runs on every store
    /// of its shard); change scripts and predicate cases are dealt separately (`Shard.deal(_:by:)`).
    /// Same arguments, same slice, on every machine.
    /// ```swift
    /// let part = ConformanceReport.run(seed: 1, differential: 10_000, shard: Shard(2, of: 4), jobs: 2)
    /// try part.json().write(to: URL(fileURLWithPath: "Reports/shard-2/conformance.json"))
    /// ```
    public static func run(
        suites: [ConformanceSuite] = ConformanceSuite.all, stores: [StoreKind] = StoreKind.allCases,
        seed: UInt64 = 1, differential: Int = 0, differentialCases: [Int]? = nil,
        shard: Shard = .all, jobs: Int = 1, shrink: Bool = true,
        progress: (@Sendable (String) -> Void)? = nil
    ) -> ConformanceReport {
        var report = ConformanceReport(seed: seed, stores: stores)
        if shard != .all { report.shards = [shard] }
        var ordinal = 0
        for suite in suites {
            // A case runs on every store in the same shard, so a shard's table counts whole cases.
            let picked = suite.cases.filter { _ in
                defer { ordinal += 1 }
                return shard.contains(ordinal)
            }
            guard !picked.isEmpty else { continue }
            for store in stores {
                progress?(
                    "\(suite.name) on \(store): \(picked.count) cases" + (shard == .all ? "" : " (shard \(shard))"))
                report.results += ConformanceSuite(name: suite.name, title: suite.title, cases: picked).run(
                    on: store, seed: seed)
            }
        }
        let numbers = differentialCases ?? Array(0..<max(0, differential))
        if !numbers.isEmpty {
            let mine = shard.deal(numbers) { DifferentialHarness.scriptKind(ofCase: $0) != nil }
            progress?(
                "differential: \(mine.count) cases on \(stores.map(\.rawValue).joined(separator: " and ")), \(jobs) job(s)"
            )
            var d = DifferentialHarness.run(seed: seed, stores: stores, cases: mine, jobs: jobs, shrink: shrink) {
                done in
                if done % 1_000 == 0 { progress?("differential: \(done)/\(mine.count) cases") }
            }
            d.requested = max(d.requested, mine.count)
            report.differential = d
        }
        return report
    }

    /// One report from the reports of shards 1/N … N/N of one run: the results of every shard
    /// (in run order), the differential figures added up, mismatches in case order.
    ///
    /// ```swift
    /// let merged = try ConformanceReport.merged(shardReports)
    /// print(merged.table())
    /// ```
    /// - Throws: ``MergeError`` when the seeds or stores differ, a shard is missing or repeated,
    ///   or the reports disagree on N.
    public static func merged(_ reports: [ConformanceReport]) throws -> ConformanceReport {
        guard let first = reports.first else { throw MergeError(description: "no reports to merge") }
        for r in reports where r.seed != first.seed || r.stores != first.stores {
            throw MergeError(
                description:
                    "the reports come from different runs: seed \(first.seed) on \(first.stores.map(\.rawValue)) and seed \(r.seed) on \(r.stores.map(\.rawValue))"
            )
        }
        let shards = reports.flatMap { $0.shards.isEmpty ? [Shard.all] : $0.shards }
        let n = first.shards.first?.count ?? 1
        if let odd = shards.first(where: { $0.count != n }) {
            throw MergeError(description: "shard \(odd) does not belong to a run split into \(n)")
        }
        let indices = shards.map(\.index).sorted()
        if indices != Array(1...n) {
            let missing = (1...n).filter { !indices.contains($0) }.map { "\($0)/\(n)" }
            let repeated = Set(indices.filter { i in indices.filter { $0 == i }.count > 1 }).sorted().map {
                "\($0)/\(n)"
            }
            throw MergeError(
                description: "the shards do not cover the run exactly once"
                    + (missing.isEmpty ? "" : "; missing \(missing.joined(separator: ", "))")
                    + (repeated.isEmpty ? "" : "; repeated \(repeated.joined(separator: ", "))"))
        }
        var merged = ConformanceReport(seed: first.seed, stores: first.stores)
        merged.shards = n == 1 ? [] : (1...n).map { Shard($0, of: n) }
        // The project's suites in their order, then any other (a team's `schema`, `queries`) as
        // the shards list them.
        var suiteOrder = ConformanceSuite.all.map(\.name)
        for name in reports.flatMap({ $0.results.map(\.suite) }) where !suiteOrder.contains(name) {
            suiteOrder.append(name)
        }
        let caseOrder: [String: Int] = Dictionary(
            ConformanceSuite.all.flatMap { s in
                s.cases.enumerated().map { ("\(s.name)|\($1.id)|\($1.title)", $0) }
            }, uniquingKeysWith: { a, _ in a })
        func rank(_ r: ConformanceResult) -> (Int, String, Int, Int) {
            (
                suiteOrder.firstIndex(of: r.suite) ?? suiteOrder.count, r.suite,
                first.stores.firstIndex(of: r.store) ?? 0, caseOrder["\(r.suite)|\(r.caseID)|\(r.title)"] ?? 0
            )
        }
        merged.results = reports.flatMap(\.results).sorted { rank($0) < rank($1) }
        let parts = reports.compactMap(\.differential)
        if !parts.isEmpty {
            var d = DifferentialReport(seed: first.seed)
            for p in parts { d.merge(p) }
            d.mismatches.sort { ($0.caseID.count, $0.caseID) < ($1.caseID.count, $1.caseID) }
            merged.differential = d
        }
        return merged
    }

    /// The report as JSON (sorted keys): what `harness conform --json` writes and
    /// `harness report merge` reads.
    ///
    /// ```swift
    /// try report.json().write(to: url)
    /// ```
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return try encoder.encode(self)
    }

    /// A report read back from ``json()``.
    ///
    /// ```swift
    /// let report = try ConformanceReport(json: Data(contentsOf: url))
    /// ```
    public init(json: Data) throws {
        self = try JSONDecoder().decode(ConformanceReport.self, from: json)
    }
}

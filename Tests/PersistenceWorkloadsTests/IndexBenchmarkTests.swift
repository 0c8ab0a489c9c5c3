import Foundation
import OpenSwiftData
import PersistenceWorkloads
import Testing

@testable import BenchmarkKit

@Model final class IbAccount {
    #Index<IbAccount>([\.region])
    @Attribute(.unique) var email: String
    var region: String
    var balance: Int
    var opened: Int
    init(email: String, region: String, balance: Int, opened: Int) {
        self.email = email
        self.region = region
        self.balance = balance
        self.opened = opened
    }
    static func row(_ i: Int) -> IbAccount {
        IbAccount(
            email: "a\(i)@x.test", region: ["north", "south", "east", "west"][i % 4], balance: i % 500, opened: i)
    }
}

/// `IndexBenchmark` on a small model: strategies, the unique-index policy, suggested indexes,
/// the raw twin, plans, sizes and the recommendation. Speed is not asserted (shared machines).
@Suite("IndexBenchmark")
struct IndexBenchmarkTests {
    static let quick = RunnerConfiguration(warmUpIterations: 0, mode: .iterations(2), allowDebug: true)

    static func bench(rows: Int = 400) -> IndexBenchmark {
        var bench = IndexBenchmark(
            "accounts", schema: Schema([IbAccount.self]),
            data: .generated(rows: rows) { context, i in context.insert(IbAccount.row(i)) })
        let email = "a7@x.test"
        bench.query("by email", FetchDescriptor<IbAccount>(predicate: #Predicate { $0.email == email }))
        bench.query(
            "rich in the south",
            FetchDescriptor<IbAccount>(predicate: #Predicate { $0.region == "south" && $0.balance > 450 }))
        var newest = FetchDescriptor<IbAccount>(sortBy: [SortDescriptor(\.opened, order: .reverse)])
        newest.fetchLimit = 5
        bench.query("newest", newest, as: [.fetch])
        bench.writes("open accounts", operations: 10) { context, i in context.insert(IbAccount.row(i)) }
        return bench
    }

    @Test("suggested indexes: equality columns first, then the range; else the sort")
    func suggestions() throws {
        let container = try ModelContainer(
            for: IbAccount.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let lo = 10
        #expect(
            try container.suggestedIndexes(
                for: FetchDescriptor<IbAccount>(
                    predicate: #Predicate { $0.balance > lo && $0.region == "x" })) == [
                    "IbAccount": [["region", "balance"]]
                ])
        #expect(
            try container.suggestedIndexes(for: FetchDescriptor<IbAccount>(sortBy: [SortDescriptor(\.opened)]))
                == ["IbAccount": [["opened"]]])
        #expect(
            try container.suggestedIndexes(
                for: FetchDescriptor<IbAccount>(
                    predicate: #Predicate { $0.region == "x" || $0.balance > lo })) == [:])
        let merged = try Self.bench().suggestedIndexes(container)
        // The email query is served by the unique index the store keeps: no second index on it.
        #expect(Set(merged["IbAccount"] ?? []) == [["region", "balance"], ["opened"]])
    }

    @Test("a unique attribute is measured with and without its index; updates keep it")
    func uniqueIndexPolicy() throws {
        let container = try ModelContainer(
            for: IbAccount.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let dropped = try container.applyIndexStrategy(.none, uniqueIndexes: .drop)
        #expect(!dropped.contains { $0.role == .unique || $0.role == .secondary }, "\(dropped)")
        // Without the index a save still upserts by the unique value.
        let context = ModelContext(container)
        context.insert(IbAccount.row(1))
        try context.save()
        context.insert(IbAccount(email: IbAccount.row(1).email, region: "x", balance: 0, opened: 0))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<IbAccount>()) == 1)
        let restored = try container.applyIndexStrategy(.declared, uniqueIndexes: .keep)
        #expect(restored.filter { $0.role == .unique }.map(\.properties) == [["email"]], "\(restored)")
        #expect(restored.filter { $0.role == .secondary }.map(\.properties) == [["region"]], "\(restored)")

        // Any write workload keeps them under `none`: inserts upsert through them, updates need
        // them to reject duplicates.
        var updating = Self.bench()
        updating.writes("move", operations: 1, kind: .updates) { _, _ in }
        #expect(!updating.dropsUniqueIndexesUnderNone)
        #expect(!Self.bench().dropsUniqueIndexesUnderNone)
        var readOnly = Self.bench()
        readOnly.writes = []
        #expect(readOnly.dropsUniqueIndexesUnderNone)
    }

    @Test(
        "a run reports every query operation under every strategy, with plans, raw ratios, sizes and a recommendation",
        arguments: [IndexBenchmark.Store.disk, .memory])
    func run(_ store: IndexBenchmark.Store) throws {
        var bench = Self.bench()
        bench.store = store
        let report = try bench.run(configuration: Self.quick)
        let results = report.benchmark.results
        #expect(results.count == 3 * (3 + 3 + 1 + 1), "\(results.map(\.key))")
        for r in results where !r.name.hasSuffix("· inserts") {
            #expect(r.ratioToRaw != nil && !r.queryPlan.isEmpty && r.metrics[MetricName.vmSteps] != nil, "\(r.key)")
        }
        func plan(_ name: String, _ strategy: String) -> [String] {
            results.first { $0.name == name && $0.strategy == strategy }?.queryPlan ?? []
        }
        let usesIndex = { (plan: [String]) in
            plan.contains { $0.contains("USING INDEX") || $0.contains("USING COVERING INDEX") }
        }
        // With a write workload `none` keeps the unique index, so the email is searched through
        // it under every strategy.
        #expect(usesIndex(plan("by email · fetch", "none")))
        #expect(usesIndex(plan("by email · fetch", "declared")))
        #expect(usesIndex(plan("rich in the south · count", "suggested")))
        #expect(usesIndex(plan("newest · fetch", "suggested")))
        #expect(!usesIndex(plan("newest · fetch", "declared")))
        let none = try #require(report.strategies.first { $0.strategy == "none" })
        #expect(none.uniqueIndexes == .keep && none.note != nil)
        #expect(!none.indexes.contains { $0.role == .secondary })
        #expect(none.indexes.filter { $0.role == .unique }.map(\.properties) == [["email"]])
        let suggested = try #require(report.strategies.first { $0.strategy == "suggested" })
        #expect(suggested.indexes.filter { $0.role == .secondary }.count == 2)
        #expect(usesIndex(plan("by email · fetch", "suggested")))
        #expect(report.writeNanosecondsPerOperation.keys.sorted() == ["declared", "none", "suggested"])
        #expect(report.recommendations.count == 7)
        #expect(report.statements.allSatisfy { !$0.sql.isEmpty })

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ib-report-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = try report.write(to: dir).map(\.lastPathComponent)
        #expect(
            files.contains("index-benchmark.md") && files.contains("index-benchmark.json")
                && files.contains { $0.hasSuffix(".svg") })
        let markdown = try String(contentsOf: dir.appendingPathComponent("index-benchmark.md"), encoding: .utf8)
        #expect(markdown.contains("## Recommendation") && markdown.contains("write cost over none"))
        let decoded = try IndexBenchmarkReport.decode(
            Data(contentsOf: dir.appendingPathComponent("index-benchmark.json")))
        #expect(decoded.recommendations.count == 7)
    }

    @Test("the progress line counts runs and estimates the time left")
    func progressLine() {
        final class Sink: @unchecked Sendable { var text = "" }
        let sink = Sink()
        let line = ProgressLine(label: "t", total: 2) { sink.text += $0 }
        let event = { (phase: BenchmarkProgress.Phase) in
            BenchmarkProgress(
                benchmark: "q · fetch", group: "g", store: "disk", strategy: "none", scale: 1,
                phase: phase, iteration: 1, plannedIterations: 3)
        }
        line.update(event(.measuring))
        line.update(event(.finished))
        line.finish()
        #expect(sink.text.hasPrefix("\rt 1/2 · disk, none · q · fetch 1/3"))
        #expect(sink.text.contains("left"))
        #expect(sink.text.hasSuffix("\n"))
        #expect(ProgressLine.clock(75) == "1:15")

        // Into a log (no terminal): one plain line per finished run, no redraws.
        let log = Sink()
        let plain = ProgressLine(label: "t", total: 2, redraws: false) { log.text += $0 }
        plain.update(event(.measuring))
        plain.update(event(.finished))
        plain.finish()
        #expect(!log.text.contains("\r"))
        #expect(log.text.hasPrefix("t 1/2 · disk, none · q · fetch") && log.text.hasSuffix("left\n"))
        #expect(log.text.filter { $0 == "\n" }.count == 1)
    }

    /// The Chromium binary, if installed (Debian package `chromium`).
    static let chromium: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs headless Chromium with `arguments`; returns standard output (killed after 90 s).
    static func runChromium(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(chromium))
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(90)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning { process.terminate() }
        return String(decoding: data, as: UTF8.self)
    }

    @Test(
        "the HTML report is self-contained and renders in headless Chromium",
        .enabled(if: IndexBenchmarkTests.chromium != nil, "Chromium is not installed (apt-get install chromium)"))
    func htmlRendersInChromium() throws {
        let report = try Self.bench(rows: 200).run(configuration: Self.quick)
        let html = report.html()
        // Nothing to fetch: no scripts, stylesheets, images or fonts from anywhere.
        #expect(
            !html.contains("<script") && !html.contains("<link") && !html.contains("<img") && !html.contains("url("))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ib-html-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try report.write(to: dir)
        let page = dir.appendingPathComponent("index.html")
        let dom = try Self.runChromium(["--dump-dom", page.absoluteString])
        #expect(dom.contains("id=\"recommendation\""), "\(dom.prefix(300))")
        #expect(dom.components(separatedBy: "<svg").count - 1 == 3, "one chart per query")
        let shot = dir.appendingPathComponent("index.png")
        _ = try Self.runChromium(["--screenshot=\(shot.path)", "--window-size=1280,1600", page.absoluteString])
        let png = try Data(contentsOf: shot)
        #expect(png.count > 10_000 && png.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
    }

    @Test("the fixture query shapes cover each indexed attribute and run under every strategy")
    func fixtureQueryShapes() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ib-shapes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("accounts.store")
        let schema = Schema([IbAccount.self])
        do {
            let container = try ModelContainer(for: schema, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            for i in 0..<300 { context.insert(IbAccount.row(i)) }
            try context.save()
        }
        let source = try ModelContainer(for: schema, configurations: ModelConfiguration(url: url, allowsSave: false))
        var bench = IndexBenchmark("shapes", schema: schema, data: .storeFile(url, rows: 300))
        let names = try FixtureQueryShapes.add(IbAccount.self, to: &bench, sampling: source)
        #expect(
            names == [
                "IbAccount.email equality", "IbAccount.email 1 % range", "IbAccount.email sorted, limit 20",
                "IbAccount.email sorted naturally, limit 20", "IbAccount.region equality",
                "IbAccount.region sorted, limit 20", "IbAccount.region sorted naturally, limit 20",
            ], "\(names)")
        let report = try bench.run(configuration: Self.quick)
        #expect(report.recommendations.count == 3 + 3 + 2 + 2 + 3 + 2 + 2)
        let plan = report.benchmark.results.first {
            $0.name == "IbAccount.email 1 % range · count" && $0.strategy == "declared"
        }?.queryPlan
        #expect(plan?.contains { $0.contains("COVERING INDEX") } == true, "\(plan ?? [])")
    }
}

import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

@Suite("Shards")
struct ShardTests {
    /// Results by suite, case, title and store, with pass/fail: what must not depend on sharding.
    static func outcomes(_ r: ConformanceReport) -> [String] {
        r.results.map { "\($0.suite)|\($0.caseID)|\($0.title)|\($0.store)|\($0.passed)" }
    }

    /// The `tests=` and `failures=` totals of a JUnit document's root element.
    static func junitTotals(_ xml: String) -> String {
        String(xml.split(separator: "\n")[1].prefix { $0 != ">" })
    }

    @Test("I/N parses, selects every N-th item, and N shards cover a run exactly once")
    func selection() {
        #expect(Shard("2/4") == Shard(2, of: 4))
        #expect(
            Shard("0/4") == nil && Shard("5/4") == nil && Shard("1/0") == nil && Shard("a/b") == nil
                && Shard("1/2/3") == nil)
        #expect(Shard(2, of: 4).select(Array(0..<10)) == [1, 5, 9])
        let union = (1...4).flatMap { Shard($0, of: 4).select(Array(0..<23)) }.sorted()
        #expect(union == Array(0..<23))
    }

    @Test("kinds are dealt evenly: change scripts on odd case numbers split between 2 shards")
    func dealing() {
        let cases = Array(0..<1_000)
        func scripts(_ shard: Shard) -> [Int] {
            shard.deal(cases) { DifferentialHarness.scriptKind(ofCase: $0) != nil }
                .filter { DifferentialHarness.scriptKind(ofCase: $0) != nil }
        }
        for n in [2, 3, 4, 7] {
            let shards = (1...n).map { Shard($0, of: n) }
            let perShard = shards.map { scripts($0).count }
            #expect(perShard.max()! - perShard.min()! <= 1, "\(n) shards: \(perShard) change scripts")
            let all = shards.flatMap { $0.deal(cases) { DifferentialHarness.scriptKind(ofCase: $0) != nil } }
            #expect(all.sorted() == cases, "\(n) shards cover every case once")
            let sizes = shards.map { $0.deal(cases) { DifferentialHarness.scriptKind(ofCase: $0) != nil }.count }
            #expect(sizes.max()! - sizes.min()! <= 3, "\(n) shards: \(sizes) cases")
        }
        // What plain round-robin would do: every change script in the second shard.
        #expect(Shard(1, of: 2).select(cases).allSatisfy { DifferentialHarness.scriptKind(ofCase: $0) == nil })
    }

    @Test("a conformance case runs on every store in one shard, so shard tables count whole cases")
    func wholeCases() {
        let suites = [ConformanceSuite.uniqueness]
        for i in 1...2 {
            let part = ConformanceReport.run(suites: suites, seed: 3, shard: Shard(i, of: 2))
            let memory = Set(part.results.filter { $0.store == .memory }.map(\.caseID))
            let disk = Set(part.results.filter { $0.store == .disk }.map(\.caseID))
            #expect(memory == disk)
            #expect(!memory.isEmpty)
        }
    }

    @Test("the merged reports of 4 shards equal one unsharded run")
    func mergedEqualsUnsharded() throws {
        let suites = [ConformanceSuite.uniqueness]
        let whole = ConformanceReport.run(suites: suites, seed: 3, differential: 60)
        let parts = try (1...4).map { i in
            try ConformanceReport(
                json: ConformanceReport.run(suites: suites, seed: 3, differential: 60, shard: Shard(i, of: 4)).json())
        }
        #expect(parts.allSatisfy { $0.results.count < whole.results.count })
        let merged = try ConformanceReport.merged(parts.reversed())
        #expect(merged.shards.map(\.description) == ["1/4", "2/4", "3/4", "4/4"])
        #expect(Self.outcomes(merged) == Self.outcomes(whole))
        #expect(merged.differential?.cases == whole.differential?.cases)
        #expect(merged.differential?.checks == whole.differential?.checks)
        #expect(merged.differential?.scripts == whole.differential?.scripts)
        #expect(merged.differential?.mismatches.count == whole.differential?.mismatches.count)
        // all but the timing line
        #expect(merged.table().split(separator: "\n").dropLast() == whole.table().split(separator: "\n").dropLast())
        #expect(Self.junitTotals(merged.junitXML()) == Self.junitTotals(whole.junitXML()))

        #expect(throws: ConformanceReport.MergeError.self) { try ConformanceReport.merged(Array(parts.prefix(3))) }
        #expect(throws: ConformanceReport.MergeError.self) { try ConformanceReport.merged(parts + [parts[0]]) }
    }

    @Test("harness conform --shard I/N --json and harness report merge give an unsharded run's totals")
    func commandLine() throws {
        let harness = try #require(
            ReliabilityProbes.harness(), "the harness executable was not found beside the test bundle")
        let scratch = try ScratchDirectory(prefix: "shards")
        func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
            let process = Process()
            process.executableURL = harness
            process.arguments = arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, output)
        }
        let common = [
            "conform", "--suite", "uniqueness,differential", "--differential", "40", "--jobs", "1", "--seed", "5",
        ]
        let whole = scratch.url.appendingPathComponent("whole")
        #expect(try run(common + ["--junit", whole.path + "/junit.xml"]).status == 0)
        var dirs: [String] = []
        for i in 1...4 {
            let dir = scratch.url.appendingPathComponent("shard-\(i)").path
            dirs.append(dir)
            #expect(try run(common + ["--shard", "\(i)/4", "--json", dir + "/conformance.json"]).status == 0)
        }
        let merged = scratch.url.appendingPathComponent("merged")
        let result = try run(["report", "merge"] + dirs + ["--out", merged.path])
        #expect(result.status == 0)
        #expect(result.output.contains("PASS"))
        let mergedXML = try String(contentsOf: merged.appendingPathComponent("conformance-junit.xml"), encoding: .utf8)
        let wholeXML = try String(contentsOf: whole.appendingPathComponent("junit.xml"), encoding: .utf8)
        #expect(Self.junitTotals(mergedXML) == Self.junitTotals(wholeXML))
        #expect(try run(["report", "merge"] + dirs.dropLast() + ["--out", merged.path]).status == 2)
        // A missing directory is named with the reason, not Foundation's error dump.
        let missing = Process()
        missing.executableURL = harness
        missing.arguments = ["report", "merge", scratch.url.appendingPathComponent("nowhere").path]
        let errors = Pipe()
        missing.standardError = errors
        missing.standardOutput = FileHandle.nullDevice
        try missing.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        missing.waitUntilExit()
        #expect(missing.terminationStatus == 2)
        #expect(message.contains("nowhere is not a readable conformance report"))
        #expect(message.contains("no such file"))
        #expect(!message.contains("NSCocoaErrorDomain"))
    }
}

/// Long differential runs in tests say how far they are, unless turned off.
@Suite("Long-run progress")
struct LongRunProgressTests {
    @Test("the line counts cases and mismatches; OPENSWIFTDATA_PROGRESS=0 turns lines off")
    func lines() {
        #expect(
            LongRunProgress.line("DifferentialHarness seed 1", done: 400, of: 1000, mismatches: 0, seconds: 10)
                == "DifferentialHarness seed 1: 400 of 1000 cases, 0 mismatches, 10 s")
        #expect(LongRunProgress.line("x", done: 1, of: 2, mismatches: nil, seconds: 20) == "x: 1 of 2 cases, 20 s")
        #expect(LongRunProgress.isEnabled([:]))
        #expect(!LongRunProgress.isEnabled(["OPENSWIFTDATA_PROGRESS": "0"]))
    }
}

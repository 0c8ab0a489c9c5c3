import Foundation
import HarnessSupport
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

/// The reliability probes in their quick configuration, one test per probe: the same
/// experiments `harness reliability` runs, with child processes started from the `harness`
/// executable built beside this test bundle. A missing executable fails every test; it never skips.
@Suite("ReliabilityProbes", .serialized)
struct ReliabilityProbes {
    /// `harness` next to the test bundle (`.build/<triple>/debug/harness`), or named by
    /// `$OPENSWIFTDATA_HARNESS`; searched from the test executable's directory upward.
    static func harness() -> URL? { HarnessExecutable.locate() }

    /// Runs `probe` in the quick configuration and fails with its reason and every failure. The
    /// seed is the quick configuration's fixed one unless `OPENSWIFTDATA_RELIABILITY_SEED` names
    /// another (or `random`); a failure message names the seed to replay.
    private func check(_ probe: ReliabilityProbe) throws {
        let harness = try #require(
            Self.harness(),
            """
            the harness executable was not found beside the test bundle (\(Bundle.main.bundleURL.path)) or above it; \
            build it with `swift build` (or `swift build --build-tests`) or set OPENSWIFTDATA_HARNESS to its path
            """)
        let configuration = ReliabilityConfiguration.quick.withSeedFromEnvironment()
        let result = probe.run(configuration, executable: harness)
        let passed = result.passed  // not the whole result: the comment says it better
        #expect(
            passed,
            "\(probe.name) (\(configuration.replayLine)): \(result.reason)\n\(result.failures.map { "  - \($0)" }.joined(separator: "\n"))\nfigures: \(result.figureSummary)"
        )
    }

    @Test("crash loop: SIGKILLed writers leave only whole saves, every reopen succeeds")
    func crashLoop() throws { try check(.crashLoop) }

    @Test("readers during writes: no reader process sees half a save")
    func readersDuringWrites() throws { try check(.readersDuringWrites) }

    @Test("concurrent writers: no errors; mergePolicy .error loses no update")
    func concurrentWriters() throws { try check(.concurrentWriters) }

    @Test("concurrent creation: processes creating one new store all succeed")
    func concurrentCreation() throws { try check(.concurrentCreation) }

    @Test("disk full: typed error, nothing written, changes kept, saves after room is made")
    func diskFull() throws { try check(.diskFull) }

    @Test("bad files: typed errors and unchanged bytes, or a correct open")
    func badFiles() throws { try check(.badFiles) }

    @Test("hostile values: fetches agree with Predicate.evaluate on both stores")
    func hostileValues() throws { try check(.hostileValues) }

    @Test("several stores: SIGKILLed two-store writers leave both stores with the same saves (CFG-07)")
    func severalStores() throws { try check(.severalStores) }

    /// A kill lands between the two stores' commits by chance: on a machine busy with the rest
    /// of the suite, one quick run's 40 kills can all miss that window, so the fault must be
    /// caught within three runs (each a fresh set of kills).
    @Test("several stores: with the save unprotected across stores, the probe finds stores out of step")
    func severalStoresDetectsUnprotectedSaves() throws {
        let harness = try #require(Self.harness(), "the harness executable was not found beside the test bundle")
        var configuration = ReliabilityConfiguration.quick
        configuration.injectedFaults = ["multi-store-unprotected"]
        var runs: [ReliabilityResult] = []
        while runs.count < 3, runs.last?.passed ?? true {
            runs.append(ReliabilityProbe.severalStores.run(configuration, executable: harness))
        }
        let result = try #require(runs.last)
        #expect(!result.passed, "the probe passed \(runs.count) runs with the fault injected: \(result.figureSummary)")
        #expect((result.figure("stores out of step after reopening") ?? 0) > 0, "\(result.figureSummary)")
    }

    @Test("the report renders a row per probe and round-trips through JSON")
    func report() throws {
        let results = [
            ReliabilityResult(
                probe: "crash-loop", passed: true, reason: "ok", figures: [ReliabilityFigure("kills", 20)]),
            ReliabilityResult(
                probe: "disk-full", passed: false, reason: "the full store threw SQLiteError",
                figures: [ReliabilityFigure("untyped errors", 1)], failures: ["the full store threw SQLiteError"]),
        ]
        let report = ReliabilityReport(configuration: .quick, results: results)
        #expect(!report.passed)
        let table = report.table()
        #expect(table.contains("crash-loop") && table.contains("kills 20") && table.contains("PASS"))
        #expect(table.contains("disk-full: FAIL: the full store threw SQLiteError"))
        #expect(report.markdown().contains("| disk-full | untyped errors 1 | **FAIL** |"))
        let decoded = try JSONDecoder().decode(ReliabilityReport.self, from: report.json())
        #expect(decoded == report)
    }

    @Test("every probe has a unique name, and the quick configuration is smaller than the full one")
    func catalogue() {
        let names = ReliabilityProbe.all.map(\.name)
        #expect(
            names == [
                "crash-loop", "readers-during-writes", "concurrent-writers", "concurrent-creation",
                "disk-full", "bad-files", "hostile-values", "hostile-metadata", "several-stores", "migrations",
                "history", "actors",
            ])
        #expect(names.allSatisfy { ReliabilityProbe.named($0)?.name == $0 })
        let quick = ReliabilityConfiguration.quick
        let full = ReliabilityConfiguration.full
        #expect(
            quick.kills < full.kills && quick.readerSaves < full.readerSaves
                && quick.creationTrials < full.creationTrials)
        #expect(
            full.kills >= 200 && full.readerSaves >= 2_000 && full.writerProcesses * full.increments >= 4_000
                && full.creationTrials >= 30)
        #expect(HostileValues.strings.count >= 50)
    }

    // MARK: Killed migrations and history under kills

    /// Runs `probe` in the quick configuration with `fault` injected into its workers and
    /// returns the result, which must be a failure.
    private func runWithFault(_ probe: ReliabilityProbe, _ fault: InjectedFault) throws -> ReliabilityResult {
        let harness = try #require(Self.harness(), "the harness executable was not found beside the test bundle")
        var configuration = ReliabilityConfiguration.quick
        configuration.injectedFaults = [fault.rawValue]
        let result = probe.run(configuration, executable: harness)
        let passed = result.passed  // not the whole result: the comment says it better
        #expect(!passed, "\(probe.name) passed with \(fault.rawValue) injected: \(result.figureSummary)")
        return result
    }

    @Test("migrations and history: the full configuration migrates 50,000 rows 60 times; quick is smaller")
    func migrationAndHistorySizes() {
        let quick = ReliabilityConfiguration.quick
        let full = ReliabilityConfiguration.full
        #expect(full.migrationRows >= 50_000 && full.migrationKills >= 60 && full.historyKills >= 100)
        #expect(
            quick.migrationRows < full.migrationRows && quick.migrationKills < full.migrationKills
                && quick.historyKills < full.historyKills)
        #expect(quick.injectedFaults.isEmpty && full.injectedFaults.isEmpty)
    }

    @Test("migrations: a SIGKILLed migration leaves the store old or new, every row, and no scratch")
    func migrations() throws { try check(.migrations) }

    @Test("migrations: fails when a killed migration's scratch files are never removed")
    func migrationsDetectLeftScratch() throws {
        let result = try runWithFault(.migrations, .migrationLeavesScratch)
        #expect((result.figure("scratch files left after reopening") ?? 0) > 0)
    }

    @Test("history: one history transaction per committed save, no orphan change, under SIGKILL")
    func history() throws { try check(.history) }

    @Test("history: fails when the history is written in a transaction after the save's commit")
    func historyDetectsSeparateTransaction() throws {
        let result = try runWithFault(.history, .historySeparateTransaction)
        #expect((result.figure("saves without their transaction") ?? 0) > 0)
    }
}

/// Hostile metadata, actors and injected faults: the two probes pass in the quick
/// configuration, and every probe that guards against a fault fails when the fault is injected
/// into its workers (a probe that cannot fail proves nothing). Faults exist in debug builds
/// only, so the fault tests run against a debug `harness`.
extension ReliabilityProbes {
    @Test("hostile metadata: typed errors or correct opens, fast, no crash, files unchanged")
    func hostileMetadata() throws { try check(.hostileMetadata) }

    @Test("actors: threads and model actors on one store lose no write and never deadlock")
    func actors() throws { try check(.actors) }

    #if DEBUG
        @Test(
            "each probe fails with the fault it guards against injected",
            arguments: [
                ("crash-loop", "split-save"), ("readers-during-writes", "split-save"),
                ("concurrent-writers", "ignore-merge-conflict"), ("hostile-metadata", "plist-unbounded"),
                ("actors", "unserialized-connection"),
            ])
        func failsWithFault(_ probeName: String, _ fault: String) throws {
            let harness = try #require(Self.harness(), "the harness executable was not found beside the test bundle")
            let probe = try #require(ReliabilityProbe.named(probeName))
            var configuration = ReliabilityConfiguration.quick.withSeedFromEnvironment()
            configuration.injectedFaults = [fault]
            // The first eight hostile files include a cyclic plist (the fault's target) and no bomb.
            configuration.hostileFiles = 8
            let result = probe.run(configuration, executable: harness)
            #expect(
                !result.passed,
                "\(probeName) passed with \(fault) injected (\(configuration.replayLine)): figures \(result.figureSummary)"
            )
        }
    #endif

    @Test("the seed comes from the environment when it names one, else stays fixed")
    func seedFromEnvironment() {
        let quick = ReliabilityConfiguration.quick
        #expect(quick.withSeedFromEnvironment([:]).seed == quick.seed)
        #expect(
            quick.withSeedFromEnvironment([ReliabilityConfiguration.seedEnvironmentVariable: "123_456"]).seed == 123_456
        )
        #expect(quick.withSeedFromEnvironment([ReliabilityConfiguration.seedEnvironmentVariable: "random"]).seed != 0)
        #expect(quick.replayLine == "seed 1; replay with --seed 1")
        #expect(ReliabilityReport(configuration: quick, results: []).table().hasSuffix("seed 1; replay with --seed 1"))
    }
}

import Foundation
import OpenSwiftDataTesting

/// How big each reliability experiment is, and its seed: ``quick`` for the test suite,
/// ``full`` for `harness reliability` (`make reliability`).
///
/// Every number bounds a loop; every child process also has ``childTimeout``, after which it
/// is killed and the probe fails, so no probe can hang.
/// ```swift
/// var configuration = ReliabilityConfiguration.quick
/// configuration.seed = 7
/// configuration.kills = 50
/// let result = ReliabilityProbe.crashLoop.run(configuration, executable: harnessURL)
/// ```
package struct ReliabilityConfiguration: Codable, Sendable, Equatable {
    /// `quick` or `full` (or `custom` once a number was changed), for the report.
    package var name: String
    /// The seed of every random choice (kill moments, batch sizes, garbage bytes).
    package var seed: UInt64
    /// Crash loop: how many times a writer is SIGKILLed.
    package var kills: Int
    /// Crash loop: a writer is killed after 0…this many saves (then a random delay), drawn from the seed.
    package var maxSavesBeforeKill: Int
    /// Crash loop: the random delay before the kill is 0…this many microseconds.
    package var maxKillDelayMicroseconds: Int
    /// Readers during writes: saves of the writer process.
    package var readerSaves: Int
    /// Readers during writes: reader processes.
    package var readers: Int
    /// Concurrent writers: processes incrementing the counter.
    package var writerProcesses: Int
    /// Concurrent writers: increments per process (fetch, +1, save).
    package var increments: Int
    /// Concurrent creation: processes opening the same new store at once.
    package var creationProcesses: Int
    /// Concurrent creation: trials (one new store each).
    package var creationTrials: Int
    /// Seconds a child process may run before it is killed and the probe fails.
    package var childTimeout: Double
    /// Several stores: how many times a writer saving into two stores at once is SIGKILLed.
    package var storeKills: Int
    /// Migrations: rows of the old-schema store each killed migration starts from.
    package var migrationRows: Int
    /// Migrations: how many migrations are SIGKILLed.
    package var migrationKills: Int
    /// History: how many times the history writer is SIGKILLed.
    package var historyKills: Int
    /// Hostile metadata: how many seeded hostile store files are opened.
    package var hostileFiles: Int
    /// Hostile metadata: seconds one file may take (open, fetch, insert, save, describe,
    /// verify); a slower file fails the probe, and one still running a few seconds later is killed.
    package var hostileFileSeconds: Double
    /// Actors: seconds the threads and actors keep writing.
    package var actorSeconds: Double
    /// Raw values of the `InjectedFault`s every worker process runs with (debug builds only): a
    /// probe must fail with the fault it guards against. Empty in every normal run.
    package var injectedFaults: [String] = []

    /// Creates a configuration; prefer starting from ``quick`` or ``full``.
    package init(
        name: String, seed: UInt64, kills: Int, maxSavesBeforeKill: Int, maxKillDelayMicroseconds: Int,
        readerSaves: Int, readers: Int, writerProcesses: Int, increments: Int,
        creationProcesses: Int, creationTrials: Int, childTimeout: Double, storeKills: Int = 40,
        migrationRows: Int = 1_000, migrationKills: Int = 6, historyKills: Int = 12,
        hostileFiles: Int = 30, hostileFileSeconds: Double = 2, actorSeconds: Double = 2,
        injectedFaults: [String] = []
    ) {
        self.name = name
        self.seed = seed
        self.kills = kills
        self.maxSavesBeforeKill = maxSavesBeforeKill
        self.maxKillDelayMicroseconds = maxKillDelayMicroseconds
        self.readerSaves = readerSaves
        self.readers = readers
        self.writerProcesses = writerProcesses
        self.increments = increments
        self.creationProcesses = creationProcesses
        self.creationTrials = creationTrials
        self.childTimeout = childTimeout
        self.storeKills = storeKills
        self.migrationRows = migrationRows
        self.migrationKills = migrationKills
        self.historyKills = historyKills
        self.hostileFiles = hostileFiles
        self.hostileFileSeconds = hostileFileSeconds
        self.actorSeconds = actorSeconds
        self.injectedFaults = injectedFaults
    }

    /// Small enough for `make test` (every probe together in well under a minute on 2 cores,
    /// debug build): 20 kills, 200 saves with 4 readers, 2 × 100 increments per merge
    /// policy, 4 processes × 5 creations, 40 kills of a two-store writer, 6 killed migrations
    /// of 1,000 rows, 12 killed history writers, 30 hostile store files, 2 s of actors. The seed
    /// is fixed (1), so the tests are repeatable; ``withSeedFromEnvironment(_:)`` changes it.
    ///
    /// ```swift
    /// let result = ReliabilityProbe.readersDuringWrites.run(.quick, executable: harnessURL)
    /// ```
    package static let quick = ReliabilityConfiguration(
        name: "quick", seed: 1, kills: 20, maxSavesBeforeKill: 12, maxKillDelayMicroseconds: 4_000,
        readerSaves: 200, readers: 4, writerProcesses: 2, increments: 100,
        creationProcesses: 4, creationTrials: 5, childTimeout: 60, storeKills: 40,
        migrationRows: 1_000, migrationKills: 6, historyKills: 12,
        hostileFiles: 30, hostileFileSeconds: 2, actorSeconds: 2)

    /// What `harness reliability` runs: 200 kills, 2,000 saves with 4 readers, 4 × 1,000
    /// increments per merge policy, 4 processes × 30 creations, 400 kills of a two-store writer,
    /// 60 killed migrations of 50,000 rows, 100 killed history writers, 120 hostile store files,
    /// 10 s of actors. `harness reliability` replaces the seed with a random one unless `--seed`
    /// names it.
    ///
    /// ```swift
    /// let report = ReliabilityReport(configuration: .full, results: ReliabilityProbe.all.map { $0.run(.full, executable: exe) })
    /// ```
    package static let full = ReliabilityConfiguration(
        name: "full", seed: 1, kills: 200, maxSavesBeforeKill: 30, maxKillDelayMicroseconds: 4_000,
        readerSaves: 2_000, readers: 4, writerProcesses: 4, increments: 1_000,
        creationProcesses: 4, creationTrials: 30, childTimeout: 300, storeKills: 400,
        migrationRows: 50_000, migrationKills: 60, historyKills: 100,
        hostileFiles: 120, hostileFileSeconds: 2, actorSeconds: 10)

    /// The environment variable that changes the seed of a configuration taken with
    /// ``withSeedFromEnvironment(_:)`` (the test suite's): a number, or `random` for a new one.
    package static let seedEnvironmentVariable = "OPENSWIFTDATA_RELIABILITY_SEED"

    /// A seed from the system's random number generator, for a run that names none (drawn
    /// once per run; every probe's generators are then seeded from it).
    ///
    /// ```swift
    /// var configuration = ReliabilityConfiguration.full
    /// configuration.seed = ReliabilityConfiguration.randomSeed()
    /// ```
    package static func randomSeed() -> UInt64 {
        var generator = SystemRandomNumberGenerator()
        return UInt64.random(in: 1...UInt64(Int64.max), using: &generator)
    }

    /// This configuration, with its seed taken from ``seedEnvironmentVariable`` when that is
    /// set: a number replays that seed, `random` draws one (``randomSeed()``); unset or
    /// unreadable keeps the seed as it is.
    ///
    /// ```swift
    /// // OPENSWIFTDATA_RELIABILITY_SEED=random swift test --filter ReliabilityProbes
    /// let configuration = ReliabilityConfiguration.quick.withSeedFromEnvironment()
    /// ```
    package func withSeedFromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        -> ReliabilityConfiguration
    {
        var c = self
        guard let text = environment[Self.seedEnvironmentVariable]?.trimmingCharacters(in: .whitespaces) else {
            return c
        }
        if text == "random" {
            c.seed = Self.randomSeed()
        } else if let seed = UInt64(text.replacingOccurrences(of: "_", with: "")) {
            c.seed = seed
        }
        return c
    }

    /// `seed S; replay with --seed S`: the line a run prints first and its report repeats.
    package var replayLine: String { "seed \(seed); replay with --seed \(seed)" }

    /// The configuration as one command-line argument for a worker (base64 of its JSON).
    var encoded: String {
        // try?: plain Codable numbers always encode; an empty argument makes the worker fail loudly on decode.
        (try? JSONEncoder().encode(self))?.base64EncodedString() ?? ""
    }

    /// Decodes ``encoded``.
    static func decode(_ text: String) throws -> ReliabilityConfiguration {
        guard let data = Data(base64Encoded: text) else {
            throw ReliabilityWorkerError("the configuration argument is not base64")
        }
        return try JSONDecoder().decode(ReliabilityConfiguration.self, from: data)
    }
}

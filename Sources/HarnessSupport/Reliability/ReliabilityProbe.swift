import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

/// One reliability experiment: seeded, bounded, run in child processes of the harness, and
/// reduced to figures and a pass/fail with a reason (Docs/Design.md, reliability rules).
///
/// Probes that need several processes (the crash loop, readers during writes, concurrent
/// writers, concurrent creation, and hostile metadata, which starts a new worker after a file
/// crashed or hung one) coordinate `harness reliability-worker` processes from the calling
/// process. The others (disk full, bad files, hostile values, actors) run whole inside one
/// worker, so a crash or a hang in the library under test is reported as a failure instead of
/// taking the caller down.
/// ```swift
/// let harness = URL(fileURLWithPath: ".build/debug/harness")
/// let result = ReliabilityProbe.crashLoop.run(.quick, executable: harness)
/// print(result.passed, result.figureSummary)
/// ```
package struct ReliabilityProbe: Sendable, CustomStringConvertible {
    /// The probe's name, as `harness reliability --probe` takes it (`crash-loop` …).
    package let name: String
    /// One line saying what the probe proves.
    package let title: String
    /// Whether the probe runs whole inside one worker process.
    let runsInWorker: Bool
    /// The experiment: records figures and violations in the tally; returns the reason to give when it passed.
    let body: @Sendable (ReliabilityRun, inout ReliabilityTally) throws -> String

    /// The name.
    package var description: String { name }

    /// Every probe, in the order `harness reliability` runs them.
    package static var all: [ReliabilityProbe] {
        [
            .crashLoop, .readersDuringWrites, .concurrentWriters, .concurrentCreation, .diskFull, .badFiles,
            .hostileValues, .hostileMetadata, .severalStores, .migrations, .history, .actors,
        ]
    }

    /// The probe named `name`, or `nil`.
    ///
    /// ```swift
    /// ReliabilityProbe.named("disk-full")?.title
    /// ```
    package static func named(_ name: String) -> ReliabilityProbe? { all.first { $0.name == name } }

    /// Runs the probe with `configuration`, starting workers from `executable` (the `harness`
    /// binary); never throws and never hangs: a problem that stops the experiment is a failed result.
    ///
    /// - Parameters:
    ///   - configuration: sizes and seed (``ReliabilityConfiguration/quick`` or ``ReliabilityConfiguration/full``).
    ///   - executable: the `harness` executable, whose hidden `reliability-worker` subcommand runs the children.
    ///   - keepFiles: keep the scratch directory (stores, workers' standard error) and name it in the result.
    package func run(_ configuration: ReliabilityConfiguration, executable: URL, keepFiles: Bool = false)
        -> ReliabilityResult
    {
        let start = Clock.now
        var tally = ReliabilityTally(name)
        do {
            guard FileManager.default.isExecutableFile(atPath: executable.path) else {
                throw ReliabilityWorkerError(
                    "the harness executable \(executable.path) does not exist or is not executable")
            }
            let scratch = try ScratchDirectory(prefix: "reliability-\(name)", keep: keepFiles)
            let run = ReliabilityRun(configuration: configuration, executable: executable, directory: scratch.url)
            var result: ReliabilityResult
            if runsInWorker {
                result = try runInWorker(run)
            } else {
                let reason = try body(run, &tally)
                result = tally.result(passReason: reason, seconds: Clock.seconds(since: start))
            }
            result.seconds = Clock.seconds(since: start)
            if keepFiles { result.failures.append("files kept in \(scratch.url.path)") }
            return result
        } catch {
            tally.fail("the probe could not run: \(error)")
            return tally.result(passReason: "", seconds: Clock.seconds(since: start))
        }
    }

    /// Runs the body in the current process (what a worker does for a probe that ``runsInWorker``).
    func runHere(_ run: ReliabilityRun) -> ReliabilityResult {
        let start = Clock.now
        var tally = ReliabilityTally(name)
        do {
            let reason = try body(run, &tally)
            return tally.result(passReason: reason, seconds: Clock.seconds(since: start))
        } catch {
            tally.fail("the probe stopped on an unexpected error: \(error)")
            return tally.result(passReason: "", seconds: Clock.seconds(since: start))
        }
    }

    /// Starts one worker that runs the whole probe and prints `result <json>`.
    private func runInWorker(_ run: ReliabilityRun) throws -> ReliabilityResult {
        let child = try run.spawn("probe", ["probe=\(name)"], label: name)
        let line = child.line(startingWith: "result ")
        let termination = child.wait()
        // Not swallowed: without a decodable result the worker's end is tallied as a failure below.
        if let line, let result = try? JSONDecoder().decode(ReliabilityResult.self, from: Data(line.dropFirst(7).utf8))
        {
            return result
        }
        var tally = ReliabilityTally(name)
        tally.fail("the probe's worker gave no result: \(child.describe(termination))")
        return tally.result(passReason: "", seconds: 0)
    }
}

/// What a probe needs while it runs: its configuration, the executable to start workers
/// from, and a scratch directory for its stores.
struct ReliabilityRun: Sendable {
    let configuration: ReliabilityConfiguration
    let executable: URL
    let directory: URL

    /// The probe's random stream, from the seed and the probe's name.
    func random(_ labels: String...) -> SeededGenerator {
        SeededGenerator(seed: SeededGenerator.derive(configuration.seed, labels: labels))
    }

    /// Starts `harness reliability-worker role …` with the shared arguments (configuration,
    /// executable, scratch directory) and `arguments`; with the configuration's
    /// ``ReliabilityConfiguration/injectedFaults`` in its environment when there are any.
    func spawn(_ role: String, _ arguments: [String], label: String) throws -> ChildProcess {
        try ChildProcess(
            executable: executable, role: role,
            arguments: ["config=\(configuration.encoded)", "exe=\(executable.path)", "dir=\(directory.path)"]
                + arguments,
            label: label, directory: directory, timeout: configuration.childTimeout,
            environment: environment)
    }

    /// What every child gets added to its environment: the injected faults, when there are any.
    var environment: [String: String] {
        configuration.injectedFaults.isEmpty
            ? [:] : [FaultInjection.environmentVariable: configuration.injectedFaults.joined(separator: ",")]
    }

    /// Starts checker `role` with `arguments`, waits for it, and decodes the `check <json>` line
    /// it printed (``WorkerIO/sayCheck(_:)``): the check, or `nil` and how the checker ended.
    func check<Check: Decodable>(_ role: String, _ arguments: [String], label: String, as _: Check.Type) throws
        -> (check: Check?, end: String)
    {
        let checker = try spawn(role, arguments, label: label)
        let line = checker.line(startingWith: "check ")
        let end = checker.wait()
        // Not swallowed: the caller tallies a missing or undecodable answer as a failure.
        let check = line.flatMap { try? JSONDecoder().decode(Check.self, from: Data($0.dropFirst(6).utf8)) }
        return (check, checker.describe(end))
    }

    /// A fresh store location in the scratch directory.
    func store(_ name: String) -> URL { directory.appendingPathComponent("\(name).store") }
}

import Foundation
import HarnessSupport
import OpenSwiftData
import OpenSwiftDataTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `harness conform --mutants`: the mutation score of the conformance checks. Each semantic
/// mutant of the library (``InjectedFault/mutants``, compiled into debug builds only) runs in a
/// child process of its own (`harness mutant-worker`, ``MutantWorker``) with the mutant named in
/// `OPENSWIFTDATA_INJECT_FAULT`, so a crash or a hang kills only that run; one more child runs
/// without a mutant and must pass. A mutant is killed by the first check that fails with it
/// active; the last line printed is `mutants: K of N killed`.
enum MutantsCommand {
    /// The score below which `--mutants` exits 1: 95 % (of the mutants not argued equivalent).
    static let minimumPercent = 95.0

    /// Why a mutant no check kills changes nothing a store can show, by mutant: a survivor
    /// listed here is reported with its argument and left out of the percentage.
    static let arguedEquivalent: [InjectedFault: String] = [
        .decimalComparedAsText:
            "a Decimal column has NUMERIC affinity (its declared type is DECIMAL), so SQLite converts every "
            + "Decimal written as text to a number, which compares numerically with or without the osd_decimal "
            + "collation; Decimal text reaches a comparison only from a column another tool declared without that "
            + "affinity, which neither this library nor Core Data creates"
    ]

    /// Runs the mutants `o` names (every one by default), prints the table and the score line,
    /// writes `--markdown` and `--json`; exits 1 when the run without a mutant fails or the
    /// score is under ``minimumPercent``, 2 in a release build (which has no mutants).
    static func run(_ o: ConformCommand.Options) throws -> Int32 {
        guard FaultInjection.isAvailable else {
            FileHandle.standardError.write(
                Data(
                    """
                    harness: --mutants needs a debug build of harness: the mutants (InjectedFault) are compiled \
                    into debug builds only, so this release build has none to run. Run `swift run harness conform \
                    --mutants` or `make mutants`.

                    """.utf8))
            return 2
        }
        let run = MutationRun(
            executable: ReliabilityWorker.currentExecutable, mutants: o.mutants,
            plan: MutantWorker.Plan(seed: o.seed, differential: o.mutantCases, stores: o.stores), jobs: o.mutantJobs)
        ConformCommand.progress(
            "mutants: \(o.mutants.count) mutants and a run without one, \(o.mutantJobs) at a time, "
                + "\(o.mutantCases) differential cases each")
        var (baseline, score) = run.run { ConformCommand.progress($0) }
        for index in score.mutants.indices where !score.mutants[index].killed {
            score.mutants[index].equivalence = InjectedFault(rawValue: score.mutants[index].name).flatMap {
                arguedEquivalent[$0]
            }
        }
        print(score.table())
        if let path = o.markdown { try ConformCommand.write(score.markdown(), to: path) }
        if let path = o.json { try ConformCommand.write(String(decoding: try score.json(), as: UTF8.self), to: path) }
        let failedBaseline = baseline.killed
        if failedBaseline {
            print(
                "\nthe run without a mutant failed at \(baseline.check ?? "?"): \(baseline.detail ?? "")\n"
                    + "the score means nothing until it passes")
        }
        if !score.equivalent.isEmpty {
            print("\n\(score.equivalent.count) survivor(s) argued equivalent, left out of the percentage")
        }
        print("\n" + score.line)
        return failedBaseline || score.percent < minimumPercent ? 1 : 0
    }
}

/// Runs mutant workers, several at a time, and collects a ``MutationScore``.
///
/// ```swift
/// let run = MutationRun(executable: harness, mutants: [.cascadeNullifies], plan: .init(differential: 40), jobs: 2)
/// let (baseline, score) = run.run()
/// #expect(!baseline.killed && score.killed == 1)
/// ```
package struct MutationRun: Sendable {
    /// The `harness` executable the workers run (a debug build).
    package var executable: URL
    /// The mutants to run, in report order.
    package var mutants: [InjectedFault]
    /// What each worker checks.
    package var plan: MutantWorker.Plan
    /// Workers running at once.
    package var jobs: Int
    /// Seconds after which a worker is killed (and its mutant counted killed: it hung).
    package var timeout: Double = 900

    /// A run with every field but the timeout given.
    package init(executable: URL, mutants: [InjectedFault], plan: MutantWorker.Plan, jobs: Int) {
        self.executable = executable
        self.mutants = mutants
        self.plan = plan
        self.jobs = max(1, jobs)
    }

    /// Runs a worker without a mutant and one per mutant; returns the first's outcome (killed
    /// means it failed) and the score. `progress` gets a line per finished worker.
    package func run(progress: ((String) -> Void)? = nil) -> (baseline: MutationScore.Mutant, score: MutationScore) {
        let start = DispatchTime.now().uptimeNanoseconds
        let names: [InjectedFault?] = [nil] + mutants.map { Optional($0) }
        var outcomes = [MutationScore.Mutant?](repeating: nil, count: names.count)
        var running: [(index: Int, worker: Worker)] = []
        var next = 0
        while next < names.count || !running.isEmpty {
            while running.count < jobs, next < names.count {
                running.append((next, Worker(executable: executable, mutant: names[next], plan: plan)))
                next += 1
            }
            usleep(50_000)
            running.removeAll { item in
                guard let outcome = item.worker.outcome(timeout: timeout) else { return false }
                outcomes[item.index] = outcome
                let done = outcomes.compactMap { $0 }.count
                progress?(
                    "[\(done)/\(names.count)] \(outcome.name): "
                        + (outcome.killed ? "killed by \(outcome.check ?? "?")" : "survived")
                        + " (\(outcome.checks) checks, \(String(format: "%.1f", outcome.seconds)) s)")
                return true
            }
        }
        let all = outcomes.map { $0! }  // every index was filled when its worker ended
        let formatter = ISO8601DateFormatter()
        let score = MutationScore(
            seed: plan.seed, differentialCases: plan.differential, baselineChecks: all[0].checks,
            mutants: Array(all.dropFirst()), seconds: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9,
            date: formatter.string(from: Date()))
        return (all[0], score)
    }
}

/// One worker process, its standard output in a temporary file.
private final class Worker {
    let mutant: InjectedFault?
    let process = Process()
    let output: URL
    let start = DispatchTime.now().uptimeNanoseconds
    var failedToStart: String?

    init(executable: URL, mutant: InjectedFault?, plan: MutantWorker.Plan) {
        self.mutant = mutant
        output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "openswiftdata-mutant-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        process.executableURL = executable
        process.arguments = [MutantWorker.subcommand] + plan.arguments
        var environment = ProcessInfo.processInfo.environment
        environment[FaultInjection.environmentVariable] = mutant?.rawValue ?? ""
        process.environment = environment
        process.standardError = FileHandle.nullDevice
        do {
            process.standardOutput = try FileHandle(forWritingTo: output)
            try process.run()
        } catch {
            failedToStart = "\(error)"
        }
    }

    var seconds: Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }

    /// The outcome once the process has ended (killing it past `timeout` seconds); `nil` while
    /// it runs.
    func outcome(timeout: Double) -> MutationScore.Mutant? {
        let name = mutant?.rawValue ?? "none"
        let summary = mutant?.summary ?? "no mutant"
        if let failedToStart {
            return .init(
                name: name, summary: summary, killed: false, check: nil, detail: "did not start: \(failedToStart)",
                checks: 0, seconds: 0)
        }
        var timedOut = false
        if process.isRunning {
            guard seconds > timeout else { return nil }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            timedOut = true
        }
        process.waitUntilExit()
        defer { try? FileManager.default.removeItem(at: output) }  // try?: a leftover temporary file is harmless
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""  // try?: no output reads as a crash
        let lines = text.split(separator: "\n").map(String.init)
        let checks =
            lines.last { $0.hasPrefix("checks ") }.flatMap { Int($0.dropFirst(7)) }
            ?? lines.filter { $0.hasPrefix("at ") }.count
        if let killed = lines.first(where: { $0.hasPrefix("killed ") }) {
            let parts = killed.dropFirst(7).split(separator: "\t", maxSplits: 1).map(String.init)
            return .init(
                name: name, summary: summary, killed: true, check: parts.first,
                detail: parts.count > 1 ? parts[1] : nil,
                checks: checks, seconds: seconds)
        }
        if lines.contains("survived"), !timedOut, process.terminationStatus == 0 {
            return .init(
                name: name, summary: summary, killed: false, check: nil, detail: nil, checks: checks, seconds: seconds)
        }
        // It crashed or hung: the check it was at killed the mutant.
        let at = lines.last { $0.hasPrefix("at ") }.map { String($0.dropFirst(3)) } ?? "starting"
        let how =
            timedOut
            ? "timed out after \(Int(timeout)) s"
            : process.terminationReason == .uncaughtSignal
                ? "died of signal \(process.terminationStatus)" : "exited with status \(process.terminationStatus)"
        return .init(
            name: name, summary: summary, killed: true, check: "\(at) (\(how))", detail: how, checks: checks,
            seconds: seconds)
    }
}

import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

#if canImport(Glibc)
    import Glibc
#endif

extension ReliabilityProbe {
    /// N processes each do K read-modify-write increments of one counter (fetch, +1, save),
    /// first with the default merge policy, then with `mergePolicy = .error`.
    ///
    /// Default (`.mergeByPropertyObjectTrump`, SwiftData's behaviour): the last writer of a
    /// property wins, so increments based on a stale read are lost; the number lost is
    /// reported as a figure, not a failure. The probe fails on any error (a surfaced
    /// `SQLITE_BUSY` included) or an inconsistent file.
    ///
    /// Strict (`.error`): a save based on a stale read throws `SwiftDataError.mergeConflict`;
    /// the worker rolls back, fetches again and retries. The final value must be exactly N × K
    /// (0 lost updates), and no other error may occur. The number of typed conflicts is reported.
    package static let concurrentWriters = ReliabilityProbe(
        name: "concurrent-writers",
        title: "Processes incrementing one counter: default merge policy loses updates (reported); .error loses none",
        runsInWorker: false, body: ConcurrentWritersProbe.run)
}

/// The concurrent-writers coordinator and incrementer.
enum ConcurrentWritersProbe {
    /// The counter's name.
    static let counterName = "shared"
    /// Conflicts one increment may meet before its worker gives up.
    static let maximumRetries = 10_000

    /// What an incrementer did.
    struct WorkerReport: Codable {
        var increments = 0
        var conflicts = 0
        var errors = 0
        var untypedErrors = 0
        var messages: [String] = []
    }

    static func run(_ run: ReliabilityRun, _ tally: inout ReliabilityTally) throws -> String {
        let c = run.configuration
        let expected = c.writerProcesses * c.increments
        var summary: [String] = []
        for policy in ModelConfiguration.MergePolicy.allCases {
            let mode = policy == .error ? "strict" : "default"
            let store = run.store("counter-\(mode)")
            do {
                let container = try ModelContainer(
                    for: ReliabilitySchemas.counter, configurations: [ModelConfiguration(url: store)])
                let context = ModelContext(container)
                context.insert(ReliabilityCounter(name: counterName, value: 0))
                try context.save()
            }
            var workers: [ChildProcess] = []
            defer {
                for w in workers {
                    w.kill()
                    w.wait()
                }
            }
            for i in 0..<c.writerProcesses {
                workers.append(
                    try run.spawn(
                        "incrementer", ["store=\(store.path)", "policy=\(policy.rawValue)"],
                        label: "\(mode) writer \(i)"))
            }
            for w in workers where w.line(startingWith: "ready") == nil {
                tally.fail("\(w.label) did not start: \(w.allLines.last ?? "") \(w.describe(w.wait()))")
            }
            for w in workers { w.go() }
            var done = 0
            var conflicts = 0
            var errors = 0
            for w in workers {
                let line = w.line(startingWith: "result ")
                let end = w.wait()
                // Not swallowed: a missing or undecodable report is a tallied failure just below.
                guard let line,
                    let report = try? JSONDecoder().decode(WorkerReport.self, from: Data(line.dropFirst(7).utf8))
                else {
                    errors += 1
                    tally.fail("\(w.label) gave no result: \(w.describe(end))")
                    continue
                }
                done += report.increments
                conflicts += report.conflicts
                errors += report.errors
                for m in report.messages { tally.fail("\(w.label): \(m)") }
                if report.errors > report.messages.count {
                    tally.fail(
                        "\(w.label): \(report.errors) errors in all (\(report.untypedErrors) not SwiftDataError)")
                }
            }
            workers = []

            let counters: [ReliabilityCounter]
            let integrity: String
            do {
                let container = try ModelContainer(
                    for: ReliabilitySchemas.counter, configurations: [ModelConfiguration(url: store)])
                counters = try ModelContext(container).fetch(FetchDescriptor<ReliabilityCounter>())
                integrity = try container.integrityCheck()
            } catch {
                tally.fail("\(mode): reading the store afterwards failed: \(ThrownError(error))")
                continue
            }
            let value = counters.first?.value ?? 0
            let lost = done - value
            tally.set("\(mode): increments", done)
            tally.set("\(mode): final value", value)
            tally.set("\(mode): lost updates", lost)
            tally.set("\(mode): typed conflicts", conflicts)
            tally.set("\(mode): errors", errors)
            if integrity != "ok" { tally.fail("\(mode): integrity_check: \(integrity)") }
            if counters.count != 1 { tally.fail("\(mode): \(counters.count) counter rows; expected 1") }
            if done != expected { tally.fail("\(mode): \(done) of \(expected) increments were saved") }
            if value < 1 || value > done { tally.fail("\(mode): final value \(value) outside 1…\(done)") }
            if policy == .error {
                if lost != 0 {
                    tally.fail(
                        "strict: \(lost) lost updates with mergePolicy = .error (final value \(value), \(done) increments saved, \(conflicts) typed conflicts)"
                    )
                }
                summary.append("strict: 0 lost, \(conflicts) typed conflicts")
            } else {
                if conflicts != 0 {
                    tally.fail("default: \(conflicts) mergeConflict errors with the default merge policy")
                }
                summary.append("default: \(lost) lost updates of \(done) (SwiftData's last-writer-wins)")
            }
        }
        return "\(c.writerProcesses) processes × \(c.increments) increments, no error; "
            + summary.joined(separator: "; ")
    }

    // MARK: Worker role

    /// Waits for go, then does `increments` fetch/+1/save cycles, retrying after a
    /// `mergeConflict`; prints `result <json>`.
    static func incrementer(_ args: WorkerArguments) throws -> Int32 {
        let run = try args.run
        let store = try args.url("store")
        guard let policy = ModelConfiguration.MergePolicy(rawValue: try args.string("policy")) else {
            throw ReliabilityWorkerError("policy= takes \(ModelConfiguration.MergePolicy.allCases.map(\.rawValue))")
        }
        var configuration = ModelConfiguration(url: store)
        configuration.mergePolicy = policy
        let container = try ModelContainer(for: ReliabilitySchemas.counter, configurations: [configuration])
        guard WorkerIO.readyThenWait() else { return 1 }
        var report = WorkerReport()
        let name = counterName
        let descriptor = FetchDescriptor<ReliabilityCounter>(predicate: #Predicate { $0.name == name })
        let stop = Clock.now + UInt64(max(1, run.configuration.childTimeout - 5) * 1e9)
        increments: for _ in 0..<run.configuration.increments {
            var attempt = 0
            while true {
                attempt += 1
                guard attempt <= maximumRetries, Clock.now < stop else {
                    report.messages.append("gave up an increment after \(attempt - 1) attempts")
                    break increments
                }
                let context = ModelContext(container)
                do {
                    guard let counter = try context.fetch(descriptor).first else {
                        throw ReliabilityWorkerError("the counter row is gone")
                    }
                    counter.value += 1
                    try context.save()
                    report.increments += 1
                    continue increments
                } catch let error as SwiftDataError
                    where error.code == SwiftDataError.mergeConflict.code && policy == .error
                {
                    report.conflicts += 1
                    context.rollback()
                } catch {
                    let thrown = ThrownError(error)
                    report.errors += 1
                    if !thrown.typed { report.untypedErrors += 1 }
                    if report.messages.count < 5 { report.messages.append(thrown.description) }
                    context.rollback()
                    usleep(1_000)
                }
            }
        }
        let json = try JSONEncoder().encode(report)
        WorkerIO.say("result " + String(decoding: json, as: UTF8.self))
        return 0
    }
}

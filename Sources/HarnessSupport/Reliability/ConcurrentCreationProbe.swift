import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

extension ReliabilityProbe {
    /// Several processes open the same store that does not exist yet, at the same moment, and
    /// each saves one row: every open must succeed, and the new file must hold exactly one row
    /// per process.
    ///
    /// The processes start, print `ready`, and block on their standard input; once all are
    /// ready the coordinator writes the go byte to each, so their opens race. One new store per trial.
    package static let concurrentCreation = ReliabilityProbe(
        name: "concurrent-creation",
        title: "Processes creating the same new store at once all succeed, and every row is there",
        runsInWorker: false, body: ConcurrentCreationProbe.run)
}

/// The concurrent-creation coordinator and creator.
enum ConcurrentCreationProbe {
    static func run(_ run: ReliabilityRun, _ tally: inout ReliabilityTally) throws -> String {
        let c = run.configuration
        tally.set("trials", 0)
        tally.set("opens", 0)
        tally.set("failed opens (typed)", 0)
        tally.set("failed opens (untyped)", 0)
        tally.set("failed saves", 0)
        tally.set("missing rows", 0)
        tally.set("extra rows", 0)
        tally.set("integrity failures", 0)
        for trial in 0..<c.creationTrials {
            let store = run.store("created-\(trial)")
            var creators: [ChildProcess] = []
            defer {
                for p in creators {
                    p.kill()
                    p.wait()
                }
            }
            for i in 0..<c.creationProcesses {
                creators.append(
                    try run.spawn(
                        "creator", ["store=\(store.path)", "trial=\(trial)", "worker=\(i)"],
                        label: "trial \(trial) creator \(i)"))
            }
            var started = true
            for p in creators where p.line(startingWith: "ready") == nil {
                started = false
                tally.fail("\(p.label) did not start: \(p.describe(p.wait()))")
            }
            guard started else { break }
            for p in creators { p.go() }
            for p in creators {
                let line = p.line(startingWith: "outcome ")
                let end = p.wait()
                tally.add("opens")
                guard let line else {
                    tally.add("failed opens (untyped)")
                    tally.fail("\(p.label): no outcome: \(p.describe(end))")
                    continue
                }
                let outcome = line.dropFirst(8)
                if outcome == "saved" { continue }
                if outcome.hasPrefix("open-failed typed ") {
                    tally.add("failed opens (typed)")
                    tally.fail("\(p.label): the open failed: \(outcome.dropFirst(18))")
                } else if outcome.hasPrefix("open-failed untyped ") {
                    tally.add("failed opens (untyped)")
                    tally.fail("\(p.label): the open failed: \(outcome.dropFirst(20))")
                } else {
                    tally.add("failed saves")
                    tally.fail("\(p.label): \(outcome)")
                }
            }
            creators = []
            tally.add("trials")

            do {
                try check(store, trial: trial, processes: c.creationProcesses, &tally)
            } catch {
                tally.add("integrity failures")
                tally.fail("trial \(trial): reading the new store afterwards failed: \(ThrownError(error))")
            }
        }
        return
            "\(tally.value("trials")) trials × \(c.creationProcesses) processes: every open succeeded and every row is there"
    }

    /// Opens the trial's store and checks it holds exactly one row per process.
    private static func check(_ store: URL, trial: Int, processes: Int, _ tally: inout ReliabilityTally) throws {
        let container = try ModelContainer(
            for: ReliabilitySchemas.creation, configurations: [ModelConfiguration(url: store)])
        let rows = try ModelContext(container).fetch(FetchDescriptor<ReliabilityCreation>())
        let integrity = try container.integrityCheck()
        if integrity != "ok" {
            tally.add("integrity failures")
            tally.fail("trial \(trial): integrity_check: \(integrity)")
        }
        let found = rows.map { "\($0.trial)/\($0.worker)" }.sorted()
        let wanted = (0..<processes).map { "\(trial)/\($0)" }.sorted()
        let missing = Set(wanted).subtracting(found).count
        let extra = found.count - (wanted.count - missing)
        tally.add("missing rows", missing)
        tally.add("extra rows", extra)
        if missing != 0 || extra != 0 {
            tally.fail("trial \(trial): the store holds rows \(found); expected \(wanted)")
        }
    }

    // MARK: Worker role

    /// Prints `ready`, waits for go, opens the store, saves one row, prints `outcome …`.
    static func creator(_ args: WorkerArguments) throws -> Int32 {
        let store = try args.url("store")
        let trial = try args.int("trial")
        let worker = try args.int("worker")
        guard WorkerIO.readyThenWait() else { return 1 }
        let container: ModelContainer
        do {
            container = try ModelContainer(
                for: ReliabilitySchemas.creation, configurations: [ModelConfiguration(url: store)])
        } catch {
            let thrown = ThrownError(error)
            WorkerIO.say("outcome open-failed \(thrown.typed ? "typed" : "untyped") \(thrown)")
            return 0
        }
        let context = ModelContext(container)
        context.insert(ReliabilityCreation(trial: trial, worker: worker))
        do {
            try context.save()
            WorkerIO.say("outcome saved")
        } catch {
            WorkerIO.say("outcome save-failed \(ThrownError(error))")
        }
        return 0
    }
}

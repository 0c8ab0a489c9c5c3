import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

#if canImport(Glibc)
    import Glibc
#endif

extension ReliabilityProbe {
    /// Eight threads, each with its own `ModelContext`, and eight `@ModelActor`s share one
    /// container on an on-disk store with `mergePolicy = .error` for
    /// ``ReliabilityConfiguration/actorSeconds``: each increments counters (fetch, +1, save,
    /// retried after a `SwiftDataError.mergeConflict`), inserts rows with unique keys, does both
    /// in one save, and counts its own rows (it must see every one it committed).
    ///
    /// Passes when no operation threw anything but a merge conflict, every counter equals the
    /// increments committed to it, the store holds exactly the committed rows (every key once),
    /// integrity is ok, and everyone finished within the time plus a margin (a watchdog; a
    /// deadlock fails the probe instead of hanging it). Runs whole inside one worker process.
    package static let actors = ReliabilityProbe(
        name: "actors",
        title:
            "8 threads with their own contexts and 8 model actors write one store: no error, no lost write, no deadlock",
        runsInWorker: true, body: ActorsProbe.run)
}

/// The actors experiment: what each thread and actor does, and the checks afterwards.
enum ActorsProbe {
    /// Threads, each with its own context.
    static let threads = 8
    /// `@ModelActor`s, each with its own executor and context.
    static let actors = 8
    /// Counter rows the workers increment.
    static let counters = 4
    /// Merge conflicts one operation may meet before its worker gives up on it (a failure).
    static let maximumRetries = 2_000

    /// What one thread or actor committed and met.
    struct Report: Sendable {
        var label: String
        /// Committed increments, per counter.
        var increments: [Int] = Array(repeating: 0, count: ActorsProbe.counters)
        /// Committed inserts (keys `<label>-0` … `<label>-<inserts - 1>`).
        var inserts = 0
        var conflicts = 0
        var operations = 0
        var errors = 0
        var untypedErrors = 0
        var messages: [String] = []
    }

    /// One worker's loop: seeded operations on `context` until `deadline`.
    struct Work {
        var report: Report
        var rng: SeededGenerator

        init(label: String, seed: UInt64) {
            report = Report(label: label)
            rng = SeededGenerator(seed: SeededGenerator.derive(seed, labels: ["actors", label]))
        }

        /// Runs operations until `deadline` (a ``Clock/now`` value) or the first unexpected error.
        mutating func run(_ context: ModelContext, until deadline: UInt64) {
            while Clock.now < deadline && report.errors == 0 {
                report.operations += 1
                switch rng.uniform(in: 0..<10) {
                case 0..<4: save(context, increment: rng.uniform(in: 0..<ActorsProbe.counters), insert: false)
                case 4..<7: save(context, increment: nil, insert: true)
                case 7..<9: save(context, increment: rng.uniform(in: 0..<ActorsProbe.counters), insert: true)
                default: countOwnRows(context)
                }
            }
        }

        /// Increments counter `increment` and/or inserts the next entry in one save, retried
        /// after each merge conflict.
        mutating func save(_ context: ModelContext, increment: Int?, insert: Bool) {
            let label = report.label
            for _ in 0..<ActorsProbe.maximumRetries {
                do {
                    if let k = increment {
                        let name = "c\(k)"
                        let descriptor = FetchDescriptor<ReliabilityCounter>(predicate: #Predicate { $0.name == name })
                        guard let counter = try context.fetch(descriptor).first else {
                            throw ReliabilityWorkerError("counter \(name) is gone")
                        }
                        counter.value += 1
                    }
                    if insert { context.insert(ReliabilityEntry(key: "\(label)-\(report.inserts)", worker: label)) }
                    try context.save()
                    if let k = increment { report.increments[k] += 1 }
                    if insert { report.inserts += 1 }
                    return
                } catch let error as SwiftDataError where error.code == SwiftDataError.mergeConflict.code {
                    report.conflicts += 1
                    context.rollback()
                } catch {
                    fail(error)
                    context.rollback()
                    return
                }
            }
            report.errors += 1
            report.messages.append("gave up a save after \(ActorsProbe.maximumRetries) merge conflicts")
        }

        /// Counts this worker's rows: it must see every one it committed.
        mutating func countOwnRows(_ context: ModelContext) {
            let label = report.label
            do {
                let seen = try context.fetchCount(
                    FetchDescriptor<ReliabilityEntry>(predicate: #Predicate { $0.worker == label }))
                if seen != report.inserts {
                    report.errors += 1
                    report.messages.append("counted \(seen) of its rows after committing \(report.inserts)")
                }
            } catch {
                fail(error)
            }
        }

        mutating func fail(_ error: any Error) {
            let thrown = ThrownError(error)
            report.errors += 1
            if !thrown.typed { report.untypedErrors += 1 }
            if report.messages.count < 3 { report.messages.append(thrown.description) }
        }
    }

    /// The workers' reports, filled in as they finish.
    final class Reports: @unchecked Sendable {
        private let lock = NSLock()
        private var reports: [Report] = []
        let group = DispatchGroup()

        func add(_ report: Report) {
            lock.withLock { reports.append(report) }
            group.leave()
        }

        var all: [Report] { lock.withLock { reports } }
    }

    static func run(_ run: ReliabilityRun, _ tally: inout ReliabilityTally) throws -> String {
        let c = run.configuration
        let store = run.store("actors")
        var configuration = ModelConfiguration(url: store)
        configuration.mergePolicy = .error
        let container = try ModelContainer(for: ReliabilitySchemas.actors, configurations: [configuration])
        do {
            let context = ModelContext(container)
            for k in 0..<counters { context.insert(ReliabilityCounter(name: "c\(k)", value: 0)) }
            try context.save()
        }
        tally.set("threads", threads)
        tally.set("actors", actors)
        tally.set("operations", 0)
        tally.set("increments committed", 0)
        tally.set("inserts committed", 0)
        tally.set("typed merge conflicts (retried)", 0)
        tally.set("unexpected errors", 0)
        tally.set("lost or extra writes", 0)
        tally.set("unfinished workers", 0)

        let deadline = Clock.now + UInt64(c.actorSeconds * 1e9)
        let reports = Reports()
        for t in 0..<threads {
            reports.group.enter()
            let label = "thread \(t)"
            let seed = c.seed
            let thread = Thread {
                var work = Work(label: label, seed: seed)
                work.run(ModelContext(container), until: deadline)
                reports.add(work.report)
            }
            thread.start()
        }
        for a in 0..<actors {
            reports.group.enter()
            let worker = ProbeActor(modelContainer: container)
            let label = "actor \(a)"
            let seed = c.seed
            Task {
                let report = await worker.work(label: label, seed: seed, until: deadline)
                reports.add(report)
            }
        }
        // The watchdog: everyone stops starting operations at the deadline; a worker still
        // running well after it is stuck.
        let margin = max(20, c.actorSeconds)
        let finished = reports.group.wait(timeout: .now() + c.actorSeconds + margin) == .success
        let all = reports.all
        if !finished {
            let done = Set(all.map(\.label))
            let stuck = ((0..<threads).map { "thread \($0)" } + (0..<actors).map { "actor \($0)" }).filter {
                !done.contains($0)
            }
            tally.set("unfinished workers", stuck.count)
            tally.fail(
                "\(stuck.count) workers had not finished \(Int(margin)) s after the \(c.actorSeconds) s run (a deadlock?): \(stuck.joined(separator: ", "))"
            )
            return ""
        }
        var increments = Array(repeating: 0, count: counters)
        for r in all.sorted(by: { $0.label < $1.label }) {
            tally.add("operations", r.operations)
            tally.add("inserts committed", r.inserts)
            tally.add("typed merge conflicts (retried)", r.conflicts)
            tally.add("unexpected errors", r.errors)
            for k in 0..<counters { increments[k] += r.increments[k] }
            for m in r.messages { tally.fail("\(r.label): \(m)") }
            if r.errors > r.messages.count {
                tally.fail("\(r.label): \(r.errors) errors in all (\(r.untypedErrors) not a SwiftDataError)")
            }
        }
        tally.set("increments committed", increments.reduce(0, +))

        // A fresh container sees exactly what was committed.
        do {
            let check = try ModelContainer(for: ReliabilitySchemas.actors, configurations: [configuration])
            let context = ModelContext(check)
            let stored = Dictionary(
                try context.fetch(FetchDescriptor<ReliabilityCounter>()).map { ($0.name, $0.value) },
                uniquingKeysWith: { a, b in a + b })
            var lost = 0
            for k in 0..<counters where stored["c\(k)"] != increments[k] {
                lost += abs((stored["c\(k)"] ?? 0) - increments[k])
                tally.fail(
                    "counter c\(k) is \(stored["c\(k)"].map(String.init) ?? "missing"); \(increments[k]) increments were committed"
                )
            }
            let keys = try context.fetch(FetchDescriptor<ReliabilityEntry>()).map(\.key)
            let expected = Set(all.flatMap { r in (0..<r.inserts).map { "\(r.label)-\($0)" } })
            let found = Set(keys)
            let missing = expected.subtracting(found)
            let extra = found.subtracting(expected)
            lost += missing.count + extra.count + (keys.count - found.count)
            if !missing.isEmpty || !extra.isEmpty || keys.count != found.count {
                tally.fail(
                    "\(keys.count) rows stored, \(expected.count) committed: \(missing.count) missing (\(missing.sorted().prefix(3).joined(separator: ", "))), \(extra.count) never committed, \(keys.count - found.count) doubled"
                )
            }
            tally.set("lost or extra writes", lost)
            let integrity = try check.integrityCheck()
            if integrity != "ok" { tally.fail("integrity_check after the run: \(integrity)") }
        } catch {
            tally.fail("reading the store afterwards failed: \(ThrownError(error))")
        }
        if tally.value("increments committed") == 0 || tally.value("inserts committed") == 0 {
            tally.fail("nothing was committed in \(c.actorSeconds) s")
        }
        return
            "\(threads) threads and \(actors) actors for \(c.actorSeconds) s: \(tally.value("increments committed")) increments and \(tally.value("inserts committed")) inserts, all found; \(tally.value("typed merge conflicts (retried)")) typed conflicts retried, no other error"
    }
}

/// A model actor of the actors probe: runs a worker's loop on its own executor and context.
@ModelActor
actor ProbeActor {
    /// Runs the seeded operations of worker `label` until `deadline` and returns what it committed.
    func work(label: String, seed: UInt64, until deadline: UInt64) -> ActorsProbe.Report {
        var work = ActorsProbe.Work(label: label, seed: seed)
        work.run(modelContext, until: deadline)
        return work.report
    }
}

import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

#if canImport(Glibc)
    import Glibc
#endif

extension ReliabilityProbe {
    /// A writer process whose container has two configurations — parents (with their ten
    /// children) in `parents.store`, counters in `counters.store` — saves into both stores in
    /// every save and is SIGKILLed at seeded moments, 0–40 ms after it opened the stores (or
    /// while it opens them). Each save inserts a parent with serial *n* in one store, and in
    /// the other inserts a counter named `save n` and sets the counter `saves` to *n*.
    ///
    /// After each kill the coordinator first reads both files with raw SQLite (counting the
    /// kills that left one store a save ahead of the other, which the library must repair);
    /// then a checker process opens the container, which must succeed, and checks that both
    /// stores hold the same saves: parents = `save …` counters = the `saves` counter, serials
    /// 1…n in both, ten children per parent, and committed ≤ n ≤ committed + 1. A run of 100
    /// kills or more fails when no kill left one store ahead (the repair was never exercised).
    package static let severalStores = ReliabilityProbe(
        name: "several-stores",
        title: "SIGKILL a writer saving into two stores at once: every reopen finds both stores with the same saves",
        runsInWorker: false, body: SeveralStoresProbe.run)
}

/// The several-stores probe's coordinator, writer and checker.
enum SeveralStoresProbe {
    /// The container's schema: every model the two configurations store.
    static let schema = Schema([ReliabilityParent.self, ReliabilityChild.self, ReliabilityCounter.self])

    /// The two configurations, in `directory`.
    static func configurations(_ directory: URL) -> [ModelConfiguration] {
        [
            ModelConfiguration(
                "parents", schema: Schema([ReliabilityParent.self]),
                url: directory.appendingPathComponent("parents.store")),
            ModelConfiguration(
                "counters", schema: Schema([ReliabilityCounter.self]),
                url: directory.appendingPathComponent("counters.store")),
        ]
    }

    /// The latest kill moment after the writer opened the stores, in microseconds.
    static let maxKillDelay = 40_000

    /// What a checker found after a kill.
    struct Check: Codable {
        var opened = false
        var openError: ThrownError?
        var parents = 0
        var children = 0
        var saveCounters = 0
        var counter: Int?
        var parentSerials = false
        var counterSerials = false
        var checkError: ThrownError?
    }

    static func run(_ run: ReliabilityRun, _ tally: inout ReliabilityTally) throws -> String {
        let c = run.configuration
        var rng = run.random("several-stores")
        var committed = 0
        tally.set("kills", 0)
        tally.set("saves committed", 0)
        tally.set("kills that left one store a save ahead", 0)
        tally.set("stores out of step after reopening", 0)
        tally.set("failed reopens", 0)
        tally.set("writer errors", 0)
        for round in 0..<c.storeKills {
            let whileOpening = rng.uniform(in: 0..<10) == 0
            let delay = rng.uniform(in: 0...(whileOpening ? 4_000 : maxKillDelay))
            let at = "kill \(round + 1) (seed \(c.seed), \(delay) µs after \(whileOpening ? "starting" : "opening"))"
            let writer = try run.spawn("stores-writer", [], label: "writer \(round + 1)")
            if writer.line(startingWith: "opening") != nil, whileOpening || writer.line(startingWith: "opened") != nil {
                usleep(UInt32(delay))
            }
            writer.killAndTally(at: at, committed: &committed, &tally)
            if let (parents, counters) = rawCounts(run.directory), parents != counters {
                tally.add("kills that left one store a save ahead")
            }

            let (answer, checkerEnd) = try run.check(
                "stores-checker", [], label: "checker \(round + 1)", as: Check.self)
            guard let check = answer else {
                tally.add("failed reopens")
                tally.fail("\(at): the checker gave no answer: \(checkerEnd)")
                break
            }
            guard check.opened, check.checkError == nil else {
                tally.add("failed reopens")
                let error = check.openError ?? check.checkError
                tally.fail("\(at): reopening or reading the stores failed: \(error.map(\.description) ?? "?")")
                break
            }
            var violations: [String] = []
            if check.parents != check.saveCounters || (check.counter ?? 0) != check.parents {
                violations.append(
                    "parents.store holds \(check.parents) saves, counters.store \(check.saveCounters) (counter \(check.counter.map(String.init) ?? "missing"))"
                )
            }
            if !check.parentSerials || !check.counterSerials {
                violations.append("the serials are not 1…n in both stores")
            }
            if check.children != CrashLoopProbe.children * check.parents {
                violations.append("\(check.children) children for \(check.parents) parents")
            }
            if check.parents < committed {
                violations.append("\(check.parents) saves but \(committed) were reported committed (a save was lost)")
            }
            if check.parents > committed + 1 {
                violations.append("\(check.parents) saves but only \(committed) were reported")
            }
            if !violations.isEmpty {
                tally.add("stores out of step after reopening")
                tally.fail("\(at): " + violations.joined(separator: "; "))
            }
            committed = max(committed, check.parents)
            tally.set("saves committed", committed)
        }
        // A long run that never caught a save between its two commits proved nothing about the repair.
        if tally.value("kills") >= 100 && tally.value("kills that left one store a save ahead") == 0 {
            tally.fail(
                "no kill landed between the two stores' commits, so no repair was exercised (raise --store-kills)")
        }
        return
            "\(tally.value("kills")) kills (\(tally.value("kills that left one store a save ahead")) left one store a save ahead): every reopen found both stores with the same saves"
    }

    /// Parents in `parents.store` and `save …` counters in `counters.store`, read with raw
    /// SQLite (what the files hold before any container repairs them); `nil` when either
    /// cannot be read yet (the writer was killed before creating it).
    static func rawCounts(_ directory: URL) -> (Int64, Int64)? {
        func count(_ file: String, _ sql: String) -> Int64? {
            let path = directory.appendingPathComponent(file).path
            guard FileManager.default.fileExists(atPath: path) else { return nil }
            // try?: documented: nil when the file cannot be read.
            guard let db = try? SQLiteConnection(path: path, mode: .readOnly) else { return nil }
            defer { db.close() }
            // try?: as above; a store without the table yet has no saves to compare.
            guard case .integer(let n)? = (try? db.scalar(sql)) ?? nil else { return nil }
            return n
        }
        guard let parents = count("parents.store", "SELECT count(*) FROM ZRELIABILITYPARENT"),
            let counters = count(
                "counters.store", "SELECT count(*) FROM ZRELIABILITYCOUNTER WHERE ZNAME LIKE 'save %'")
        else { return nil }
        return (parents, counters)
    }

    // MARK: Worker roles

    /// Opens the two-store container and saves until killed, printing `committed <n>` after
    /// each save.
    static func writer(_ args: WorkerArguments) throws -> Int32 {
        let run = try args.run
        WorkerIO.say("opening")
        let container = try ModelContainer(for: schema, configurations: configurations(run.directory))
        WorkerIO.say("opened")
        let context = ModelContext(container)
        return try WorkerIO.saveUntilKilled(context, counter: "saves") { value in
            let parent = ReliabilityParent(serial: value, note: CrashLoopProbe.note)
            context.insert(parent)
            parent.children = (0..<CrashLoopProbe.children).map { ReliabilityChild(slot: $0) }
            context.insert(ReliabilityCounter(name: "save \(value)", value: value))
        }
    }

    /// Opens the container, checks both stores, prints `check <json>`, and exits without
    /// closing the stores.
    static func checker(_ args: WorkerArguments) throws -> Int32 {
        let run = try args.run
        var check = Check()
        let container: ModelContainer
        do {
            container = try ModelContainer(for: schema, configurations: configurations(run.directory))
        } catch {
            check.openError = ThrownError(error)
            WorkerIO.sayCheck(check)
            return 0
        }
        check.opened = true
        do {
            let context = ModelContext(container)
            let parents = try context.fetch(FetchDescriptor<ReliabilityParent>(sortBy: [SortDescriptor(\.serial)]))
            check.parents = parents.count
            check.parentSerials = parents.map(\.serial) == Array(stride(from: 1, through: parents.count, by: 1))
            check.children = try context.fetchCount(FetchDescriptor<ReliabilityChild>())
            let counters = try context.fetch(FetchDescriptor<ReliabilityCounter>())
            let saves = counters.filter { $0.name.hasPrefix("save ") }.map(\.value).sorted()
            check.saveCounters = saves.count
            check.counterSerials = saves == Array(stride(from: 1, through: saves.count, by: 1))
            let main = counters.filter { $0.name == "saves" }
            check.counter = main.count == 1 ? main[0].value : (main.isEmpty ? nil : -main.count)
        } catch {
            check.checkError = ThrownError(error)
        }
        WorkerIO.sayCheck(check)
        // Exit with the stores open, as an app that is quit does.
        withExtendedLifetime(container) { exit(0) }
    }

}

import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

#if canImport(Glibc)
    import Glibc
#endif

extension ReliabilityProbe {
    /// A writer process saves one parent, its ten children and the parent counter per save and
    /// is SIGKILLed at seeded moments; after each kill a fresh process must open the store,
    /// find it intact, and find every save whole.
    ///
    /// The moment of each kill is drawn from the seed, in one of four ways: while the writer is
    /// still opening the store (1 kill in 10); during SQLite's automatic checkpoint (1 in 10:
    /// the coordinator watches the main file, and once the checkpoint has written the new header
    /// but not yet the last page it freezes the writer with SIGSTOP, checks the file is still
    /// shorter than its header says, and kills it there); after
    /// 0…``ReliabilityConfiguration/maxSavesBeforeKill`` reported saves plus
    /// 0…``ReliabilityConfiguration/maxKillDelayMicroseconds`` (inside the next save or its
    /// commit, 4 in 10); or at a moment uniform over the writer's life (4 in 10).
    /// Nobody closes the store cleanly (writers are killed, the checker exits without closing,
    /// like an app that is quit), so the WAL is never checkpointed away on close: it grows to
    /// SQLite's automatic-checkpoint size and past the main file, and every reopen starts from
    /// a WAL a killed writer left.
    ///
    /// After each kill, a checker process opens the store with a `ModelContainer` (must succeed)
    /// and checks `PRAGMA integrity_check` = ok, children = 10 × parents, no orphan child,
    /// counter = parents, serials 1…parents, and committed ≤ parents ≤ committed + 1, where
    /// committed is the last save a writer reported on its standard output before the kill.
    package static let crashLoop = ReliabilityProbe(
        name: "crash-loop",
        title: "SIGKILL a writer mid-save, again and again: every reopen succeeds and finds only whole saves",
        runsInWorker: false, body: CrashLoopProbe.run)
}

/// The crash loop's coordinator, writer and checker.
enum CrashLoopProbe {
    /// Children per parent.
    static let children = 10
    /// The counter's name.
    static let counterName = "parents"
    /// Filler for each parent's note, so a save touches several pages.
    static let note = String(repeating: "reliability filler · ", count: 16)

    /// What a checker found after a kill.
    struct Check: Codable {
        var opened = false
        var openError: ThrownError?
        var integrity = ""
        var parents = 0
        var children = 0
        var orphans = 0
        var counter: Int?
        var serialsContiguous = false
        var checkError: ThrownError?
    }

    static func run(_ run: ReliabilityRun, _ tally: inout ReliabilityTally) throws -> String {
        let c = run.configuration
        let store = run.store("crash")
        var rng = run.random("crash-loop")
        var committed = 0
        tally.set("kills", 0)
        tally.set("saves committed", 0)
        tally.set("kills while opening", 0)
        tally.set("kills mid-checkpoint (main file shorter than its header)", 0)
        tally.set("checkpoint kills that missed the checkpoint", 0)
        tally.set("kills with WAL > main file", 0)
        tally.set("largest WAL (KiB)", 0)
        tally.set("failed reopens", 0)
        tally.set("integrity failures", 0)
        tally.set("invariant violations", 0)
        tally.set("writer errors", 0)
        for round in 0..<c.kills {
            let moment = KillMoment.draw(&rng, c)
            let at = "kill \(round + 1) (seed \(c.seed), \(moment))"
            let writer = try run.spawn("crash-writer", ["store=\(store.path)"], label: "writer \(round + 1)")
            var ready = writer.line(startingWith: "opening") != nil
            switch moment {
            case .whileOpening(let delay):
                if ready { usleep(UInt32(delay)) }
            case .afterSaves(let saves, let delay):
                ready = ready && writer.line(startingWith: "opened") != nil && writer.awaitCommits(saves)
                if ready { usleep(UInt32(delay)) }
            case .afterOpening(let delay):
                if ready && writer.line(startingWith: "opened") != nil { usleep(UInt32(delay)) }
            case .duringCheckpoint:
                if ready && writer.line(startingWith: "opened") != nil {
                    // Watch the main file until a checkpoint has written its header but not yet
                    // its last page, then freeze the writer (SIGSTOP) and look again: if the
                    // checkpoint finished before the stop landed, let it go on and watch for the
                    // next one. Bounded by a quarter of the child timeout.
                    let limit = Clock.now + UInt64(c.childTimeout / 4 * 1e9)
                    watch: while Clock.now < limit {
                        if midCheckpoint(store) {
                            writer.stop()
                            if midCheckpoint(store) { break watch }
                            writer.resume()
                        }
                        usleep(20)
                    }
                }
            }
            if writer.killAndTally(at: at, committed: &committed, &tally), case .whileOpening = moment {
                tally.add("kills while opening")
            }
            tally.set("saves committed", committed)

            let mainSize = FileBytes.size(store)
            let walSize = FileBytes.size(FileBytes.wal(store))
            if walSize > mainSize { tally.add("kills with WAL > main file") }
            if midCheckpoint(store) {
                tally.add("kills mid-checkpoint (main file shorter than its header)")
            } else if case .duringCheckpoint = moment {
                tally.add("checkpoint kills that missed the checkpoint")
            }
            tally.set("largest WAL (KiB)", max(tally.value("largest WAL (KiB)"), walSize / 1024))

            let (answer, checkerEnd) = try run.check(
                "crash-checker", ["store=\(store.path)"], label: "checker \(round + 1)", as: Check.self)
            guard let check = answer else {
                tally.add("failed reopens")
                tally.fail("\(at): the checker gave no answer: \(checkerEnd)")
                break
            }
            guard check.opened else {
                tally.add("failed reopens")
                tally.fail(
                    "\(at): reopening the store (main \(mainSize) B, WAL \(walSize) B) failed: \(check.openError.map(\.description) ?? "?")"
                )
                break
            }
            if let e = check.checkError {
                tally.add("failed reopens")
                tally.fail("\(at): reading the reopened store failed: \(e)")
                break
            }
            if check.integrity != "ok" {
                tally.add("integrity failures")
                tally.fail("\(at): integrity_check: \(check.integrity)")
            }
            var violations: [String] = []
            if check.children != children * check.parents {
                violations.append("\(check.children) children for \(check.parents) parents")
            }
            if check.orphans != 0 { violations.append("\(check.orphans) children without a parent") }
            if (check.counter ?? 0) != check.parents {
                violations.append("counter \(check.counter.map(String.init) ?? "missing") but \(check.parents) parents")
            }
            if !check.serialsContiguous { violations.append("parent serials are not 1…\(check.parents)") }
            if check.parents < committed {
                violations.append(
                    "\(check.parents) parents but \(committed) saves were reported committed (a committed save was lost)"
                )
            }
            if check.parents > committed + 1 {
                violations.append(
                    "\(check.parents) parents but only \(committed) saves were reported (more than one unreported save)"
                )
            }
            if !violations.isEmpty {
                tally.add("invariant violations")
                tally.fail("\(at): " + violations.joined(separator: "; "))
            }
            committed = max(committed, check.parents)
            tally.set("saves committed", committed)
        }
        if tally.value("kills with WAL > main file") == 0 && tally.value("kills") > 0 {
            tally.fail(
                "the WAL never grew past the main file, so no reopen had a grown WAL to recover (raise kills or maxSavesBeforeKill)"
            )
        }
        return
            "\(tally.value("kills")) kills, every reopen succeeded with integrity ok and only whole saves (\(tally.value("kills with WAL > main file")) with a WAL larger than the main file)"
    }

    /// When the coordinator kills a writer.
    enum KillMoment: CustomStringConvertible {
        /// `delay` µs after the writer says it is opening the store.
        case whileOpening(delay: Int)
        /// `delay` µs after the writer reported `saves` saves.
        case afterSaves(saves: Int, delay: Int)
        /// `delay` µs after the store is open (uniform over the writer's life).
        case afterOpening(delay: Int)
        /// While SQLite's automatic checkpoint copies the WAL into the main file: the coordinator
        /// watches the main file, freezes the writer once its header promises more pages than it
        /// has, and kills it there.
        case duringCheckpoint

        static func draw(_ rng: inout SeededGenerator, _ c: ReliabilityConfiguration) -> KillMoment {
            switch rng.uniform(in: 0..<20) {
            case 0..<2: return .whileOpening(delay: rng.uniform(in: 0...c.maxKillDelayMicroseconds))
            case 2..<4: return .duringCheckpoint
            case 4..<12:
                return .afterSaves(
                    saves: rng.uniform(in: 0...c.maxSavesBeforeKill),
                    delay: rng.uniform(in: 0...c.maxKillDelayMicroseconds))
            default:
                return .afterOpening(
                    delay: rng.uniform(in: 0...(c.maxSavesBeforeKill * c.maxKillDelayMicroseconds / 2)))
            }
        }

        var description: String {
            switch self {
            case .whileOpening(let d): return "\(d) µs into opening"
            case .afterSaves(let s, let d): return "\(d) µs after save \(s)"
            case .afterOpening(let d): return "\(d) µs after opening"
            case .duringCheckpoint: return "during a checkpoint"
            }
        }
    }

    /// Whether the main file is shorter than its header promises: a checkpoint has written page 1
    /// but not yet the last page.
    static func midCheckpoint(_ url: URL) -> Bool {
        guard let promised = promisedSize(url) else { return false }
        return promised > FileBytes.size(url)
    }

    /// The size the main file's header promises (page count × page size), or `nil` when the
    /// header cannot be read; a kill inside a checkpoint leaves the file shorter than that.
    static func promisedSize(_ url: URL) -> Int? {
        // try?: documented: nil when the header cannot be read.
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        // Read-only and closed at once; this process holds no SQLite connection to the file.
        // try?: a read-only handle; closing it cannot lose data.
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 100), header.count == 100 else { return nil }
        func be(_ offset: Int, _ count: Int) -> Int {
            header[offset..<(offset + count)].reduce(0) { $0 << 8 | Int($1) }
        }
        let pageSize = be(16, 2) == 1 ? 65_536 : be(16, 2)
        return pageSize * be(28, 4)
    }

    // MARK: Worker roles

    /// Opens the store and saves parent + 10 children + counter increment until killed,
    /// printing `committed <counter>` after each save.
    static func writer(_ args: WorkerArguments) throws -> Int32 {
        let store = try args.url("store")
        WorkerIO.say("opening")
        let container = try ModelContainer(
            for: ReliabilitySchemas.crash, configurations: [ModelConfiguration(url: store)])
        WorkerIO.say("opened")
        let context = ModelContext(container)
        return try WorkerIO.saveUntilKilled(context, counter: counterName) { value in
            let parent = ReliabilityParent(serial: value, note: note)
            context.insert(parent)
            parent.children = (0..<children).map { ReliabilityChild(slot: $0) }
        }
    }

    /// Opens the store, checks it, prints `check <json>`, and exits without closing the store.
    static func checker(_ args: WorkerArguments) throws -> Int32 {
        let store = try args.url("store")
        var check = Check()
        let container: ModelContainer
        do {
            container = try ModelContainer(
                for: ReliabilitySchemas.crash, configurations: [ModelConfiguration(url: store)])
        } catch {
            check.openError = ThrownError(error)
            WorkerIO.sayCheck(check)
            return 0
        }
        check.opened = true
        do {
            check.integrity = try container.integrityCheck()
            let context = ModelContext(container)
            check.parents = try context.fetchCount(FetchDescriptor<ReliabilityParent>())
            check.children = try context.fetchCount(FetchDescriptor<ReliabilityChild>())
            check.orphans = try context.fetchCount(
                FetchDescriptor<ReliabilityChild>(predicate: #Predicate { $0.parent == nil }))
            let name = counterName
            let counters = try context.fetch(
                FetchDescriptor<ReliabilityCounter>(predicate: #Predicate { $0.name == name }))
            check.counter = counters.count == 1 ? counters[0].value : (counters.isEmpty ? nil : -counters.count)
            let serials = FetchDescriptor<ReliabilityParent>(sortBy: [SortDescriptor(\.serial)])
            check.serialsContiguous =
                try context.fetch(serials).map(\.serial) == Array(stride(from: 1, through: check.parents, by: 1))
        } catch {
            check.checkError = ThrownError(error)
        }
        WorkerIO.sayCheck(check)
        // Exit with the store open, as an app that is quit does: a clean close would checkpoint
        // and delete the WAL the next writer is meant to find grown.
        withExtendedLifetime(container) { exit(0) }
    }

}

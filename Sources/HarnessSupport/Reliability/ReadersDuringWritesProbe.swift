import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

#if canImport(Glibc)
    import Glibc
#endif

extension ReliabilityProbe {
    /// One writer process saves batches while reader processes fetch with fresh contexts: no
    /// reader may ever see part of a save, and nobody may see an error (no surfaced `SQLITE_BUSY`).
    ///
    /// Save *b* inserts a seeded number (1…8) of ``ReliabilityBatchRow``s, all carrying *b* and
    /// the batch's size, and sets the single ``ReliabilityLedger`` to *b* batches and the running
    /// total of rows. A reader checks, each time with a fresh `ModelContext`: the ledger's total
    /// equals the sum of the sizes of batches 1…*b*; the rows of batches ≤ *b* are exactly that
    /// many; and in one fetch of the latest batches, every batch has all its rows. Each reader
    /// must also see the last save, and must not gain open files. The writer closes its
    /// container and opens a new one every 25 saves (a relaunch), and each reader opens a second
    /// container every 8 reads while its first stays open (an app and its extension) and reads
    /// through that container's `mainContext`: a close may checkpoint and delete the WAL only
    /// when no other process has the store open, and a released container must close its files.
    ///
    /// Torn saves: every save both inserts rows and updates the ledger, so a reader also counts
    /// every row *before* it fetches the ledger (the ledger read later can only be newer, so its
    /// total is at least that count unless a save's inserts became visible before its update),
    /// and reads the ledger's total and the row count in one read transaction, where they must
    /// be equal. A reader thread in the writer's process, on a second container (another
    /// connection), reads the same way while the writer saves.
    package static let readersDuringWrites = ReliabilityProbe(
        name: "readers-during-writes",
        title: "Reader processes never see half a save while a writer process saves",
        runsInWorker: false, body: ReadersDuringWritesProbe.run)
}

/// The readers-during-writes coordinator, writer and readers.
enum ReadersDuringWritesProbe {
    /// What a reader saw.
    struct ReaderReport: Codable {
        var reads = 0
        /// Reads that found anything but whole saves.
        var halfSaves = 0
        /// Reads that saw fewer batches than an earlier read.
        var wentBack = 0
        var errors = 0
        var untypedErrors = 0
        var lastBatch = 0
        /// Reads that saw a save's inserts without its ledger update.
        var tornSaves = 0
        var containersOpened = 0
        var descriptorGrowth = 0
        var messages: [String] = []
    }

    /// Open files a reader may gain over its run (SQLite's own, the standard-error file …);
    /// a container that is never closed keeps three (the store, its `-wal`, its `-shm`).
    static let maximumDescriptorGrowth = 12

    /// Files open in this process.
    static func openDescriptors() -> Int {
        // try?: a diagnostic count where /proc exists; 0 elsewhere only weakens the leak check.
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    /// The size of every batch 1…`saves` (index 0 unused), drawn from the seed.
    static func sizes(seed: UInt64, saves: Int) -> [Int] {
        [0]
            + (0..<saves).map { b in
                1
                    + Int(
                        SeededGenerator.derive(seed, labels: ["readers-during-writes", "batch"], index: UInt64(b + 1))
                            % 8)
            }
    }

    /// The file whose presence tells the readers to stop (the writer failed).
    static func stopFile(_ run: ReliabilityRun) -> URL { run.directory.appendingPathComponent("readers.stop") }

    static func run(_ run: ReliabilityRun, _ tally: inout ReliabilityTally) throws -> String {
        let c = run.configuration
        let store = run.store("batches")
        let total = sizes(seed: c.seed, saves: c.readerSaves).reduce(0, +)
        tally.set("saves", 0)
        tally.set("reader processes", c.readers)
        tally.set("reads", 0)
        tally.set("half-saves seen", 0)
        tally.set("reads older than an earlier read", 0)
        tally.set("read errors", 0)
        tally.set("writer errors", 0)
        tally.set("stale readers", 0)
        tally.set("torn saves seen", 0)
        tally.set("in-process reads", 0)
        tally.set("largest growth of open files in a reader", 0)

        let writer = try run.spawn("batch-writer", ["store=\(store.path)"], label: "writer")
        guard writer.line(startingWith: "ready") != nil else {
            let end = writer.wait()
            tally.add("writer errors")
            tally.fail("the writer did not start: \(writer.allLines.last ?? "") \(writer.describe(end))")
            return ""
        }
        var readers: [ChildProcess] = []
        defer {
            for r in readers {
                r.kill()
                r.wait()
            }
        }
        for i in 0..<c.readers {
            readers.append(try run.spawn("batch-reader", ["store=\(store.path)", "reader=\(i)"], label: "reader \(i)"))
        }
        for r in readers where r.line(startingWith: "ready") == nil {
            tally.fail("\(r.label) did not start: \(r.allLines.last ?? "") \(r.describe(r.wait()))")
        }
        writer.go()
        for r in readers { r.go() }

        let done = writer.line(startingWith: "done ")
        let writerEnd = writer.wait()
        tally.set(
            "saves",
            done.flatMap { Int($0.dropFirst(5)) } ?? writer.allLines.compactMap {
                $0.hasPrefix("saved ") ? Int($0.dropFirst(6)) : nil
            }.max() ?? 0)
        if let error = writer.allLines.first(where: { $0.hasPrefix("error ") }) {
            tally.add("writer errors")
            tally.fail("the writer's save failed: \(error.dropFirst(6))")
        } else if done == nil || writerEnd != .exited(0) {
            tally.add("writer errors")
            tally.fail("the writer did not finish: \(writer.describe(writerEnd))")
        }
        // A reader that has not seen the last save soon after the writer is done (or failed)
        // never will: tell the readers to stop, and report what they last saw.
        let grace = tally.value("writer errors") > 0 ? 0 : min(5, c.childTimeout / 4)
        var stopped = false
        for r in readers {
            var line = r.line(startingWith: "result ", timeout: grace)
            if line == nil && !stopped {
                stopped = true
                _ = FileManager.default.createFile(atPath: stopFile(run).path, contents: nil)
            }
            if line == nil { line = r.line(startingWith: "result ") }
            let end = r.wait()
            // Not swallowed: a missing or undecodable report is a tallied failure just below.
            guard let line,
                let report = try? JSONDecoder().decode(ReaderReport.self, from: Data(line.dropFirst(7).utf8))
            else {
                tally.add("read errors")
                tally.fail("\(r.label) gave no result: \(r.describe(end))")
                continue
            }
            tallyReader(r.label, report, &tally)
        }
        readers = []
        if let line = writer.allLines.first(where: { $0.hasPrefix("in-process ") }),
            let report = try? JSONDecoder().decode(ReaderReport.self, from: Data(line.dropFirst(11).utf8))
        {
            tally.add("in-process reads", report.reads)
            tallyReader("the writer's in-process reader", report, &tally)
        } else if tally.value("writer errors") == 0 {
            tally.fail("the writer's in-process reader gave no result")
        }

        let saves = tally.value("saves")
        do {
            let container = try ModelContainer(
                for: ReliabilitySchemas.batches, configurations: [ModelConfiguration(url: store)])
            let context = ModelContext(container)
            let rows = try context.fetchCount(FetchDescriptor<ReliabilityBatchRow>())
            let ledger = try context.fetch(FetchDescriptor<ReliabilityLedger>())
            let integrity = try container.integrityCheck()
            if integrity != "ok" { tally.fail("integrity_check after the run: \(integrity)") }
            let expected = sizes(seed: c.seed, saves: saves).reduce(0, +)
            if ledger.count != 1 || ledger[0].batches != saves || ledger[0].rows != expected || rows != expected {
                tally.fail(
                    "after \(saves) saves the store has \(rows) rows and ledger \(ledger.map { "\($0.batches)/\($0.rows)" }); expected \(expected) rows"
                )
            }
        } catch {
            tally.fail("reading the store after the run failed: \(ThrownError(error))")
        }
        if saves != c.readerSaves { tally.fail("the writer saved \(saves) of \(c.readerSaves) batches") }
        return
            "\(saves) saves (\(total) rows) under \(c.readers) reader processes: \(tally.value("reads")) reads, 0 half-saves, 0 errors"
    }

    /// Adds what one reader saw to the probe's figures, failing the probe on anything wrong.
    static func tallyReader(_ label: String, _ report: ReaderReport, _ tally: inout ReliabilityTally) {
        tally.add("reads", report.reads)
        tally.add("half-saves seen", report.halfSaves)
        tally.add("reads older than an earlier read", report.wentBack)
        tally.add("torn saves seen", report.tornSaves)
        tally.add("read errors", report.errors)
        tally.set(
            "largest growth of open files in a reader",
            max(tally.value("largest growth of open files in a reader"), report.descriptorGrowth))
        if report.descriptorGrowth > maximumDescriptorGrowth {
            tally.fail(
                "\(label): \(report.descriptorGrowth) more open files after \(report.containersOpened) containers were opened and released (containers are not closed)"
            )
        }
        if report.lastBatch < tally.value("saves") {
            tally.add("stale readers")
            tally.fail(
                "\(label) last saw batch \(report.lastBatch) of \(tally.value("saves")) saved: it stopped seeing new saves"
            )
        }
        for m in report.messages { tally.fail("\(label): \(m)") }
        if report.halfSaves + report.errors > report.messages.count {
            tally.fail(
                "\(label): \(report.halfSaves) of \(report.reads) reads saw more than whole saves (\(report.wentBack) an older state than an earlier read); \(report.errors) reads threw (\(report.untypedErrors) not a SwiftDataError)"
            )
        }
    }

    // MARK: Worker roles

    /// Creates the store and the ledger, waits for go, saves the batches, prints `done <saves>`.
    static func writer(_ args: WorkerArguments) throws -> Int32 {
        let run = try args.run
        let store = try args.url("store")
        let saves = run.configuration.readerSaves
        let size = sizes(seed: run.configuration.seed, saves: saves)
        let configuration = ModelConfiguration(url: store)
        var context: ModelContext? = ModelContext(
            try ModelContainer(for: ReliabilitySchemas.batches, configurations: [configuration]))
        context?.insert(ReliabilityLedger(batches: 0, rows: 0))
        try context?.save()
        guard WorkerIO.readyThenWait() else { return 1 }
        let inProcess = InProcessReader(
            configuration, Plan(seed: run.configuration.seed, saves: saves), timeout: run.configuration.childTimeout - 5
        )
        for b in stride(from: 1, through: saves, by: 1) {
            do {
                if b % 25 == 0 {
                    // Close the container (its context holds it), then open a new one: an app relaunching.
                    context = nil
                    context = ModelContext(
                        try ModelContainer(for: ReliabilitySchemas.batches, configurations: [configuration]))
                }
                guard let context else { throw ReliabilityWorkerError("no context") }
                guard let ledger = try context.fetch(FetchDescriptor<ReliabilityLedger>()).first else {
                    throw ReliabilityWorkerError("the ledger is gone before batch \(b)")
                }
                for slot in 0..<size[b] { context.insert(ReliabilityBatchRow(batch: b, slot: slot, size: size[b])) }
                ledger.batches = b
                ledger.rows += size[b]
                try context.save()
            } catch {
                WorkerIO.say("error batch \(b): \(ThrownError(error))")
                return 1
            }
            if b % 100 == 0 { WorkerIO.say("saved \(b)") }
        }
        let report = inProcess.finish()
        WorkerIO.say("in-process " + String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
        WorkerIO.say("done \(saves)")
        return 0
    }

    /// A reader thread in the writer's process, on its own container (another connection to
    /// the file), reading while the writer saves.
    final class InProcessReader: @unchecked Sendable {
        private let lock = NSLock()
        private let finished = DispatchSemaphore(value: 0)
        private var stopRequested = false
        private var report = ReaderReport()

        /// Starts the thread; it reads until it has seen the last batch, ``finish()`` is
        /// called, or `timeout` seconds pass.
        init(_ configuration: ModelConfiguration, _ plan: Plan, timeout: Double) {
            let thread = Thread { [self] in
                var report = ReaderReport()
                do {
                    let container = try ModelContainer(
                        for: ReliabilitySchemas.batches, configurations: [configuration])
                    report = ReadersDuringWritesProbe.readUntilDone(container, configuration, plan, timeout: timeout) {
                        self.lock.withLock { self.stopRequested }
                    }
                } catch {
                    report.errors += 1
                    report.messages.append("opening a second container in the writer's process: \(ThrownError(error))")
                }
                lock.withLock { self.report = report }
                finished.signal()
            }
            thread.start()
        }

        /// Waits (at most 30 s) for the thread to see the last batch and returns what it saw.
        func finish() -> ReaderReport {
            if finished.wait(timeout: .now() + 30) == .timedOut {
                lock.withLock { stopRequested = true }
                _ = finished.wait(timeout: .now() + 5)
            }
            return lock.withLock { report }
        }
    }

    /// What the writer saves: batch sizes and their running totals.
    struct Plan {
        let saves: Int
        /// `size[b]`: rows of batch b (index 0 unused).
        let size: [Int]
        /// `prefix[b]`: rows of batches 1…b.
        let prefix: [Int]

        init(seed: UInt64, saves: Int) {
            self.saves = saves
            size = ReadersDuringWritesProbe.sizes(seed: seed, saves: saves)
            var prefix = [0]
            for b in 1..<size.count { prefix.append(prefix[b - 1] + size[b]) }
            self.prefix = prefix
        }
    }

    /// What one read found: the ledger's batch count, and what was wrong.
    struct Read {
        var batches = 0
        /// The ledger shows fewer batches than an earlier read did (committed saves vanished).
        var wentBack = false
        /// A save's inserts were visible before its ledger update.
        var torn = false
        var problems: [String] = []
    }

    /// Counts every row, then reads the ledger, the count of the rows it covers, and the latest
    /// batches, each in one statement (one snapshot), and checks them against the plan. The
    /// ledger, read after the first count, must count at least as many rows: fewer means a
    /// save's inserts were visible before its update of the ledger (a torn save).
    static func inspect(_ context: ModelContext, _ plan: Plan, seenBefore: Int) throws -> Read {
        var read = Read()
        let visibleBefore = try context.fetchCount(FetchDescriptor<ReliabilityBatchRow>())
        let ledgers = try context.fetch(FetchDescriptor<ReliabilityLedger>())
        guard ledgers.count == 1 else {
            read.problems.append("\(ledgers.count) ledger rows")
            return read
        }
        let n = ledgers[0].batches
        read.batches = n
        if visibleBefore > ledgers[0].rows {
            read.torn = true
            read.problems.append(
                "\(visibleBefore) rows were visible, then the ledger counted \(ledgers[0].rows) (a save's inserts visible before its update: a torn save)"
            )
        }
        guard n >= 0, n <= plan.saves else {
            read.problems.append("the ledger says \(n) batches; the writer saves \(plan.saves)")
            return read
        }
        if n < seenBefore {
            read.wentBack = true
            read.problems.append("the ledger says \(n) batches after \(seenBefore) were seen")
        }
        if ledgers[0].rows != plan.prefix[n] {
            read.problems.append(
                "the ledger says \(n) batches and \(ledgers[0].rows) rows; those batches have \(plan.prefix[n])")
        }
        let upTo = try context.fetchCount(FetchDescriptor<ReliabilityBatchRow>(predicate: #Predicate { $0.batch <= n }))
        if upTo != plan.prefix[n] {
            read.problems.append("\(upTo) rows in batches 1…\(n); expected \(plan.prefix[n])")
        }
        let low = n - 3
        let recent = try context.fetch(FetchDescriptor<ReliabilityBatchRow>(predicate: #Predicate { $0.batch > low }))
        var slots: [Int: Set<Int>] = [:]
        for row in recent { slots[row.batch, default: []].insert(row.slot) }
        for (batch, seen) in slots.sorted(by: { $0.key < $1.key }) {
            if batch < 1 || batch > plan.saves {
                read.problems.append("a row of batch \(batch), which the writer never saves")
            } else if seen != Set(0..<plan.size[batch]) {
                read.problems.append(
                    "batch \(batch) seen with slots \(seen.sorted()) of 0..<\(plan.size[batch]) (half a save)")
            }
        }
        return read
    }

    /// The ledger's total and the number of rows, read in one read transaction on the
    /// container's connection (`BEGIN` … `COMMIT`): a problem when they differ, else `nil`.
    ///
    /// ```sql
    /// BEGIN
    /// SELECT ZROWS FROM ZRELIABILITYLEDGER
    /// SELECT count(*) FROM ZRELIABILITYBATCHROW
    /// COMMIT
    /// ```
    static func snapshot(_ container: ModelContainer) throws -> String? {
        try container.withStoreConnection { db in
            try db.execute("BEGIN")
            defer {
                // try?: a read transaction; ending it cannot lose data, and a failure here is reported by the next read.
                try? db.execute("COMMIT")
            }
            let ledger = try db.rows("SELECT ZROWS FROM ZRELIABILITYLEDGER")
            let rows = try db.scalar("SELECT count(*) FROM ZRELIABILITYBATCHROW")
            guard ledger.count == 1, case .integer(let total)? = ledger[0].first, case .integer(let count)? = rows
            else {
                return
                    "one read transaction found \(ledger.count) ledger rows and \(rows.map { "\($0)" } ?? "no") row count"
            }
            return total == count
                ? nil
                : "one read transaction found \(count) rows and a ledger total of \(total) (a torn save)"
        }
    }

    /// Reads with fresh contexts until it has seen the last batch (or is told to stop, or its
    /// time is up) and prints `result <json>`.
    static func reader(_ args: WorkerArguments) throws -> Int32 {
        let run = try args.run
        let store = try args.url("store")
        let plan = Plan(seed: run.configuration.seed, saves: run.configuration.readerSaves)
        let configuration = ModelConfiguration(url: store)
        let container = try ModelContainer(for: ReliabilitySchemas.batches, configurations: [configuration])
        guard WorkerIO.readyThenWait() else { return 1 }
        let descriptorsAtStart = openDescriptors()
        let stopFile = stopFile(run).path
        var report = readUntilDone(
            container, configuration, plan, timeout: run.configuration.childTimeout - 5
        ) { FileManager.default.fileExists(atPath: stopFile) }
        report.descriptorGrowth = openDescriptors() - descriptorsAtStart
        let json = try JSONEncoder().encode(report)
        WorkerIO.say("result " + String(decoding: json, as: UTF8.self))
        return 0
    }

    /// Reads (``inspect(_:_:seenBefore:)`` with a fresh context, and ``snapshot(_:)``) until the
    /// last batch is seen, `stopped()` says so (asked every 16 reads), or `timeout` seconds pass.
    static func readUntilDone(
        _ container: ModelContainer, _ configuration: ModelConfiguration, _ plan: Plan, timeout: Double,
        stopped: () -> Bool
    ) -> ReaderReport {
        let stop = Clock.now + UInt64(max(1, timeout) * 1e9)
        var report = ReaderReport()
        var kept = (bad: 0, errors: 0)
        // The first two messages of each kind: a stale view repeats on every later read.
        func note(_ message: String, error: Bool) {
            if error { kept.errors += 1 } else { kept.bad += 1 }
            if (error ? kept.errors : kept.bad) <= 2 { report.messages.append(message) }
        }
        // Bounded by the number of saves (a reader stops once it has seen the last one), by the
        // coordinator's stop file and by time.
        var iteration = 0
        while report.lastBatch < plan.saves && Clock.now < stop && iteration < 10_000_000 {
            iteration += 1
            if iteration % 16 == 0 && stopped() { break }
            do {
                // Every 8th read goes through a second container opened while the first stays
                // open, and through its main context, as an app's UI reads.
                let second =
                    iteration % 8 == 0
                    ? try ModelContainer(for: ReliabilitySchemas.batches, configurations: [configuration]) : nil
                if second != nil { report.containersOpened += 1 }
                var read = try inspect(
                    second?.mainContext ?? ModelContext(container), plan, seenBefore: report.lastBatch)
                if let problem = try snapshot(second ?? container) {
                    read.torn = true
                    read.problems.append(problem)
                }
                report.reads += 1
                if !read.problems.isEmpty {
                    report.halfSaves += 1
                    if read.wentBack { report.wentBack += 1 }
                    if read.torn { report.tornSaves += 1 }
                    note("read \(iteration): " + read.problems.joined(separator: "; "), error: false)
                    usleep(1_000)
                }
                report.lastBatch = max(report.lastBatch, read.batches)
            } catch {
                let thrown = ThrownError(error)
                report.errors += 1
                if !thrown.typed { report.untypedErrors += 1 }
                note("read \(iteration): \(thrown)", error: true)
                usleep(1_000)
            }
        }
        return report
    }
}

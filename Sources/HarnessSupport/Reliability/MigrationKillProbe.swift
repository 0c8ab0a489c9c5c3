import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

#if canImport(Glibc)
    import Glibc
#endif

extension ReliabilityProbe {
    /// A worker opens a store of the old schema with a three-version plan (a lightweight stage,
    /// then a custom stage whose `willMigrate` and `didMigrate` rewrite values), or, every second
    /// round, with the second version's models and no plan (an inferred migration), and is
    /// SIGKILLed at a seeded moment of the migration; after each kill a checker process finds the
    /// store entirely old or entirely at the worker's version, opens it with the plan, and finds
    /// no scratch file left (MIG-11, MIG-26).
    ///
    /// The store starts each round as a copy of one old-schema store of
    /// ``ReliabilityConfiguration/migrationRows`` rows. A first, unkilled migration measures how
    /// long a migration takes; 7 kills in 10 then land 0…1.1 × that long after the worker starts
    /// opening (before the working copy is made, while a stage runs, or just after the commit),
    /// and 3 in 10 during the write-back: the coordinator watches the store's WAL, which grows
    /// only once the migrated content is being written back to the store, and kills 0…1/50 of
    /// that length later (before the commit, or just after it).
    ///
    /// After each kill the checker, before anything opens the store with the plan, counts the
    /// scratch files beside it and opens it read-only with the old version's models and then the
    /// worker's target version's (no plan): exactly one must open, and every row must carry that
    /// version's values (count and a digest of every value). Then it opens the store with the plan: the
    /// migration must succeed, every row must carry the new values, and no scratch file may be
    /// left in the directory.
    package static let migrations = ReliabilityProbe(
        name: "migrations",
        title:
            "SIGKILL a migration at a random moment: the store is entirely old or entirely new, no row lost, no scratch left",
        runsInWorker: false, body: MigrationKillProbe.run)
}

/// The first version of the migrated model: a serial, a value and a label per row.
enum ReliabilityMigrationV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [ReliabilityMigrated.self] }

    /// One row of the store a migration rewrites.
    @Model final class ReliabilityMigrated {
        /// 1…rows, unique to the row.
        var serial: Int
        /// A value derived from the serial (``MigrationKillProbe/value(_:)``).
        var value: Int
        /// `item-<serial>`.
        var label: String
        /// A row with its values.
        init(serial: Int, value: Int, label: String) {
            self.serial = serial
            self.value = value
            self.label = label
        }
    }
}

/// The second version: `label` renamed to `title` (kept through `originalName`) and an optional
/// `note` added; reached from the first by a lightweight stage.
enum ReliabilityMigrationV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [ReliabilityMigrated.self] }

    /// One row of the store a migration rewrites.
    @Model final class ReliabilityMigrated {
        /// 1…rows, unique to the row.
        var serial: Int
        /// A value derived from the serial.
        var value: Int
        /// The first version's `label`.
        @Attribute(originalName: "label") var title: String
        /// Added empty.
        var note: String?
        /// A row with its values.
        init(serial: Int, value: Int, title: String) {
            self.serial = serial
            self.value = value
            self.title = title
        }
    }
}

/// The third version: `doubled` added (twice `value`); reached from the second by a custom
/// stage whose `willMigrate` marks every title and whose `didMigrate` fills `doubled`.
enum ReliabilityMigrationV3: VersionedSchema {
    static let versionIdentifier = Schema.Version(3, 0, 0)
    static var models: [any PersistentModel.Type] { [ReliabilityMigrated.self] }

    /// One row of the store a migration rewrites.
    @Model final class ReliabilityMigrated {
        /// 1…rows, unique to the row.
        var serial: Int
        /// A value derived from the serial.
        var value: Int
        /// The first version's `label` with ``MigrationKillProbe/mark`` appended.
        var title: String
        /// Still empty.
        var note: String?
        /// Twice `value`, filled by `didMigrate`.
        var doubled: Int = 0
        /// A row with its values.
        init(serial: Int, value: Int, title: String) {
            self.serial = serial
            self.value = value
            self.title = title
        }
    }
}

/// The plan the killed migrations run: V1 → V2 lightweight, V2 → V3 custom.
enum ReliabilityMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] {
        [ReliabilityMigrationV1.self, ReliabilityMigrationV2.self, ReliabilityMigrationV3.self]
    }

    static var stages: [MigrationStage] {
        [
            .lightweight(fromVersion: ReliabilityMigrationV1.self, toVersion: ReliabilityMigrationV2.self),
            .custom(
                fromVersion: ReliabilityMigrationV2.self, toVersion: ReliabilityMigrationV3.self,
                willMigrate: { context in
                    for row in try context.fetch(FetchDescriptor<ReliabilityMigrationV2.ReliabilityMigrated>()) {
                        row.title += MigrationKillProbe.mark
                    }
                    try context.save()
                },
                didMigrate: { context in
                    for row in try context.fetch(FetchDescriptor<ReliabilityMigrationV3.ReliabilityMigrated>()) {
                        row.doubled = row.value * 2
                    }
                    try context.save()
                }),
        ]
    }
}

/// The migration probe's coordinator, worker and checker.
enum MigrationKillProbe {
    /// What `willMigrate` appends to every title.
    static let mark = " (migrated)"

    /// The value row `serial` is created with.
    static func value(_ serial: Int) -> Int { serial &* 7_919 % 100_003 }

    /// The old version's label of row `serial`.
    static func label(_ serial: Int) -> String { "item-\(serial)" }

    /// What a checker found after a kill.
    struct Check: Codable {
        /// Scratch files beside the store before anything opened it.
        var scratchAfterKill = 0
        /// Whether the old version's models opened the store (no plan).
        var opensAsOld = false
        /// Whether the worker's target version's models opened the store (no plan): V3, or V2
        /// for an inferred migration.
        var opensAsNew = false
        /// Rows the version that opened found.
        var rowsBefore = 0
        /// Whether those rows are exactly the expected rows of that version.
        var rowsBeforeMatch = false
        /// Whether opening with the plan succeeded.
        var migrated = false
        /// Rows found after opening with the plan.
        var rowsAfter = 0
        /// Whether those rows are exactly the new version's expected rows.
        var rowsAfterMatch = false
        /// Scratch files beside the store after it was opened with the plan.
        var scratchAfterOpen = 0
        /// The error that stopped the check, if any.
        var error: ThrownError?
    }

    static func run(_ run: ReliabilityRun, _ tally: inout ReliabilityTally) throws -> String {
        let c = run.configuration
        let template = run.store("migration-template")
        let store = run.store("migration")
        var rng = run.random("migrations")
        for figure in [
            "kills", "stores old after a kill", "stores new after a kill", "rows checked",
            "kills that left scratch files", "scratch files left after reopening", "half-migrated stores",
            "lost or changed rows", "failed reopens", "worker errors", "kills aimed at the write-back",
            "kills of inferred migrations",
        ] {
            tally.set(figure, 0)
        }
        try makeTemplate(template, rows: c.migrationRows)

        // One migration to the end, unkilled: it must succeed, and its length bounds the kill moments.
        try restore(template, to: store)
        let calibration = try run.spawn(
            "migration-worker", ["store=\(store.path)", "inferred=0"], label: "migration 0")
        _ = calibration.line(startingWith: "opening")
        let start = Clock.now
        let opened = calibration.line(startingWith: "opened")
        let length = Int(Clock.seconds(since: start) * 1e6)
        calibration.kill()
        let calibrationEnd = calibration.wait()
        guard opened != nil else {
            tally.add("worker errors")
            tally.fail("the unkilled migration did not finish: \(calibration.describe(calibrationEnd))")
            return ""
        }
        tally.set("migration length (ms)", length / 1_000)

        for round in 1...max(1, c.migrationKills) {
            // 3 kills in 10 aim at the write-back (the last step, whose commit makes the store new).
            let atWriteBack = rng.uniform(in: 0..<10) < 3
            // Every second round migrates by inference: V2's models, no plan.
            let inferred = round % 2 == 0
            // Otherwise up to a tenth past the measured length, so some kills land just after the commit.
            let delay =
                atWriteBack
                ? rng.uniform(in: 0...max(1, length / 50)) : rng.uniform(in: 0...max(1, length + length / 10))
            let at =
                "kill \(round) (seed \(c.seed), \(delay) µs \(atWriteBack ? "into the write-back" : "into the migration"))"
            try restore(template, to: store)
            let walBefore = fileSize(FileBytes.wal(store))
            let worker = try run.spawn(
                "migration-worker", ["store=\(store.path)", "inferred=\(inferred ? 1 : 0)"], label: "migration \(round)"
            )
            if worker.line(startingWith: "opening") != nil {
                if atWriteBack {
                    // The store's WAL grows only when the migrated content is written back to it.
                    // Bounded by a quarter of the child timeout, and by the worker's end.
                    let limit = Clock.now + UInt64(c.childTimeout / 4 * 1e9)
                    var polls = 0
                    while Clock.now < limit && fileSize(FileBytes.wal(store)) <= walBefore {
                        polls += 1
                        if polls % 200 == 0
                            && worker.allLines.contains(where: { $0 == "opened" || $0.hasPrefix("error ") })
                        {
                            break
                        }
                        usleep(50)
                    }
                    if fileSize(FileBytes.wal(store)) > walBefore { tally.add("kills aimed at the write-back") }
                }
                usleep(UInt32(min(delay, Int(UInt32.max))))
            }
            worker.kill()
            let termination = worker.wait()
            if let error = worker.allLines.first(where: { $0.hasPrefix("error ") }) {
                tally.add("worker errors")
                tally.fail("\(at): the migration failed: \(error.dropFirst(6))")
                continue
            }
            guard termination == .signalled(SIGKILL) else {
                tally.add("worker errors")
                tally.fail("\(at): \(worker.describe(termination)) before the kill")
                continue
            }
            tally.add("kills")
            if inferred { tally.add("kills of inferred migrations") }

            let (answer, checkerEnd) = try run.check(
                "migration-checker",
                ["store=\(store.path)", "rows=\(c.migrationRows)", "inferred=\(inferred ? 1 : 0)"],
                label: "checker \(round)",
                as: Check.self)
            guard let check = answer else {
                tally.add("failed reopens")
                tally.fail("\(at): the checker gave no answer: \(checkerEnd)")
                continue
            }
            tally.record(check, at: at, rows: c.migrationRows)
        }
        if tally.value("kills that left scratch files") == 0 && tally.value("kills") > 0 {
            tally.fail(
                "no kill landed while a migration had its working copy, so no reopen had scratch to remove (raise the kills or the rows)"
            )
        }
        return
            "\(tally.value("kills")) migrations killed (\(tally.value("kills of inferred migrations")) inferred): \(tally.value("stores old after a kill")) stores old, \(tally.value("stores new after a kill")) new, none half; every reopen migrated \(c.migrationRows) rows and left no scratch (\(tally.value("kills that left scratch files")) kills had left some)"
    }

    /// Writes the old-version store of `rows` rows the rounds start from, and closes it.
    static func makeTemplate(_ url: URL, rows: Int) throws {
        let container = try ModelContainer(
            for: Schema(versionedSchema: ReliabilityMigrationV1.self), configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        var serial = 1
        while serial <= rows {
            let end = min(rows, serial + 4_999)
            for s in serial...end {
                context.insert(ReliabilityMigrationV1.ReliabilityMigrated(serial: s, value: value(s), label: label(s)))
            }
            try context.save()
            serial = end + 1
        }
    }

    /// Replaces the store (and its companion files) with a copy of the template's.
    static func restore(_ template: URL, to store: URL) throws {
        let fm = FileManager.default
        for suffix in ["", "-wal", "-shm", "-journal"] where fm.fileExists(atPath: store.path + suffix) {
            try fm.removeItem(atPath: store.path + suffix)
        }
        for suffix in ["", "-wal"] where fm.fileExists(atPath: template.path + suffix) {
            try fm.copyItem(atPath: template.path + suffix, toPath: store.path + suffix)
        }
    }

    /// The size of the file at `url` in bytes, 0 when it is missing (one `stat`, cheap enough to poll).
    static func fileSize(_ url: URL) -> Int {
        var info = stat()
        return stat(url.path, &info) == 0 ? Int(info.st_size) : 0
    }

    /// The migrations' working copies beside `store` (any name starting `.<store>.migrating-`).
    static func scratchFiles(_ store: URL) -> [String] {
        // try?: an unlistable directory is reported as no scratch; the checker's open fails then.
        let names = (try? FileManager.default.contentsOfDirectory(atPath: store.deletingLastPathComponent().path)) ?? []
        return names.filter { $0.hasPrefix(".\(store.lastPathComponent).migrating-") }
    }

    /// A digest of rows given as one text per row, in serial order (FNV-1a, the same in every process).
    static func digest(_ texts: [String]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for text in texts {
            for byte in text.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
            hash ^= 0x0a
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    /// The old version's expected digest of `rows` rows.
    static func oldDigest(rows: Int) -> UInt64 {
        digest((0..<rows).map { oldText($0 + 1, value($0 + 1), label($0 + 1)) })
    }

    /// The second version's expected digest of `rows` rows (an inferred migration's result).
    static func intermediateDigest(rows: Int) -> UInt64 {
        digest((0..<rows).map { intermediateText($0 + 1, value($0 + 1), label($0 + 1), nil) })
    }

    private static func intermediateText(_ serial: Int, _ value: Int, _ title: String, _ note: String?) -> String {
        "\(serial)|\(value)|\(title)|\(note ?? "nil")"
    }

    /// The new version's expected digest of `rows` rows.
    static func newDigest(rows: Int) -> UInt64 {
        digest((0..<rows).map { newText($0 + 1, value($0 + 1), label($0 + 1) + mark, nil, value($0 + 1) * 2) })
    }

    private static func oldText(_ serial: Int, _ value: Int, _ label: String) -> String {
        "\(serial)|\(value)|\(label)"
    }

    private static func newText(_ serial: Int, _ value: Int, _ title: String, _ note: String?, _ doubled: Int)
        -> String
    {
        "\(serial)|\(value)|\(title)|\(note ?? "nil")|\(doubled)"
    }

    // MARK: Worker roles

    /// Opens the store with the plan (migrating it; `inferred=1`: with V2's models and no plan,
    /// an inferred migration), prints `opened`, and waits to be killed.
    static func worker(_ args: WorkerArguments) throws -> Int32 {
        let store = try args.url("store")
        let inferred = try args.int("inferred") == 1
        WorkerIO.say("opening")
        let container: ModelContainer
        do {
            container =
                inferred
                ? try ModelContainer(
                    for: Schema(versionedSchema: ReliabilityMigrationV2.self),
                    configurations: ModelConfiguration(url: store))
                : try ModelContainer(
                    for: Schema(versionedSchema: ReliabilityMigrationV3.self),
                    migrationPlan: ReliabilityMigrationPlan.self, configurations: ModelConfiguration(url: store))
        } catch {
            WorkerIO.say("error \(ThrownError(error))")
            return 1
        }
        WorkerIO.say("opened")
        withExtendedLifetime(container) { _ = WorkerIO.readyThenWait() }
        return 0
    }

    /// Checks a store a killed migration left (see ``ReliabilityProbe/migrations``) and prints
    /// `check <json>`.
    static func checker(_ args: WorkerArguments) throws -> Int32 {
        let store = try args.url("store")
        let rows = try args.int("rows")
        let inferred = try args.int("inferred") == 1
        var check = Check()
        check.scratchAfterKill = scratchFiles(store).count
        do {
            try checkBefore(store, rows: rows, inferred: inferred, &check)
            let container = try ModelContainer(
                for: Schema(versionedSchema: ReliabilityMigrationV3.self),
                migrationPlan: ReliabilityMigrationPlan.self, configurations: ModelConfiguration(url: store))
            check.migrated = true
            let found = try newRows(ModelContext(container))
            check.rowsAfter = found.count
            check.rowsAfterMatch = found.count == rows && digest(found) == newDigest(rows: rows)
            check.scratchAfterOpen = scratchFiles(store).count
        } catch {
            check.error = ThrownError(error)
        }
        WorkerIO.sayCheck(check)
        return 0
    }

    /// Opens the store without the plan, with the old models and then the new ones, and
    /// compares the rows of whichever opened with that version's expected rows. Both opens are
    /// read-only, so neither migrates the store by inference.
    private static func checkBefore(_ store: URL, rows: Int, inferred: Bool, _ check: inout Check) throws {
        let configuration = ModelConfiguration(url: store, allowsSave: false)
        // try?: a store of the other version refuses to open; which one opens is the finding.
        if let old = try? ModelContainer(
            for: Schema(versionedSchema: ReliabilityMigrationV1.self), configurations: configuration)
        {
            check.opensAsOld = true
            let sorted = FetchDescriptor<ReliabilityMigrationV1.ReliabilityMigrated>(sortBy: [SortDescriptor(\.serial)])
            let found = try ModelContext(old).fetch(sorted).map { oldText($0.serial, $0.value, $0.label) }
            check.rowsBefore = found.count
            check.rowsBeforeMatch = found.count == rows && digest(found) == oldDigest(rows: rows)
        }
        // try?: as above.
        if inferred,
            let new = try? ModelContainer(
                for: Schema(versionedSchema: ReliabilityMigrationV2.self), configurations: configuration)
        {
            check.opensAsNew = true
            let sorted = FetchDescriptor<ReliabilityMigrationV2.ReliabilityMigrated>(sortBy: [SortDescriptor(\.serial)])
            let found = try ModelContext(new).fetch(sorted).map {
                intermediateText($0.serial, $0.value, $0.title, $0.note)
            }
            check.rowsBefore = found.count
            check.rowsBeforeMatch = found.count == rows && digest(found) == intermediateDigest(rows: rows)
        }
        // try?: as above.
        if !inferred,
            let new = try? ModelContainer(
                for: Schema(versionedSchema: ReliabilityMigrationV3.self), configurations: configuration)
        {
            check.opensAsNew = true
            let found = try newRows(ModelContext(new))
            check.rowsBefore = found.count
            check.rowsBeforeMatch = found.count == rows && digest(found) == newDigest(rows: rows)
        }
    }

    /// The new version's rows as texts, in serial order.
    private static func newRows(_ context: ModelContext) throws -> [String] {
        let sorted = FetchDescriptor<ReliabilityMigrationV3.ReliabilityMigrated>(sortBy: [SortDescriptor(\.serial)])
        return try context.fetch(sorted).map { newText($0.serial, $0.value, $0.title, $0.note, $0.doubled) }
    }
}

extension ReliabilityTally {
    /// Tallies what a migration checker found after one kill.
    fileprivate mutating func record(_ check: MigrationKillProbe.Check, at: String, rows: Int) {
        set("rows checked", value("rows checked") + check.rowsBefore + check.rowsAfter)
        if check.scratchAfterKill > 0 { add("kills that left scratch files") }
        switch (check.opensAsOld, check.opensAsNew) {
        case (true, false): add("stores old after a kill")
        case (false, true): add("stores new after a kill")
        default:
            add("half-migrated stores")
            fail(
                "\(at): the store opened \(check.opensAsOld ? "with both versions' models" : "with neither version's models") (its version hashes are neither old nor new)"
            )
        }
        if (check.opensAsOld || check.opensAsNew) && !check.rowsBeforeMatch {
            add("lost or changed rows")
            fail(
                "\(at): the \(check.opensAsOld ? "old" : "new") store has \(check.rowsBefore) rows of \(rows), or values that are not all that version's"
            )
        }
        if let error = check.error {
            add("failed reopens")
            fail("\(at): checking the store failed: \(error)")
            return
        }
        if !check.rowsAfterMatch {
            add("lost or changed rows")
            fail("\(at): after opening with the plan, \(check.rowsAfter) rows of \(rows), or values not all migrated")
        }
        if check.scratchAfterOpen > 0 {
            set(
                "scratch files left after reopening",
                value("scratch files left after reopening") + check.scratchAfterOpen)
            fail("\(at): \(check.scratchAfterOpen) scratch file(s) beside the store after opening it with the plan")
        }
    }
}

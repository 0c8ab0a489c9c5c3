import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

#if canImport(Glibc)
    import Glibc
#endif

extension ReliabilityProbe {
    /// Opens a `ModelContainer` on damaged, foreign or impossible files (`BadFileKind.all`):
    /// each must give a typed `SwiftDataError` and leave the main file and its `-wal` byte for
    /// byte as they were, or — where SQLite can read the file — open and show exactly the
    /// committed rows with integrity ok.
    ///
    /// Read-only cases use `allowsSave: false` (CI runs as root, and root ignores `chmod`).
    package static let badFiles = ReliabilityProbe(
        name: "bad-files",
        title:
            "Damaged, foreign and impossible files give typed errors and stay unchanged, or open with all committed rows",
        runsInWorker: true, body: BadFilesProbe.run)
}

/// What opening a bad file must do.
enum BadFileExpectation: String, Codable {
    /// A typed error, and the watched files unchanged.
    case typedError
    /// Open, showing exactly the expected rows, integrity ok.
    case opens
    /// Either of the above.
    case typedErrorOrOpens
    /// A read-only configuration: a typed error or an open showing the expected rows; either
    /// way nothing on disk may change.
    case readOnly
}

/// A file prepared for one bad-file case.
struct BadFileSetup {
    /// The store location the configuration names.
    var url: URL
    /// Files whose bytes must not change when the open fails (or, read-only, at all).
    var watched: [URL]
    /// The rows (serials) an open must show; `nil` when any consistent prefix is fine.
    var rows: [Int]?
    /// For a truncated WAL: rows are saved in batches of this many, so a prefix is a multiple of it.
    var prefixOf: (batch: Int, maximum: Int)? = nil
    /// The configuration's `allowsSave`.
    var allowsSave = true
}

/// One kind of bad file: a name, what opening it must do, and how to make it.
struct BadFileKind {
    let name: String
    let expectation: BadFileExpectation
    let make: (BadFilesProbe.Maker) throws -> BadFileSetup

    /// Every kind the probe opens.
    static var all: [BadFileKind] {
        [
            BadFileKind(name: "text file", expectation: .typedError) { m in
                try m.write(Data(String(repeating: "This is not a database, it is a shopping list.\n", count: 80).utf8))
            },
            BadFileKind(name: "random bytes", expectation: .typedError) { m in try m.write(m.garbage(16_384)) },
            BadFileKind(name: "SQLite header then random bytes", expectation: .typedError) { m in
                try m.write(Data("SQLite format 3\u{0}".utf8) + m.garbage(8_176))
            },
            BadFileKind(name: "truncated mid-header", expectation: .typedError) { m in try m.truncatedStore(to: 60) },
            BadFileKind(name: "truncated after page 1", expectation: .typedError) { m in try m.truncatedStore(to: 4_096)
            },
            BadFileKind(name: "truncated mid-file at a page boundary", expectation: .typedError) { m in
                try m.truncatedStore { $0 / 2 / 4_096 * 4_096 }
            },
            BadFileKind(name: "truncated mid-page", expectation: .typedError) { m in
                try m.truncatedStore { $0 / 2 / 4_096 * 4_096 + 1_000 }
            },
            BadFileKind(name: "zero bytes, allowsSave: false", expectation: .readOnly) { m in
                var s = try m.write(Data())
                s.allowsSave = false
                s.rows = []
                return s
            },
            BadFileKind(name: "store opened with allowsSave: false", expectation: .readOnly) { m in
                var s = try m.cleanStore()
                s.allowsSave = false
                return s
            },
            BadFileKind(name: "zero bytes (becomes a new store)", expectation: .opens) { m in
                var s = try m.write(Data())
                s.rows = []
                return s
            },
            BadFileKind(name: "SQLite database of another app", expectation: .typedError) { m in
                try m.otherAppDatabase()
            },
            BadFileKind(name: "store of another schema", expectation: .typedError) { m in try m.otherSchemaStore() },
            BadFileKind(name: "directory at the path", expectation: .typedError) { m in
                try FileManager.default.createDirectory(at: m.url, withIntermediateDirectories: true)
                return BadFileSetup(url: m.url, watched: [], rows: nil)
            },
            BadFileKind(name: "path below a regular file", expectation: .typedError) { m in
                let file = m.url.deletingLastPathComponent().appendingPathComponent("\(m.url.lastPathComponent).txt")
                try Data("a regular file".utf8).write(to: file)
                return BadFileSetup(url: file.appendingPathComponent("inside.store"), watched: [file], rows: nil)
            },
            BadFileKind(name: "a page overwritten with garbage", expectation: .typedError) { m in
                try m.damagedStore { bytes, rng in
                    let page = bytes.count / 4_096 - 1
                    let garbage = rng.bytes(4_096)
                    bytes.replaceSubrange((page * 4_096)..<((page + 1) * 4_096), with: garbage)
                }
            },
            BadFileKind(name: "header magic damaged", expectation: .typedError) { m in
                try m.damagedStore { bytes, _ in bytes.replaceSubrange(0..<16, with: Data("SQLite format 4\u{0}".utf8))
                }
            },
            BadFileKind(name: "header page size invalid", expectation: .typedError) { m in
                try m.damagedStore { bytes, _ in bytes.replaceSubrange(16..<18, with: Data([0x03, 0xE8])) }
            },
            BadFileKind(name: "WAL left by a killed writer", expectation: .opens) { m in try m.killedWriterStore() },
            BadFileKind(name: "WAL left by a killed writer, -shm of garbage", expectation: .opens) { m in
                let s = try m.killedWriterStore()
                try m.garbage(32_768).write(to: FileBytes.shm(s.url))
                return s
            },
            BadFileKind(name: "WAL truncated mid-frame", expectation: .opens) { m in
                var s = try m.killedWriterStore()
                let wal = FileBytes.wal(s.url)
                let size = FileBytes.size(wal)
                let handle = try FileHandle(forWritingTo: wal)
                try handle.truncate(atOffset: UInt64(size / 2 + 517))
                try handle.close()
                s.prefixOf = (BadFilesProbe.rowsPerSave, s.rows?.count ?? 0)
                s.rows = nil
                return s
            },
            BadFileKind(name: "-wal file of garbage", expectation: .typedErrorOrOpens) { m in
                let s = try m.cleanStore()
                try m.garbage(32_768).write(to: FileBytes.wal(s.url))
                return BadFileSetup(url: s.url, watched: [s.url, FileBytes.wal(s.url)], rows: s.rows)
            },
            BadFileKind(name: "empty -wal file", expectation: .opens) { m in
                let s = try m.cleanStore()
                try Data().write(to: FileBytes.wal(s.url))
                return s
            },
        ]
    }
}

/// The bad-files experiment (runs inside one worker) and its WAL-writer role.
enum BadFilesProbe {
    /// Rows per save in the stores the cases start from.
    static let rowsPerSave = 5
    /// Saves in those stores.
    static let saves = 24

    /// Makes the files of one case in its own directory.
    struct Maker {
        let run: ReliabilityRun
        /// The store location of the case.
        let url: URL
        var rng: SeededGenerator

        func garbage(_ count: Int) -> Data {
            var r = rng
            return r.bytes(count)
        }

        /// Writes `data` at the case's path; watches it.
        @discardableResult
        func write(_ data: Data) throws -> BadFileSetup {
            try data.write(to: url)
            return BadFileSetup(url: url, watched: [url], rows: nil)
        }

        /// A store with ``saves`` × ``rowsPerSave`` rows, closed cleanly (no WAL left).
        func cleanStore() throws -> BadFileSetup {
            do {
                let container = try ModelContainer(
                    for: ReliabilitySchemas.values, configurations: [ModelConfiguration(url: url)])
                let context = ModelContext(container)
                for s in 0..<saves {
                    for r in 0..<rowsPerSave {
                        let serial = s * rowsPerSave + r
                        context.insert(
                            ReliabilityValue(
                                serial: serial, text: "row \(serial) " + String(repeating: "·", count: 150)))
                    }
                    try context.save()
                }
            }
            if FileBytes.size(FileBytes.wal(url)) > 0 {
                throw ReliabilityWorkerError(
                    "closing the last container left a WAL of \(FileBytes.size(FileBytes.wal(url))) bytes")
            }
            // try?: the WAL was checked empty above; removing the empty files may find them gone.
            try? FileManager.default.removeItem(at: FileBytes.wal(url))
            try? FileManager.default.removeItem(at: FileBytes.shm(url))
            return BadFileSetup(url: url, watched: [url], rows: Array(0..<(saves * rowsPerSave)))
        }

        /// A clean store, truncated to the size `size(of the file)` returns.
        func truncatedStore(_ size: (Int) -> Int) throws -> BadFileSetup {
            var s = try cleanStore()
            let handle = try FileHandle(forWritingTo: url)
            try handle.truncate(atOffset: UInt64(size(FileBytes.size(url))))
            try handle.close()
            s.rows = nil
            return s
        }

        func truncatedStore(to size: Int) throws -> BadFileSetup { try truncatedStore { _ in size } }

        /// A clean store whose bytes `damage` changes.
        func damagedStore(_ damage: (inout Data, inout SeededGenerator) -> Void) throws -> BadFileSetup {
            var s = try cleanStore()
            var bytes = try Data(contentsOf: url)
            var r = rng
            damage(&bytes, &r)
            try bytes.write(to: url)
            s.rows = nil
            return s
        }

        /// An SQLite file another program wrote (no `Z_METADATA`).
        func otherAppDatabase() throws -> BadFileSetup {
            let db = try SQLiteConnection(path: url.path, mode: .readWriteCreate)
            try db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            for i in 0..<50 { try db.run("INSERT INTO notes (body) VALUES (?)", [.text("note \(i)")]) }
            db.close()
            return BadFileSetup(url: url, watched: [url, FileBytes.wal(url)], rows: nil)
        }

        /// A store OpenSwiftData wrote for the counter model only.
        func otherSchemaStore() throws -> BadFileSetup {
            do {
                let container = try ModelContainer(
                    for: ReliabilitySchemas.counter, configurations: [ModelConfiguration(url: url)])
                let context = ModelContext(container)
                context.insert(ReliabilityCounter(name: "other", value: 1))
                try context.save()
            }
            return BadFileSetup(url: url, watched: [url, FileBytes.wal(url)], rows: nil)
        }

        /// A store whose writer was SIGKILLed after ``saves`` reported saves: its WAL holds them.
        func killedWriterStore() throws -> BadFileSetup {
            let writer = try run.spawn("wal-writer", ["store=\(url.path)"], label: "wal writer")
            let done = writer.line(startingWith: "done")
            writer.kill()
            let end = writer.wait()
            guard done != nil else {
                throw ReliabilityWorkerError("the WAL writer did not finish: \(writer.describe(end))")
            }
            guard FileBytes.size(FileBytes.wal(url)) > 0 else {
                throw ReliabilityWorkerError("the killed writer left no WAL beside \(url.lastPathComponent)")
            }
            return BadFileSetup(url: url, watched: [url, FileBytes.wal(url)], rows: Array(0..<(saves * rowsPerSave)))
        }
    }

    /// What opening one case did.
    struct Outcome {
        var opened = false
        var error: ThrownError?
        var rows: [Int]?
        var integrity: String?
    }

    static func run(_ run: ReliabilityRun, _ tally: inout ReliabilityTally) throws -> String {
        let kinds = BadFileKind.all
        tally.set("kinds", kinds.count)
        tally.set("typed errors", 0)
        tally.set("opened correctly", 0)
        tally.set("untyped errors", 0)
        tally.set("files changed by a failed open", 0)
        tally.set("wrong opens", 0)
        for (index, kind) in kinds.enumerated() {
            WorkerIO.error("bad-files: \(kind.name)")
            let directory = run.directory.appendingPathComponent("case-\(index)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let maker = Maker(
                run: run, url: directory.appendingPathComponent("bad.store"),
                rng: run.random("bad-files", kind.name))
            let setup: BadFileSetup
            do {
                setup = try kind.make(maker)
            } catch {
                tally.fail("\(kind.name): could not prepare the file: \(error)")
                continue
            }
            let before = setup.watched.map(FileBytes.read)
            // try?: a listing that fails is nil both times and compares equal; the file bytes are the main check.
            let directoryBefore = try? FileManager.default.contentsOfDirectory(atPath: setup.url.path)
            let outcome = open(setup)
            let after = setup.watched.map(FileBytes.read)
            // A WAL that was missing and is now empty holds the same (no) content: SQLite's
            // read-only connection creates an empty -wal and a -shm beside a WAL-mode file it
            // checks, as every SQLite reader of such a file does.
            let changed = zip(setup.watched, zip(before, after)).filter { url, bytes in
                bytes.0 != bytes.1 && !(url.path.hasSuffix("-wal") && bytes.0 == nil && bytes.1?.isEmpty == true)
            }.map(\.0.lastPathComponent)
            // try?: see directoryBefore.
            let directoryAfter = try? FileManager.default.contentsOfDirectory(atPath: setup.url.path)
            let label = "\(kind.name) (\(kind.expectation.rawValue))"

            if let error = outcome.error {
                if error.typed {
                    tally.add("typed errors")
                } else {
                    tally.add("untyped errors")
                    tally.fail("\(label): \(error)")
                }
                if kind.expectation == .opens {
                    tally.add("wrong opens")
                    tally.fail("\(label): must open, but threw \(error)")
                }
                if !changed.isEmpty || directoryBefore != directoryAfter {
                    tally.add("files changed by a failed open")
                    tally.fail(
                        "\(label): the failed open changed \(changed.isEmpty ? "the directory at the path" : changed.joined(separator: ", ")) (\(error))"
                    )
                }
                continue
            }
            // It opened.
            var problems: [String] = []
            if kind.expectation == .typedError { problems.append("opened, but must throw a typed error") }
            if kind.expectation == .readOnly && !changed.isEmpty {
                problems.append("opened with allowsSave: false and changed \(changed.joined(separator: ", "))")
            }
            if let integrity = outcome.integrity, integrity != "ok" { problems.append("integrity_check: \(integrity)") }
            let rows = outcome.rows ?? []
            if let expected = setup.rows, expected != rows {
                problems.append("shows \(rows.count) rows (\(rows.prefix(3))…); expected \(expected.count)")
            }
            if let p = setup.prefixOf,
                rows != Array(0..<rows.count) || rows.count % p.batch != 0 || rows.count > p.maximum
            {
                problems.append(
                    "shows \(rows.count) rows, not a prefix of whole saves of \(p.batch) (at most \(p.maximum))")
            }
            if problems.isEmpty {
                tally.add("opened correctly")
            } else {
                tally.add("wrong opens")
                tally.fail("\(label): " + problems.joined(separator: "; "))
            }
        }
        return
            "\(kinds.count) kinds: \(tally.value("typed errors")) typed errors with the files unchanged, \(tally.value("opened correctly")) opened with every committed row"
    }

    /// Opens the case's store; reads its rows and integrity when it opens.
    static func open(_ setup: BadFileSetup) -> Outcome {
        var outcome = Outcome()
        do {
            let configuration = ModelConfiguration(url: setup.url, allowsSave: setup.allowsSave)
            let container = try ModelContainer(for: ReliabilitySchemas.values, configurations: [configuration])
            outcome.opened = true
            outcome.integrity = try container.integrityCheck()
            outcome.rows = try ModelContext(container).fetch(
                FetchDescriptor<ReliabilityValue>(sortBy: [SortDescriptor(\.serial)])
            ).map(\.serial)
        } catch {
            outcome.error = ThrownError(error)
        }
        return outcome
    }

    // MARK: Worker role

    /// Writes ``saves`` saves of ``rowsPerSave`` rows, prints `done`, and waits to be killed.
    static func walWriter(_ args: WorkerArguments) throws -> Int32 {
        let store = try args.url("store")
        let container = try ModelContainer(
            for: ReliabilitySchemas.values, configurations: [ModelConfiguration(url: store)])
        let context = ModelContext(container)
        for s in 0..<saves {
            for r in 0..<rowsPerSave {
                let serial = s * rowsPerSave + r
                context.insert(
                    ReliabilityValue(serial: serial, text: "row \(serial) " + String(repeating: "·", count: 150)))
            }
            try context.save()
        }
        WorkerIO.say("done")
        // Bounded: the coordinator kills us at once; never close the store.
        withExtendedLifetime(container) { _ = sleep(60) }
        return 0
    }
}

extension SeededGenerator {
    /// `count` random bytes.
    mutating func bytes(_ count: Int) -> Data {
        var out = Data(capacity: count)
        while out.count < count {
            var word = next()
            for _ in 0..<min(8, count - out.count) {
                out.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return out
    }
}

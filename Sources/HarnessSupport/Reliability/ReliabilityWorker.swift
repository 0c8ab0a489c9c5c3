import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The child-process side of the reliability probes: what `harness reliability-worker <role> …`
/// runs. The harness's `main` hands it the arguments after the subcommand and exits with its status.
///
/// ```swift
/// if CommandLine.arguments.dropFirst().first == ReliabilityWorker.subcommand {
///     exit(ReliabilityWorker.main(Array(CommandLine.arguments.dropFirst(2))))
/// }
/// ```
/// Roles: `crash-writer`, `crash-checker`, `batch-writer`, `batch-reader`, `incrementer`,
/// `creator`, `wal-writer`, `hostile-file`, `stores-writer`, `stores-checker`, `migration-worker`,
/// `migration-checker`, `history-writer`, `history-checker`, and `probe` (a whole single-process probe). Arguments are
/// `key=value` words; a worker prints lines (`ready`, `committed N`, `result {json}` …) on
/// standard output and its diagnostics on standard error.
package enum ReliabilityWorker {
    /// The hidden subcommand of `harness` that runs a worker.
    package static let subcommand = "reliability-worker"

    /// Runs the worker role named by `arguments[0]`; returns the exit status (0 done, 1 a
    /// check failed or an error was reported, 2 bad arguments).
    package static func main(_ arguments: [String]) -> Int32 {
        guard let role = arguments.first, let body = roles[role] else {
            WorkerIO.error(
                "unknown worker role '\(arguments.first ?? "")'; roles: \(roles.keys.sorted().joined(separator: ", "))")
            return 2
        }
        do {
            let args = try WorkerArguments(role: role, Array(arguments.dropFirst()))
            return try body(args)
        } catch {
            WorkerIO.say("error \(oneLine("\(error)"))")
            WorkerIO.error("\(role): \(error)")
            return 1
        }
    }

    /// The running executable, resolved (`/proc/self/exe` on Linux, else `CommandLine.arguments[0]`);
    /// probes start their workers from it.
    ///
    /// ```swift
    /// let result = ReliabilityProbe.diskFull.run(.quick, executable: ReliabilityWorker.currentExecutable)
    /// ```
    package static var currentExecutable: URL {
        // try?: /proc only exists on Linux; the fallback below is the other platforms' answer.
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: target)
        }
        let first = CommandLine.arguments.first ?? "harness"
        if first.contains("/") {
            return URL(
                fileURLWithPath: first, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            )
            .standardizedFileURL.resolvingSymlinksInPath()
        }
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(dir)/\(first)"
            if FileManager.default.isExecutableFile(atPath: candidate) {
                return URL(fileURLWithPath: candidate).resolvingSymlinksInPath()
            }
        }
        return URL(fileURLWithPath: first)
    }

    /// The roles and what runs them.
    static let roles: [String: @Sendable (WorkerArguments) throws -> Int32] = [
        "crash-writer": CrashLoopProbe.writer,
        "crash-checker": CrashLoopProbe.checker,
        "batch-writer": ReadersDuringWritesProbe.writer,
        "batch-reader": ReadersDuringWritesProbe.reader,
        "incrementer": ConcurrentWritersProbe.incrementer,
        "creator": ConcurrentCreationProbe.creator,
        "wal-writer": BadFilesProbe.walWriter,
        "hostile-file": HostileMetadataProbe.worker,
        "stores-writer": SeveralStoresProbe.writer,
        "stores-checker": SeveralStoresProbe.checker,
        "migration-worker": MigrationKillProbe.worker,
        "migration-checker": MigrationKillProbe.checker,
        "history-writer": HistoryKillProbe.writer,
        "history-checker": HistoryKillProbe.checker,
        "probe": runProbe,
    ]

    /// Runs a whole single-process probe here and prints `result <json>`.
    private static func runProbe(_ args: WorkerArguments) throws -> Int32 {
        let name = try args.string("probe")
        guard let probe = ReliabilityProbe.named(name) else { throw ReliabilityWorkerError("no probe named '\(name)'") }
        let result = probe.runHere(try args.run)
        let json = try JSONEncoder().encode(result)
        WorkerIO.say("result " + String(decoding: json, as: UTF8.self))
        return 0
    }
}

/// A worker's `key=value` arguments, with typed accessors that name the missing or bad key.
struct WorkerArguments {
    let role: String
    private let values: [String: String]

    init(role: String, _ words: [String]) throws {
        self.role = role
        var values: [String: String] = [:]
        for word in words {
            guard let eq = word.firstIndex(of: "=") else {
                throw ReliabilityWorkerError("\(role): argument '\(word)' is not key=value")
            }
            values[String(word[..<eq])] = String(word[word.index(after: eq)...])
        }
        self.values = values
    }

    func string(_ key: String) throws -> String {
        guard let v = values[key] else { throw ReliabilityWorkerError("\(role): missing argument \(key)=") }
        return v
    }

    func int(_ key: String) throws -> Int {
        guard let v = Int(try string(key)) else { throw ReliabilityWorkerError("\(role): \(key)= takes an integer") }
        return v
    }

    func url(_ key: String) throws -> URL { URL(fileURLWithPath: try string(key)) }

    /// The probe run the coordinator described (configuration, executable, scratch directory).
    var run: ReliabilityRun {
        get throws {
            ReliabilityRun(
                configuration: try ReliabilityConfiguration.decode(try string("config")),
                executable: try url("exe"), directory: try url("dir"))
        }
    }
}

/// A worker's side of the line protocol.
enum WorkerIO {
    /// Prints one line on standard output and flushes it at once (the coordinator may kill us next).
    static func say(_ line: String) {
        print(line)
        fflush(nil)
    }

    /// Prints `check <json>`: what a checker process found, for its coordinator's
    /// ``ReliabilityRun/check(_:_:label:as:)``.
    static func sayCheck(_ check: some Encodable) {
        // try?: plain Codable values always encode; "{}" makes the coordinator report an undecodable answer.
        let json = (try? JSONEncoder().encode(check)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        say("check " + json)
    }

    /// Opens the counter named `name` (or inserts it at 0) and saves until the process is
    /// killed: each save adds one to the counter, lets `fill` insert the save's rows for the
    /// counter's new value, and prints `committed <value>` once it committed. Returns 1 after
    /// printing `error …` when a save throws, 0 after 100,000 saves (the coordinator kills
    /// long before).
    static func saveUntilKilled(_ context: ModelContext, counter name: String, _ fill: (Int) -> Void) throws -> Int32 {
        let byName = FetchDescriptor<ReliabilityCounter>(predicate: #Predicate { $0.name == name })
        for _ in 0..<100_000 {
            let counter: ReliabilityCounter
            if let existing = try context.fetch(byName).first {
                counter = existing
            } else {
                counter = ReliabilityCounter(name: name, value: 0)
                context.insert(counter)
            }
            counter.value += 1
            fill(counter.value)
            do {
                try context.save()
            } catch {
                say("error \(ThrownError(error))")
                return 1
            }
            say("committed \(counter.value)")
        }
        return 0
    }

    /// Prints a diagnostic on standard error.
    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Prints `ready`, then blocks until the coordinator writes the go byte; `false` if standard
    /// input ends first (the coordinator is gone).
    static func readyThenWait() -> Bool {
        say("ready")
        var byte: UInt8 = 0
        while true {
            let n = read(0, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            return n == 1
        }
    }
}

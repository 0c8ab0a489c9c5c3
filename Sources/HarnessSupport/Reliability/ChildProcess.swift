import Foundation
import OpenSwiftDataTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A worker process of the harness (`harness reliability-worker <role> …`) as a probe drives it:
/// its standard output read line by line on a thread, a pipe to its standard input for the
/// "go" byte, its standard error in a file, a deadline after which it is SIGKILLed.
///
/// Workers speak in lines: `ready`, `committed 17`, `result {json}`, `error <message>`.
final class ChildProcess: @unchecked Sendable {
    /// How a child ended.
    enum Termination: Equatable, CustomStringConvertible {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it (our SIGKILL, or a crash).
        case signalled(Int32)
        /// It was still running at its deadline and was killed.
        case timedOut

        var description: String {
            switch self {
            case .exited(let status): return "exited with status \(status)"
            case .signalled(let signal):
                return
                    "died of signal \(signal)\(signal == SIGKILL ? " (SIGKILL)" : signal == SIGSEGV ? " (SIGSEGV, a crash)" : signal == SIGILL || signal == SIGTRAP ? " (a Swift trap)" : "")"
            case .timedOut: return "timed out and was killed"
            }
        }
    }

    /// A name for messages (`writer 3`, `reader 1` …).
    let label: String
    /// The file the child's standard error goes to.
    let stderrURL: URL
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let condition = NSCondition()
    private var lines: [String] = []
    private var consumed = 0
    private var endOfOutput = false
    private let deadline: UInt64
    private var killedByUs = false

    /// Starts `executable reliability-worker role arguments…`, with this process's environment
    /// plus `environment` (an injected fault, say).
    init(
        executable: URL, role: String, arguments: [String], label: String, directory: URL, timeout: Double,
        environment: [String: String] = [:]
    ) throws {
        self.label = label
        let safe = label.map { $0.isLetter || $0.isNumber ? $0 : "-" }
        stderrURL = directory.appendingPathComponent("\(String(safe))-\(ChildProcess.nextSerial()).stderr")
        deadline = Clock.now + UInt64(max(0.1, timeout) * 1e9)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.executableURL = executable
        process.arguments = [ReliabilityWorker.subcommand, role] + arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.run()
        let handle = output.fileHandleForReading
        let thread = Thread { [self] in readLines(handle.fileDescriptor) }
        thread.start()
    }

    private static let serialLock = NSLock()
    nonisolated(unsafe) private static var serial = 0

    /// A number no other child of this process had, for its standard-error file's name.
    private static func nextSerial() -> Int {
        serialLock.withLock {
            serial += 1
            return serial
        }
    }

    /// The child's process identifier.
    var pid: Int32 { process.processIdentifier }

    private func readLines(_ fd: Int32) {
        var pending = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            pending.append(contentsOf: buffer[0..<n])
            var complete: [String] = []
            while let newline = pending.firstIndex(of: 10) {
                complete.append(String(decoding: pending[..<newline], as: UTF8.self))
                pending.removeSubrange(...newline)
            }
            if !complete.isEmpty {
                condition.lock()
                lines += complete
                condition.broadcast()
                condition.unlock()
            }
        }
        condition.lock()
        if !pending.isEmpty { lines.append(String(decoding: pending, as: UTF8.self)) }
        endOfOutput = true
        condition.broadcast()
        condition.unlock()
    }

    /// The next line not yet returned, waiting until `timeout` seconds pass (or the child's
    /// deadline, whichever is first); `nil` at the end of its output or on timeout.
    func nextLine(timeout: Double? = nil) -> String? {
        let limit = min(deadline, timeout.map { Clock.now + UInt64(max(0, $0) * 1e9) } ?? deadline)
        condition.lock()
        defer { condition.unlock() }
        while consumed == lines.count && !endOfOutput {
            let now = Clock.now
            if now >= limit { return nil }
            _ = condition.wait(until: Date(timeIntervalSinceNow: min(0.05, Double(limit - now) / 1e9)))
        }
        guard consumed < lines.count else { return nil }
        consumed += 1
        return lines[consumed - 1]
    }

    /// Reads lines until one starts with `prefix`; `nil` if the output ends or time runs out first.
    func line(startingWith prefix: String, timeout: Double? = nil) -> String? {
        let limit = timeout.map { Clock.now + UInt64(max(0, $0) * 1e9) }
        while true {
            let left = limit.map { $0 > Clock.now ? Double($0 - Clock.now) / 1e9 : 0 }
            guard let line = nextLine(timeout: left) else { return nil }
            if line.hasPrefix(prefix) { return line }
        }
    }

    /// Every line the child printed so far (including those already returned).
    var allLines: [String] {
        condition.lock()
        defer { condition.unlock() }
        return lines
    }

    /// Writes the go byte to the child's standard input.
    func go() {
        // try?: a child that already exited closed its stdin; wait() reports how it ended.
        try? input.fileHandleForWriting.write(contentsOf: Data([0x67]))
    }

    /// SIGSTOPs the child: it stays frozen exactly where it is until ``resume()`` or ``kill()``.
    func stop() {
        if process.isRunning { _ = Glibc.kill(process.processIdentifier, SIGSTOP) }
    }

    /// SIGCONTs a child frozen by ``stop()``.
    func resume() {
        if process.isRunning { _ = Glibc.kill(process.processIdentifier, SIGCONT) }
    }

    /// SIGKILLs the child (no effect once it has exited).
    func kill() {
        if process.isRunning {
            killedByUs = true
            _ = Glibc.kill(process.processIdentifier, SIGKILL)
        }
    }

    /// Waits for the child to end, killing it at its deadline; then waits up to two seconds
    /// for the rest of its output.
    @discardableResult
    func wait() -> Termination {
        var timedOut = false
        while process.isRunning {
            if Clock.now >= deadline {
                timedOut = true
                _ = Glibc.kill(process.processIdentifier, SIGKILL)
                break
            }
            usleep(2_000)
        }
        process.waitUntilExit()
        let drain = Clock.now + 2_000_000_000
        condition.lock()
        while !endOfOutput && Clock.now < drain {
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
        }
        condition.unlock()
        // try?: closing a pipe the child already closed; the termination below is the result.
        try? input.fileHandleForWriting.close()
        if timedOut { return .timedOut }
        switch process.terminationReason {
        case .exit: return .exited(process.terminationStatus)
        case .uncaughtSignal: return .signalled(process.terminationStatus)
        @unknown default: return .exited(process.terminationStatus)
        }
    }

    /// The last `limit` characters of the child's standard error, trimmed, for failure messages.
    func stderrTail(_ limit: Int = 600) -> String {
        // try?: decoration for a failure message that is reported anyway; no stderr file reads as empty.
        let text = (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.count > limit ? "…" + String(trimmed.suffix(limit)) : trimmed
    }

    /// Why a crashed child stopped, from its standard error: Swift's `Fatal error` or runtime
    /// failure line and the first backtrace frame in the project's `Sources`; the end of its
    /// standard error (``stderrTail(_:)``) when neither is there.
    func crashSummary() -> String {
        crashReason() ?? stderrTail()
    }

    /// Swift's `Fatal error` or runtime failure line and the first backtrace frame in the
    /// project's `Sources`, when the child's standard error has them (it crashed, and may still
    /// be writing its backtrace); `nil` otherwise.
    func crashReason() -> String? {
        // try?: decoration for a failure message that is reported anyway; no stderr file reads as empty.
        let text = (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n")
        let reason = lines.first { $0.contains("Fatal error") || $0.contains("runtime failure") }
        guard let reason else { return nil }
        // A frame reads `  1  [ra]  0x… Type.function(_:) + 42 in harness at /…/Sources/…/File.swift:540:25`.
        let frame = lines.first { $0.contains("/Sources/") }.map { line -> String in
            let afterAddress = line.range(of: " 0x").map { line[$0.upperBound...].drop { $0 != " " }.dropFirst() } ?? ""
            let function = afterAddress.components(separatedBy: " + ").first ?? ""
            let place = line.range(of: "/Sources/").map { String(line[$0.lowerBound...].dropFirst()) } ?? ""
            return " in \(function) (\(place))"
        }
        return reason.trimmingCharacters(in: .whitespaces) + (frame ?? "")
    }

    /// `label` and how it ended, with its standard error when there is any (for a crash, why
    /// it crashed: ``crashSummary()``).
    func describe(_ termination: Termination) -> String {
        var tail = stderrTail()
        if case .signalled(let signal) = termination, signal != SIGKILL { tail = crashSummary() }
        return "\(label) \(termination)" + (tail.isEmpty ? "" : ": \(tail)")
    }
}

/// A monotonic clock in nanoseconds, the same in every process of the machine.
enum Clock {
    /// Nanoseconds since an arbitrary fixed point (CLOCK_MONOTONIC).
    static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Seconds elapsed since `start` (a ``now`` value).
    static func seconds(since start: UInt64) -> Double { Double(now - start) / 1e9 }
}

/// The writer processes of the kill probes: they print `opened`, then `committed N` after each
/// save, or `error …` when a save fails, until the coordinator SIGKILLs them.
extension ChildProcess {
    /// Reads lines until `saves` lines `committed …` have been seen; `false` if the output ends
    /// (or time runs out) first.
    func awaitCommits(_ saves: Int) -> Bool {
        for _ in 0..<saves {
            guard line(startingWith: "committed ") != nil else { return false }
        }
        return true
    }

    /// SIGKILLs the writer, waits for it, raises `committed` to the last save it reported, and
    /// tallies how it ended: `kills`, or `writer errors` with a failure naming `moment` when it
    /// reported a failed save or ended before the kill. Returns whether the kill landed as one.
    @discardableResult
    func killAndTally(at moment: String, committed: inout Int, _ tally: inout ReliabilityTally) -> Bool {
        kill()
        let termination = wait()
        let lines = allLines
        let reported = lines.compactMap { $0.hasPrefix("committed ") ? Int($0.dropFirst(10)) : nil }.max()
        committed = max(committed, reported ?? 0)
        if let error = lines.first(where: { $0.hasPrefix("error ") }) {
            tally.add("writer errors")
            tally.fail("\(moment): the writer's save failed: \(error.dropFirst(6))")
            return false
        }
        guard termination == .signalled(SIGKILL) else {
            tally.add("writer errors")
            tally.fail("\(moment): \(describe(termination)) before the kill")
            return false
        }
        tally.add("kills")
        return true
    }
}

import Foundation

/// A line on standard error every ten seconds of a long differential run that was given no
/// progress closure, so a test run (`swift test`) is not silent for minutes:
/// `DifferentialHarness seed 1: 400 of 1000 cases, 0 mismatches, 10 s`.
///
/// Runs shorter than ten seconds print nothing. `OPENSWIFTDATA_PROGRESS=0` in the environment
/// turns the lines off.
package struct LongRunProgress {
    /// Whether `environment` allows the lines.
    package static func isEnabled(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        environment["OPENSWIFTDATA_PROGRESS"] != "0"
    }

    /// Seconds between lines.
    static let interval: UInt64 = 10_000_000_000

    private let label: String
    private let total: Int
    private let start = DispatchTime.now().uptimeNanoseconds
    private var nextLine: UInt64

    /// Progress of a run of `total` cases named `label`; `nil` when the lines are turned off.
    init?(label: String, total: Int) {
        guard Self.isEnabled() else { return nil }
        self.label = label
        self.total = total
        nextLine = start + Self.interval
    }

    /// Prints a line when ten seconds have passed since the last one.
    mutating func update(done: Int, mismatches: Int? = nil) {
        let now = DispatchTime.now().uptimeNanoseconds
        guard now >= nextLine else { return }
        nextLine = now + Self.interval
        let seconds = (now - start) / 1_000_000_000
        let line = Self.line(label, done: done, of: total, mismatches: mismatches, seconds: seconds)
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// One progress line.
    package static func line(_ label: String, done: Int, of total: Int, mismatches: Int?, seconds: UInt64) -> String {
        "\(label): \(done) of \(total) cases" + (mismatches.map { ", \($0) mismatches" } ?? "") + ", \(seconds) s"
    }
}

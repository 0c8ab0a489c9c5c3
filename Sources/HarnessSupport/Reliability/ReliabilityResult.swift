import Foundation
import OpenSwiftDataTesting

/// One measured number of a probe (`kills`, `half-saves seen`, `lost updates` …).
///
/// ```swift
/// let figure = ReliabilityFigure("half-saves seen", 0)
/// figure.description   // "half-saves seen 0"
/// ```
package struct ReliabilityFigure: Codable, Sendable, Equatable, CustomStringConvertible {
    /// What was counted, in words.
    package var name: String
    /// The count.
    package var value: Int

    /// A figure.
    package init(_ name: String, _ value: Int) {
        self.name = name
        self.value = value
    }

    /// `name value`.
    package var description: String { "\(name) \(value)" }
}

/// What one probe found: its figures, whether it passed, and why.
///
/// ```swift
/// let result = ReliabilityProbe.crashLoop.run(.quick, executable: harnessURL)
/// if !result.passed { print(result.reason); result.failures.forEach { print($0) } }
/// result.figure("kills")   // 20
/// ```
package struct ReliabilityResult: Codable, Sendable, Equatable {
    /// The probe's name (``ReliabilityProbe/name``).
    package var probe: String
    /// Whether every property the probe checks held.
    package var passed: Bool
    /// One sentence: what held, or the first thing that did not.
    package var reason: String
    /// The figures, in the order the probe reports them.
    package var figures: [ReliabilityFigure]
    /// Every violation found (at most ``maximumFailures``), each with what reproduces it.
    package var failures: [String]
    /// Wall time of the probe, in seconds (a trend, never a pass criterion).
    package var seconds: Double

    /// How many failure messages a result keeps; the figures still count all of them.
    package static let maximumFailures = 25

    /// A result.
    package init(
        probe: String, passed: Bool, reason: String, figures: [ReliabilityFigure] = [],
        failures: [String] = [], seconds: Double = 0
    ) {
        self.probe = probe
        self.passed = passed
        self.reason = reason
        self.figures = figures
        self.failures = failures
        self.seconds = seconds
    }

    /// The value of the figure named `name`, or `nil`.
    package func figure(_ name: String) -> Int? { figures.first { $0.name == name }?.value }

    /// The figures on one line: `kills 20, failed reopens 0, …`.
    package var figureSummary: String { figures.map(\.description).joined(separator: ", ") }
}

/// Collects a probe's figures and violations while it runs, then makes its result.
///
/// Figures keep the order they are first set in; violations beyond
/// ``ReliabilityResult/maximumFailures`` are counted but not kept.
struct ReliabilityTally {
    let probe: String
    private(set) var figures: [ReliabilityFigure] = []
    private(set) var failures: [String] = []
    private(set) var violations = 0

    init(_ probe: String) { self.probe = probe }

    /// Sets a figure.
    mutating func set(_ name: String, _ value: Int) {
        if let i = figures.firstIndex(where: { $0.name == name }) {
            figures[i].value = value
        } else {
            figures.append(ReliabilityFigure(name, value))
        }
    }

    /// Adds to a figure (creating it at 0).
    mutating func add(_ name: String, _ amount: Int = 1) {
        set(name, (figures.first { $0.name == name }?.value ?? 0) + amount)
    }

    /// The current value of a figure (0 when not set).
    func value(_ name: String) -> Int { figures.first { $0.name == name }?.value ?? 0 }

    /// Records a violation of a property the probe checks.
    mutating func fail(_ message: String) {
        violations += 1
        guard failures.count < ReliabilityResult.maximumFailures else { return }
        failures.append(message.count > 600 ? message.prefix(600) + "… (\(message.count) characters)" : message)
    }

    /// The result: passed when no violation was recorded; the reason is `passReason` or the first violation.
    func result(passReason: String, seconds: Double) -> ReliabilityResult {
        let reason: String
        if violations == 0 {
            reason = passReason
        } else {
            let first = failures.first ?? "a violation"
            reason = violations == 1 ? first : "\(first) (and \(violations - 1) more)"
        }
        return ReliabilityResult(
            probe: probe, passed: violations == 0, reason: reason, figures: figures,
            failures: failures, seconds: seconds)
    }
}

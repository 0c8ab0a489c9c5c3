import Foundation
import OpenSwiftDataTesting

/// The results of a reliability run, rendered as the table `harness reliability` prints and
/// as the Markdown and JSON it writes (`Reports/reliability.md`, `Reports/reliability.json`).
///
/// ```swift
/// let results = ReliabilityProbe.all.map { $0.run(.quick, executable: harnessURL) }
/// let report = ReliabilityReport(configuration: .quick, results: results)
/// print(report.table())
/// try report.json().write(to: URL(fileURLWithPath: "Reports/reliability.json"))
/// ```
package struct ReliabilityReport: Codable, Sendable, Equatable {
    /// The sizes and seed the probes ran with.
    package var configuration: ReliabilityConfiguration
    /// One result per probe, in run order.
    package var results: [ReliabilityResult]

    /// A report.
    package init(configuration: ReliabilityConfiguration, results: [ReliabilityResult]) {
        self.configuration = configuration
        self.results = results
    }

    /// Whether every probe passed.
    package var passed: Bool { results.allSatisfy(\.passed) }

    /// The terminal table: probe, figures, result; then the reason of every failed probe (cut
    /// at 300 characters; ``markdown()`` has it whole), and the seed with how to replay it.
    ///
    /// ```text
    /// probe                   figures                                                  result
    /// crash-loop              kills 20, failed reopens 0, integrity failures 0, …      PASS
    ///
    /// seed 1; replay with --seed 1
    /// ```
    package func table() -> String {
        let width = max(22, results.map(\.probe.count).max() ?? 0)
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
        let figureWidth = min(92, max(8, results.map(\.figureSummary.count).max() ?? 0))
        var lines = [pad("probe", width) + "  " + pad("figures", figureWidth) + "  result"]
        for r in results {
            let wrapped = Self.wrap(r.figureSummary, width: figureWidth)
            for (i, line) in wrapped.enumerated() {
                let head = i == 0 ? pad(r.probe, width) : String(repeating: " ", count: width)
                let tail = i == 0 ? "  " + (r.passed ? "PASS" : "FAIL") : ""
                lines.append(head + "  " + pad(line, figureWidth) + tail)
            }
        }
        let failed = results.filter { !$0.passed }
        if !failed.isEmpty {
            lines.append("")
            for r in failed {
                lines.append("\(r.probe): FAIL: \(r.reason.count > 300 ? r.reason.prefix(300) + "…" : r.reason)")
            }
        }
        lines += ["", configuration.replayLine]
        return lines.joined(separator: "\n")
    }

    /// The report as Markdown: the configuration, the table, then each probe's figures and failures.
    package func markdown() -> String {
        let c = configuration
        var md = "# Reliability report\n\n"
        md +=
            "Configuration **\(c.name)**, seed \(c.seed): \(c.kills) kills, \(c.readerSaves) saves with \(c.readers) readers, "
        md +=
            "\(c.writerProcesses) × \(c.increments) increments per merge policy, \(c.creationProcesses) processes × \(c.creationTrials) creations; "
        md +=
            "\(c.hostileFiles) hostile store files, \(String(format: "%g", c.actorSeconds)) s of actors; "
        md +=
            "each child process is killed after \(Int(c.childTimeout)) s. Result: **\(passed ? "PASS" : "FAIL")**.\n\n"
        md += "`\(c.replayLine)`\n\n"
        if !c.injectedFaults.isEmpty { md += "Injected faults: \(c.injectedFaults.joined(separator: ", ")).\n\n" }
        md += "| probe | figures | result |\n|---|---|---|\n"
        for r in results {
            md += "| \(r.probe) | \(Self.cell(r.figureSummary)) | \(r.passed ? "PASS" : "**FAIL**") |\n"
        }
        for r in results {
            md += "\n## \(r.probe): \(r.passed ? "PASS" : "FAIL")\n\n\(Self.cell(r.reason))\n\n"
            md += "| figure | value |\n|---|---:|\n"
            for f in r.figures { md += "| \(Self.cell(f.name)) | \(f.value) |\n" }
            md += "\nTime: \(String(format: "%.1f", r.seconds)) s.\n"
            if !r.failures.isEmpty {
                md += "\nFailures:\n\n"
                for f in r.failures { md += "- \(Self.cell(f))\n" }
            }
        }
        return md
    }

    /// The report as pretty-printed JSON (keys sorted, so runs diff cleanly).
    package func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }

    /// Text safe inside a Markdown table cell: one line, `|` escaped.
    static func cell(_ s: String) -> String {
        s.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }

    /// Splits a comma-separated list into lines of at most `width` characters, breaking after commas.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for part in text.components(separatedBy: ", ") {
            let candidate = current.isEmpty ? part : current + ", " + part
            if candidate.count > width, !current.isEmpty {
                lines.append(current + ",")
                current = part
            } else {
                current = candidate
            }
        }
        lines.append(current)
        return lines
    }
}

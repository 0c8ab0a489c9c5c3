import Foundation

/// The outcome of one `harness conform --mutants` run: how many of the library's semantic
/// mutants (one-line behaviour changes compiled into debug builds) the conformance checks
/// killed, and which check killed each.
///
/// `harness conform --mutants --json FILE` writes it; a later `harness conform` finds the file
/// (`mutants.json` beside its own reports, or in `Reports/`) and states the score in its report.
/// ```swift
/// let score = try MutationScore(json: Data(contentsOf: URL(fileURLWithPath: "Reports/mutants.json")))
/// print("\(score.killed) of \(score.total) killed")
/// ```
package struct MutationScore: Sendable, Codable, Equatable {
    /// One mutant's outcome.
    package struct Mutant: Sendable, Codable, Equatable {
        /// The mutant's name (its `OPENSWIFTDATA_INJECT_FAULT` value), e.g. `cascade-nullifies`.
        package var name: String
        /// The behaviour-reference ID and what the mutant breaks, in one line.
        package var summary: String
        /// Whether some check failed (or the run crashed or timed out) with the mutant active.
        package var killed: Bool
        /// The first check that failed, e.g. `deleteRules DEL-02 on memory`; `nil` for a survivor.
        package var check: String?
        /// The failure's first line, or how the worker process ended.
        package var detail: String?
        /// How many checks ran before the mutant was killed (all of them for a survivor).
        package var checks: Int
        /// Wall time of the mutant's worker process (reports only, never gated).
        package var seconds: Double
        /// For a survivor argued equivalent (no store can tell it from the library), the
        /// argument; `nil` otherwise.
        package var equivalence: String? = nil

        /// A mutant's outcome with every field given.
        package init(
            name: String, summary: String, killed: Bool, check: String?, detail: String?, checks: Int,
            seconds: Double
        ) {
            self.name = name
            self.summary = summary
            self.killed = killed
            self.check = check
            self.detail = detail
            self.checks = checks
            self.seconds = seconds
        }
    }

    /// The seed of the run's generated data and differential cases.
    package var seed: UInt64
    /// Differential cases run against each mutant.
    package var differentialCases: Int
    /// Checks of the run without any mutant (all of them pass).
    package var baselineChecks: Int
    /// Every mutant, in catalogue order.
    package var mutants: [Mutant]
    /// Wall time of the whole run.
    package var seconds: Double
    /// When the run finished (ISO 8601).
    package var date: String

    /// A score from its parts.
    package init(
        seed: UInt64, differentialCases: Int, baselineChecks: Int, mutants: [Mutant], seconds: Double,
        date: String
    ) {
        self.seed = seed
        self.differentialCases = differentialCases
        self.baselineChecks = baselineChecks
        self.mutants = mutants
        self.seconds = seconds
        self.date = date
    }

    /// A score read back from ``json()``.
    package init(json: Data) throws {
        self = try JSONDecoder().decode(MutationScore.self, from: json)
    }

    /// The mutants killed.
    package var killed: Int { mutants.filter(\.killed).count }
    /// The mutants run.
    package var total: Int { mutants.count }
    /// The mutants no check killed.
    package var survivors: [Mutant] { mutants.filter { !$0.killed } }
    /// The survivors argued equivalent (``Mutant/equivalence``).
    package var equivalent: [Mutant] { survivors.filter { $0.equivalence != nil } }
    /// Killed over the mutants not argued equivalent, in percent (100 when there are none).
    package var percent: Double {
        let counted = total - equivalent.count
        return counted == 0 ? 100 : Double(killed) * 100 / Double(counted)
    }

    /// `mutants: K of N killed`: the last line `harness conform --mutants` prints.
    package var line: String { "mutants: \(killed) of \(total) killed" }

    /// The score as JSON (sorted keys).
    package func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return try encoder.encode(self)
    }

    /// The terminal table: one line per mutant with the check that killed it, then the survivors.
    package func table() -> String {
        let width = max(6, mutants.map(\.name.count).max() ?? 0)
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
        var lines = [pad("mutant", width) + "  result    killed by"]
        for m in mutants {
            lines.append(pad(m.name, width) + "  " + pad(m.killed ? "killed" : "SURVIVED", 8) + "  " + (m.check ?? "—"))
        }
        if !survivors.isEmpty {
            lines.append("\nsurvivors:")
            for m in survivors {
                lines.append("  \(m.name): \(m.summary)")
                if let argument = m.equivalence { lines.append("    argued equivalent: \(argument)") }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The report as Markdown: the score, a table of every mutant and the check that killed it,
    /// and the survivors.
    package func markdown() -> String {
        var md = "# Mutation score\n\n"
        md += "**\(line)** (\(String(format: "%.1f", percent)) %"
        md += equivalent.isEmpty ? "" : " of the \(total - equivalent.count) not argued equivalent"
        md += "). Seed \(seed), \(differentialCases) differential "
        md += "cases per mutant; the run without a mutant passed \(baselineChecks) checks. "
        md += "\(String(format: "%.0f", seconds)) s, \(date).\n\n"
        md += "Each mutant is a one-line behaviour change compiled into debug builds only "
        md += "(`InjectedFault`, `OPENSWIFTDATA_INJECT_FAULT`); a mutant is killed by the first check that fails "
        md += "with it active: the conformance suites, then the schema-derived checks, then the differential "
        md += "cases and change scripts.\n\n"
        md += "| mutant | what it breaks | result | killed by | checks |\n|---|---|---|---|---:|\n"
        for m in mutants {
            let by = (m.check ?? "—").replacingOccurrences(of: "|", with: "\\|")
            md +=
                "| `\(m.name)` | \(m.summary.replacingOccurrences(of: "|", with: "\\|")) | "
                + "\(m.killed ? "killed" : "**survived**") | \(by) | \(m.checks) |\n"
        }
        md += "\n## Survivors\n\n"
        md +=
            survivors.isEmpty
            ? "None.\n"
            : survivors.map { m in
                "- `\(m.name)`: \(m.summary)" + (m.equivalence.map { ". Argued equivalent: \($0)" } ?? "") + "\n"
            }.joined()
        return md
    }

    /// Where a conformance run looks for the last mutation score: `mutants.json` in each of
    /// `directories`, then in `Reports/`; the first that reads.
    package static func latest(in directories: [URL]) -> MutationScore? {
        let candidates = directories + [URL(fileURLWithPath: "Reports", isDirectory: true)]
        for directory in candidates {
            let url = directory.appendingPathComponent("mutants.json")
            // try?: a missing or unreadable file only means no score to state.
            if let data = try? Data(contentsOf: url), let score = try? MutationScore(json: data) { return score }
        }
        return nil
    }
}

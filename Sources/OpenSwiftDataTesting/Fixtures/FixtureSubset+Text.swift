import Foundation

extension FixtureSubset.Summary {
    /// The summary as `harness fixtures subset` prints it: one line per entity (its rows before
    /// and after, and why they are there), the keys cleared, join and history rows removed, the
    /// scrubbed attributes and what the checks of the result found.
    ///
    /// ```swift
    /// print(try FixtureSubset.write(from: input, schema: schema, keep: ["Item": 3], to: output).text)
    /// ```
    public var text: String {
        var lines = ["wrote \(output) from \(input) (seed \(seed))"]
        let width = entities.map(\.name.count).max() ?? 0
        for entity in entities {
            let name = entity.name.padding(toLength: width, withPad: " ", startingAt: 0)
            lines.append("  \(name)  \(entity.rowsAfter) of \(entity.rowsBefore) rows: \(Self.reason(entity))")
        }
        lines.append("cleared keys to rows not kept: " + Self.counts(clearedKeys))
        lines.append("removed join rows to rows not kept: " + Self.counts(removedJoinRows))
        lines.append(
            "history: \(historyRowsRemoved) rows removed; ATRANSACTION, ACHANGE and ATRANSACTIONSTRING are empty")
        if !otherTables.isEmpty {
            lines.append("left as they were (not in the schema): \(otherTables.joined(separator: ", "))")
        }
        for report in scrubbed {
            lines.append(
                "scrubbed \(report.entity).\(report.attribute) as \(report.kind.rawValue)\(report.inferred ? " (inferred)" : ""): \(report.rows) rows, \(report.distinctValues) distinct values, \(report.collisionsResolved) collisions resolved"
            )
        }
        if isValid {
            lines.append(
                "check: integrity_check ok; no key points at a missing row; required relationships set; opens with the schema"
            )
        } else {
            lines.append("PROBLEMS in the result:")
            lines += (integrityProblems + referentialProblems).map { "  \($0)" }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func reason(_ entity: FixtureSubset.EntityResult) -> String {
        var parts: [String] = []
        if let requested = entity.requested {
            parts.append("named (\(requested == FixtureSubset.all ? "all" : String(requested)))")
        }
        if !entity.requiredBy.isEmpty {
            parts.append("required by " + counts(entity.requiredBy))
        }
        if parts.isEmpty {
            parts.append(
                entity.rowsAfter == 0
                    ? "not named and not required by a kept row: empty" : "instances of a named super-entity")
        }
        return parts.joined(separator: "; ")
    }

    private static func counts(_ values: [String: Int]) -> String {
        values.isEmpty
            ? "none" : values.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}

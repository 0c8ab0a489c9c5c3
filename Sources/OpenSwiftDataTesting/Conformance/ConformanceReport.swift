import Foundation

/// The results of a conformance run — every case on every store, and the differential checks —
/// rendered as the terminal table, Markdown and JUnit XML that `harness conform` writes.
///
/// ```swift
/// var report = ConformanceReport(seed: 1, stores: StoreKind.allCases)
/// for suite in ConformanceSuite.all { for store in StoreKind.allCases { report.results += suite.run(on: store) } }
/// try report.junitXML().write(toFile: "Reports/conformance-junit.xml", atomically: true, encoding: .utf8)
/// ```
public struct ConformanceReport: Sendable, Codable {
    /// The seed of the run.
    public var seed: UInt64
    /// The stores the run covered, in column order.
    public var stores: [StoreKind]
    /// One result per case and store.
    public var results: [ConformanceResult] = []
    /// The differential run, when there was one.
    public var differential: DifferentialReport?
    /// The shards this report covers: one for a sharded run, all N after ``merged(_:)``;
    /// empty for an unsharded run.
    public var shards: [Shard] = []
    /// The score of the last `harness conform --mutants` run, when its report was found
    /// (``MutationScore/latest(in:)``); stated in ``markdown()`` and the JSON.
    package var mutationScore: MutationScore?

    /// An empty report.
    package init(seed: UInt64, stores: [StoreKind]) {
        self.seed = seed
        self.stores = stores
    }

    /// Whether every case passed on every store and no differential case mismatched.
    public var passed: Bool { results.allSatisfy(\.passed) && (differential?.passed ?? true) }

    /// Every failure: failed cases first, then differential mismatches.
    public var failures: [ConformanceFailure] {
        results.compactMap(\.failure) + (differential?.mismatches ?? [])
    }

    /// Suite names in the order they were run.
    var suiteNames: [String] {
        var seen: [String] = []
        for r in results where !seen.contains(r.suite) { seen.append(r.suite) }
        return seen
    }

    /// `pass`, or `FAIL n/m` for the results of one suite on one store.
    func cell(_ suite: String, _ store: StoreKind) -> String {
        let rs = results.filter { $0.suite == suite && $0.store == store }
        guard !rs.isEmpty else { return "—" }
        let failed = rs.filter { !$0.passed }.count
        return failed == 0 ? "pass" : "FAIL \(failed)/\(rs.count)"
    }

    func differentialCell(_ store: StoreKind) -> String {
        guard let d = differential else { return "—" }
        let failed = d.mismatches.filter { $0.store == store || $0.store == nil }.count
        return failed == 0 ? "pass" : "FAIL \(failed)"
    }

    /// The suite × store table printed by `harness conform`.
    package func table() -> String {
        let width = max(14, (suiteNames + ["differential"]).map(\.count).max() ?? 0)
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
        var lines = [pad("suite", width) + "  " + pad("cases", 6) + stores.map { "  " + pad($0.rawValue, 10) }.joined()]
        for suite in suiteNames {
            let count = Set(results.filter { $0.suite == suite }.map { "\($0.caseID) \($0.title)" }).count
            lines.append(
                pad(suite, width) + "  " + pad("\(count)", 6) + stores.map { "  " + pad(cell(suite, $0), 10) }.joined())
        }
        if let d = differential {
            lines.append(
                pad("differential", width) + "  " + pad("\(d.cases)", 6)
                    + stores.map { "  " + pad(differentialCell($0), 10) }.joined())
            lines.append("")
            let stopped = d.requested > d.cases ? " of \(d.requested) (stopped early: too many mismatches)" : ""
            lines.append(
                "differential: \(d.cases) cases\(stopped) (\(d.scripts) change scripts), \(d.checks) checks, \(d.mismatches.count) mismatches, seed \(d.seed), \(String(format: "%.1f", d.seconds)) s"
            )
        }
        return lines.joined(separator: "\n")
    }

    /// The report as Markdown: the table, then every failure with its reproduction details.
    public func markdown() -> String {
        let sharding = shards.isEmpty ? "" : " Shards: \(shards.map(\.description).joined(separator: ", "))."
        var md =
            "# Conformance report\n\nSeed \(seed).\(sharding) Stores: \(stores.map(\.rawValue).joined(separator: ", ")). Result: **\(passed ? "PASS" : "FAIL")**.\n\n"
        md += "| suite | cases | " + stores.map(\.rawValue).joined(separator: " | ") + " |\n"
        md += "|---|---:|" + stores.map { _ in "---|" }.joined() + "\n"
        for suite in suiteNames {
            let count = Set(results.filter { $0.suite == suite }.map { "\($0.caseID) \($0.title)" }).count
            md += "| \(suite) | \(count) | " + stores.map { cell(suite, $0) }.joined(separator: " | ") + " |\n"
        }
        if let d = differential {
            md +=
                "| differential | \(d.cases) | " + stores.map { differentialCell($0) }.joined(separator: " | ") + " |\n"
            md += "\nDifferential checks: \(d.cases) cases (\(d.scripts) change scripts), \(d.checks) checks, "
            md += "**\(d.mismatches.count) mismatches**, seed \(d.seed), \(String(format: "%.1f", d.seconds)) s.\n"
        }
        if let m = mutationScore {
            md +=
                "\nMutation score of the last `harness conform --mutants` run (\(m.date)): **\(m.line)** "
                + "(\(String(format: "%.1f", m.percent)) %"
                + (m.equivalent.isEmpty ? ")" : " of the \(m.total - m.equivalent.count) not argued equivalent)")
                + (m.survivors.isEmpty
                    ? ".\n"
                    : "; survivors: "
                        + m.survivors.map { $0.name + ($0.equivalence == nil ? "" : " (argued equivalent)") }
                        .joined(separator: ", ") + ".\n")
        }
        if !failures.isEmpty {
            md += "\n## Failures\n"
            for f in failures { md += "\n```\n\(f.description)\n```\n" }
        }
        md +=
            "\n## Cases\n\n| suite | ID | case | " + stores.map(\.rawValue).joined(separator: " | ")
            + " |\n|---|---|---|" + stores.map { _ in "---|" }.joined() + "\n"
        var seen = Set<String>()
        for r in results where seen.insert("\(r.suite)|\(r.caseID)|\(r.title)").inserted {
            let cells = stores.map { s in
                results.first { $0.suite == r.suite && $0.caseID == r.caseID && $0.title == r.title && $0.store == s }
                    .map { $0.passed ? "pass" : "**FAIL**" } ?? "—"
            }
            md +=
                "| \(r.suite) | \(r.caseID) | \(r.title.replacingOccurrences(of: "|", with: "\\|")) | "
                + cells.joined(separator: " | ") + " |\n"
        }
        return md
    }

    /// The report as JUnit XML: a test suite per conformance suite and store, and one for the
    /// differential run (one test case per mismatch, or a single passing one).
    public func junitXML() -> String {
        var suites: [String] = []
        var total = 0
        var totalFailures = 0
        for suite in suiteNames {
            for store in stores {
                let rs = results.filter { $0.suite == suite && $0.store == store }
                guard !rs.isEmpty else { continue }
                let failed = rs.filter { !$0.passed }.count
                total += rs.count
                totalFailures += failed
                var xml =
                    "  <testsuite name=\"\(xmlEscape("\(suite).\(store)"))\" tests=\"\(rs.count)\" failures=\"\(failed)\" time=\"\(String(format: "%.3f", rs.reduce(0) { $0 + $1.seconds }))\">\n"
                for r in rs {
                    xml +=
                        "    <testcase classname=\"conformance.\(xmlEscape(suite)).\(store)\" name=\"\(xmlEscape("\(r.caseID) \(r.title)"))\" time=\"\(String(format: "%.3f", r.seconds))\""
                    if let f = r.failure {
                        xml +=
                            ">\n      <failure message=\"\(xmlEscape(f.check))\">\(xmlEscape(f.description))</failure>\n    </testcase>\n"
                    } else {
                        xml += "/>\n"
                    }
                }
                suites.append(xml + "  </testsuite>\n")
            }
        }
        if let d = differential {
            let tests = max(1, d.mismatches.count)
            total += tests
            totalFailures += d.mismatches.count
            var xml =
                "  <testsuite name=\"differential\" tests=\"\(tests)\" failures=\"\(d.mismatches.count)\" time=\"\(String(format: "%.3f", d.seconds))\">\n"
            if d.mismatches.isEmpty {
                xml +=
                    "    <testcase classname=\"conformance.differential\" name=\"\(d.cases) cases, seed \(d.seed)\" time=\"\(String(format: "%.3f", d.seconds))\"/>\n"
            }
            for f in d.mismatches {
                xml += "    <testcase classname=\"conformance.differential\" name=\"\(xmlEscape(f.caseID))\">\n"
                xml +=
                    "      <failure message=\"\(xmlEscape(f.check))\">\(xmlEscape(f.description))</failure>\n    </testcase>\n"
            }
            suites.append(xml + "  </testsuite>\n")
        }
        return
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"OpenSwiftData conformance\" tests=\"\(total)\" failures=\"\(totalFailures)\">\n"
            + suites.joined() + "</testsuites>\n"
    }
}

/// Escapes `&`, `<`, `>`, quotes, and drops characters XML 1.0 cannot carry.
func xmlEscape(_ s: String) -> String {
    var out = ""
    for scalar in s.unicodeScalars {
        switch scalar {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&apos;"
        case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
        default:
            if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) {
                out += "\u{FFFD}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out
}

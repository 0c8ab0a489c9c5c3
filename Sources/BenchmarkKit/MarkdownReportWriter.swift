import Foundation

/// Renders a report as Markdown (`latest.md`): a header, then one table per group.
///
/// Columns: `name | store | rows | strategy | median per run | p90 per run | ratio to raw | index speed-up | mallocs/op | plan`:
/// times are per run of the workload (one call, or a whole batch), allocations per operation.
/// The index speed-up (``IndexSpeedup``, `none` median ÷ `declared` median, ours and raw) is on
/// the `declared` rows of workloads also run under `none`. A metric that was not measured shows as `—`.
/// ```swift
/// try MarkdownReportWriter.render(report).write(to: dir.appendingPathComponent("latest.md"),
///                                               atomically: true, encoding: .utf8)
/// ```
public enum MarkdownReportWriter {
    /// The whole document.
    public static func render(_ report: BenchmarkReport) -> String {
        var lines: [String] = ["# Benchmarks", ""]
        let date = ISO8601DateFormatter().string(from: report.timestamp)
        lines.append("- Date: \(date)")
        let cpu = report.machine.cpuModel ?? "unknown CPU"
        let gib = Double(report.machine.memoryBytes) / Double(1 << 30)
        lines.append(
            "- Machine: \(escape(report.machine.hostname)), \(escape(cpu)), "
                + "\(report.machine.coreCount) cores, \(String(format: "%.1f", gib)) GiB")
        let toolchain = report.toolchain.split(separator: "\n").first.map(String.init) ?? report.toolchain
        lines.append("- Toolchain: \(escape(toolchain))")
        lines.append("- SQLite: \(report.sqliteVersion); build: \(report.buildConfiguration)")
        if let allocator = report.allocator { lines.append("- Allocator: \(escape(allocator))") }
        for group in report.groups {
            lines.append("")
            lines.append("## \(escape(group))")
            lines.append("")
            lines.append(contentsOf: table(report.results.filter { $0.group == group }))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One group's table (header, separator, one row per result).
    public static func table(_ results: [BenchmarkResult]) -> [String] {
        var lines = [
            "| name | store | rows | strategy | median per run | p90 per run | ratio to raw | index speed-up | mallocs/op | plan |",
            "|---|---|---:|---|---:|---:|---:|---|---:|---|",
        ]
        let speedups = IndexSpeedup.all(in: results)
        for r in results {
            let cells = [
                escape(r.name), dash(r.store), "\(r.rows)", dash(r.strategy),
                duration(r.metrics[MetricName.wallNanosecondsMedian]),
                duration(r.metrics[MetricName.wallNanosecondsP90]),
                r.ratioToRaw.map { String(format: "%.2f×", $0) } ?? "—",
                speedups[r.key]?.description ?? "—",
                mallocs(r),
                r.queryPlan.isEmpty ? "—" : escape(r.queryPlan.joined(separator: "; ")),
            ]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        return lines
    }

    /// `"812 ns"`, `"3.40 µs"`, `"12.5 ms"`, `"1.20 s"`; `—` when absent.
    public static func duration(_ nanoseconds: Double?) -> String {
        guard let ns = nanoseconds else { return "—" }
        switch ns {
        case ..<1_000: return String(format: "%.0f ns", ns)
        case ..<1_000_000: return String(format: "%.2f µs", ns / 1e3)
        case ..<1_000_000_000: return String(format: "%.2f ms", ns / 1e6)
        default: return String(format: "%.2f s", ns / 1e9)
        }
    }

    /// Mallocs per operation, else per run with a `/run` suffix, else `—`.
    static func mallocs(_ r: BenchmarkResult) -> String {
        if let perOp = r.metrics[MetricName.mallocCountPerOperation] { return String(format: "%.2f", perOp) }
        if let perRun = r.metrics[MetricName.mallocCountPerRun] { return String(format: "%.0f/run", perRun) }
        return "—"
    }

    private static func dash(_ s: String) -> String { s.isEmpty ? "—" : escape(s) }

    /// Escapes text for a table cell: `|` → `\|`, newlines → spaces.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|")
            .replacingOccurrences(of: "\r", with: " ")
            .replacingOccurrences(of: "\n", with: " ")
    }
}

import Foundation

/// Builds the standard charts of a report: cost vs rows per group, and ratio-to-raw bars.
///
/// ```swift
/// for group in report.groups {
///     if let chart = ReportCharts.costVsRows(report, group: group) { write(chart.render()) }
/// }
/// let bars = ReportCharts.ratioToRaw(report, targets: [.init(label: "fetchCount ≤ 1.2×", ratio: 1.2)])
/// ```
public enum ReportCharts {
    /// Median wall time vs rows for one group: a solid line per (name, store, strategy) and a dashed
    /// line for its raw baseline. `nil` when the group has no plottable points.
    ///   - name: only this workload (one chart per workload keeps the legend readable).
    public static func costVsRows(
        _ report: BenchmarkReport, group: String, name: String? = nil,
        metric: String = MetricName.wallNanosecondsMedian
    ) -> LogLogChart? {
        var order: [String] = []
        var points: [String: [(x: Double, y: Double)]] = [:]
        var dashed: Set<String> = []
        func add(_ series: String, _ x: Int, _ y: Double?, raw: Bool) {
            guard let y else { return }
            if points[series] == nil { order.append(series) }
            if raw { dashed.insert(series) }
            // Duplicate results for one rows value keep the first.
            if !points[series, default: []].contains(where: { $0.x == Double(x) }) {
                points[series, default: []].append((x: Double(x), y: y))
            }
        }
        for r in report.results where r.group == group && (name == nil || r.name == name) {
            let series = [name == nil ? r.name : "", r.store, r.strategy].filter { !$0.isEmpty }.joined(
                separator: " · ")
            add(series, r.rows, r.metrics[metric], raw: false)
            add("\(series) · raw", r.rows, r.metrics[MetricName.raw(metric)], raw: true)
        }
        guard !points.isEmpty else { return nil }
        let series: [LogLogChart.Series] = order.map { name in
            LogLogChart.Series(name: name, points: points[name] ?? [], dashed: dashed.contains(name))
        }
        let isTime = metric.lowercased().contains("nanoseconds")
        let yTickLabel: (Double) -> String = { value in
            isTime ? LogLogChart.durationLabel(value) : LogLogChart.countLabel(value)
        }
        let words = axisTitle(metric)
        return LogLogChart(
            title: "\(name ?? group): \(words) vs rows", xLabel: "rows", yLabel: words, series: series,
            yTickLabel: yTickLabel)
    }

    /// A metric's name in words for an axis or a title (`wallNanosecondsMedian` → "median time
    /// per run"); an unknown metric keeps its key.
    public static func axisTitle(_ metric: String) -> String {
        switch metric {
        case MetricName.wallNanosecondsMedian: "median time per run"
        case MetricName.wallNanosecondsP90: "90th percentile time per run"
        case MetricName.wallNanosecondsMedianPerOperation: "median time per operation"
        case MetricName.cpuNanosecondsMedian: "median CPU time per run"
        case MetricName.mallocCountPerRun: "allocations per run"
        case MetricName.mallocCountPerOperation: "allocations per operation"
        case MetricName.allocatedBytesPerRun: "bytes allocated per run"
        case MetricName.allocatedBytesPerOperation: "bytes allocated per operation"
        case MetricName.operationsPerSecond: "operations per second"
        case MetricName.vmSteps: "SQLite VM steps per run"
        default: metric
        }
    }

    /// Ratio-to-raw bars for the results at `rows` (default: the largest scale that has a ratio).
    /// `nil` when no result has a ratio.
    public static func ratioToRaw(
        _ report: BenchmarkReport, rows: Int? = nil,
        targets: [RatioBarChart.Target] = []
    ) -> RatioBarChart? {
        let withRatio = report.results.filter { $0.ratioToRaw != nil }
        guard let scale = rows ?? withRatio.map(\.rows).max() else { return nil }
        let bars = withRatio.filter { $0.rows == scale }.map { r in
            RatioBarChart.Bar(
                label: [r.name, r.store, r.strategy].filter { !$0.isEmpty }.joined(separator: " · "),
                ratio: r.ratioToRaw ?? 0)
        }
        guard !bars.isEmpty else { return nil }
        return RatioBarChart(title: "Median cost ÷ raw SQLite at \(scale) rows", bars: bars, targets: targets)
    }
}

/// Writes a report's files into a directory: JSON, Markdown and SVG charts.
///
/// Files: `bench-<yyyyMMdd-HHmmss>.json`, `latest.md`, `<workload>-wall.svg` per workload
/// (median wall time vs rows, ours solid, raw SQLite dashed, per store and index strategy),
/// `ratio-to-raw.svg`. The directory is created if needed.
/// ```swift
/// let written = try ReportDirectoryWriter.write(report, to: URL(fileURLWithPath: "Reports"))
/// ```
public enum ReportDirectoryWriter {
    /// Writes every file and returns their URLs, JSON first.
    @discardableResult
    public static func write(
        _ report: BenchmarkReport, to directory: URL,
        targets: [RatioBarChart.Target] = []
    ) throws -> [URL] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var written: [URL] = []
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let json = directory.appendingPathComponent("bench-\(formatter.string(from: report.timestamp)).json")
        try JSONReportCoder.encode(report).write(to: json, options: .atomic)
        written.append(json)
        let markdown = directory.appendingPathComponent("latest.md")
        try MarkdownReportWriter.render(report).write(to: markdown, atomically: true, encoding: .utf8)
        written.append(markdown)
        for group in report.groups {
            var names: [String] = []
            for r in report.results where r.group == group && !names.contains(r.name) { names.append(r.name) }
            for name in names {
                guard let chart = ReportCharts.costVsRows(report, group: group, name: name) else { continue }
                let url = directory.appendingPathComponent("\(fileName(name))-wall.svg")
                try chart.render().write(to: url, atomically: true, encoding: .utf8)
                written.append(url)
            }
        }
        if let bars = ReportCharts.ratioToRaw(report, targets: targets) {
            let url = directory.appendingPathComponent("ratio-to-raw.svg")
            try bars.render().write(to: url, atomically: true, encoding: .utf8)
            written.append(url)
        }
        return written
    }

    /// A group name reduced to `[a-z0-9-]`.
    static func fileName(_ group: String) -> String {
        let mapped = group.lowercased().map { $0.isLetter && $0.isASCII || $0.isNumber && $0.isASCII ? $0 : "-" }
        let name = String(mapped).split(separator: "-").joined(separator: "-")
        return name.isEmpty ? "group" : name
    }
}

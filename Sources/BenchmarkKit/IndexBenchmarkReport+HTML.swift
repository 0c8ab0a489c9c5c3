import Foundation

extension IndexBenchmarkReport {
    /// The report as one self-contained HTML page (`index.html`: inline CSS and SVG, no network):
    /// the recommendation at the top, then one section per query with a table of every strategy
    /// (median, speed-up over `none`, ratio to raw, VM steps, plan) beside a chart of the speed-ups,
    /// then the indexes and write cost of each strategy.
    ///
    /// ```swift
    /// try report.html().write(to: URL(fileURLWithPath: "Reports/index.html"), atomically: true, encoding: .utf8)
    /// ```
    public func html() -> String {
        var body: [String] = [
            "<h1>Index benchmark: \(h(name))</h1>",
            "<p>\(rows) rows, \(h(store)) store. Query times are per call (one fetch, count or identifier fetch); write times per operation (one model written, the save included pro rata); ratio to raw compares with the same SQL run through SQLite directly.</p>",
            "<h2 id=\"recommendation\">Recommendation</h2>",
            "<p>\(h(IndexBenchmarkReport.recommendationRule))</p>",
            "<table><tr><th>query</th><th>operation</th><th>cheapest strategy</th><th>median</th><th>speed-up over none</th><th>ratio to raw</th><th>write cost over none</th></tr>",
        ]
        for r in recommendations {
            body.append(
                "<tr><td>\(h(r.query))</td><td>\(r.operation.rawValue)</td><td><b>\(h(r.strategy))</b></td><td>\(MarkdownReportWriter.duration(r.medianNanoseconds))</td><td>\(r.speedupOverNone.map { String(format: "%.1f×", $0) } ?? "—")</td><td>\(r.ratioToRaw.map { String(format: "%.2f×", $0) } ?? "—")</td><td>\(r.writeCostOverNone.map { String(format: "%.2f×", $0) } ?? "—")</td></tr>"
            )
        }
        body.append("</table>")
        let results = benchmark.results
        for query in queryNames {
            body.append("<section class=\"query\"><h2>\(h(query))</h2><div class=\"side\"><div>")
            body.append(
                "<table><tr><th>operation</th><th>strategy</th><th>median</th><th>speed-up over none</th><th>ratio to raw</th><th>VM steps</th><th>plan</th></tr>"
            )
            var bars: [RatioBarChart.Bar] = []
            for s in statements where s.query == query {
                let runs = results.filter { $0.name == "\(query) · \(s.operation.rawValue)" }
                let none = runs.first { $0.strategy == "none" }?.metrics[MetricName.wallNanosecondsMedian]
                for r in runs {
                    let median = r.metrics[MetricName.wallNanosecondsMedian]
                    let speedup = none.flatMap { n in median.map { n / max($0, 1) } }
                    if let speedup {
                        bars.append(.init(label: "\(s.operation.rawValue) · \(r.strategy)", ratio: speedup))
                    }
                    body.append(
                        "<tr><td>\(s.operation.rawValue)</td><td>\(h(r.strategy))</td><td>\(MarkdownReportWriter.duration(median))</td><td>\(speedup.map { String(format: "%.1f×", $0) } ?? "—")</td><td>\(r.ratioToRaw.map { String(format: "%.2f×", $0) } ?? "—")</td><td>\(r.metrics[MetricName.vmSteps].map { String(Int($0)) } ?? "—")</td><td><code>\(h(r.queryPlan.joined(separator: "; ")))</code></td></tr>"
                    )
                }
            }
            body.append("</table>")
            for s in statements where s.query == query {
                body.append("<p class=\"sql\">\(s.operation.rawValue): <code>\(h(s.sql))</code></p>")
            }
            body.append("</div><div class=\"chart\">")
            if !bars.isEmpty {
                let svg = RatioBarChart(title: "Speed-up over no index", bars: bars, referenceLabel: "no index = 1×")
                    .render()
                body.append(svg.components(separatedBy: "\n").filter { !$0.hasPrefix("<?xml") }.joined(separator: "\n"))
            }
            body.append("</div></div></section>")
        }
        let writeCost = writeNanosecondsPerOperation
        body.append(
            "<h2>Indexes and write cost per strategy</h2><table><tr><th>strategy</th><th>indexes</th><th>unique indexes</th><th>index bytes</th><th>write time per operation</th></tr>"
        )
        for s in strategies {
            let list = s.indexes.map { "\(h($0.description))\($0.sizeBytes.map { " \($0) B" } ?? "")" }.joined(
                separator: "<br>")
            let bytes = s.indexes.compactMap(\.sizeBytes).reduce(0, +)
            body.append(
                "<tr><td>\(h(s.strategy))</td><td>\(list)</td><td>\(s.uniqueIndexes.rawValue)\(s.note.map { "<br><small>\(h($0))</small>" } ?? "")</td><td>\(s.indexes.contains { $0.sizeBytes != nil } ? "\(bytes)" : "—")</td><td>\(MarkdownReportWriter.duration(writeCost[s.strategy]))</td></tr>"
            )
        }
        body.append("</table>")
        let style = """
            body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:8px 0}
            th,td{border:1px solid #ccc;padding:4px 8px;font-size:13px;text-align:left;vertical-align:top}
            th{background:#f0f0f0}code{font-size:12px}.side{display:flex;gap:24px;flex-wrap:wrap;align-items:flex-start}
            .chart svg{max-width:640px;height:auto}.sql{font-size:12px;max-width:900px}
            """
        return
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Index benchmark: \(h(name))</title><style>\(style)</style></head><body>\n"
            + body.joined(separator: "\n") + "\n</body></html>\n"
    }

    private func h(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

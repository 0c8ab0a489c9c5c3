import Foundation

/// A cost-versus-size chart on log–log axes: one polyline per series, ticks at powers of ten, a legend.
///
/// ```swift
/// let chart = LogLogChart(title: "fetch: wall time vs rows", xLabel: "rows", yLabel: "median wall time",
///                         series: [.init(name: "indexed", points: [(1_000, 2e4), (10_000, 2.1e4)]),
///                                  .init(name: "unindexed", points: [(1_000, 9e4), (10_000, 9e5)])],
///                         yTickLabel: LogLogChart.durationLabel)
/// try chart.render().write(toFile: "fetch.svg", atomically: true, encoding: .utf8)
/// ```
public struct LogLogChart {
    /// One line of the chart.
    public struct Series {
        /// The legend entry.
        public var name: String
        /// Points `(x, y)`; non-positive values cannot sit on a log axis and are dropped.
        public var points: [(x: Double, y: Double)]
        /// Draw dashed (e.g. the raw-SQLite baseline).
        public var dashed: Bool

        /// Creates a series.
        public init(name: String, points: [(x: Double, y: Double)], dashed: Bool = false) {
            self.name = name
            self.points = points
            self.dashed = dashed
        }
    }

    /// The heading.
    public var title: String
    /// The x axis caption.
    public var xLabel: String
    /// The y axis caption.
    public var yLabel: String
    /// The lines.
    public var series: [Series]
    /// Labels a power of ten on the x axis (default ``countLabel(_:)``: `1k`, `10k`, `1M`).
    public var xTickLabel: (Double) -> String
    /// Labels a power of ten on the y axis (default ``countLabel(_:)``).
    public var yTickLabel: (Double) -> String

    /// Creates a chart.
    public init(
        title: String, xLabel: String, yLabel: String, series: [Series],
        xTickLabel: @escaping (Double) -> String = LogLogChart.countLabel,
        yTickLabel: @escaping (Double) -> String = LogLogChart.countLabel
    ) {
        self.title = title
        self.xLabel = xLabel
        self.yLabel = yLabel
        self.series = series
        self.xTickLabel = xTickLabel
        self.yTickLabel = yTickLabel
    }

    /// The chart as a standalone SVG document.
    public func render() -> String {
        let width = 860.0
        let left = 90.0
        let right = 40.0
        let top = 56.0
        let axisSpace = 64.0
        let plotH = 400.0
        let legendTop = top + plotH + axisSpace
        let height = legendTop + Double(series.count) * 22 + 12
        let plotW = width - left - right
        var svg = SVGDocument(width: width, height: height)
        svg.text(title, x: left + plotW / 2, y: 30, anchor: "middle", size: 18, weight: "bold")

        let kept = series.map { s in (s, s.points.filter { $0.x > 0 && $0.y > 0 && $0.x.isFinite && $0.y.isFinite }) }
        let xs = kept.flatMap { $0.1.map(\.x) }
        let ys = kept.flatMap { $0.1.map(\.y) }
        let (x0, x1) = LogLogChart.decades(xs)
        let (y0, y1) = LogLogChart.decades(ys)
        func px(_ x: Double) -> Double { left + (log10(x) - Double(x0)) / Double(x1 - x0) * plotW }
        func py(_ y: Double) -> Double { top + plotH - (log10(y) - Double(y0)) / Double(y1 - y0) * plotH }

        svg.rect(x: left, y: top, width: plotW, height: plotH, fill: "#fafafa", stroke: "#888888")
        for k in x0...x1 {
            let x = px(pow(10, Double(k)))
            svg.line(x1: x, y1: top, x2: x, y2: top + plotH, stroke: "#dddddd")
            svg.line(x1: x, y1: top + plotH, x2: x, y2: top + plotH + 6, stroke: "#444444")
            svg.text(xTickLabel(pow(10, Double(k))), x: x, y: top + plotH + 22, anchor: "middle")
        }
        for k in y0...y1 {
            let y = py(pow(10, Double(k)))
            svg.line(x1: left, y1: y, x2: left + plotW, y2: y, stroke: "#dddddd")
            svg.line(x1: left - 6, y1: y, x2: left, y2: y, stroke: "#444444")
            svg.text(yTickLabel(pow(10, Double(k))), x: left - 10, y: y + 4, anchor: "end")
        }
        svg.text(xLabel, x: left + plotW / 2, y: top + plotH + 44, anchor: "middle", size: 14)
        svg.text(yLabel, x: 22, y: top + plotH / 2, anchor: "middle", size: 14, rotate: -90)

        for (index, (s, points)) in kept.enumerated() {
            let color = SVGDocument.palette[index % SVGDocument.palette.count]
            let sortedPoints = points.sorted { $0.x < $1.x }.map { (x: px($0.x), y: py($0.y)) }
            if sortedPoints.count > 1 {
                svg.polyline(sortedPoints, stroke: color, dash: s.dashed ? "7 4" : nil)
            }
            for p in sortedPoints { svg.circle(cx: p.x, cy: p.y, r: 3.5, fill: color) }
            let ly = legendTop + 8 + Double(index) * 22  // legend below the plot: long names fit
            svg.line(x1: left, y1: ly, x2: left + 32, y2: ly, stroke: color, width: 3, dash: s.dashed ? "7 4" : nil)
            svg.text(s.name, x: left + 40, y: ly + 4)
        }
        return svg.render()
    }

    /// The decade exponents spanning `values` (at least one decade; `0…1` when empty).
    static func decades(_ values: [Double]) -> (Int, Int) {
        guard let lo = values.min(), let hi = values.max() else { return (0, 1) }
        let a = Int(log10(lo).rounded(.down))
        let b = Int(log10(hi).rounded(.up))
        return b > a ? (a, b) : (a, a + 1)
    }

    /// `1`, `10`, `100`, `1k`, `10k`, `100k`, `1M`, `10M`, `1G` … for powers of ten (and `0.1` below 1).
    public static func countLabel(_ value: Double) -> String {
        switch value {
        case 1e9...: return "\(Int((value / 1e9).rounded()))G"
        case 1e6...: return "\(Int((value / 1e6).rounded()))M"
        case 1e3...: return "\(Int((value / 1e3).rounded()))k"
        case 1...: return "\(Int(value.rounded()))"
        default: return String(format: "%g", value)
        }
    }

    /// A nanosecond value as `1 ns`, `10 µs`, `100 ms`, `1 s`, `10 s` for powers of ten.
    public static func durationLabel(_ nanoseconds: Double) -> String {
        switch nanoseconds {
        case 1e9...: return "\(Int((nanoseconds / 1e9).rounded())) s"
        case 1e6...: return "\(Int((nanoseconds / 1e6).rounded())) ms"
        case 1e3...: return "\(Int((nanoseconds / 1e3).rounded())) µs"
        default: return String(format: "%g ns", nanoseconds)
        }
    }
}

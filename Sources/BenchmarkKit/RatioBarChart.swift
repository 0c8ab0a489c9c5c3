import Foundation

/// Horizontal bars of ratio to raw SQLite, with a solid line at 1.0 and dashed target lines.
///
/// ```swift
/// let chart = RatioBarChart(title: "Cost relative to raw SQLite (100k rows, disk)",
///                           bars: [.init(label: "batch insert", ratio: 1.7)],
///                           targets: [.init(label: "insert ≤ 2×", ratio: 2)])
/// let svg = chart.render()
/// ```
public struct RatioBarChart {
    /// One bar.
    public struct Bar: Sendable {
        /// The label left of the bar.
        public var label: String
        /// The ratio (1.0 = as fast as raw SQLite).
        public var ratio: Double
        /// Creates a bar.
        public init(label: String, ratio: Double) {
            self.label = label
            self.ratio = ratio
        }
    }

    /// A vertical target line.
    public struct Target: Sendable {
        /// The caption above the line.
        public var label: String
        /// The ratio it marks.
        public var ratio: Double
        /// Creates a target.
        public init(label: String, ratio: Double) {
            self.label = label
            self.ratio = ratio
        }
    }

    /// The heading.
    public var title: String
    /// The bars, top to bottom.
    public var bars: [Bar]
    /// Target lines, drawn dashed.
    public var targets: [Target]

    /// What a ratio of 1 stands for, written under the reference line.
    public var referenceLabel: String

    /// Creates a chart; `referenceLabel` names what 1× is (raw SQLite by default).
    public init(title: String, bars: [Bar], targets: [Target] = [], referenceLabel: String = "raw SQLite = 1×") {
        self.title = title
        self.bars = bars
        self.targets = targets
        self.referenceLabel = referenceLabel
    }

    /// The chart as a standalone SVG document.
    public func render() -> String {
        // Labels are right-aligned left of the bars: the margin grows with the longest one
        // (about 7 px per character at 12 px), so no label is clipped at the left edge.
        let longest = bars.map(\.label.count).max() ?? 0
        let left = max(160.0, Double(longest) * 7.0 + 20)
        let right = 70.0
        let barHeight = 22.0
        let gap = 8.0
        let top = 50.0 + (targets.isEmpty ? 0 : Double(targets.count) * 16)
        let bottom = 44.0
        let plotW = 520.0
        let width = left + plotW + right
        let height = top + Double(max(bars.count, 1)) * (barHeight + gap) + bottom
        let finite = bars.map(\.ratio).filter(\.isFinite)
        let maxValue = max(1.0, finite.max() ?? 1, targets.map(\.ratio).max() ?? 1) * 1.1
        func px(_ v: Double) -> Double { left + min(max(v, 0), maxValue) / maxValue * plotW }

        var svg = SVGDocument(width: width, height: height)
        svg.text(title, x: width / 2, y: 28, anchor: "middle", size: 17, weight: "bold")
        let plotBottom = height - bottom
        svg.line(x1: left, y1: top - 4, x2: left, y2: plotBottom, stroke: "#444444")

        let step = RatioBarChart.tickStep(maxValue)
        var tick = 0.0
        while tick <= maxValue + 1e-9 {
            let x = px(tick)
            svg.line(x1: x, y1: plotBottom, x2: x, y2: plotBottom + 5, stroke: "#444444")
            svg.text(String(format: "%g×", tick), x: x, y: plotBottom + 20, anchor: "middle", size: 11)
            tick += step
        }
        for (i, bar) in bars.enumerated() {
            let y = top + Double(i) * (barHeight + gap)
            let value = bar.ratio.isFinite ? bar.ratio : maxValue
            let color = bar.ratio > 1 ? "#D55E00" : "#009E73"
            svg.rect(x: left, y: y, width: max(px(value) - left, 1), height: barHeight, fill: color)
            svg.text(bar.label, x: left - 8, y: y + barHeight * 0.7, anchor: "end", size: 12)
            svg.text(
                bar.ratio.isFinite ? String(format: "%.2f×", bar.ratio) : "∞",
                x: px(value) + 5, y: y + barHeight * 0.7, size: 11)
        }
        svg.line(x1: px(1), y1: top - 6, x2: px(1), y2: plotBottom, stroke: "#000000", width: 2)
        svg.text(referenceLabel, x: px(1), y: plotBottom + 36, anchor: "middle", size: 11)
        for (i, target) in targets.enumerated() {
            let x = px(target.ratio)
            svg.line(x1: x, y1: top - 6, x2: x, y2: plotBottom, stroke: "#CC0000", width: 1.5, dash: "6 4")
            svg.text(target.label, x: x, y: 50 + Double(i) * 16 - 4, anchor: "middle", size: 11, fill: "#CC0000")
        }
        return svg.render()
    }

    /// A tick spacing giving at most ~8 ticks: 0.25, 0.5, 1, 2, 5, 10, …
    static func tickStep(_ maxValue: Double) -> Double {
        for step in [0.25, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500] where maxValue / step <= 8 { return step }
        return (maxValue / 8).rounded(.up)
    }
}

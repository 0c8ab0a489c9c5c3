import Foundation

/// A minimal SVG writer: a standalone document (`xmlns`, `viewBox`) built from escaped elements.
///
/// ```swift
/// var svg = SVGDocument(width: 400, height: 200)
/// svg.text("Costs & ratios", x: 200, y: 20, anchor: "middle", size: 16, weight: "bold")
/// svg.line(x1: 0, y1: 100, x2: 400, y2: 100, stroke: "#999")
/// let xml = svg.render()
/// ```
public struct SVGDocument {
    /// Width in user units (and pixels).
    public var width: Double
    /// Height in user units (and pixels).
    public var height: Double
    private var body: [String] = []

    /// Creates an empty document of the given size with a white background.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
        rect(x: 0, y: 0, width: width, height: height, fill: "#ffffff")
    }

    /// Adds a rectangle.
    public mutating func rect(
        x: Double, y: Double, width: Double, height: Double, fill: String,
        stroke: String? = nil
    ) {
        var attributes =
            "x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(width))\" height=\"\(n(height))\" fill=\"\(SVGDocument.escape(fill))\""
        if let stroke { attributes += " stroke=\"\(SVGDocument.escape(stroke))\"" }
        body.append("<rect \(attributes)/>")
    }

    /// Adds a line; `dash` is an SVG `stroke-dasharray` such as `"6 4"`.
    public mutating func line(
        x1: Double, y1: Double, x2: Double, y2: Double, stroke: String,
        width: Double = 1, dash: String? = nil
    ) {
        var attributes =
            "x1=\"\(n(x1))\" y1=\"\(n(y1))\" x2=\"\(n(x2))\" y2=\"\(n(y2))\" stroke=\"\(SVGDocument.escape(stroke))\" stroke-width=\"\(n(width))\""
        if let dash { attributes += " stroke-dasharray=\"\(SVGDocument.escape(dash))\"" }
        body.append("<line \(attributes)/>")
    }

    /// Adds an unfilled polyline through `points`.
    public mutating func polyline(
        _ points: [(x: Double, y: Double)], stroke: String, width: Double = 2,
        dash: String? = nil
    ) {
        let list = points.map { "\(n($0.x)),\(n($0.y))" }.joined(separator: " ")
        var attributes =
            "points=\"\(list)\" fill=\"none\" stroke=\"\(SVGDocument.escape(stroke))\" stroke-width=\"\(n(width))\""
        if let dash { attributes += " stroke-dasharray=\"\(SVGDocument.escape(dash))\"" }
        body.append("<polyline \(attributes)/>")
    }

    /// Adds a filled circle.
    public mutating func circle(cx: Double, cy: Double, r: Double, fill: String) {
        body.append("<circle cx=\"\(n(cx))\" cy=\"\(n(cy))\" r=\"\(n(r))\" fill=\"\(SVGDocument.escape(fill))\"/>")
    }

    /// Adds text; `anchor` is `start`, `middle` or `end`; `rotate` turns it about (x, y) in degrees.
    public mutating func text(
        _ content: String, x: Double, y: Double, anchor: String = "start",
        size: Double = 12, weight: String = "normal", fill: String = "#222222",
        rotate: Double? = nil
    ) {
        var attributes =
            "x=\"\(n(x))\" y=\"\(n(y))\" text-anchor=\"\(anchor)\" font-size=\"\(n(size))\" font-weight=\"\(weight)\" fill=\"\(SVGDocument.escape(fill))\""
        if let rotate { attributes += " transform=\"rotate(\(n(rotate)) \(n(x)) \(n(y)))\"" }
        body.append("<text \(attributes)>\(SVGDocument.escape(content))</text>")
    }

    /// The standalone document, with an XML declaration, `xmlns` and `viewBox`.
    public func render() -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(n(width))\" height=\"\(n(height))\" "
        out += "viewBox=\"0 0 \(n(width)) \(n(height))\" font-family=\"Helvetica, Arial, sans-serif\">\n"
        for element in body { out += "  " + element + "\n" }
        out += "</svg>\n"
        return out
    }

    /// Escapes `&`, `<`, `>`, `"` and `'` for text and attribute values.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for ch in text {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(ch)
            }
        }
        return out
    }

    /// A coordinate with at most two decimals, no exponent.
    private func n(_ value: Double) -> String {
        value.isFinite ? String(format: "%.2f", value).replacingOccurrences(of: ".00", with: "") : "0"
    }

    /// A colour-blind-friendly palette (Okabe–Ito) for series.
    public static let palette: [String] = [
        "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442",
    ]
}

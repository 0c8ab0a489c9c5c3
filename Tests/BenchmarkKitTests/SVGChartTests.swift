import Foundation
import Testing

@testable import BenchmarkKit

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Collects element names, attributes and text while parsing an SVG document.
final class SVGCollector: NSObject, XMLParserDelegate {
    var elements: [(name: String, attributes: [String: String])] = []
    var texts: [String] = []
    private var currentText = ""

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        elements.append((elementName, attributeDict))
        currentText = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { currentText += string }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
    ) {
        if elementName == "text" { texts.append(currentText) }
    }

    static func parse(_ svg: String) throws -> SVGCollector {
        let collector = SVGCollector()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = collector
        let ok = parser.parse()
        #expect(ok, "XML parse error: \(String(describing: parser.parserError))")
        return collector
    }
}

@Suite("BenchmarkKit SVG")
struct SVGChartTests {
    @Test func logLogChartIsWellFormedWithTicksLegendAndOneLinePerSeries() throws {
        let report = Fixtures.scaledReport()
        var chart = try #require(ReportCharts.costVsRows(report, group: "fetch"))
        chart.title = "fetch <indexed> & \"unindexed\""
        let parsed = try SVGCollector.parse(chart.render())
        let root = try #require(parsed.elements.first)
        #expect(root.name == "svg")
        #expect(root.attributes["xmlns"] == "http://www.w3.org/2000/svg")
        #expect(root.attributes["viewBox"] == "0 0 860 620")  // 56 + 400 plot + 64 axis + 4 legend rows × 22 + 12
        #expect(parsed.texts.contains("fetch <indexed> & \"unindexed\""))  // escaped, then unescaped by the parser
        // Series: declared, its raw, none, its raw.
        #expect(parsed.elements.filter { $0.name == "polyline" }.count == 4)
        #expect(parsed.texts.contains("equality fetch · disk · declared"))
        #expect(parsed.texts.contains("equality fetch · disk · none"))
        #expect(parsed.texts.contains("equality fetch · disk · none · raw"))
        #expect(parsed.texts.contains("1k") && parsed.texts.contains("10k") && parsed.texts.contains("100k"))
        #expect(parsed.texts.contains("1 µs") && parsed.texts.contains("100 ms"))
        #expect(parsed.elements.contains { $0.name == "polyline" && $0.attributes["stroke-dasharray"] != nil })
    }

    @Test func ratioChartHasBarsTheOneLineAndTargets() throws {
        let chart = try #require(
            ReportCharts.ratioToRaw(
                Fixtures.scaledReport(),
                targets: [
                    .init(label: "insert ≤ 2×", ratio: 2),
                    .init(label: "point fetch ≤ 3×", ratio: 3),
                ]))
        #expect(chart.bars.count == 3)  // the 100k results
        let parsed = try SVGCollector.parse(chart.render())
        #expect(parsed.elements.first?.attributes["xmlns"] == "http://www.w3.org/2000/svg")
        #expect(parsed.elements.first?.attributes["viewBox"] != nil)
        #expect(parsed.texts.contains("raw SQLite = 1×"))
        #expect(parsed.texts.contains("insert ≤ 2×") && parsed.texts.contains("point fetch ≤ 3×"))
        #expect(parsed.texts.contains("1.60×") && parsed.texts.contains("2.40×"))
        #expect(parsed.elements.filter { $0.name == "line" && $0.attributes["stroke-dasharray"] == "6 4" }.count == 2)
    }

    @Test func emptyInputsGiveNoChartOrAnEmptyButValidOne() throws {
        #expect(ReportCharts.costVsRows(Fixtures.report([]), group: "x") == nil)
        #expect(ReportCharts.ratioToRaw(Fixtures.report([Fixtures.result(ratio: nil)])) == nil)
        let empty = LogLogChart(
            title: "nothing", xLabel: "x", yLabel: "y", series: [.init(name: "s", points: [(0, -1)])])
        _ = try SVGCollector.parse(empty.render())
    }

    @Test func escapingCoversAllFiveCharacters() {
        #expect(SVGDocument.escape("a<b>&\"c\"'d'") == "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;")
        #expect(LogLogChart.decades([1_000, 100_000]) == (3, 5))
        #expect(LogLogChart.decades([20, 30]) == (1, 2))
        #expect(LogLogChart.countLabel(1e6) == "1M")
    }
}

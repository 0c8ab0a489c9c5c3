// The documentation's Swift can never drift from compiled code: every ```swift block of README.md
// and of the DocC articles (`Sources/*/*.docc/**/*.md`) is, byte for byte, one of the files below,
// and each of those files is shown in the README or an article.
//
// - `Tests/ReadmeTests/Examples/*.swift`: compiled by this test target in Swift 6 mode (and run:
//   ReadmeExampleTests calls their functions; their @Test functions and XCTest cases run as tests).
// - `scripts/consumer-check/Package.swift`: the client manifest, built by scripts/consumer-check.sh
//   (CI) against a tagged clone of this repository, with the Trips example as its program.
import Foundation
import Testing

@Suite("Readme blocks")
struct ReadmeBlocksTests {
    /// The repository's root (this file is `Tests/ReadmeTests/ReadmeBlocksTests.swift`).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// A fenced ```swift block: its first line's number in its Markdown file and its text (with the final newline).
    struct Block {
        let line: Int
        let text: String
    }

    /// The ```swift blocks of a Markdown text, in order.
    static func swiftBlocks(in markdown: String) -> [Block] {
        var blocks: [Block] = []
        var current: (line: Int, lines: [Substring])? = nil
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if var open = current {
                if line == "```" {
                    blocks.append(Block(line: open.line, text: open.lines.map { $0 + "\n" }.joined()))
                    current = nil
                } else {
                    open.lines.append(line)
                    current = open
                }
            } else if line == "```swift" {
                current = (index + 2, [])
            }
        }
        return blocks
    }

    /// The files README blocks must equal, by path relative to the root.
    static func compiledFiles() throws -> [(path: String, text: String)] {
        let examples = root.appendingPathComponent("Tests/ReadmeTests/Examples")
        let names = try FileManager.default.contentsOfDirectory(atPath: examples.path)
            .filter { $0.hasSuffix(".swift") }.sorted()
        let paths = names.map { "Tests/ReadmeTests/Examples/\($0)" } + ["scripts/consumer-check/Package.swift"]
        return try paths.map { ($0, try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// The Markdown files of the DocC catalogs (`Sources/<Module>/<Module>.docc`, at any depth), by
    /// path relative to the root, sorted.
    static func articles() throws -> [(path: String, text: String)] {
        let fileManager = FileManager.default
        let sources = root.appendingPathComponent("Sources")
        var paths: [String] = []
        for module in try fileManager.contentsOfDirectory(atPath: sources.path).sorted() {
            let moduleDirectory = sources.appendingPathComponent(module)
            guard let entries = try? fileManager.contentsOfDirectory(atPath: moduleDirectory.path) else { continue }
            for catalog in entries.sorted() where catalog.hasSuffix(".docc") {
                let catalogPath = "Sources/\(module)/\(catalog)"
                guard let files = fileManager.enumerator(atPath: root.appendingPathComponent(catalogPath).path) else {
                    continue
                }
                for case let file as String in files where file.hasSuffix(".md") {
                    paths.append("\(catalogPath)/\(file)")
                }
            }
        }
        return try paths.sorted().map { ($0, try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// Expects every ```swift block of `markdown` (the file at `path`) to be one of `files`; returns the blocks.
    @discardableResult
    static func expectBlocksAreCompiledFiles(
        in markdown: String, path: String,
        files: [(path: String, text: String)]
    ) -> [Block] {
        let blocks = swiftBlocks(in: markdown)
        for block in blocks {
            let firstLine = block.text.split(separator: "\n").first ?? ""
            #expect(
                files.contains { $0.text == block.text },
                "\(path):\(block.line) (\(firstLine)) is not, byte for byte, any of \(files.map(\.path)); edit the block and the file together"
            )
        }
        return blocks
    }

    @Test("every Swift block of the README is a compiled file")
    func readmeBlocksAreCompiledFiles() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        Self.expectBlocksAreCompiledFiles(in: readme, path: "README.md", files: try Self.compiledFiles())
    }

    @Test("every Swift block of the DocC articles is a compiled file")
    func articleBlocksAreCompiledFiles() throws {
        let files = try Self.compiledFiles()
        let articles = try Self.articles()
        for module in ["OpenSwiftData", "OpenSwiftDataTesting", "BenchmarkKit"] {
            #expect(
                articles.contains { $0.path == "Sources/\(module)/\(module).docc/\(module).md" },
                "Sources/\(module)/\(module).docc has no landing page \(module).md")
        }
        for article in articles {
            Self.expectBlocksAreCompiledFiles(in: article.text, path: article.path, files: files)
        }
    }

    @Test("every compiled file is shown in the README or a DocC article")
    func compiledFilesAreShown() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let articles = try Self.articles()
        let shown = ([readme] + articles.map(\.text)).flatMap { Self.swiftBlocks(in: $0).map(\.text) }
        for file in try Self.compiledFiles() {
            #expect(
                shown.contains(file.text),
                "\(file.path) is not shown as a ```swift block in README.md or any Sources/*/*.docc article")
        }
    }

    @Test("the block extractor")
    func extractor() {
        let markdown = "text\n```swift\nlet a = 1\n\nlet b = 2\n```\n```sh\nmake\n```\n```swift\nx\n```\n"
        let blocks = Self.swiftBlocks(in: markdown)
        #expect(blocks.map(\.text) == ["let a = 1\n\nlet b = 2\n", "x\n"])
        #expect(blocks.map(\.line) == [3, 11])
    }
}

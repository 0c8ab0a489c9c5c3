// The README's Swift can never drift from compiled code: every ```swift block of README.md is,
// byte for byte, one of the files below, and each of those files is shown in the README.
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

    /// A fenced ```swift block: its first line's number in README.md and its text (with the final newline).
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

    @Test("every Swift block of the README is a compiled file, and every such file is in the README")
    func blocksAreCompiledFiles() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = Self.swiftBlocks(in: readme)
        let files = try Self.compiledFiles()
        #expect(blocks.count >= files.count)
        for block in blocks {
            let firstLine = block.text.split(separator: "\n").first ?? ""
            #expect(files.contains { $0.text == block.text },
                    "README.md:\(block.line) (\(firstLine)) is not, byte for byte, any of \(files.map(\.path)); edit the README and the file together")
        }
        for file in files {
            #expect(blocks.contains { $0.text == file.text }, "\(file.path) is not shown in README.md as a ```swift block")
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

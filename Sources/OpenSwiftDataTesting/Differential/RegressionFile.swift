import Foundation

/// The file of differential cases that once failed, which the tests replay on every run.
///
/// One case per line: `seed case`, then an optional `# comment` (the check, store and case kind
/// at the time it was found). Blank lines and lines starting with `#` are ignored.
/// ```text
/// # seed case
/// 1 4711   # partition memory: CatalogueProduct (catalogue)
/// ```
/// ```swift
/// for entry in try RegressionFile.read(URL(fileURLWithPath: "Regressions/differential.txt")) {
///     try DifferentialHarness(seed: entry.seed).verifyCase(entry.caseIndex)
/// }
/// ```
package enum RegressionFile {
    /// One recorded case.
    package struct Entry: Hashable, Sendable {
        /// The run's seed.
        package let seed: UInt64
        /// The case number within that seed.
        package let caseIndex: Int
        /// The comment after `#`, if any.
        package let comment: String

        /// An entry.
        package init(seed: UInt64, caseIndex: Int, comment: String = "") {
            self.seed = seed
            self.caseIndex = caseIndex
            self.comment = comment
        }
    }

    /// The entries of the file at `url`.
    ///
    /// - Throws: when the file cannot be read, or a line is not `seed case [# comment]`
    ///   (the error names the line).
    package static func read(_ url: URL) throws -> [Entry] {
        let text = try String(contentsOf: url, encoding: .utf8)
        var entries: [Entry] = []
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let parts = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
            let fields = parts[0].split(whereSeparator: \.isWhitespace)
            if fields.isEmpty { continue }
            guard fields.count == 2, let seed = UInt64(fields[0]), let index = Int(fields[1]), index >= 0 else {
                throw CocoaError(
                    .fileReadCorruptFile,
                    userInfo: [
                        NSLocalizedDescriptionKey:
                            "\(url.path):\(n + 1): expected `seed case [# comment]`, found `\(raw)`"
                    ])
            }
            let comment = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            entries.append(Entry(seed: seed, caseIndex: index, comment: comment))
        }
        return entries
    }

    /// Appends the seed and case of every mismatch not yet in the file (creating it if needed).
    package static func append(_ mismatches: [ConformanceFailure], to url: URL) throws {
        // A file that exists but cannot be read or parsed throws: it must never be written over.
        let exists = FileManager.default.fileExists(atPath: url.path)
        let existing = Set((exists ? try read(url) : []).map { "\($0.seed) \($0.caseIndex)" })
        var text =
            exists
            ? try String(contentsOf: url, encoding: .utf8)
            : "# Differential cases that once failed; the tests replay every line.\n# seed case   # what failed\n"
        if !text.isEmpty && !text.hasSuffix("\n") { text += "\n" }
        for m in mismatches {
            guard let hash = m.caseID.lastIndex(of: "#"), let index = Int(m.caseID[m.caseID.index(after: hash)...])
            else { continue }
            let line = "\(m.seed) \(index)"
            guard !existing.contains(line), !text.contains("\n\(line) ") else { continue }
            text += "\(line)   # \(m.check), \(m.store.map(\.rawValue) ?? "memory vs disk")\n"
        }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }
}

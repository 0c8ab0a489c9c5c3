import Foundation

/// One updating line on standard error for a long run: runs done of the total, the one in
/// progress, and the estimated time left (`\r` rewrites it; a newline ends it).
///
/// ```swift
/// let line = ProgressLine(label: "shop", total: 30)
/// let runner = BenchmarkRunner(progress: line.update)
/// // shop 7/30 · disk, suggested · big open orders · count 3/15 · about 0:42 left
/// line.finish()
/// ```
public final class ProgressLine: @unchecked Sendable {
    private let label: String
    private let total: Int
    private let write: (String) -> Void
    private let start = MonotonicClock.wallNanoseconds()
    private var done = 0
    private var lastLength = 0
    private let lock = NSLock()

    /// Whether the line is rewritten in place (`\r`); otherwise one line per finished run.
    private let redraws: Bool

    /// A line on standard error for `total` benchmark runs (benchmark × scale): rewritten in
    /// place on a terminal; when standard error is a file or a pipe (a CI log), one plain line
    /// per finished run instead of a redraw per iteration.
    public convenience init(label: String, total: Int) {
        self.init(label: label, total: total, redraws: isatty(STDERR_FILENO) != 0) {
            FileHandle.standardError.write(Data($0.utf8))
        }
    }

    /// A line for `total` benchmark runs written through `write`, rewritten in place when
    /// `redraws`.
    public init(label: String, total: Int, redraws: Bool = true, write: @escaping (String) -> Void) {
        self.label = label
        self.total = max(total, 1)
        self.redraws = redraws
        self.write = write
    }

    /// Shows `progress`; a `.finished` event counts one run done.
    public func update(_ progress: BenchmarkProgress) {
        lock.withLock {
            if progress.phase == .finished { done += 1 }
            var parts = ["\(label) \(min(done + (progress.phase == .finished ? 0 : 1), total))/\(total)"]
            let labels = [progress.store, progress.strategy].filter { !$0.isEmpty }
            if !labels.isEmpty { parts.append(labels.joined(separator: ", ")) }
            var current = progress.benchmark
            if let planned = progress.plannedIterations, progress.phase == .measuring {
                current += " \(progress.iteration)/\(planned)"
            }
            parts.append(current)
            if done > 0 {
                let elapsed = Double(MonotonicClock.wallNanoseconds() &- start) / 1e9
                parts.append("about " + ProgressLine.clock(elapsed / Double(done) * Double(total - done)) + " left")
            }
            let text = parts.joined(separator: " · ")
            guard redraws else {
                if progress.phase == .finished { write(text + "\n") }
                return
            }
            let padding = String(repeating: " ", count: max(0, lastLength - text.count))
            lastLength = text.count
            write("\r" + text + padding)
        }
    }

    /// Ends the line with a newline.
    public func finish() {
        lock.withLock { if redraws && lastLength > 0 { write("\n") } }
    }

    /// `m:ss` (or `h:mm:ss`).
    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600
            ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
            : String(format: "%d:%02d", s / 60, s % 60)
    }
}

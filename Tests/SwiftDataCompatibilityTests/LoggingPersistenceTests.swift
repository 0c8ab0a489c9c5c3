// Persistence code that logs through OSLog, compiled unchanged: a store class with a `Logger`,
// privacy-qualified interpolations, `os_log` with a format string.
import Foundation
import OSLog
import SwiftData
import Testing

@Model
final class Entry {
    var title: String
    var words: Int
    init(title: String, words: Int) {
        self.title = title
        self.words = words
    }
}

final class JournalStore {
    private let logger = Logger(subsystem: "com.example.Journal", category: "persistence")
    let context: ModelContext

    init(container: ModelContainer) {
        context = ModelContext(container)
    }

    func add(_ title: String, words: Int) {
        context.insert(Entry(title: title, words: words))
        do {
            try context.save()
            logger.info("saved \(title, privacy: .public) with \(words) words")
        } catch {
            logger.error("save failed: \(error.localizedDescription, privacy: .public)")
        }
        let total = (try? context.fetchCount(FetchDescriptor<Entry>())) ?? 0
        logger.debug(
            "entries: \(total, format: .decimal, align: .right(columns: 4)) ratio \(0.5, format: .fixed(precision: 2))")
        os_log(
            "%{public}@ is entry %d", log: OSLog(subsystem: "com.example.Journal", category: "legacy"), type: .default,
            title, total)
    }
}

@Suite("Compatibility: persistence code that logs")
struct LoggingPersistenceTests {
    final class Lines: @unchecked Sendable {
        let lock = NSLock()
        var all: [String] = []
        func append(_ line: String) { lock.withLock { all.append(line) } }
    }

    @Test("a Logger and os_log write their messages, formatted, one line each")
    func logsWhileSaving() throws {
        let lines = Lines()
        OSLogOutput.redirect { lines.append($0) }
        defer { OSLogOutput.redirect(to: nil) }
        let container = try ModelContainer(
            for: Entry.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        JournalStore(container: container).add("Monday", words: 120)
        let written = lines.lock.withLock { lines.all }
        #expect(written.count == 3)
        #expect(written[0].hasSuffix(" info [com.example.Journal:persistence] saved Monday with 120 words"))
        #expect(written[1].hasSuffix(" debug [com.example.Journal:persistence] entries:    1 ratio 0.50"))
        #expect(written[2].hasSuffix(" notice [com.example.Journal:legacy] Monday is entry 1"))
    }
}

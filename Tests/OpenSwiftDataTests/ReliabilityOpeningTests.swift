import Foundation
import OpenSwiftDataTesting
import Testing

@testable import OpenSwiftData

/// Docs/Design.md's reliability rules when a store is opened: the file is touched only through SQLite (no lost POSIX
/// locks), a killed writer's WAL is not "corruption", concurrent creation agrees on one schema,
/// every failure is a typed `SwiftDataError`, and released containers close their files.
@Suite("Reliability opening")
struct ReliabilityOpeningTests {
    // MARK: Helpers

    /// The inode of a file, for matching it in `/proc/locks`.
    private func inode(_ url: URL) throws -> UInt64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return try #require((attributes[.systemFileNumber] as? NSNumber)?.uint64Value)
    }

    /// POSIX locks this process holds on the file with `inode`, from `/proc/locks`.
    private func posixLocks(onInode inode: UInt64) throws -> [String] {
        let pid = ProcessInfo.processInfo.processIdentifier
        // /proc files report size 0: read to the end rather than trusting the size.
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/locks"))
        defer { try? handle.close() }
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        return text.split(separator: "\n").filter { line in
            let f = line.split(separator: " ", omittingEmptySubsequences: true)
            // "1: POSIX  ADVISORY  READ 1234 08:01:5678 0 EOF"
            guard f.count >= 6, f[1] == "POSIX", Int32(f[4]) == pid else { return false }
            return f[5].split(separator: ":").last.flatMap { UInt64($0) } == inode
        }.map(String.init)
    }

    /// Descriptors of this process that point into `dir`.
    private func openDescriptors(in dir: ScratchDirectory) throws -> [String] {
        let fds = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        return fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
            .filter { $0.hasPrefix(dir.url.path) }
    }

    /// Sets the page count the main file's header promises (bytes 28–31), keeping the header's
    /// "valid-for" counter equal to the change counter so the count reads as authoritative.
    private func promisePages(_ pages: UInt32, in url: URL) throws {
        var data = try Data(contentsOf: url)
        try #require(data.count >= 100)
        for i in 0..<4 {
            data[28 + i] = UInt8(truncatingIfNeeded: pages >> (24 - 8 * UInt32(i)))
            data[92 + i] = data[24 + i]
        }
        try data.write(to: url)
    }

    // MARK: Item 1: the file is touched only through SQLite

    @Test(
        "Opening a second container on a file keeps the POSIX lock the first connection holds (a dropped lock let another process delete a WAL in use)"
    )
    func secondContainerKeepsLocks() throws {
        let dir = try ScratchDirectory(prefix: "locks")
        let url = dir.file("shared.store")
        let first = try ModelContainer(for: Category.self, configurations: ModelConfiguration(url: url))
        let ctx = ModelContext(first)
        ctx.insert(Category(name: "held"))
        try ctx.save()
        let node = try inode(url)
        let before = try posixLocks(onInode: node)
        #expect(!before.isEmpty, "a WAL connection holds a shared lock on the main file while open")
        let second = try ModelContainer(for: Category.self, configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(second).fetchCount(FetchDescriptor<Category>()) == 1)
        let after = try posixLocks(onInode: node)
        #expect(
            after.count >= before.count,
            "opening the second container dropped this process's locks: \(before) → \(after)")
        _ = first
    }

    // MARK: Item 2: a killed writer's WAL is not corruption

    @Test(
        "A store whose main file promises pages only its WAL holds (a writer killed mid-checkpoint) opens with every row"
    )
    func grownWALIsNotCorruption() throws {
        let dir = try ScratchDirectory(prefix: "grown-wal")
        let url = dir.file("live.store")
        let copy = dir.file("crashed.store")
        let container = try ModelContainer(for: Category.self, configurations: ModelConfiguration(url: url))
        let ctx = ModelContext(container)
        let first = Category(name: "checkpointed")
        first.words = (0..<20).map { Word(text: "w\($0) " + String(repeating: "x", count: 300)) }
        ctx.insert(first)
        try ctx.save()
        _ = try container.withStoreConnection { try $0.rows("PRAGMA wal_checkpoint(TRUNCATE)") }
        let mainPages = try bytes(url).count / 4096
        // More rows, only in the WAL: the database grows past the main file.
        let second = Category(name: "only in the WAL")
        second.words = (0..<200).map { Word(text: "v\($0) " + String(repeating: "y", count: 300)) }
        ctx.insert(second)
        try ctx.save()
        // A crash snapshot: the main file and the WAL as a killed process leaves them, with the
        // main file's header already rewritten (checkpoints write page 1 first).
        try bytes(url).write(to: copy)
        try bytes(URL(fileURLWithPath: url.path + "-wal")).write(to: URL(fileURLWithPath: copy.path + "-wal"))
        try promisePages(UInt32(mainPages + 40), in: copy)

        let reopened = try ModelContainer(for: Category.self, configurations: ModelConfiguration(url: copy))
        let rctx = ModelContext(reopened)
        #expect(try rctx.fetchCount(FetchDescriptor<Category>()) == 2)
        #expect(try rctx.fetchCount(FetchDescriptor<Word>()) == 220)
        #expect(try reopened.withStoreConnection { try $0.scalar("PRAGMA integrity_check") } == .text("ok"))
        _ = container
    }

    @Test(
        "A store that fails validation leaves its main file and its WAL byte for byte unchanged (no checkpoint on the way out)"
    )
    func failedOpenDoesNotCheckpoint() throws {
        let dir = try ScratchDirectory(prefix: "no-checkpoint")
        let url = dir.file("live.store")
        let copy = dir.file("snapshot.store")
        let container = try ModelContainer(for: Category.self, configurations: ModelConfiguration(url: url))
        let ctx = ModelContext(container)
        ctx.insert(Category(name: "in the WAL"))
        try ctx.save()
        try bytes(url).write(to: copy)
        let wal = URL(fileURLWithPath: copy.path + "-wal")
        try bytes(URL(fileURLWithPath: url.path + "-wal")).write(to: wal)
        let mainBefore = try bytes(copy)
        let walBefore = try bytes(wal)
        #expect(!walBefore.isEmpty)
        let error = #expect(throws: SwiftDataError.self) {
            _ = try ModelContainer(for: CtxItem.self, configurations: ModelConfiguration(url: copy))
        }
        #expect(error?.code == SwiftDataError.incompatibleSchema.code)
        #expect(error?.message.contains("not modified") == true)
        #expect(try bytes(copy) == mainBefore, "the main file changed")
        #expect(try bytes(wal) == walBefore, "the WAL was checkpointed or changed")
        // The snapshot still opens with the right models and shows the row from the WAL.
        let ok = try ModelContainer(for: Category.self, configurations: ModelConfiguration(url: copy))
        #expect(try ModelContext(ok).fetch(FetchDescriptor<Category>()).map(\.name) == ["in the WAL"])
        _ = container
    }

    @Test(
        "FixtureDatabase copies a store through SQLite: rows that are still only in its WAL come along",
        arguments: StoreKind.allCases)
    func fixtureCopyIncludesWAL(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "fixture-wal")
        let url = dir.file("app.store")
        let writer = try ModelContainer(for: Category.self, configurations: ModelConfiguration(url: url))
        let ctx = ModelContext(writer)
        ctx.insert(Category(name: "in the WAL only"))
        try ctx.save()
        let fixture = try FixtureDatabase(contentsOf: url, schema: Schema([Category.self]), store: kind)
        #expect(
            try ModelContext(fixture.container).fetch(FetchDescriptor<Category>()).map(\.name) == ["in the WAL only"])
        // The writer is undisturbed and still sees its row.
        #expect(try ModelContext(writer).fetchCount(FetchDescriptor<Category>()) == 1)
    }

    // MARK: Item 3: concurrent creation

    @Test("Four connections creating one new store at the same moment all open it and agree on one schema (30 trials)")
    func concurrentCreation() throws {
        let dir = try ScratchDirectory(prefix: "create-race")
        for trial in 0..<30 {
            let url = dir.file("race-\(trial).store")
            let start = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            let results = LockedValue<[String]>([])
            for worker in 0..<4 {
                group.enter()
                Thread {
                    defer { group.leave() }
                    start.wait()
                    do {
                        let container = try ModelContainer(
                            for: Category.self, configurations: ModelConfiguration(url: url))
                        let ctx = ModelContext(container)
                        ctx.insert(Category(name: "worker \(worker)"))
                        try ctx.save()
                        results.withLock { $0.append("ok") }
                    } catch {
                        results.withLock { $0.append("\(error)") }
                    }
                }.start()
            }
            for _ in 0..<4 { start.signal() }
            group.wait()
            let outcomes = results.withLock { $0 }
            #expect(outcomes == ["ok", "ok", "ok", "ok"], "trial \(trial): \(outcomes.filter { $0 != "ok" })")
            let check = try ModelContainer(for: Category.self, configurations: ModelConfiguration(url: url))
            #expect(try ModelContext(check).fetchCount(FetchDescriptor<Category>()) == 4, "trial \(trial)")
        }
    }

    // MARK: Item 7: every failure is a typed error

    @Test("A directory, a path below a regular file and /dev/null give typed SwiftDataErrors that say what to do")
    func badPathsAreTyped() throws {
        let dir = try ScratchDirectory(prefix: "bad-paths")
        let file = dir.file("plain.txt")
        try Data("not a directory".utf8).write(to: file)
        let cases: [(String, URL)] = [
            ("a directory", dir.url),
            ("a path below a regular file", file.appendingPathComponent("store.sqlite")),
            ("/dev/null", URL(fileURLWithPath: "/dev/null")),
        ]
        for (label, url) in cases {
            do {
                let container = try ModelContainer(for: Category.self, configurations: ModelConfiguration(url: url))
                // /dev/null may open; then a save must fail with a typed error.
                let ctx = ModelContext(container)
                ctx.insert(Category(name: "x"))
                try ctx.save()
                Issue.record("\(label): opened and saved")
            } catch let error as SwiftDataError {
                #expect(!error.message.isEmpty, "\(label)")
            } catch {
                Issue.record("\(label): untyped \(type(of: error)): \(error)")
            }
        }
        #expect(try bytes(file) == Data("not a directory".utf8))
    }

    @Test(
        "allowsSave: false opens the file read-only: a missing store is a typed error and an existing one is never written"
    )
    func readOnlyConfiguration() throws {
        let dir = try ScratchDirectory(prefix: "read-only")
        let url = dir.file("ro.store")
        let missing = #expect(throws: SwiftDataError.self) {
            _ = try ModelContainer(for: Category.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        }
        #expect(missing?.code == SwiftDataError.loadIssueModelContainer.code)
        #expect(!FileManager.default.fileExists(atPath: url.path), "a read-only open created the file")
        do {
            let writer = try ModelContainer(for: Category.self, configurations: ModelConfiguration(url: url))
            let ctx = ModelContext(writer)
            ctx.insert(Category(name: "seed"))
            try ctx.save()
        }
        let before = try bytes(url)
        let reader = try ModelContainer(
            for: Category.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        #expect(try ModelContext(reader).fetch(FetchDescriptor<Category>()).map(\.name) == ["seed"])
        let mismatched = #expect(throws: SwiftDataError.self) {
            _ = try ModelContainer(for: CtxItem.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        }
        #expect(mismatched?.code == SwiftDataError.incompatibleSchema.code)
        #expect(try bytes(url) == before)
    }

    // MARK: Item 4: released containers close their files

    @Test("Containers whose contexts saved to-many relationships with inverses are freed and close their files")
    func releasedContainersCloseFiles() throws {
        let dir = try ScratchDirectory(prefix: "leak")
        weak var lastContainer: ModelContainer?
        weak var lastModel: Category?
        for i in 0..<20 {
            let container = try ModelContainer(
                for: Category.self,
                configurations: ModelConfiguration(url: dir.file("leak-\(i).store")))
            let ctx = ModelContext(container)
            let c = Category(name: "c\(i)")
            c.words = [Word(text: "a"), Word(text: "b")]
            ctx.insert(c)
            try ctx.save()
            // Read the relationship back through a fetch too, so both directions are loaded.
            let fetched = try ModelContext(container).fetch(FetchDescriptor<Word>())
            #expect(fetched.allSatisfy { $0.category?.name == "c\(i)" })
            lastContainer = container
            lastModel = c
        }
        #expect(lastContainer == nil, "the container was not freed")
        #expect(lastModel == nil, "the saved model graph was not freed")
        let open = try openDescriptors(in: dir)
        #expect(open.isEmpty, "descriptors still open: \(open.prefix(5))")
    }

    @Test(
        "A container used through its mainContext is freed with it and closes its file; a context that outlives its container still works"
    )
    func mainContextDoesNotKeepContainer() throws {
        let dir = try ScratchDirectory(prefix: "main-context")
        weak var lastContainer: ModelContainer?
        for i in 0..<10 {
            let container = try ModelContainer(
                for: Category.self,
                configurations: ModelConfiguration(url: dir.file("main-\(i).store")))
            let c = Category(name: "c\(i)")
            c.words = [Word(text: "a")]
            container.mainContext.insert(c)
            try container.mainContext.save()
            #expect(try container.mainContext.fetch(FetchDescriptor<Word>()).first?.category?.name == "c\(i)")
            lastContainer = container
        }
        #expect(lastContainer == nil, "the container was kept alive by its main context")
        #expect(try openDescriptors(in: dir).isEmpty)
        // A context created from a container keeps it; one that outlives it still reads and writes.
        let context = ModelContext(
            try ModelContainer(
                for: Category.self,
                configurations: ModelConfiguration(url: dir.file("kept.store"))))
        context.insert(Category(name: "kept"))
        try context.save()
        #expect(try ModelContext(context.container).fetchCount(FetchDescriptor<Category>()) == 1)
    }

    @Test("A saved model kept after its context is gone still reads its relationships from the store")
    func modelOutlivesContext() throws {
        let dir = try ScratchDirectory(prefix: "outlive")
        let container = try ModelContainer(
            for: Category.self, configurations: ModelConfiguration(url: dir.file("o.store")))
        var kept: Category?
        do {
            let ctx = ModelContext(container)
            let c = Category(name: "kept")
            c.words = [Word(text: "one"), Word(text: "two")]
            ctx.insert(c)
            try ctx.save()
            kept = c
        }
        let c = try #require(kept)
        #expect(c.words.map(\.text).sorted() == ["one", "two"])
        #expect(c.words.allSatisfy { $0.category?.name == "kept" })
    }
}

/// A value behind a lock, for results gathered from threads.
final class LockedValue<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

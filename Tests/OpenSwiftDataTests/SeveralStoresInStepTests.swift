import Foundation
import OpenSwiftDataTesting
import Testing

@testable import OpenSwiftData

@Model final class StepLog {
    var line: String
    init(line: String) { self.line = line }
}

/// A save that writes several on-disk stores is in all of them or in none, even when the
/// process dies between two of their commits (CFG-07, the several-store case of CTX-03's
/// all-or-nothing save): the store that committed first is rolled back when the next container
/// opens. The death is simulated by `FaultInjection.stopSeveralStoreSaves`, which stops a save
/// right after a given number of its stores committed, as a SIGKILL there would; the
/// reliability probe `several-stores` does the same with real kills.
@Suite("Several stores stay in step", .serialized)
struct SeveralStoresInStepTests {
    static let schema = Schema([CfgAuthor.self, CfgBook.self, CfgSetting.self, StepLog.self])

    /// Three stores: library (authors, books), settings, log; in that order.
    static func configurations(_ dir: ScratchDirectory, stores: Int = 2) -> [ModelConfiguration] {
        var configs = [
            ModelConfiguration("library", schema: Schema([CfgAuthor.self]), url: dir.file("library.store")),
            ModelConfiguration("settings", schema: Schema([CfgSetting.self]), url: dir.file("settings.store")),
        ]
        if stores == 3 {
            configs.append(ModelConfiguration("log", schema: Schema([StepLog.self]), url: dir.file("log.store")))
        }
        return configs
    }

    static func container(_ dir: ScratchDirectory, stores: Int = 2) throws -> ModelContainer {
        let schema = stores == 3 ? Self.schema : Schema([CfgAuthor.self, CfgBook.self, CfgSetting.self])
        return try ModelContainer(for: schema, configurations: configurations(dir, stores: stores))
    }

    /// The rows of `table` in the store file at `url`, read with raw SQLite.
    static func count(_ url: URL, _ table: String) throws -> Int64 {
        let db = try SQLiteConnection(path: url.path, mode: .readOnly)
        defer { db.close() }
        guard case .integer(let n)? = try db.scalar("SELECT count(*) FROM \(table)") else { return -1 }
        return n
    }

    /// The several-store save record of the store file at `url`.
    static func record(_ url: URL) throws -> MultiStoreSaveRecord? {
        try MultiStoreSaveRecord(StoreMetadata.read(contentsOf: url))
    }

    /// Saves one author, one setting (and one log line with three stores) in one save.
    static func saveOneOfEach(_ context: ModelContext, _ n: Int, stores: Int = 2) throws {
        context.insert(CfgAuthor(name: "author \(n)"))
        context.insert(CfgSetting(key: "key \(n)"))
        if stores == 3 { context.insert(StepLog(line: "line \(n)")) }
        try context.save()
    }

    @Test("CFG-07 a save of two stores records itself in both, and keeps no undo once both committed")
    func recordsInBothStores() throws {
        let dir = try ScratchDirectory()
        let library = dir.file("library.store")
        let settings = dir.file("settings.store")
        do {
            let container = try Self.container(dir)
            try Self.saveOneOfEach(ModelContext(container), 1)
        }
        let a = try #require(try Self.record(library))
        let b = try #require(try Self.record(settings))
        #expect(a.identifier == b.identifier)
        #expect(a.recent == [a.identifier] && b.recent == [b.identifier])
        let uuids = [
            try StoreMetadata.read(contentsOf: library).uuid, try StoreMetadata.read(contentsOf: settings).uuid,
        ]
        #expect(a.participants == uuids && b.participants == uuids)
        #expect(a.undo == nil && b.undo == nil)
    }

    @Test("CFG-07 a save that writes one store of two, and a container of one store, record nothing")
    func oneStoreSavesRecordNothing() throws {
        let dir = try ScratchDirectory()
        do {
            let container = try Self.container(dir)
            let context = ModelContext(container)
            context.insert(CfgSetting(key: "alone"))
            try context.save()
        }
        #expect(try Self.record(dir.file("settings.store")) == nil)
        #expect(try Self.record(dir.file("library.store")) == nil)
        let single = dir.file("single.store")
        do {
            let container = try ModelContainer(
                for: CfgAuthor.self, CfgSetting.self, configurations: ModelConfiguration(url: single))
            try Self.saveOneOfEach(ModelContext(container), 1)
        }
        #expect(try Self.record(single) == nil)
    }

    // The simulated deaths stop a save through a debug-only hook (`FaultInjection`), so these
    // tests exist in debug builds only, as the reliability probes' fault runs do.
    #if DEBUG
        @Test("CFG-07 a process dying after the first of two commits: the next container undoes that store's part")
        func diedBetweenCommits() throws {
            let dir = try ScratchDirectory()
            let library = dir.file("library.store")
            let settings = dir.file("settings.store")
            let earlier: String
            do {
                let container = try Self.container(dir)
                let context = ModelContext(container)
                try Self.saveOneOfEach(context, 1)
                earlier = try #require(try Self.record(settings)).identifier
                FaultInjection.stopSeveralStoreSaves(at: library, afterCommits: 1)
                defer { FaultInjection.stopSeveralStoreSaves(at: library, afterCommits: nil) }
                #expect(throws: SimulatedCrash.self) { try Self.saveOneOfEach(context, 2) }
            }
            // What the dead process left: the settings store (committed first) has the save, the
            // library does not, and the settings store keeps the undo.
            #expect(try Self.count(settings, "ZCFGSETTING") == 2)
            #expect(try Self.count(library, "ZCFGAUTHOR") == 1)
            #expect(try Self.record(settings)?.undo != nil)

            let container = try Self.container(dir)
            let context = ModelContext(container)
            #expect(try context.fetch(FetchDescriptor<CfgSetting>()).map(\.key) == ["key 1"])
            #expect(try context.fetch(FetchDescriptor<CfgAuthor>()).map(\.name) == ["author 1"])
            let record = try #require(try Self.record(settings))
            #expect(record.identifier == earlier && record.undo == nil && record.recent == [earlier])
            // The stores work on: the same save goes through, and reopens complete.
            try Self.saveOneOfEach(context, 2)
            #expect(try context.fetchCount(FetchDescriptor<CfgSetting>()) == 2)
            #expect(try context.fetchCount(FetchDescriptor<CfgAuthor>()) == 2)
        }

        @Test("CFG-07 a process dying after both commits, before dropping the undo: the save is kept")
        func diedAfterBothCommits() throws {
            let dir = try ScratchDirectory()
            let library = dir.file("library.store")
            let settings = dir.file("settings.store")
            do {
                let container = try Self.container(dir)
                FaultInjection.stopSeveralStoreSaves(at: library, afterCommits: 2)
                defer { FaultInjection.stopSeveralStoreSaves(at: library, afterCommits: nil) }
                #expect(throws: SimulatedCrash.self) { try Self.saveOneOfEach(ModelContext(container), 1) }
            }
            #expect(try Self.record(settings)?.undo != nil)
            let container = try Self.container(dir)
            let context = ModelContext(container)
            #expect(try context.fetch(FetchDescriptor<CfgSetting>()).map(\.key) == ["key 1"])
            #expect(try context.fetch(FetchDescriptor<CfgAuthor>()).map(\.name) == ["author 1"])
            #expect(try Self.record(settings)?.undo == nil)
            #expect(try Self.record(settings)?.identifier == Self.record(library)?.identifier)
        }

        @Test(
            "CFG-07 three stores, a death after each possible commit: reopened, all three have the save or none",
            arguments: [1, 2, 3])
        func threeStores(_ commits: Int) throws {
            let dir = try ScratchDirectory()
            let library = dir.file("library.store")
            do {
                let container = try Self.container(dir, stores: 3)
                let context = ModelContext(container)
                try Self.saveOneOfEach(context, 1, stores: 3)
                // A change of a row another save wrote, undone with its save: updates roll back too.
                let setting = try #require(try context.fetch(FetchDescriptor<CfgSetting>()).first)
                setting.weight = 9
                FaultInjection.stopSeveralStoreSaves(at: library, afterCommits: commits)
                defer { FaultInjection.stopSeveralStoreSaves(at: library, afterCommits: nil) }
                #expect(throws: SimulatedCrash.self) { try Self.saveOneOfEach(context, 2, stores: 3) }
            }
            let container = try Self.container(dir, stores: 3)
            let context = ModelContext(container)
            let counts = [
                try context.fetchCount(FetchDescriptor<CfgAuthor>()),
                try context.fetchCount(FetchDescriptor<CfgSetting>()),
                try context.fetchCount(FetchDescriptor<StepLog>()),
            ]
            let weights = try context.fetch(FetchDescriptor<CfgSetting>(sortBy: [SortDescriptor(\.key)])).map(\.weight)
            if commits == 3 {
                #expect(counts == [2, 2, 2])
                #expect(weights == [9, 1])
            } else {
                #expect(counts == [1, 1, 1])
                #expect(weights == [1])
            }
            for name in ["library", "settings", "log"] {
                #expect(try Self.record(dir.file("\(name).store"))?.undo == nil, "\(name) keeps an undo")
            }
        }

        @Test(
            "CFG-07 a store changed by another program since the death cannot be rolled back: a typed error, files unchanged"
        )
        func changedSinceIsRefused() throws {
            let dir = try ScratchDirectory()
            let library = dir.file("library.store")
            let settings = dir.file("settings.store")
            do {
                let container = try Self.container(dir)
                FaultInjection.stopSeveralStoreSaves(at: library, afterCommits: 1)
                defer { FaultInjection.stopSeveralStoreSaves(at: library, afterCommits: nil) }
                #expect(throws: SimulatedCrash.self) { try Self.saveOneOfEach(ModelContext(container), 1) }
            }
            // Another program rewrites the row the dead save inserted.
            do {
                let db = try SQLiteConnection(path: settings.path)
                try db.execute("UPDATE ZCFGSETTING SET ZWEIGHT = 5")
                db.close()
            }
            let before = try Data(contentsOf: settings)
            #expect {
                _ = try Self.container(dir)
            } throws: { error in
                let e = try #require(error as? SwiftDataError)
                return e.code == SwiftDataError.loadIssueModelContainer.code && e.message.contains("cannot be undone")
                    && e.message.contains("library.store")
            }
            #expect(try Data(contentsOf: settings) == before)
            #expect(try Self.count(settings, "ZCFGSETTING") == 1)
        }
    #endif
}

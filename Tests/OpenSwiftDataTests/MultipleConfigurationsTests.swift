import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

// Models split across two configurations: a library (authors and their books, related) and
// settings (unrelated to the library).
@Model final class CfgAuthor {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \CfgBook.author) var books: [CfgBook] = []
    init(name: String) { self.name = name }
}

@Model final class CfgBook {
    var title: String
    var author: CfgAuthor?
    init(title: String) { self.title = title }
}

@Model final class CfgSetting {
    @Attribute(.unique) var key: String
    var weight: Double
    init(key: String, weight: Double = 1) {
        self.key = key
        self.weight = weight
    }
}

/// Several configurations in one container (CFG-01…06 with two stores): each
/// configuration's schema is honoured, each model lives in one store file, relationships stay
/// within a configuration, `allowsSave` is per configuration, and a save is all or nothing.
@Suite("Several configurations per container")
struct MultipleConfigurationsTests {
    static let schema = Schema([CfgAuthor.self, CfgBook.self, CfgSetting.self])

    /// The library configuration (CfgAuthor and the CfgBook it reaches) and the settings one.
    static func configurations(
        _ kind: StoreKind, _ dir: ScratchDirectory,
        settingsAllowSave: Bool = true
    ) -> [ModelConfiguration] {
        let library = Schema([CfgAuthor.self])
        let settings = Schema([CfgSetting.self])
        switch kind {
        case .memory:
            return [
                ModelConfiguration("library", schema: library, isStoredInMemoryOnly: true),
                ModelConfiguration(
                    "settings", schema: settings, isStoredInMemoryOnly: true, allowsSave: settingsAllowSave),
            ]
        case .disk:
            return [
                ModelConfiguration("library", schema: library, url: dir.file("library.store")),
                ModelConfiguration(
                    "settings", schema: settings, url: dir.file("settings.store"), allowsSave: settingsAllowSave),
            ]
        }
    }

    static func tables(_ url: URL) throws -> Set<String> {
        let db = try SQLiteConnection(path: url.path, mode: .readOnly)
        defer { db.close() }
        return Set(
            try db.rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap {
                if case .text(let name)? = $0.first { name } else { nil }
            })
    }

    @Test("CFG-02 entities split across two files: each file holds its configuration's tables, data survives reopening")
    func splitAcrossFiles() throws {
        let dir = try ScratchDirectory()
        do {
            let container = try ModelContainer(for: Self.schema, configurations: Self.configurations(.disk, dir))
            #expect(container.configurations.map(\.name) == ["library", "settings"])
            let context = ModelContext(container)
            let author = CfgAuthor(name: "Le Guin")
            context.insert(author)
            for title in ["The Dispossessed", "The Lathe of Heaven"] {
                let book = CfgBook(title: title)
                book.author = author
                context.insert(book)
            }
            context.insert(CfgSetting(key: "theme"))
            try context.save()
        }
        let library = try Self.tables(dir.file("library.store"))
        let settings = try Self.tables(dir.file("settings.store"))
        #expect(library.isSuperset(of: ["ZCFGAUTHOR", "ZCFGBOOK", "Z_METADATA", "Z_PRIMARYKEY"]))
        #expect(!library.contains("ZCFGSETTING"))
        #expect(settings.isSuperset(of: ["ZCFGSETTING", "Z_METADATA", "Z_PRIMARYKEY"]))
        #expect(!settings.contains("ZCFGAUTHOR") && !settings.contains("ZCFGBOOK"))

        // Reopened together: every model is back, relationships included.
        let container = try ModelContainer(for: Self.schema, configurations: Self.configurations(.disk, dir))
        let context = ModelContext(container)
        let authors = try context.fetch(FetchDescriptor<CfgAuthor>())
        #expect(authors.map(\.name) == ["Le Guin"])
        #expect(Set(authors.first?.books.map(\.title) ?? []) == ["The Dispossessed", "The Lathe of Heaven"])
        #expect(try context.fetch(FetchDescriptor<CfgSetting>()).map(\.key) == ["theme"])

        // Each file is a complete store of its own: a container of one configuration opens it.
        let alone = try ModelContainer(
            for: CfgSetting.self,
            configurations: ModelConfiguration(url: dir.file("settings.store")))
        #expect(try ModelContext(alone).fetch(FetchDescriptor<CfgSetting>()).map(\.key) == ["theme"])
    }

    @Test(
        "CFG-01 each configuration is its own store: identifiers name it, and model(for:) finds models in both",
        arguments: StoreKind.allCases)
    func identifiersNameTheirStore(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let container = try ModelContainer(for: Self.schema, configurations: Self.configurations(kind, dir))
        let context = ModelContext(container)
        let author = CfgAuthor(name: "Borges")
        let setting = CfgSetting(key: "font")
        context.insert(author)
        context.insert(setting)
        try context.save()
        let authorStore = try #require(author.persistentModelID.storeIdentifier)
        let settingStore = try #require(setting.persistentModelID.storeIdentifier)
        #expect(authorStore != settingStore)
        let other = ModelContext(container)
        #expect((other.model(for: author.persistentModelID) as? CfgAuthor)?.name == "Borges")
        #expect((other.model(for: setting.persistentModelID) as? CfgSetting)?.key == "font")
        #expect(other.registeredModel(for: setting.persistentModelID) as CfgSetting? != nil)
        // An identifier naming the wrong store finds nothing.
        let json = try String(decoding: JSONEncoder().encode(setting.persistentModelID), as: UTF8.self)
        let foreign = try JSONDecoder().decode(
            PersistentIdentifier.self,
            from: Data(json.replacingOccurrences(of: settingStore, with: authorStore).utf8))
        #expect(foreign.storeIdentifier == authorStore)
        #expect(other.registeredModel(for: foreign) as CfgSetting? == nil)
    }

    @Test("CFG-03 allowsSave is per configuration: saving a read-only configuration's model throws, the others save")
    func allowsSavePerConfiguration() throws {
        let dir = try ScratchDirectory()
        do {
            // The read-only file must exist: create it first.
            let writer = try ModelContainer(for: Self.schema, configurations: Self.configurations(.disk, dir))
            let c = ModelContext(writer)
            c.insert(CfgSetting(key: "locale"))
            try c.save()
        }
        let container = try ModelContainer(
            for: Self.schema,
            configurations: Self.configurations(.disk, dir, settingsAllowSave: false))
        let context = ModelContext(container)
        context.insert(CfgAuthor(name: "Calvino"))
        try context.save()
        context.insert(CfgSetting(key: "theme"))
        context.insert(CfgAuthor(name: "Eco"))
        let error = try #require(throws: SwiftDataError.self) { try context.save() }
        #expect(error == .saveNotAllowed)
        #expect(error.message.contains("settings"))
        // Nothing of that save was written, and its changes are still pending.
        #expect(context.insertedModelsArray.count == 2)
        let fresh = ModelContext(container)
        #expect(try fresh.fetch(FetchDescriptor<CfgAuthor>()).map(\.name) == ["Calvino"])
        #expect(try fresh.fetch(FetchDescriptor<CfgSetting>()).map(\.key) == ["locale"])
    }

    @Test(
        "A save across two stores is all or nothing: a bad value in one store writes nothing to the other",
        arguments: StoreKind.allCases)
    func saveAcrossStoresIsAtomic(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let container = try ModelContainer(for: Self.schema, configurations: Self.configurations(kind, dir))
        let context = ModelContext(container)
        let author = CfgAuthor(name: "Morrison")
        let setting = CfgSetting(key: "ratio", weight: .nan)
        context.insert(author)
        context.insert(setting)
        let error = try #require(throws: SwiftDataError.self) { try context.save() }
        #expect(error == .invalidValue)
        let fresh = ModelContext(container)
        #expect(try fresh.fetchCount(FetchDescriptor<CfgAuthor>()) == 0)
        #expect(try fresh.fetchCount(FetchDescriptor<CfgSetting>()) == 0)
        #expect(context.hasChanges)
        // Fixed, the same pending changes save into both stores.
        setting.weight = 0.5
        try context.save()
        #expect(try fresh.fetch(FetchDescriptor<CfgAuthor>()).map(\.name) == ["Morrison"])
        #expect(try fresh.fetch(FetchDescriptor<CfgSetting>()).map(\.weight) == [0.5])
    }

    @Test("Cascade deletes and unique upserts work inside each configuration's store", arguments: StoreKind.allCases)
    func rulesWithinAConfiguration(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let container = try ModelContainer(for: Self.schema, configurations: Self.configurations(kind, dir))
        let context = ModelContext(container)
        let author = CfgAuthor(name: "Achebe")
        context.insert(author)
        let book = CfgBook(title: "Things Fall Apart")
        book.author = author
        context.insert(book)
        context.insert(CfgSetting(key: "theme", weight: 1))
        try context.save()
        context.insert(CfgSetting(key: "theme", weight: 2))
        context.delete(author)
        try context.save()
        let fresh = ModelContext(container)
        #expect(try fresh.fetchCount(FetchDescriptor<CfgBook>()) == 0)
        #expect(try fresh.fetch(FetchDescriptor<CfgSetting>()).map(\.weight) == [2])
    }

    @Test("History of a container with two stores: one transaction per store a save wrote, each naming its store")
    func historyAcrossStores() throws {
        let dir = try ScratchDirectory()
        let container = try ModelContainer(for: Self.schema, configurations: Self.configurations(.disk, dir))
        let context = ModelContext(container)
        context.author = "importer"
        let author = CfgAuthor(name: "Tolstoy")
        let setting = CfgSetting(key: "theme")
        context.insert(author)
        context.insert(setting)
        try context.save()
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.count == 2)
        #expect(
            Set(history.map(\.storeIdentifier))
                == Set(
                    [author.persistentModelID.storeIdentifier, setting.persistentModelID.storeIdentifier].compactMap {
                        $0
                    }))
        #expect(history.allSatisfy { $0.author == "importer" && $0.changes.count == 1 })
        for transaction in history {
            for change in transaction.changes {
                #expect(change.changedPersistentIdentifier.storeIdentifier == transaction.storeIdentifier)
            }
        }
        let inserted = history.flatMap(\.changes).map(\.changedPersistentIdentifier)
        #expect(Set(inserted) == [author.persistentModelID, setting.persistentModelID])
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).isEmpty)
    }

    @Test("CFG-06 deleteAllData empties every configuration's store; erase removes every file")
    func deleteAllDataAndErase() throws {
        let dir = try ScratchDirectory()
        let container = try ModelContainer(for: Self.schema, configurations: Self.configurations(.disk, dir))
        let context = ModelContext(container)
        context.insert(CfgAuthor(name: "Woolf"))
        context.insert(CfgSetting(key: "theme"))
        try context.save()
        container.deleteAllData()
        #expect(container.lastOperationFailure == nil)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<CfgAuthor>()) == 0)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<CfgSetting>()) == 0)
        try container.erase()
        #expect(!FileManager.default.fileExists(atPath: dir.file("library.store").path))
        #expect(!FileManager.default.fileExists(atPath: dir.file("settings.store").path))
    }

    @Test("An in-memory configuration and an on-disk one in one container")
    func memoryAndDisk() throws {
        let dir = try ScratchDirectory()
        let configs = [
            ModelConfiguration("scratch", schema: Schema([CfgAuthor.self]), isStoredInMemoryOnly: true),
            ModelConfiguration("settings", schema: Schema([CfgSetting.self]), url: dir.file("settings.store")),
        ]
        do {
            let container = try ModelContainer(for: Self.schema, configurations: configs)
            let context = ModelContext(container)
            context.insert(CfgAuthor(name: "Kept in memory"))
            context.insert(CfgSetting(key: "kept on disk"))
            try context.save()
        }
        let container = try ModelContainer(for: Self.schema, configurations: configs)
        let context = ModelContext(container)
        #expect(try context.fetchCount(FetchDescriptor<CfgAuthor>()) == 0)
        #expect(try context.fetch(FetchDescriptor<CfgSetting>()).map(\.key) == ["kept on disk"])
    }

    @Test("Configurations that cannot work together throw loadIssueModelContainer naming the model or file")
    func invalidCombinations() throws {
        let dir = try ScratchDirectory()
        func message(_ configs: [ModelConfiguration], schema: Schema = Self.schema) throws -> String {
            let error = try #require(throws: SwiftDataError.self) {
                _ = try ModelContainer(for: schema, configurations: configs)
            }
            #expect(error == .loadIssueModelContainer)
            return error.message
        }
        // A model in two configurations (CfgBook is reached from CfgAuthor, and listed again).
        let twice = try message([
            ModelConfiguration("library", schema: Schema([CfgAuthor.self]), url: dir.file("a.store")),
            ModelConfiguration("books", schema: Schema([CfgBook.self, CfgSetting.self]), url: dir.file("b.store")),
        ])
        #expect(twice.contains("CfgBook") && twice.contains("\"library\"") && twice.contains("\"books\""))
        // A model in none.
        let none = try message(
            [
                ModelConfiguration("library", schema: Schema([CfgAuthor.self]), url: dir.file("a.store")),
                ModelConfiguration("settings", schema: Schema([CfgSetting.self]), url: dir.file("b.store")),
            ], schema: Schema([CfgAuthor.self, CfgSetting.self, CtxItem.self]))
        #expect(none.contains("CtxItem") && none.contains("none of its configurations"))
        // Two configurations without a schema.
        let open = try message([
            ModelConfiguration("a", url: dir.file("a.store")),
            ModelConfiguration("b", url: dir.file("b.store")),
        ])
        #expect(open.contains("no schema"))
        // One file for two configurations.
        let shared = try message([
            ModelConfiguration("a", schema: Schema([CfgAuthor.self]), url: dir.file("same.store")),
            ModelConfiguration("b", schema: Schema([CfgSetting.self]), url: dir.file("same.store")),
        ])
        #expect(shared.contains("same.store"))
        // No file was created by a refused container.
        #expect(!FileManager.default.fileExists(atPath: dir.file("a.store").path))
        #expect(!FileManager.default.fileExists(atPath: dir.file("same.store").path))
    }

    @Test("One configuration without a schema stores every model the others do not list")
    func openConfigurationTakesTheRest() throws {
        let dir = try ScratchDirectory()
        let configs = [
            ModelConfiguration("settings", schema: Schema([CfgSetting.self]), url: dir.file("settings.store")),
            ModelConfiguration("rest", url: dir.file("rest.store")),
        ]
        do {
            let container = try ModelContainer(for: Self.schema, configurations: configs)
            let context = ModelContext(container)
            context.insert(CfgAuthor(name: "Austen"))
            context.insert(CfgSetting(key: "theme"))
            try context.save()
        }
        #expect(try Self.tables(dir.file("rest.store")).isSuperset(of: ["ZCFGAUTHOR", "ZCFGBOOK"]))
        #expect(!(try Self.tables(dir.file("rest.store")).contains("ZCFGSETTING")))
        #expect(try Self.tables(dir.file("settings.store")).contains("ZCFGSETTING"))
    }

    @Test("stringSortStyle is per configuration: each model sorts strings as its own configuration says")
    func stringSortStylePerConfiguration() throws {
        let settings = ModelConfiguration("settings", schema: Schema([CfgSetting.self]), isStoredInMemoryOnly: true)
        var library = ModelConfiguration("library", schema: Schema([CfgAuthor.self]), isStoredInMemoryOnly: true)
        library.stringSortStyle = .lexical
        let container = try ModelContainer(for: Self.schema, configurations: [library, settings])
        let context = ModelContext(container)
        for n in ["10", "2"] {
            context.insert(CfgAuthor(name: "a\(n)"))
            context.insert(CfgSetting(key: "k\(n)"))
        }
        try context.save()
        #expect(
            try context.fetch(FetchDescriptor<CfgAuthor>(sortBy: [SortDescriptor(\.name)])).map(\.name) == [
                "a10", "a2",
            ])
        #expect(
            try context.fetch(FetchDescriptor<CfgSetting>(sortBy: [SortDescriptor(\.key)])).map(\.key) == ["k2", "k10"])
    }

    @Test("Whole-store operations refuse a container of several stores with a typed error")
    func wholeStoreOperations() throws {
        let dir = try ScratchDirectory()
        let container = try ModelContainer(for: Self.schema, configurations: Self.configurations(.disk, dir))
        let error = try #require(throws: SwiftDataError.self) {
            try container.applyIndexStrategy(.declared, uniqueIndexes: .keep)
        }
        #expect(error == .loadIssueModelContainer)
        #expect(error.message.contains("one configuration"))
        #expect(throws: SwiftDataError.self) { try container.backup(to: dir.file("backup.store")) }
    }
}

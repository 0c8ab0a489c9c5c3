import Foundation
import OpenSwiftData
import Testing

@Suite("Container")
struct ContainerTests {
    /// A configuration of `kind` (disk stores at `dir/<name>`).
    func configuration(
        _ kind: StoreKind, _ dir: ScratchDirectory, name: String = "test.store",
        schema: Schema? = nil, allowsSave: Bool = true
    ) -> ModelConfiguration {
        switch kind {
        case .memory: ModelConfiguration(schema: schema, isStoredInMemoryOnly: true, allowsSave: allowsSave)
        case .disk: ModelConfiguration(schema: schema, url: dir.file(name), allowsSave: allowsSave)
        }
    }

    @Test("CFG-01 two containers on different stores do not share data", arguments: StoreKind.allCases)
    func separateStores(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        // Two in-memory containers with the same (default) name must still be separate stores.
        let one = try ModelContainer(for: CtxItem.self, configurations: configuration(kind, dir, name: "one.store"))
        let two = try ModelContainer(for: CtxItem.self, configurations: configuration(kind, dir, name: "two.store"))
        let c1 = ModelContext(one)
        c1.insert(CtxItem(name: "only in one"))
        try c1.save()
        #expect(try ModelContext(one).fetchCount(FetchDescriptor<CtxItem>()) == 1)
        #expect(try ModelContext(two).fetchCount(FetchDescriptor<CtxItem>()) == 0)
        let c2 = ModelContext(two)
        c2.insert(CtxItem(name: "only in two"))
        c2.insert(CtxItem(name: "also in two"))
        try c2.save()
        #expect(try ModelContext(one).fetch(FetchDescriptor<CtxItem>()).map(\.name) == ["only in one"])
        #expect(try ModelContext(two).fetchCount(FetchDescriptor<CtxItem>()) == 2)
    }

    @Test("CFG-01 a new in-memory container starts empty")
    func inMemoryStartsEmpty() throws {
        do {
            let first = try ModelContainer(
                for: CtxItem.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
            let ctx = ModelContext(first)
            ctx.insert(CtxItem(name: "gone with the container"))
            try ctx.save()
        }
        let second = try ModelContainer(
            for: CtxItem.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(try ModelContext(second).fetchCount(FetchDescriptor<CtxItem>()) == 0)
    }

    @Test("CFG-02 an on-disk store keeps its data across reopening")
    func reopenKeepsData() throws {
        let dir = try ScratchDirectory()
        let url = dir.file("kept.store")
        do {
            let container = try ModelContainer(
                for: CtxItem.self, Category.self, configurations: ModelConfiguration(url: url))
            let ctx = ModelContext(container)
            ctx.insert(
                CtxItem(
                    name: "persisted", n: 3, score: 2.5, flag: true, when: day(9), note: "n", rank: nil, due: day(1)))
            let category = Category(name: "c")
            category.words = [Word(text: "w1"), Word(text: "w2")]
            ctx.insert(category)
            try ctx.save()
        }
        #expect(FileManager.default.fileExists(atPath: url.path))
        let reopened = try ModelContainer(
            for: CtxItem.self, Category.self, configurations: ModelConfiguration(url: url))
        let ctx = ModelContext(reopened)
        let item = try #require(try ctx.fetch(FetchDescriptor<CtxItem>()).first)
        #expect(item.name == "persisted")
        #expect(item.n == 3)
        #expect(item.score == 2.5)
        #expect(item.flag)
        #expect(item.when == day(9))
        #expect(item.note == "n")
        #expect(item.rank == nil)
        #expect(item.due == day(1))
        let category = try #require(try ctx.fetch(FetchDescriptor<Category>()).first)
        #expect(category.words.map(\.text).sorted() == ["w1", "w2"])
        // And it stays writable.
        ctx.insert(CtxItem(name: "second"))
        try ctx.save()
        #expect(try ModelContext(reopened).fetchCount(FetchDescriptor<CtxItem>()) == 2)
    }

    @Test(
        "CFG-03 allowsSave false: save throws saveNotAllowed and the store is unchanged", arguments: StoreKind.allCases)
    func allowsSaveFalse(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        var before = 0
        if kind == .disk {
            // Seed the file through a writable container first.
            let writable = try ModelContainer(for: CtxItem.self, configurations: configuration(kind, dir))
            let w = ModelContext(writable)
            w.insert(CtxItem(name: "seed"))
            try w.save()
            before = 1
        }
        let config = configuration(kind, dir, allowsSave: false)
        #expect(config.allowsSave == false)
        let container = try ModelContainer(for: CtxItem.self, configurations: config)
        let ctx = ModelContext(container)
        #expect(try ctx.fetchCount(FetchDescriptor<CtxItem>()) == before)
        ctx.insert(CtxItem(name: "refused"))
        let error = #expect(throws: SwiftDataError.self) { try ctx.save() }
        #expect(error?.code == SwiftDataError.saveNotAllowed.code)
        // The failed save keeps the pending change, and nothing reached the store.
        #expect(ctx.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<CtxItem>()) == before)
        if kind == .disk {
            let again = try ModelContainer(for: CtxItem.self, configurations: configuration(kind, dir))
            #expect(try ModelContext(again).fetch(FetchDescriptor<CtxItem>()).map(\.name) == ["seed"])
        }
        // Deleting is refused too.
        if kind == .disk {
            ctx.rollback()
            let seed = try #require(try ctx.fetch(FetchDescriptor<CtxItem>()).first)
            ctx.delete(seed)
            #expect(throws: SwiftDataError.saveNotAllowed) { try ctx.save() }
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<CtxItem>()) == 1)
        }
    }

    @Test("CFG-04 a container for one type includes the types it relates to", arguments: StoreKind.allCases)
    func relatedTypesIncluded(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let container = try ModelContainer(for: Category.self, configurations: configuration(kind, dir))
        let names = Set(container.schema.entities.map(\.name))
        #expect(names.contains("Category"))
        #expect(names.contains("Word"))
        #expect(container.schema.entity(for: Word.self) != nil)
        let ctx = ModelContext(container)
        ctx.insert(Word(text: "alone"))
        try ctx.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Word>()).map(\.text) == ["alone"])
        // Reached from the to-one side as well.
        let fromWord = try ModelContainer(for: Word.self, configurations: configuration(kind, dir, name: "word.store"))
        #expect(Set(fromWord.schema.entities.map(\.name)).isSuperset(of: ["Category", "Word"]))
    }

    @Test("CFG-06 deleteAllData leaves an empty, usable store", arguments: StoreKind.allCases)
    func deleteAllData(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let container = try ModelContainer(for: CtxItem.self, Category.self, configurations: configuration(kind, dir))
        let ctx = ModelContext(container)
        for i in 0..<5 { ctx.insert(CtxItem(name: "x\(i)", n: i)) }
        let category = Category(name: "c")
        category.words = [Word(text: "w")]
        ctx.insert(category)
        try ctx.save()
        container.deleteAllData()
        let reader = ModelContext(container)
        #expect(try reader.fetchCount(FetchDescriptor<CtxItem>()) == 0)
        #expect(try reader.fetchCount(FetchDescriptor<Category>()) == 0)
        #expect(try reader.fetchCount(FetchDescriptor<Word>()) == 0)
        let writer = ModelContext(container)
        writer.insert(CtxItem(name: "after", n: 1))
        writer.insert(Category(name: "c"))  // the unique name is free again
        try writer.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<CtxItem>()).map(\.name) == ["after"])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Category>()) == 1)
        if kind == .disk {
            let reopened = try ModelContainer(
                for: CtxItem.self, Category.self, configurations: configuration(kind, dir))
            #expect(try ModelContext(reopened).fetchCount(FetchDescriptor<CtxItem>()) == 1)
        }
    }

    @Test(
        "CFG initialisers: for types with configurations, for a schema with an array; schema and configurations",
        arguments: StoreKind.allCases)
    func initialisersAndProperties(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let config = configuration(kind, dir, name: "types.store")
        let byTypes = try ModelContainer(for: CtxItem.self, CtxPerson.self, configurations: config)
        #expect(byTypes.configurations == [config])
        #expect(byTypes.configurations.first?.isStoredInMemoryOnly == (kind == .memory))
        #expect(Set(byTypes.schema.entities.map(\.name)) == ["CtxItem", "CtxPerson"])

        let schema = Schema([CtxItem.self, Category.self])
        let schemaConfig = configuration(kind, dir, name: "schema.store", schema: schema)
        let bySchema = try ModelContainer(for: schema, configurations: [schemaConfig])
        #expect(bySchema.configurations == [schemaConfig])
        #expect(bySchema.configurations.first?.schema != nil)
        #expect(bySchema.schema.entity(for: CtxItem.self) != nil)
        #expect(bySchema.schema.entity(for: Word.self) != nil)
        #expect(bySchema.schema.entity(for: CtxPerson.self) == nil)
        let ctx = ModelContext(bySchema)
        #expect(ctx.container === bySchema)
        ctx.insert(CtxItem(name: "via schema"))
        try ctx.save()
        #expect(try ModelContext(bySchema).fetchCount(FetchDescriptor<CtxItem>()) == 1)

        if kind == .disk {
            #expect(bySchema.configurations.first?.url == dir.file("schema.store"))
            #expect(FileManager.default.fileExists(atPath: dir.file("schema.store").path))
        }
    }

    @Test(
        "CFG fetching a type outside the container's schema throws instead of crashing", arguments: StoreKind.allCases)
    func typeOutsideSchema(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let container = try ModelContainer(for: CtxItem.self, configurations: configuration(kind, dir))
        let ctx = ModelContext(container)
        #expect(throws: SwiftDataError.self) { try ctx.fetch(FetchDescriptor<CtxPerson>()) }
        ctx.insert(CtxPerson(first: "a", last: "b", age: 1))
        #expect(throws: SwiftDataError.self) { try ctx.save() }
    }

    @Test("CFG the default location is <defaultDirectory>/<name>.store")
    func defaultLocation() {
        let base = ModelConfiguration.defaultDirectory
        let named = ModelConfiguration("Trips")
        #expect(named.name == "Trips")
        #expect(named.isStoredInMemoryOnly == false)
        #expect(named.allowsSave)
        #expect(named.url.lastPathComponent == "Trips.store")
        #expect(named.url.standardizedFileURL == base.appendingPathComponent("Trips.store").standardizedFileURL)
        #expect(named.url.deletingLastPathComponent().standardizedFileURL.path == base.standardizedFileURL.path)
        let unnamed = ModelConfiguration()
        #expect(unnamed.url.lastPathComponent.hasSuffix(".store"))
        #expect(unnamed.url.deletingLastPathComponent().standardizedFileURL.path == base.standardizedFileURL.path)
        #expect(ModelConfiguration(isStoredInMemoryOnly: true).isStoredInMemoryOnly)
        // A configuration at an explicit URL takes its name from the file.
        let explicit = ModelConfiguration(url: URL(fileURLWithPath: "/tmp/somewhere/Shop.store"))
        #expect(explicit.name == "Shop")
        #expect(explicit.url.path == "/tmp/somewhere/Shop.store")
        #expect(explicit.isStoredInMemoryOnly == false)
        // The documented default directory: $OPENSWIFTDATA_STORE_DIR, else $XDG_DATA_HOME/OpenSwiftData,
        // else ~/.local/share/OpenSwiftData (read, never set, here: tests run in parallel).
        let env = ProcessInfo.processInfo.environment
        if let dir = env["OPENSWIFTDATA_STORE_DIR"], !dir.isEmpty {
            #expect(base.standardizedFileURL.path == URL(fileURLWithPath: dir).standardizedFileURL.path)
        } else if let xdg = env["XDG_DATA_HOME"], !xdg.isEmpty {
            #expect(
                base.standardizedFileURL.path
                    == URL(fileURLWithPath: xdg).appendingPathComponent("OpenSwiftData").standardizedFileURL.path)
        } else {
            #expect(base.path.hasSuffix(".local/share/OpenSwiftData"))
        }
    }

    @Test("CFG-08 the default directory honours $OPENSWIFTDATA_STORE_DIR, $XDG_DATA_HOME and $HOME, in that order")
    func defaultDirectoryFromEnvironment() {
        func path(_ env: [String: String]) -> String { ModelConfiguration.defaultDirectory(in: env).path }
        #expect(path(["HOME": "/home/ci"]) == "/home/ci/.local/share/OpenSwiftData")
        #expect(path(["HOME": "/home/ci", "XDG_DATA_HOME": "/data"]) == "/data/OpenSwiftData")
        #expect(
            path(["HOME": "/home/ci", "XDG_DATA_HOME": "/data", "OPENSWIFTDATA_STORE_DIR": "/stores"]) == "/stores")
        // Relative values are invalid for XDG and ignored; an empty store dir is unset.
        #expect(path(["HOME": "/home/ci", "XDG_DATA_HOME": "data"]) == "/home/ci/.local/share/OpenSwiftData")
        #expect(path(["HOME": "/home/ci", "OPENSWIFTDATA_STORE_DIR": ""]) == "/home/ci/.local/share/OpenSwiftData")
        // No usable $HOME: the password database's home directory.
        let fallback = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(
            ".local/share/OpenSwiftData")
        #expect(path(["HOME": "relative"]) == fallback.path)
    }

    @Test("CFG-08 the documents directory: $XDG_DOCUMENTS_DIR, user-dirs.dirs, then $HOME/Documents")
    func documentsDirectory() throws {
        let dir = try ScratchDirectory()
        let config = dir.url.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        #expect(UserDirectories(environment: ["HOME": "/home/ci"]).documents.path == "/home/ci/Documents")
        try
            "# written by xdg-user-dirs-update\nXDG_DESKTOP_DIR=\"$HOME/Schreibtisch\"\nXDG_DOCUMENTS_DIR=\"$HOME/Dokumente\"\n"
            .write(to: config.appendingPathComponent("user-dirs.dirs"), atomically: true, encoding: .utf8)
        let env = ["HOME": "/home/ci", "XDG_CONFIG_HOME": config.path]
        #expect(UserDirectories(environment: env).documents.path == "/home/ci/Dokumente")
        #expect(
            UserDirectories(environment: env.merging(["XDG_DOCUMENTS_DIR": "/docs"]) { $1 }).documents.path == "/docs")
        #expect(UserDirectories(environment: ["HOME": "/home/ci"]).cacheHome.path == "/home/ci/.cache")
        #expect(UserDirectories.userDir("MUSIC", in: "XDG_DOCUMENTS_DIR=\"/d\"") == nil)
    }
}

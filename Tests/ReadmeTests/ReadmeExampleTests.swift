// Runs the README's examples (Examples/, each file one README code block, compiled as written).
import BenchmarkKit
import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

@Suite("Readme examples")
struct ReadmeExampleTests {
    @Test("the trips example: a relationship, a unique upsert, a predicate")
    func trips() throws {
        let scratch = try ScratchDirectory(prefix: "readme-trips")
        let url = scratch.url.appendingPathComponent("trips.store")
        #expect(try planTrips(at: url) == ["Kyoto 980.0 []", "Lisbon 420.0 [\"Porto\"]"])

        // The upsert updated the stored Kyoto instead of adding a second one; the file holds it all.
        let reopened = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url)))
        #expect(try reopened.fetchCount(FetchDescriptor<Trip>()) == 2)
        #expect(try reopened.fetchCount(FetchDescriptor<Stop>()) == 1)
    }

    @Test("the CloudKit-style example: optional to-many relationships in predicates, nil reads as []")
    func cloudKitStyle() throws {
        let context = ModelContext(
            try ModelContainer(for: Playlist.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let rock = Playlist(name: "Rock")
        let jazz = Playlist(name: "Jazz")
        let empty = Playlist(name: "Empty")
        [rock, jazz, empty].forEach(context.insert)
        rock.songs = [Song(title: "a", plays: 500), Song(title: "b", plays: 3), Song(title: "c", plays: 7)]
        jazz.songs?.append(Song(title: "d", plays: 50))
        empty.songs = nil
        try context.save()
        #expect(empty.songs == [], "an optional to-many reads [], as in SwiftData")
        #expect(try playlistStats(context, plays: 100) == (["Rock"], 1))
        #expect(try playlistStats(context, plays: 10) == (["Jazz", "Rock"], 1))
        context.delete(rock)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Song>()) == 1, "cascade")
    }

    @Test("the history-after-a-token example: each call returns what was saved since the last (HIS-04)")
    func historyAfterToken() throws {
        let container = try ModelContainer(
            for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(Trip(name: "Oslo", price: 1))
        try context.save()
        let first = try changesSaved(after: nil, in: context)
        #expect(first.changes.count == 1)
        context.insert(Trip(name: "Rome", price: 2))
        context.insert(Trip(name: "Bern", price: 3))
        try context.save()
        let second = try changesSaved(after: first.newest, in: context)
        #expect(second.changes.count == 2)
        #expect(second.newest != nil && second.newest! > first.newest!)
        let none = try changesSaved(after: second.newest, in: context)
        #expect(none.changes.isEmpty && none.newest == second.newest)
    }

    @Test("the history example: the widget's changes since a token (the behaviour: history suite, HIS-04, HIS-05)")
    func history() throws {
        let container = try ModelContainer(
            for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let app = ModelContext(container)
        let widget = ModelContext(container)
        app.author = "app"
        widget.author = "widget"
        widget.insert(Trip(name: "from the widget", price: 1))
        try widget.save()
        app.insert(Trip(name: "from the app", price: 2))
        try app.save()
        let first = try widgetChanges(since: nil, in: app)
        #expect(first.changes.count == 1)
        guard case .insert = first.changes.first else {
            Issue.record("not an insert")
            return
        }
        let trip = try #require(
            try widget.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "from the widget" })).first)
        trip.price = 3
        try widget.save()
        let second = try widgetChanges(since: first.newest, in: app)
        #expect(
            second.changes.count == 1 && second.changes.first?.changedPersistentIdentifier == trip.persistentModelID)
        #expect(try widgetChanges(since: second.newest, in: app).changes.isEmpty)
    }

    /// A version-1 notes store: "Groceries" twice (the older one is kept), "Call the bank".
    func writeNotesV1(at url: URL) throws {
        let v1 = try ModelContainer(
            for: Schema(versionedSchema: NotesV1.self), configurations: ModelConfiguration(url: url))
        let context = ModelContext(v1)
        context.insert(NotesV1.Note(title: "Groceries", createdAt: Date(timeIntervalSinceReferenceDate: 1)))
        context.insert(NotesV1.Note(title: "Call the bank", createdAt: Date(timeIntervalSinceReferenceDate: 2)))
        context.insert(NotesV1.Note(title: "Groceries", createdAt: Date(timeIntervalSinceReferenceDate: 3)))
        try context.save()
    }

    @Test(
        "the migrations example: a V1 store opens as V2 through the custom stage (the behaviour: migrations suite, MIG-03, MIG-06)"
    )
    func migrations() throws {
        let scratch = try ScratchDirectory(prefix: "readme-notes")
        let url = scratch.url.appendingPathComponent("notes.store")
        try writeNotesV1(at: url)
        let container = try openNotes(at: url)
        #expect(container.appliedMigrationStages == ["custom 1.0.0 → 2.0.0"])
        let notes = try ModelContext(container).fetch(FetchDescriptor<NotesV2.Note>(sortBy: [SortDescriptor(\.title)]))
        #expect(notes.map(\.title) == ["Call the bank", "Groceries"])
        #expect(
            notes.map(\.createdAt) == [
                Date(timeIntervalSinceReferenceDate: 2), Date(timeIntervalSinceReferenceDate: 1),
            ])
        #expect(notes.map(\.words) == [3, 1])
        #expect(notes.map(\.pinned) == [false, false])
        #expect(try openNotes(at: url).appliedMigrationStages.isEmpty, "a migrated store is not migrated again")
    }

    @Test("the inferred migration example: the previous release's recipes open without a plan (MIG-20, 21, 27)")
    func inferredMigration() throws {
        let scratch = try ScratchDirectory(prefix: "readme-recipes")
        let url = scratch.url.appendingPathComponent("recipes.store")
        do {
            let previous = try ModelContainer(
                for: PreviousRecipes.Recipe.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(previous)
            context.insert(PreviousRecipes.Recipe(name: "Soup", minutes: 30))
            try context.save()
        }
        let container = try openRecipes(at: url)
        #expect(container.appliedMigrationStages == ["inferred lightweight"])
        let recipes = try ModelContext(container).fetch(FetchDescriptor<Recipe>())
        #expect(recipes.map(\.title) == ["Soup"])
        #expect(recipes.map(\.minutes) == [30])
        #expect(recipes.map(\.servings) == [2])
        #expect(recipes.map(\.source) == [nil])
    }

    @Test("the migrated fixture example: a V1 fixture serves a V2 test and is not modified")
    func migratedFixture() throws {
        let scratch = try ScratchDirectory(prefix: "readme-notes-fixture")
        let fixture = scratch.url.appendingPathComponent("notes-v1.sqlite")
        try writeNotesV1(at: fixture)
        let before = try Data(contentsOf: fixture)
        #expect(
            try noteSummaries(fromV1Fixture: fixture)
                == ["Call the bank: 3 words, pinned false", "Groceries: 1 words, pinned false"])
        #expect(try Data(contentsOf: fixture) == before)
        let metadata = try StoreMetadata.read(contentsOf: fixture)
        #expect(metadata.versionIdentifiers == ["1.0.0"], "the fixture is still version 1")
    }

    @Test("FET-06 the lexical sorting example: Trip 10 before Trip 2; the default puts Trip 2 first")
    func lexicalSorting() throws {
        let context = ModelContext(
            try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        for name in ["Trip 10", "trip 2", "Trip 1"] { context.insert(Trip(name: name, price: 1)) }
        try context.save()
        #expect(try tripNamesLexically(context) == ["Trip 1", "Trip 10", "trip 2"])
        #expect(
            try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map(\.name) == [
                "Trip 1", "trip 2", "Trip 10",
            ])
    }

    @Test("the strict merging example retries after a conflict and loses no raise")
    func strictMerging() throws {
        let scratch = try ScratchDirectory(prefix: "readme-strict")
        let url = scratch.url.appendingPathComponent("trips.store")
        let setup = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url)))
        setup.insert(Trip(name: "Lisbon", price: 100))
        try setup.save()
        try raisePrices(by: 10, in: url)
        try raisePrices(by: 5, in: url)
        #expect(try ModelContext(setup.container).fetch(FetchDescriptor<Trip>()).map(\.price) == [115])

        // A stale writer: its save throws mergeConflict and writes nothing.
        var strict = ModelConfiguration(url: url)
        strict.mergePolicy = .error
        let stale = ModelContext(try ModelContainer(for: Trip.self, configurations: strict))
        let trip = try #require(try stale.fetch(FetchDescriptor<Trip>()).first)
        try raisePrices(by: 1, in: url)
        trip.price += 1_000
        #expect(throws: SwiftDataError.mergeConflict) { try stale.save() }
        #expect(try ModelContext(setup.container).fetch(FetchDescriptor<Trip>()).map(\.price) == [116])
    }

    @Test("the several-stores example: trips and preferences in two files, one context saving both")
    func severalStores() throws {
        let scratch = try ScratchDirectory(prefix: "readme-stores")
        do {
            let context = ModelContext(try openSplitStores(in: scratch.url))
            context.insert(Trip(name: "Lisbon", price: 100))
            context.insert(Preference(key: "currency", value: "EUR"))
            try context.save()
        }
        let trips = ModelContext(
            try ModelContainer(
                for: Trip.self,
                configurations: ModelConfiguration(url: scratch.url.appendingPathComponent("trips.store"))))
        #expect(try trips.fetch(FetchDescriptor<Trip>()).map(\.name) == ["Lisbon"])
        let both = ModelContext(try openSplitStores(in: scratch.url))
        #expect(try both.fetch(FetchDescriptor<Preference>()).map(\.value) == ["EUR"])
        #expect(try both.fetchCount(FetchDescriptor<Trip>()) == 1)
    }

    @Test("the fixture example writes the library and reproduces its digest")
    func library() throws {
        let scratch = try ScratchDirectory(prefix: "readme-library")
        let url = scratch.url.appendingPathComponent("library.sqlite")
        #expect(try writeLibrary(to: url) == 2_000)
        let manifest = try FixtureManifest.read(for: url)
        #expect(manifest.rowCounts["Shelf"] == 12 && manifest.rowCounts["Book"] == 2_000)

        let again = scratch.url.appendingPathComponent("again.sqlite")
        #expect(try writeLibrary(to: again) == 2_000)
        #expect(try FixtureManifest.read(for: again).digest == manifest.digest)
    }

    @Test(
        "the copied-store example opens an app's store file (rows only in -wal) on both stores and leaves it unchanged")
    func copiedStore() throws {
        let scratch = try ScratchDirectory(prefix: "readme-copied-store")
        let url = scratch.url.appendingPathComponent("default.store")
        // The app's store: every customer has orders; the rows stay in the -wal file.
        let app = try ModelContainer(for: shop, configurations: ModelConfiguration(url: url))
        let context = ModelContext(app)
        for n in 1...3 {
            let customer = Customer(email: "c\(n)@example.com", name: "C\(n)")
            context.insert(customer)
            let order = Order(number: n, total: 10)
            context.insert(order)
            order.customer = customer
        }
        try context.save()
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal"))
        // Copied while the app runs, as from a simulator's container (the app's store is not used again).
        let snapshot = scratch.url.appendingPathComponent("copied")
        try FileManager.default.createDirectory(at: snapshot, withIntermediateDirectories: true)
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(
                atPath: url.path + suffix, toPath: snapshot.path + "/default.store" + suffix)
        }
        let copied = snapshot.appendingPathComponent("default.store")
        let before = try [Data(contentsOf: copied), Data(contentsOf: URL(fileURLWithPath: copied.path + "-wal"))]
        #expect(try checkCopiedStore(at: copied) == 0)
        #expect(try [Data(contentsOf: copied), Data(contentsOf: URL(fileURLWithPath: copied.path + "-wal"))] == before)
    }

    @Test("the benchmark example runs and writes its reports")
    func benchmark() throws {
        let scratch = try ScratchDirectory(prefix: "readme-bench")
        var configuration = RunnerConfiguration.quick
        configuration.allowDebug = true
        let results = try benchmarkLibrary(scales: [100, 200], configuration: configuration, reports: scratch.url)
        #expect(results.map(\.rows) == [100, 200])
        #expect(results.allSatisfy { $0.name == "short books" && $0.iterations == 3 })
        let files = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path)
        #expect(files.contains("latest.md") && files.contains("short-books-wall.svg"))
    }

    @Test("the index benchmark example measures three queries and a write under none, declared and suggested")
    func shopIndexes() throws {
        let scratch = try ScratchDirectory(prefix: "readme-shop")
        var configuration = RunnerConfiguration.quick
        configuration.allowDebug = true
        let report = try shopIndexBenchmark(rows: 300).run(configuration: configuration)
        #expect(report.strategies.map(\.strategy) == ["none", "declared", "suggested"])
        #expect(report.recommendations.count == 9)
        // The benchmark writes, so `none` keeps the unique email index (saves look emails up
        // through it); the secondary indexes are dropped.
        let email = report.benchmark.results.filter { $0.name == "customer by email · fetch" }
        #expect(email.first { $0.strategy == "none" }?.queryPlan.contains { $0.contains("INDEX") } == true)
        let none = try #require(report.strategies.first { $0.strategy == "none" })
        #expect(none.uniqueIndexes == .keep && !none.indexes.contains { $0.role == .secondary })
        #expect(email.first { $0.strategy == "declared" }?.queryPlan.contains { $0.contains("INDEX") } == true)
        #expect(report.writeNanosecondsPerOperation.count == 3)
        let files = try report.write(to: scratch.url).map(\.lastPathComponent)
        #expect(files.contains("index-benchmark.md"))
    }
}

/// The previous release's recipe, for the inferred migration example.
enum PreviousRecipes {
    @Model final class Recipe {
        var name: String
        var minutes: Int
        init(name: String, minutes: Int) {
            self.name = name
            self.minutes = minutes
        }
    }
}

import Foundation
import OpenSwiftDataTesting
import Testing

@testable import OpenSwiftData

// Each version nests its own classes; entity names are the class names.
enum InferredTripsV1 {
    static var schema: Schema { Schema([Trip.self, Stop.self]) }

    @Model final class Trip {
        var name: String
        var score: Int
        var nickname: String?
        var legacy: String = "old"
        @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
        init(name: String, score: Int, nickname: String? = nil) {
            self.name = name
            self.score = score
            self.nickname = nickname
        }
    }

    @Model final class Stop {
        var place: String
        var trip: Trip?
        init(place: String) { self.place = place }
    }
}

/// Added optional and defaulted attributes, a removed one, renames through `originalName`, a
/// relaxed optionality, a changed delete rule, an added entity, a new index.
enum InferredTripsV2 {
    static var schema: Schema { Schema([Trip.self, Stop.self, Note.self]) }

    @Model final class Trip {
        #Index<Trip>([\.title])
        @Attribute(originalName: "name") var title: String
        var score: Int?
        var nickname: String?
        var rating: Int?
        var stars: Int = 3
        @Relationship(deleteRule: .nullify, originalName: "stops", inverse: \Stop.journey) var places: [Stop] = []
        init(title: String) { self.title = title }
    }

    @Model final class Stop {
        var place: String
        @Relationship(originalName: "trip") var journey: Trip?
        init(place: String) { self.place = place }
    }

    @Model final class Note {
        var text: String
        init(text: String) { self.text = text }
    }
}

/// Changes no lightweight migration makes: a type change of another column type, one of the
/// same column type, an optional made required without a default.
enum InferredTripsRetyped {
    static var schema: Schema { Schema([Trip.self, Stop.self]) }

    @Model final class Trip {
        var name: String
        var score: Int16
        var nickname: String
        var legacy: Data = Data()
        @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
        init(name: String) {
            self.name = name
            self.score = 0
            self.nickname = ""
        }
    }

    @Model final class Stop {
        var place: String
        var trip: Trip?
        init(place: String) { self.place = place }
    }
}

/// `name` made unique; `Stop` removed.
enum InferredTripsUnique {
    static var schema: Schema { Schema([Trip.self]) }

    @Model final class Trip {
        @Attribute(.unique) var name: String
        var score: Int
        var nickname: String?
        var legacy: String = "old"
        init(name: String) {
            self.name = name
            self.score = 0
        }
    }
}

/// Versions for a plan whose stages skip a step: V3 adds an optional and a defaulted attribute.
enum InferredPlanV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Trip.self] }
    @Model final class Trip {
        var name: String
        init(name: String) { self.name = name }
    }
}

enum InferredPlanV3: VersionedSchema {
    static let versionIdentifier = Schema.Version(3, 0, 0)
    static var models: [any PersistentModel.Type] { [Trip.self] }
    @Model final class Trip {
        var name: String
        var rating: Int?
        var stars: Int = 5
        init(name: String) { self.name = name }
    }
}

enum InferredGapPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [InferredPlanV1.self, InferredPlanV3.self] }
    static var stages: [MigrationStage] { [] }
}

enum InferredRetypedGapPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [ConformanceVoyagesV1.self, ConformanceVoyagesRetypedV2.self] }
    static var stages: [MigrationStage] { [] }
}

/// Inferred lightweight migrations (MIG-20…33): a container opening a store of other models
/// without a plan, and a plan step without a stage. On disk only: an in-memory store never
/// meets a store of older models (the conformance suite checks the migrated content on both
/// store kinds through a restore).
@Suite("Inferred migrations")
struct InferredMigrationTests {
    let dir: ScratchDirectory

    init() throws { dir = try ScratchDirectory(prefix: "inferred") }

    /// A V1 store: trips Lisbon (score 1, two stops) and Porto (score 2, nickname "P").
    func writeV1(_ name: String = "trips.store") throws -> URL {
        let url = dir.file(name)
        let container = try ModelContainer(for: InferredTripsV1.schema, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let lisbon = InferredTripsV1.Trip(name: "Lisbon", score: 1)
        context.insert(lisbon)
        for place in ["Belém", "Alfama"] {
            let stop = InferredTripsV1.Stop(place: place)
            context.insert(stop)
            stop.trip = lisbon
        }
        context.insert(InferredTripsV1.Trip(name: "Porto", score: 2, nickname: "P"))
        try context.save()
        return url
    }

    func ddl(_ url: URL) throws -> [String] {
        let db = try SQLiteConnection(path: url.path, mode: .readOnly)
        defer { db.close() }
        return try db.rows("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL").compactMap {
            if case .text(let s)? = $0.first { s } else { nil }
        }.sorted()
    }

    func content(_ url: URL) throws -> [Data] {
        try ["", "-wal"].map { suffix in
            FileManager.default.fileExists(atPath: url.path + suffix)
                ? try Data(contentsOf: URL(fileURLWithPath: url.path + suffix)) : Data()
        }
    }

    @Test(
        "Without a plan, added, removed and renamed properties, relaxed optionality, a delete rule, an added entity and an index migrate by inference (MIG-20, 21, 22, 27, 28, 30)"
    )
    func inferred() throws {
        let url = try writeV1()
        let container = try ModelContainer(for: InferredTripsV2.schema, configurations: ModelConfiguration(url: url))
        #expect(container.appliedMigrationStages == ["inferred lightweight"])
        let context = ModelContext(container)
        let trips = try context.fetch(FetchDescriptor<InferredTripsV2.Trip>(sortBy: [SortDescriptor(\.title)]))
        #expect(trips.map(\.title) == ["Lisbon", "Porto"], "renamed with originalName: values kept (MIG-21)")
        #expect(trips.map(\.score) == [1, 2], "optionality relaxed: values kept (MIG-27)")
        #expect(trips.map(\.nickname) == [nil, "P"])
        #expect(trips.map(\.rating) == [nil, nil], "added optional (MIG-20)")
        #expect(trips.map(\.stars) == [3, 3], "added with a default: the default (MIG-20)")
        #expect(Set(trips[0].places.map(\.place)) == ["Belém", "Alfama"], "renamed relationship keeps links (MIG-28)")
        #expect(try context.fetchCount(FetchDescriptor<InferredTripsV2.Note>()) == 0, "added entity (MIG-22)")
        // The migrated file is a new V2 store's layout and metadata (MIG-30), index included.
        let fresh = dir.file("fresh.store")
        _ = try ModelContainer(for: InferredTripsV2.schema, configurations: ModelConfiguration(url: fresh))
        #expect(try ddl(url) == ddl(fresh))
        #expect(try ddl(url).contains { $0.contains("SwiftDataIndexOnBinarytitle") })
        let metadata = try StoreMetadata.read(contentsOf: url)
        let freshMetadata = try StoreMetadata.read(contentsOf: fresh)
        #expect(metadata.versionHashes == freshMetadata.versionHashes)
        #expect(metadata.versionHashesDigest == freshMetadata.versionHashesDigest)
        #expect(metadata.versionChecksum == freshMetadata.versionChecksum)
        // The new delete rule applies (MIG-22): deleting a trip keeps its stops.
        context.delete(trips[0])
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<InferredTripsV2.Stop>()) == 2)
        let again = try ModelContainer(for: InferredTripsV2.schema, configurations: ModelConfiguration(url: url))
        #expect(again.appliedMigrationStages.isEmpty, "a migrated store is not migrated again")
        #expect(MigrationLock.scratchFiles(of: url).isEmpty)
    }

    @Test(
        "Without a plan, changes that cannot be inferred throw incompatibleSchema naming each property and the Migrations article; the store is unchanged (MIG-24)"
    )
    func refused() throws {
        let url = try writeV1()
        let before = try content(url)
        let error = #expect(throws: SwiftDataError.self) {
            _ = try ModelContainer(for: InferredTripsRetyped.schema, configurations: ModelConfiguration(url: url))
        }
        #expect(error?.code == SwiftDataError.incompatibleSchema.code)
        let message = error?.message ?? ""
        #expect(message.contains("Trip.legacy changes type"), "another column type: \(message)")
        #expect(message.contains("Trip.score changes type from Int to Int16"), "same column type: \(message)")
        #expect(message.contains("Migrations article"), "\(message)")
        #expect(try content(url) == before)
        // Without the type changes, the optional made required is refused for its NULL row.
        let required = #expect(throws: SwiftDataError.self) {
            _ = try ModelContainer(
                for: Schema([RequiredNickname.Trip.self, RequiredNickname.Stop.self]),
                configurations: ModelConfiguration(url: url))
        }
        #expect(required?.code == SwiftDataError.incompatibleSchema.code)
        #expect(required?.propertyName == "nickname", "\(required?.message ?? "")")
        #expect(try content(url) == before)
        #expect(MigrationLock.scratchFiles(of: url).isEmpty)
    }

    @Test(
        "A new unique constraint migrates when the rows agree with it, and otherwise names the duplicate rows; a removed entity goes (MIG-25, 29)"
    )
    func uniqueness() throws {
        let url = try writeV1()
        let migrated = try ModelContainer(for: InferredTripsUnique.schema, configurations: ModelConfiguration(url: url))
        #expect(migrated.appliedMigrationStages == ["inferred lightweight"])
        #expect(try ddl(url).contains { $0.contains("UNIQUE") })
        #expect(!(try ddl(url).contains { $0.contains("ZSTOP") }), "the removed entity's table is gone (MIG-29)")
        #expect(try ModelContext(migrated).fetchCount(FetchDescriptor<InferredTripsUnique.Trip>()) == 2)

        let duplicates = dir.file("duplicates.store")
        do {
            let container = try ModelContainer(
                for: InferredTripsV1.schema, configurations: ModelConfiguration(url: duplicates))
            let context = ModelContext(container)
            for score in [1, 2, 3] {
                context.insert(InferredTripsV1.Trip(name: score == 2 ? "Faro" : "Lisbon", score: score))
            }
            try context.save()
        }
        let before = try content(duplicates)
        let error = #expect(throws: SwiftDataError.self) {
            _ = try ModelContainer(
                for: InferredTripsUnique.schema, configurations: ModelConfiguration(url: duplicates))
        }
        #expect(error?.code == SwiftDataError.uniqueConstraintViolation.code)
        #expect(error?.message.contains("Trip.name: Z_PK 1, 3 share 'Lisbon'") == true, "\(error?.message ?? "")")
        #expect(try content(duplicates) == before)
    }

    @Test(
        "A plan with no stage for a step infers it (its stages otherwise take precedence); one that cannot be inferred names the stage to add (MIG-23, 33)"
    )
    func planGap() throws {
        let url = dir.file("gap.store")
        do {
            let container = try ModelContainer(
                for: Schema(versionedSchema: InferredPlanV1.self), configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(InferredPlanV1.Trip(name: "Lisbon"))
            try context.save()
        }
        let container = try ModelContainer(
            for: InferredPlanV3.Trip.self, migrationPlan: InferredGapPlan.self,
            configurations: ModelConfiguration(url: url))
        #expect(container.appliedMigrationStages == ["lightweight 1.0.0 → 3.0.0 (inferred)"])
        let trips = try ModelContext(container).fetch(FetchDescriptor<InferredPlanV3.Trip>())
        #expect(trips.map(\.rating) == [nil])
        #expect(trips.map(\.stars) == [5])

        let voyages = dir.file("voyages.store")
        do {
            let v1 = try ModelContainer(
                for: Schema(versionedSchema: ConformanceVoyagesV1.self),
                configurations: ModelConfiguration(url: voyages))
            let context = ModelContext(v1)
            context.insert(ConformanceVoyagesV1.Voyage(name: "Lisbon", start: Date(), legacy: 1))
            try context.save()
        }
        let error = #expect(throws: SwiftDataError.self) {
            _ = try ModelContainer(
                for: Schema(versionedSchema: ConformanceVoyagesRetypedV2.self),
                migrationPlan: InferredRetypedGapPlan.self,
                configurations: ModelConfiguration(url: voyages))
        }
        #expect(error?.code == SwiftDataError.incompatibleSchema.code)
        #expect(error?.message.contains("has no stage from ConformanceVoyagesV1") == true, "\(error?.message ?? "")")
    }

    @Test(
        "No inference for a read-only configuration or a store sharing no entity with the models: incompatibleSchema as before (MIG-31, 32)"
    )
    func notInferred() throws {
        let url = try writeV1()
        let before = try content(url)
        let readOnly = #expect(throws: SwiftDataError.self) {
            _ = try ModelContainer(
                for: InferredTripsV2.schema, configurations: ModelConfiguration(url: url, allowsSave: false))
        }
        #expect(readOnly?.code == SwiftDataError.incompatibleSchema.code)
        let unrelated = #expect(throws: SwiftDataError.self) {
            _ = try ModelContainer(for: InferredTripsV2.Note.self, configurations: ModelConfiguration(url: url))
        }
        #expect(unrelated?.code == SwiftDataError.incompatibleSchema.code)
        #expect(try content(url) == before)
    }

    @Test("A relationship whose destination changes is refused, not relinked to other rows (MIG-24)")
    func destinationChange() throws {
        let url = dir.file("legs.store")
        do {
            let container = try ModelContainer(
                for: InferredLegsV1.Leg.self, InferredLegsV1.Harbour.self, InferredLegsV1.Airport.self,
                configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let leg = InferredLegsV1.Leg(name: "crossing")
            context.insert(leg)
            let harbour = InferredLegsV1.Harbour(code: "LIS")
            context.insert(harbour)
            leg.end = harbour
            try context.save()
        }
        let before = try content(url)
        let error = #expect(throws: SwiftDataError.self) {
            _ = try ModelContainer(
                for: InferredLegsV2.Leg.self, InferredLegsV2.Harbour.self, InferredLegsV2.Airport.self,
                configurations: ModelConfiguration(url: url))
        }
        #expect(error?.code == SwiftDataError.incompatibleSchema.code)
        #expect(
            error?.message.contains("Leg.end changes its destination from Harbour to Airport") == true,
            "\(error?.message ?? "")")
        #expect(try content(url) == before)
    }

    @Test(
        "An Apple-written store (reference vectors) whose models changed migrates by inference, in Apple's format (MIG-21, 30)"
    )
    func appleStore() throws {
        let url = try AppleStoreFile.storeURL()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let writer = try AppleStoreFile.write("swiftdata-resources", at: url, maxKeys: ["Component": 2, "Item": 2]) {
            db in
            try db.run("INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (1, 3, 1, 'Plank'), (2, 3, 1, 'Log')")
            try db.run(
                "INSERT INTO ZCOMPONENT (Z_PK, Z_ENT, Z_OPT, ZCOUNT, ZITEM, ZID) VALUES (1, 1, 1, 4, 2, ?), (2, 1, 1, 2, 1, ?)",
                [AppleStoreFile.uuidBlob(UUID()), AppleStoreFile.uuidBlob(UUID())])
        }
        writer.close()
        let container = try ModelContainer(
            for: Schema([
                ChangedResources.Item.self, ChangedResources.CraftingRecipe.self, ChangedResources.Component.self,
            ]),
            configurations: ModelConfiguration(url: url))
        #expect(container.appliedMigrationStages == ["inferred lightweight"])
        let components = try ModelContext(container).fetch(FetchDescriptor<ChangedResources.Component>())
        #expect(components.map(\.quality) == [1, 1], "count removed, quality added with its default")
        #expect(Set(components.compactMap { $0.item?.name }) == ["Plank", "Log"], "links kept")
        let db = try SQLiteConnection(path: url.path, mode: .readOnly)
        defer { db.close() }
        #expect(try db.scalar("SELECT count(*) FROM Z_MODELCACHE") == .integer(0), "the old model's cache is cleared")
        let metadata = try StoreMetadata.read(contentsOf: url)
        #expect(metadata.versionHashes == (try StoreMapping(schema: container.schema)).versionHashes)
    }
}

/// A to-one whose destination changes (`Leg.end` pointed at `Harbour`, now at `Airport`).
enum InferredLegsV1 {
    @Model final class Leg {
        var name: String
        var end: Harbour?
        init(name: String) { self.name = name }
    }

    @Model final class Harbour {
        var code: String
        init(code: String) { self.code = code }
    }

    @Model final class Airport {
        var code: String
        init(code: String) { self.code = code }
    }
}

enum InferredLegsV2 {
    @Model final class Leg {
        var name: String
        var end: Airport?
        init(name: String) { self.name = name }
    }

    @Model final class Harbour {
        var code: String
        init(code: String) { self.code = code }
    }

    @Model final class Airport {
        var code: String
        init(code: String) { self.code = code }
    }
}

/// `nickname` made required without a default (the V1 store has a NULL one).
enum RequiredNickname {
    @Model final class Trip {
        var name: String
        var score: Int
        var nickname: String
        var legacy: String = "old"
        @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
        init(name: String) {
            self.name = name
            self.score = 0
            self.nickname = ""
        }
    }

    @Model final class Stop {
        var place: String
        var trip: Trip?
        init(place: String) { self.place = place }
    }
}

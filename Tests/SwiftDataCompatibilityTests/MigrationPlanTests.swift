// A migration plan in the shape of Apple's documentation and WWDC23's "Model your schema with
// SwiftData" (versioned enums, `static var versionIdentifier`, a typealias for the current
// model, a custom stage that de-duplicates before a unique constraint), compiled unchanged.
import Foundation
import SwiftData
import Testing

enum SampleTripsSchemaV1: VersionedSchema {
    static var models: [any PersistentModel.Type] {
        [Trip.self]
    }
    static var versionIdentifier = Schema.Version(1, 0, 0)

    @Model
    final class Trip {
        var name: String
        var destination: String
        var start_date: Date
        var end_date: Date

        init(name: String, destination: String, start_date: Date, end_date: Date) {
            self.name = name
            self.destination = destination
            self.start_date = start_date
            self.end_date = end_date
        }
    }
}

enum SampleTripsSchemaV2: VersionedSchema {
    static var models: [any PersistentModel.Type] {
        [Trip.self]
    }
    static var versionIdentifier = Schema.Version(2, 0, 0)

    @Model
    final class Trip {
        @Attribute(.unique) var name: String
        var destination: String
        @Attribute(originalName: "start_date") var startDate: Date
        @Attribute(originalName: "end_date") var endDate: Date

        init(name: String, destination: String, startDate: Date, endDate: Date) {
            self.name = name
            self.destination = destination
            self.startDate = startDate
            self.endDate = endDate
        }
    }
}

typealias PlannedTrip = SampleTripsSchemaV2.Trip

enum SampleTripsMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] {
        [SampleTripsSchemaV1.self, SampleTripsSchemaV2.self]
    }

    static var stages: [MigrationStage] {
        [migrateV1toV2]
    }

    static let migrateV1toV2 = MigrationStage.custom(
        fromVersion: SampleTripsSchemaV1.self,
        toVersion: SampleTripsSchemaV2.self,
        willMigrate: { context in
            let trips = try context.fetch(FetchDescriptor<SampleTripsSchemaV1.Trip>())
            var names = Set<String>()
            for trip in trips {
                if names.contains(trip.name) {
                    context.delete(trip)
                }
                names.insert(trip.name)
            }
            try context.save()
        }, didMigrate: nil
    )
}

@Suite("Compatibility: a WWDC-style migration plan")
struct MigrationPlanTests {
    @Test(
        "a user-written plan compiles in Swift 5 mode: de-duplicate in willMigrate, then rename with originalName (the behaviour: migrations suite, MIG-03, MIG-06)"
    )
    func migratesTrips() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("wwdc-trips-\(UUID().uuidString).store")
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) } }
        do {
            let v1 = try ModelContainer(
                for: Schema(versionedSchema: SampleTripsSchemaV1.self),
                configurations: ModelConfiguration(url: url))
            let context = ModelContext(v1)
            let start = Date(timeIntervalSinceReferenceDate: 0)
            let end = Date(timeIntervalSinceReferenceDate: 86_400)
            context.insert(SampleTripsSchemaV1.Trip(name: "Paris", destination: "FR", start_date: start, end_date: end))
            context.insert(SampleTripsSchemaV1.Trip(name: "Paris", destination: "FR", start_date: start, end_date: end))
            context.insert(SampleTripsSchemaV1.Trip(name: "Rome", destination: "IT", start_date: end, end_date: end))
            try context.save()
        }
        let container = try ModelContainer(
            for: PlannedTrip.self, migrationPlan: SampleTripsMigrationPlan.self,
            configurations: ModelConfiguration(url: url))
        let trips = try ModelContext(container).fetch(FetchDescriptor<PlannedTrip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["Paris", "Rome"])
        #expect(
            trips.map(\.startDate) == [
                Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: 86_400),
            ])
    }
}

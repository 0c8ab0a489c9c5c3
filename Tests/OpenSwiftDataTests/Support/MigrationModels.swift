import Foundation
import OpenSwiftData

// Versioned schemas for the migration tests (MIG-01…11). Each version nests its own classes,
// as SwiftData apps declare them; entity names are the class names (`Voyage`, `Port`).

/// Version 1: a voyage with a snake-case date, a legacy counter and a port.
enum VoyagesV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Voyage.self, Port.self] }

    @Model final class Voyage {
        var name: String
        var start_date: Date
        var legacy: Int
        var port: Port?
        init(name: String, start: Date, legacy: Int, port: Port? = nil) {
            self.name = name
            self.start_date = start
            self.legacy = legacy
            self.port = port
        }
    }

    @Model final class Port {
        var code: String
        @Relationship(inverse: \Voyage.port) var voyages: [Voyage] = []
        init(code: String) { self.code = code }
    }
}

/// Version 2, lightweight from 1: `note` added optional (MIG-01), `count` added with a default
/// (MIG-02), `start_date` renamed with `originalName` (MIG-03), `legacy` removed (MIG-05), the
/// relationship `port` renamed to `harbour` with `originalName`.
enum VoyagesV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Voyage.self, Port.self] }

    @Model final class Voyage {
        var name: String
        var note: String?
        var count: Int = 0
        @Attribute(originalName: "start_date") var startDate: Date
        @Relationship(originalName: "port") var harbour: Port?
        init(name: String, startDate: Date, harbour: Port? = nil) {
            self.name = name
            self.startDate = startDate
            self.harbour = harbour
        }
    }

    @Model final class Port {
        var code: String
        @Relationship(inverse: \Voyage.harbour) var voyages: [Voyage] = []
        init(code: String) { self.code = code }
    }
}

/// Version 3, custom from 2: `name` becomes unique (duplicates must go first, in willMigrate)
/// and `rating` is filled in didMigrate (MIG-06); a new entity `Crew`.
enum VoyagesV3: VersionedSchema {
    static let versionIdentifier = Schema.Version(3, 0, 0)
    static var models: [any PersistentModel.Type] { [Voyage.self, Port.self, Crew.self] }

    @Model final class Voyage {
        @Attribute(.unique) var name: String
        var note: String?
        var count: Int = 0
        var rating: Int?
        var startDate: Date
        var harbour: Port?
        init(name: String, startDate: Date, harbour: Port? = nil) {
            self.name = name
            self.startDate = startDate
            self.harbour = harbour
        }
    }

    @Model final class Port {
        var code: String
        @Relationship(inverse: \Voyage.harbour) var voyages: [Voyage] = []
        init(code: String) { self.code = code }
    }

    @Model final class Crew {
        var name: String
        init(name: String) { self.name = name }
    }
}

/// What the custom stage's closures saw, in order (MIG-06, MIG-07).
final class MigrationLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String] = []
    static let shared = MigrationLog()
    func append(_ entry: String) { lock.withLock { entries.append(entry) } }
    func take() -> [String] { lock.withLock { defer { entries = [] }; return entries } }
}

/// V1 → V2 only.
enum VoyagesPlanV2: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [VoyagesV1.self, VoyagesV2.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: VoyagesV1.self, toVersion: VoyagesV2.self)] }
}

/// V1 → V2 → V3: lightweight, then custom.
enum VoyagesPlanV3: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [VoyagesV1.self, VoyagesV2.self, VoyagesV3.self] }
    static var stages: [MigrationStage] { [v1ToV2, v2ToV3] }

    static let v1ToV2 = MigrationStage.lightweight(fromVersion: VoyagesV1.self, toVersion: VoyagesV2.self)
    static let v2ToV3 = MigrationStage.custom(
        fromVersion: VoyagesV2.self, toVersion: VoyagesV3.self,
        willMigrate: { context in
            // V2's models: keep the first voyage of each name.
            let voyages = try context.fetch(FetchDescriptor<VoyagesV2.Voyage>(sortBy: [SortDescriptor(\.startDate)]))
            MigrationLog.shared.append("willMigrate: \(voyages.count) V2 voyages")
            var seen = Set<String>()
            for voyage in voyages where !seen.insert(voyage.name).inserted { context.delete(voyage) }
            try context.save()
        },
        didMigrate: { context in
            // V3's models: the new attribute exists now.
            let voyages = try context.fetch(FetchDescriptor<VoyagesV3.Voyage>())
            MigrationLog.shared.append("didMigrate: \(voyages.count) V3 voyages")
            for voyage in voyages { voyage.rating = voyage.count + 5 }
            // left unsaved on purpose: the stage saves it
        })
}

/// A failing willMigrate (MIG-11).
enum VoyagesFailingPlan: SchemaMigrationPlan {
    struct Refused: Error {}
    static var schemas: [any VersionedSchema.Type] { [VoyagesV1.self, VoyagesV2.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: VoyagesV1.self, toVersion: VoyagesV2.self,
                 willMigrate: { context in
                     for voyage in try context.fetch(FetchDescriptor<VoyagesV1.Voyage>()) { context.delete(voyage) }
                     try context.save()   // saved into the working copy, then thrown away
                     throw Refused()
                 }, didMigrate: nil)]
    }
}

/// A plan without stages.
enum VoyagesNoStagePlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [VoyagesV1.self, VoyagesV2.self] }
    static var stages: [MigrationStage] { [] }
}

/// MIG-04: `start_date` renamed without `originalName`; MIG-09: `legacy` changes type.
enum VoyagesRenamedV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Voyage.self, Port.self] }

    @Model final class Voyage {
        var name: String
        var startedOn: Date?
        var legacy: Int
        var port: Port?
        init(name: String) {
            self.name = name
            self.legacy = 0
        }
    }

    @Model final class Port {
        var code: String
        @Relationship(inverse: \Voyage.port) var voyages: [Voyage] = []
        init(code: String) { self.code = code }
    }
}

enum VoyagesRenamedPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [VoyagesV1.self, VoyagesRenamedV2.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: VoyagesV1.self, toVersion: VoyagesRenamedV2.self)] }
}

enum VoyagesRetypedV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Voyage.self, Port.self] }

    @Model final class Voyage {
        var name: String
        var start_date: Date
        var legacy: String
        var port: Port?
        init(name: String, start: Date, legacy: String) {
            self.name = name
            self.start_date = start
            self.legacy = legacy
        }
    }

    @Model final class Port {
        var code: String
        @Relationship(inverse: \Voyage.port) var voyages: [Voyage] = []
        init(code: String) { self.code = code }
    }
}

enum VoyagesRetypedPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [VoyagesV1.self, VoyagesRetypedV2.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: VoyagesV1.self, toVersion: VoyagesRetypedV2.self)] }
}

/// A non-optional attribute added without a default.
enum VoyagesRequiredV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Voyage.self, Port.self] }

    @Model final class Voyage {
        var name: String
        var start_date: Date
        var legacy: Int
        var captain: String
        var port: Port?
        init(name: String, start: Date, legacy: Int, captain: String) {
            self.name = name
            self.start_date = start
            self.legacy = legacy
            self.captain = captain
        }
    }

    @Model final class Port {
        var code: String
        @Relationship(inverse: \Voyage.port) var voyages: [Voyage] = []
        init(code: String) { self.code = code }
    }
}

enum VoyagesRequiredPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [VoyagesV1.self, VoyagesRequiredV2.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: VoyagesV1.self, toVersion: VoyagesRequiredV2.self)] }
}

/// MIG-10: a flat base gains subclasses.
enum VehiclesV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Vehicle.self] }

    @Model class Vehicle {
        var plate: String
        init(plate: String) { self.plate = plate }
    }
}

enum VehiclesV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Vehicle.self, Car.self, Van.self] }

    @Model class Vehicle {
        var plate: String
        init(plate: String) { self.plate = plate }
    }

    @Model final class Car: Vehicle {
        var seats: Int = 4
        init(plate: String, seats: Int) {
            self.seats = seats
            super.init(plate: plate)
        }
    }

    @Model final class Van: Vehicle {
        var payload: Double = 0
        init(plate: String, payload: Double) {
            self.payload = payload
            super.init(plate: plate)
        }
    }
}

enum VehiclesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [VehiclesV1.self, VehiclesV2.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: VehiclesV1.self, toVersion: VehiclesV2.self)] }
}

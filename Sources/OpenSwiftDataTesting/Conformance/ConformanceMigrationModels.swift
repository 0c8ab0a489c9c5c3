import Foundation
import OpenSwiftData

// The versioned schemas and plans of the `migrations` suite (MIG-01…11). Each version nests its
// own classes, as SwiftData apps declare them; entity names are the class names (`Voyage`,
// `Port`, `Crew`, `Vehicle`, `Car`, `Van`). Public, so a team can read what each case migrates
// and reuse the shapes in its own tests.

/// Version 1: a voyage with a snake-case date, a legacy counter and a port.
package enum ConformanceVoyagesV1: VersionedSchema {
    /// 1.0.0.
    package static let versionIdentifier = Schema.Version(1, 0, 0)
    /// `Voyage`, `Port`.
    package static var models: [any PersistentModel.Type] { [Voyage.self, Port.self] }

    /// A voyage of version 1.
    @Model package final class Voyage {
        /// Not unique in this version.
        package var name: String
        /// Renamed to `startDate` in version 2 (MIG-03).
        package var start_date: Date
        /// Removed in version 2 (MIG-05).
        package var legacy: Int
        /// Renamed to `harbour` in version 2.
        package var port: Port?
        /// A voyage.
        package init(name: String, start: Date, legacy: Int, port: Port? = nil) {
            self.name = name
            self.start_date = start
            self.legacy = legacy
            self.port = port
        }
    }

    /// A port of version 1.
    @Model package final class Port {
        /// The port's code.
        package var code: String
        /// The voyages from this port.
        @Relationship(inverse: \Voyage.port) package var voyages: [Voyage] = []
        /// A port.
        package init(code: String) { self.code = code }
    }
}

/// Version 2, lightweight from 1: `note` added optional (MIG-01), `count` added with a default
/// (MIG-02), `start_date` renamed with `originalName` (MIG-03), `legacy` removed (MIG-05), the
/// relationship `port` renamed to `harbour` with `originalName`.
package enum ConformanceVoyagesV2: VersionedSchema {
    /// 2.0.0.
    package static let versionIdentifier = Schema.Version(2, 0, 0)
    /// `Voyage`, `Port`.
    package static var models: [any PersistentModel.Type] { [Voyage.self, Port.self] }

    /// A voyage of version 2.
    @Model package final class Voyage {
        /// Not unique yet.
        package var name: String
        /// Added, optional: nil for migrated rows (MIG-01).
        package var note: String?
        /// Added with a default: 0 for migrated rows (MIG-02).
        package var count: Int = 0
        /// Was `start_date` (MIG-03).
        @Attribute(originalName: "start_date") package var startDate: Date
        /// Was `port`.
        @Relationship(originalName: "port") package var harbour: Port?
        /// A voyage.
        package init(name: String, startDate: Date, harbour: Port? = nil) {
            self.name = name
            self.startDate = startDate
            self.harbour = harbour
        }
    }

    /// A port of version 2.
    @Model package final class Port {
        /// The port's code.
        package var code: String
        /// The voyages from this port.
        @Relationship(inverse: \Voyage.harbour) package var voyages: [Voyage] = []
        /// A port.
        package init(code: String) { self.code = code }
    }
}

/// Version 3, custom from 2: `name` becomes unique (duplicates must go first, in willMigrate)
/// and `rating` is filled in didMigrate (MIG-06); a new entity `Crew`.
package enum ConformanceVoyagesV3: VersionedSchema {
    /// 3.0.0.
    package static let versionIdentifier = Schema.Version(3, 0, 0)
    /// `Voyage`, `Port`, `Crew`.
    package static var models: [any PersistentModel.Type] { [Voyage.self, Port.self, Crew.self] }

    /// A voyage of version 3.
    @Model package final class Voyage {
        /// Unique from this version on.
        @Attribute(.unique) package var name: String
        /// As in version 2.
        package var note: String?
        /// As in version 2.
        package var count: Int = 0
        /// Added; filled by the stage's didMigrate.
        package var rating: Int?
        /// As in version 2.
        package var startDate: Date
        /// As in version 2.
        package var harbour: Port?
        /// A voyage.
        package init(name: String, startDate: Date, harbour: Port? = nil) {
            self.name = name
            self.startDate = startDate
            self.harbour = harbour
        }
    }

    /// A port of version 3.
    @Model package final class Port {
        /// The port's code.
        package var code: String
        /// The voyages from this port.
        @Relationship(inverse: \Voyage.harbour) package var voyages: [Voyage] = []
        /// A port.
        package init(code: String) { self.code = code }
    }

    /// A new entity: starts empty.
    @Model package final class Crew {
        /// A crew member's name.
        package var name: String
        /// A crew member.
        package init(name: String) { self.name = name }
    }
}

/// What the custom stages' closures saw, in order, per directory: a case finds its own entries
/// by its store's directory (the stage runs on a copy in the same directory), so cases running
/// at the same time do not mix (MIG-06, MIG-07).
package final class ConformanceMigrationLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String: [String]] = [:]
    /// The one log.
    package static let shared = ConformanceMigrationLog()
    /// Records `entry` for the store of `context` (keyed by its file's directory).
    package func append(_ entry: String, for context: ModelContext) {
        let key = context.container.configurations.first?.url.deletingLastPathComponent().path ?? ""
        lock.withLock { entries[key, default: []].append(entry) }
    }
    /// The entries recorded for stores in `directory`, removed from the log.
    package func take(in directory: URL) -> [String] {
        lock.withLock { entries.removeValue(forKey: directory.path) ?? [] }
    }
}

/// V1 → V2, lightweight.
package enum ConformanceVoyagesPlanV2: SchemaMigrationPlan {
    /// V1, V2.
    package static var schemas: [any VersionedSchema.Type] { [ConformanceVoyagesV1.self, ConformanceVoyagesV2.self] }
    /// One lightweight stage.
    package static var stages: [MigrationStage] {
        [.lightweight(fromVersion: ConformanceVoyagesV1.self, toVersion: ConformanceVoyagesV2.self)]
    }
}

/// V1 → V2 → V3: lightweight, then custom.
package enum ConformanceVoyagesPlanV3: SchemaMigrationPlan {
    /// V1, V2, V3.
    package static var schemas: [any VersionedSchema.Type] {
        [ConformanceVoyagesV1.self, ConformanceVoyagesV2.self, ConformanceVoyagesV3.self]
    }
    /// ``v1ToV2`` then ``v2ToV3``.
    package static var stages: [MigrationStage] { [v1ToV2, v2ToV3] }

    /// Lightweight.
    package static let v1ToV2 = MigrationStage.lightweight(
        fromVersion: ConformanceVoyagesV1.self,
        toVersion: ConformanceVoyagesV2.self)
    /// Deduplicates names with V2's models, then fills `rating` with V3's.
    package static let v2ToV3 = MigrationStage.custom(
        fromVersion: ConformanceVoyagesV2.self, toVersion: ConformanceVoyagesV3.self,
        willMigrate: { context in
            // V2's models: keep the first voyage of each name.
            let voyages = try context.fetch(
                FetchDescriptor<ConformanceVoyagesV2.Voyage>(sortBy: [SortDescriptor(\.startDate)]))
            ConformanceMigrationLog.shared.append("willMigrate: \(voyages.count) V2 voyages", for: context)
            var seen = Set<String>()
            for voyage in voyages where !seen.insert(voyage.name).inserted { context.delete(voyage) }
            try context.save()
        },
        didMigrate: { context in
            // V3's models: the new attribute exists now.
            let voyages = try context.fetch(FetchDescriptor<ConformanceVoyagesV3.Voyage>())
            ConformanceMigrationLog.shared.append("didMigrate: \(voyages.count) V3 voyages", for: context)
            for voyage in voyages { voyage.rating = voyage.count + 5 }
            // Left unsaved on purpose: the stage saves it.
        })
}

/// A willMigrate that deletes everything, saves, then throws (MIG-11).
package enum ConformanceVoyagesFailingPlan: SchemaMigrationPlan {
    /// The error the stage throws.
    package struct Refused: Error {}
    /// V1, V2.
    package static var schemas: [any VersionedSchema.Type] { [ConformanceVoyagesV1.self, ConformanceVoyagesV2.self] }
    /// One custom stage that fails.
    package static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: ConformanceVoyagesV1.self, toVersion: ConformanceVoyagesV2.self,
                willMigrate: { context in
                    for voyage in try context.fetch(FetchDescriptor<ConformanceVoyagesV1.Voyage>()) {
                        context.delete(voyage)
                    }
                    try context.save()  // saved into the working copy, then thrown away
                    throw Refused()
                }, didMigrate: nil)
        ]
    }
}

/// V1 and V2 without a stage between them.
package enum ConformanceVoyagesNoStagePlan: SchemaMigrationPlan {
    /// V1, V2.
    package static var schemas: [any VersionedSchema.Type] { [ConformanceVoyagesV1.self, ConformanceVoyagesV2.self] }
    /// None.
    package static var stages: [MigrationStage] { [] }
}

/// MIG-04: `start_date` renamed to `startedOn` without `originalName`.
package enum ConformanceVoyagesRenamedV2: VersionedSchema {
    /// 2.0.0.
    package static let versionIdentifier = Schema.Version(2, 0, 0)
    /// `Voyage`, `Port`.
    package static var models: [any PersistentModel.Type] { [Voyage.self, Port.self] }

    /// A voyage whose date was renamed without `originalName`.
    @Model package final class Voyage {
        /// As in version 1.
        package var name: String
        /// Was `start_date`, but nothing says so: migrated rows have nil.
        package var startedOn: Date?
        /// As in version 1.
        package var legacy: Int
        /// As in version 1.
        package var port: Port?
        /// A voyage.
        package init(name: String) {
            self.name = name
            self.legacy = 0
        }
    }

    /// As in version 1.
    @Model package final class Port {
        /// The port's code.
        package var code: String
        /// The voyages from this port.
        @Relationship(inverse: \Voyage.port) package var voyages: [Voyage] = []
        /// A port.
        package init(code: String) { self.code = code }
    }
}

/// V1 → ``ConformanceVoyagesRenamedV2``, lightweight.
package enum ConformanceVoyagesRenamedPlan: SchemaMigrationPlan {
    /// V1, renamed V2.
    package static var schemas: [any VersionedSchema.Type] {
        [ConformanceVoyagesV1.self, ConformanceVoyagesRenamedV2.self]
    }
    /// One lightweight stage.
    package static var stages: [MigrationStage] {
        [.lightweight(fromVersion: ConformanceVoyagesV1.self, toVersion: ConformanceVoyagesRenamedV2.self)]
    }
}

/// MIG-09: `legacy` changes from `Int` to `String`.
package enum ConformanceVoyagesRetypedV2: VersionedSchema {
    /// 2.0.0.
    package static let versionIdentifier = Schema.Version(2, 0, 0)
    /// `Voyage`, `Port`.
    package static var models: [any PersistentModel.Type] { [Voyage.self, Port.self] }

    /// A voyage whose `legacy` is a string now.
    @Model package final class Voyage {
        /// As in version 1.
        package var name: String
        /// As in version 1.
        package var start_date: Date
        /// An `Int` in version 1.
        package var legacy: String
        /// As in version 1.
        package var port: Port?
        /// A voyage.
        package init(name: String, start: Date, legacy: String) {
            self.name = name
            self.start_date = start
            self.legacy = legacy
        }
    }

    /// As in version 1.
    @Model package final class Port {
        /// The port's code.
        package var code: String
        /// The voyages from this port.
        @Relationship(inverse: \Voyage.port) package var voyages: [Voyage] = []
        /// A port.
        package init(code: String) { self.code = code }
    }
}

/// V1 → ``ConformanceVoyagesRetypedV2`` attempted as lightweight.
package enum ConformanceVoyagesRetypedPlan: SchemaMigrationPlan {
    /// V1, retyped V2.
    package static var schemas: [any VersionedSchema.Type] {
        [ConformanceVoyagesV1.self, ConformanceVoyagesRetypedV2.self]
    }
    /// One lightweight stage.
    package static var stages: [MigrationStage] {
        [.lightweight(fromVersion: ConformanceVoyagesV1.self, toVersion: ConformanceVoyagesRetypedV2.self)]
    }
}

/// A non-optional attribute `captain` added without a default (CFG-05's shape under a plan).
package enum ConformanceVoyagesRequiredV2: VersionedSchema {
    /// 2.0.0.
    package static let versionIdentifier = Schema.Version(2, 0, 0)
    /// `Voyage`, `Port`.
    package static var models: [any PersistentModel.Type] { [Voyage.self, Port.self] }

    /// A voyage that needs a captain.
    @Model package final class Voyage {
        /// As in version 1.
        package var name: String
        /// As in version 1.
        package var start_date: Date
        /// As in version 1.
        package var legacy: Int
        /// New, required, no default: existing rows cannot get a value.
        package var captain: String
        /// As in version 1.
        package var port: Port?
        /// A voyage.
        package init(name: String, start: Date, legacy: Int, captain: String) {
            self.name = name
            self.start_date = start
            self.legacy = legacy
            self.captain = captain
        }
    }

    /// As in version 1.
    @Model package final class Port {
        /// The port's code.
        package var code: String
        /// The voyages from this port.
        @Relationship(inverse: \Voyage.port) package var voyages: [Voyage] = []
        /// A port.
        package init(code: String) { self.code = code }
    }
}

/// V1 → ``ConformanceVoyagesRequiredV2``, lightweight.
package enum ConformanceVoyagesRequiredPlan: SchemaMigrationPlan {
    /// V1, required V2.
    package static var schemas: [any VersionedSchema.Type] {
        [ConformanceVoyagesV1.self, ConformanceVoyagesRequiredV2.self]
    }
    /// One lightweight stage.
    package static var stages: [MigrationStage] {
        [.lightweight(fromVersion: ConformanceVoyagesV1.self, toVersion: ConformanceVoyagesRequiredV2.self)]
    }
}

/// MIG-10, before: a flat `Vehicle`.
package enum ConformanceVehiclesV1: VersionedSchema {
    /// 1.0.0.
    package static let versionIdentifier = Schema.Version(1, 0, 0)
    /// `Vehicle`.
    package static var models: [any PersistentModel.Type] { [Vehicle.self] }

    /// A vehicle without subclasses.
    @Model package class Vehicle {
        /// The registration plate.
        package var plate: String
        /// A vehicle.
        package init(plate: String) { self.plate = plate }
    }
}

/// MIG-10, after: `Vehicle` with subclasses `Car` and `Van`.
package enum ConformanceVehiclesV2: VersionedSchema {
    /// 2.0.0.
    package static let versionIdentifier = Schema.Version(2, 0, 0)
    /// `Vehicle`, `Car`, `Van`.
    package static var models: [any PersistentModel.Type] { [Vehicle.self, Car.self, Van.self] }

    /// The base class.
    @Model package class Vehicle {
        /// The registration plate.
        package var plate: String
        /// A vehicle.
        package init(plate: String) { self.plate = plate }
    }

    /// A new subclass.
    @Model package final class Car: Vehicle {
        /// Seats.
        package var seats: Int = 4
        /// A car.
        package init(plate: String, seats: Int) {
            self.seats = seats
            super.init(plate: plate)
        }
    }

    /// Another new subclass.
    @Model package final class Van: Vehicle {
        /// Payload in kilograms.
        package var payload: Double = 0
        /// A van.
        package init(plate: String, payload: Double) {
            self.payload = payload
            super.init(plate: plate)
        }
    }
}

/// ``ConformanceVehiclesV1`` → ``ConformanceVehiclesV2``, lightweight.
package enum ConformanceVehiclesPlan: SchemaMigrationPlan {
    /// V1, V2.
    package static var schemas: [any VersionedSchema.Type] { [ConformanceVehiclesV1.self, ConformanceVehiclesV2.self] }
    /// One lightweight stage.
    package static var stages: [MigrationStage] {
        [.lightweight(fromVersion: ConformanceVehiclesV1.self, toVersion: ConformanceVehiclesV2.self)]
    }
}

import Foundation

/// A named, versioned set of models; the unit a ``SchemaMigrationPlan`` migrates between.
///
/// Declare each version's models inside its enum, so every version keeps its own classes:
/// ```swift
/// enum TripsV1: VersionedSchema {
///     static let versionIdentifier = Schema.Version(1, 0, 0)
///     static var models: [any PersistentModel.Type] { [Trip.self] }
///     @Model final class Trip { var name: String; init(name: String) { self.name = name } }
/// }
/// ```
/// A store records the entity version hashes of the model it was written with; opening it
/// finds the version whose models have the same hashes (the version identifier only breaks ties
/// in messages).
public protocol VersionedSchema {
    /// The version this schema describes.
    static var versionIdentifier: Schema.Version { get }
    /// The model types of this version.
    static var models: [any PersistentModel.Type] { get }
}

/// The versions of an app's schema, oldest first, and the stages that migrate a store from one
/// to the next.
///
/// ```swift
/// enum TripsPlan: SchemaMigrationPlan {
///     static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self] }
///     static var stages: [MigrationStage] { [.lightweight(fromVersion: TripsV1.self, toVersion: TripsV2.self)] }
/// }
/// let container = try ModelContainer(for: TripsV2.Trip.self, migrationPlan: TripsPlan.self,
///                                    configurations: ModelConfiguration(url: storeURL))
/// ```
/// Opening a store written with an older version runs the stages from that version to the
/// container's, in order, as one change: if any stage fails, the file is left as it was.
public protocol SchemaMigrationPlan {
    /// The versions, oldest first.
    static var schemas: [any VersionedSchema.Type] { get }
    /// The stages, each from one version to a later one. A version without a stage from it
    /// migrates to the next by an inferred lightweight stage (what `.lightweight` would do).
    static var stages: [MigrationStage] { get }
}

/// One step of a ``SchemaMigrationPlan``: from one ``VersionedSchema`` to another.
///
/// ```swift
/// static let v1ToV2 = MigrationStage.custom(fromVersion: TripsV1.self, toVersion: TripsV2.self,
///     willMigrate: { context in
///         // TripsV1's models: remove duplicates before V2 makes the name unique
///         for trip in try context.fetch(FetchDescriptor<TripsV1.Trip>()) where … { context.delete(trip) }
///         try context.save()
///     },
///     didMigrate: { context in
///         // TripsV2's models: fill the new attribute
///         for trip in try context.fetch(FetchDescriptor<TripsV2.Trip>()) { trip.rating = 3 }
///         try context.save()
///     })
/// ```
/// The schema change between the two closures is the lightweight one: entities and properties
/// are matched by name (or `originalName`), new attributes are NULL or their default, removed
/// ones are dropped; a change it cannot make (a type change, a new non-optional attribute
/// without a default) throws. Changes left unsaved when a closure returns are saved for it.
///
/// The closures run synchronously on the thread that creates the container, before the
/// container exists; they capture nothing from it (the stage is `Sendable` so plans can hold
/// stages in `static let`s under Swift 6).
public enum MigrationStage: @unchecked Sendable, CustomStringConvertible {
    /// A schema change only: what Core Data infers (added, removed and renamed properties,
    /// added entities and subclasses, changed delete rules).
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// Code around the schema change: `willMigrate` sees the store through `fromVersion`'s
    /// models, `didMigrate` through `toVersion`'s.
    case custom(
        fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
        willMigrate: ((ModelContext) throws -> Void)?, didMigrate: ((ModelContext) throws -> Void)?)

    /// The version the stage starts from.
    public var fromVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(let from, _), .custom(let from, _, _, _): from
        }
    }

    /// The version the stage ends at.
    public var toVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(_, let to), .custom(_, let to, _, _): to
        }
    }

    /// `lightweight 1.0.0 → 2.0.0` or `custom 1.0.0 → 2.0.0`.
    public var description: String {
        switch self {
        case .lightweight(let from, let to): "lightweight \(from.versionIdentifier) → \(to.versionIdentifier)"
        case .custom(let from, let to, _, _): "custom \(from.versionIdentifier) → \(to.versionIdentifier)"
        }
    }
}

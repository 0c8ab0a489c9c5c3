import Foundation

/// The identity of a model's row: store, entity and primary key. Temporary (and different)
/// until the model's first save, permanent afterwards. `Sendable`: pass it across actors and
/// look the model up again with ``ModelContext/model(for:)``.
///
/// ```swift
/// let id = trip.persistentModelID          // temporary before save
/// try context.save()
/// let data = try JSONEncoder().encode(trip.persistentModelID)   // permanent, survives reopening
/// ```
public struct PersistentIdentifier: Hashable, Codable, Sendable, Comparable, CustomStringConvertible {
    /// The identifier's stable value, for `Identifiable` conformance.
    public struct ID: Hashable, Codable, Sendable {
        let entityName: String
        let storeIdentifier: String?
        let key: Key
    }
    enum Key: Hashable, Codable, Sendable, Comparable {
        case temporary(UInt64)
        case permanent(Int64)
    }

    /// The entity (model class) name.
    public let entityName: String
    /// The identifier of the store the row lives in; `nil` while temporary.
    public let storeIdentifier: String?
    let key: Key

    init(entityName: String, storeIdentifier: String?, key: Key) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
        self.key = key
    }

    /// The stable value for `Identifiable`.
    public var id: ID { ID(entityName: entityName, storeIdentifier: storeIdentifier, key: key) }
    /// Whether the model has never been saved.
    public var isTemporary: Bool { if case .temporary = key { true } else { false } }
    /// The row's primary key, once saved.
    public var primaryKey: Int64? { if case .permanent(let pk) = key { pk } else { nil } }

    /// `x-openswiftdata://<store>/<Entity>/p<pk>` (or `/t<n>` while temporary).
    public var description: String {
        let k: String
        switch key {
        case .temporary(let n): k = "t\(n)"
        case .permanent(let pk): k = "p\(pk)"
        }
        return "x-openswiftdata://\(storeIdentifier ?? "unsaved")/\(entityName)/\(k)"
    }

    /// Orders by store, entity, then key (temporary identifiers first).
    public static func < (lhs: PersistentIdentifier, rhs: PersistentIdentifier) -> Bool {
        if lhs.storeIdentifier != rhs.storeIdentifier {
            return (lhs.storeIdentifier ?? "") < (rhs.storeIdentifier ?? "")
        }
        if lhs.entityName != rhs.entityName { return lhs.entityName < rhs.entityName }
        return lhs.key < rhs.key
    }

    private static let counterLock = NSLock()
    nonisolated(unsafe) private static var counter: UInt64 = 0
    static func nextTemporaryKey() -> UInt64 {
        counterLock.withLock {
            counter += 1
            return counter
        }
    }
}

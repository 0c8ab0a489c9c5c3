import Foundation

extension Schema {
    /// A relationship between entities, with its `@Relationship` options.
    ///
    /// ```swift
    /// @Relationship(deleteRule: .cascade, inverse: \Word.category) var words: [Word] = []
    /// ```
    public final class Relationship: SchemaProperty, Hashable, @unchecked Sendable {
        /// What happens to related models when the owner is deleted.
        public enum DeleteRule: String, Codable, Hashable, Sendable {
            /// Clear the reference to the deleted model (the default).
            case nullify
            /// Delete the related models too.
            case cascade
            /// Refuse to delete while related models exist: `save()` throws.
            case deny
            /// Do nothing to the related models; their reference reads `nil` after save.
            case noAction
        }
        /// Relationship options.
        public struct Option: Hashable, Sendable {
            let name: String
            /// The to-one target is unique: no two models may reference the same target.
            public static let unique = Option(name: "unique")
        }

        /// The property's name; filled in when the schema is built.
        public internal(set) var name: String
        /// The options written on the relationship.
        public let options: [Option]
        /// The delete rule.
        public let deleteRule: DeleteRule
        /// The least number of related models a save accepts (0: no bound).
        public let minimumModelCount: Int?
        /// The most related models a save accepts (0: no bound).
        public let maximumModelCount: Int?
        /// The name in an earlier schema version; the property's own name when not renamed.
        public var originalName: String { _originalName ?? name }
        /// The salt mixed into the version hash, if any.
        public let hashModifier: String?
        /// The key path that reads the relationship; filled in when the schema is built.
        public internal(set) var keypath: AnyKeyPath?
        /// The inverse key path written as `inverse:`, if any.
        public let inverseKeyPath: AnyKeyPath?
        /// The name of the inverse relationship (declared or inferred), if there is one.
        public internal(set) var inverseName: String?
        /// The name of the destination entity.
        public internal(set) var destination: String = ""
        /// Whether this side holds at most one model.
        public internal(set) var isToOneRelationship: Bool = true
        /// Whether the declared type is `Optional`: `Tag?`, or `[Tag]?` for a to-many (which
        /// still reads `[]`, never `nil`, as in SwiftData).
        public internal(set) var isOptional: Bool = true
        let _originalName: String?

        /// Creates a relationship description; `@Relationship(...)` arguments are passed here.
        public init(
            _ options: Option..., deleteRule: DeleteRule = .nullify,
            minimumModelCount: Int? = 0, maximumModelCount: Int? = 0,
            originalName: String? = nil, inverse: AnyKeyPath? = nil,
            hashModifier: String? = nil
        ) {
            self.name = ""
            self.options = options
            self.deleteRule = deleteRule
            self.minimumModelCount = minimumModelCount
            self.maximumModelCount = maximumModelCount
            self._originalName = originalName
            self.inverseKeyPath = inverse
            self.hashModifier = hashModifier
        }

        /// Whether `.unique` is among the options.
        public var isUnique: Bool { options.contains(.unique) }

        /// `name: → Destination (to-one|to-many) rule`.
        public var description: String {
            let card = isToOneRelationship ? "to-one" : "to-many"
            let inv = inverseName.map { " inverse \($0)" } ?? ""
            return "\(name): → \(destination) (\(card), \(deleteRule.rawValue)\(inv))"
        }
        /// Relationships are equal when name, destination, cardinality and rule agree.
        public static func == (lhs: Relationship, rhs: Relationship) -> Bool {
            lhs.name == rhs.name && lhs.destination == rhs.destination
                && lhs.isToOneRelationship == rhs.isToOneRelationship
                && lhs.deleteRule == rhs.deleteRule && lhs.inverseName == rhs.inverseName
        }
        /// Hashes the name and destination.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(destination)
        }
    }
}

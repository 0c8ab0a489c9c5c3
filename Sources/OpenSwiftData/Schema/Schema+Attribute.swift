import Foundation

extension Schema {
    /// A persisted value property of an entity, with its `@Attribute` options.
    ///
    /// ```swift
    /// @Attribute(.unique, originalName: "title") var name: String
    /// ```
    public final class Attribute: SchemaProperty, Hashable, @unchecked Sendable {
        /// How an attribute is stored; written as `@Attribute(.unique)` and so on.
        public struct Option: Hashable, Sendable, CustomStringConvertible {
            enum Kind: Hashable, Sendable {
                case unique, externalStorage
                case transformable(String)
                case spotlight
                case preserveValueOnDeletion, allowsCloudEncryption, ephemeral, codable
            }
            let kind: Kind
            /// Values are unique across the entity (and its sub-entities); inserting a colliding
            /// model updates the stored one. Becomes `CREATE UNIQUE INDEX`.
            public static let unique = Option(kind: .unique)
            /// Store large `Data` in a file beside the store.
            public static let externalStorage = Option(kind: .externalStorage)
            /// Index the value for Spotlight: accepted and ignored on Linux.
            public static let spotlight = Option(kind: .spotlight)
            /// Keep the value in history tombstones after the model is deleted.
            public static let preserveValueOnDeletion = Option(kind: .preserveValueOnDeletion)
            /// Encrypt in CloudKit: accepted and ignored (there is no CloudKit on Linux).
            public static let allowsCloudEncryption = Option(kind: .allowsCloudEncryption)
            /// Track changes to the value but never persist it.
            public static let ephemeral = Option(kind: .ephemeral)
            /// Store the value through its `Codable` encoding as an opaque JSON column.
            public static let codable = Option(kind: .codable)
            /// Store the value through a transformer type; see ``ValueTransforming``.
            public static func transformable(by transformer: any ValueTransforming.Type) -> Option {
                Option(kind: .transformable(ValueTransformerRegistry.register(transformer)))
            }
            /// Store the value through a ``ValueTransformer`` subclass (Foundation's shape).
            ///
            /// ```swift
            /// @Attribute(.transformable(by: PointTransformer.self)) var origin: Point
            /// ```
            /// The transformer is registered under the class's name (`Module.Class`) unless a
            /// transformer already has that name; the forward direction must produce `Data`.
            public static func transformable(by transformer: ValueTransformer.Type) -> Option {
                let name = String(reflecting: transformer)
                ValueTransformerRegistry.registerIfAbsent(transformer, forName: NSValueTransformerName(name))
                return Option(kind: .transformable(name))
            }
            /// Store the value through a transformer registered under `name`.
            public static func transformable(by name: String) -> Option {
                Option(kind: .transformable(name))
            }
            /// The option as it would be written in Swift.
            public var description: String {
                switch kind {
                case .unique: ".unique"
                case .externalStorage: ".externalStorage"
                case .transformable(let name): ".transformable(by: \(name))"
                case .spotlight: ".spotlight"
                case .preserveValueOnDeletion: ".preserveValueOnDeletion"
                case .allowsCloudEncryption: ".allowsCloudEncryption"
                case .ephemeral: ".ephemeral"
                case .codable: ".codable"
                }
            }
        }

        /// The property's name; filled in when the schema is built.
        public internal(set) var name: String
        /// The options written on the property.
        public let options: [Option]
        /// The name in an earlier schema version; the property's own name when not renamed.
        public var originalName: String { _originalName ?? name }
        /// The salt mixed into the version hash, if any.
        public let hashModifier: String?
        /// The key path that reads the attribute; filled in when the schema is built.
        public internal(set) var keypath: AnyKeyPath?
        /// The declared Swift type of the value (optional types included).
        public internal(set) var valueType: Any.Type = Any.self
        /// Whether the declared type is `Optional`.
        public internal(set) var isOptional: Bool = false
        /// The declaration's default value, if any.
        public internal(set) var defaultValue: Any?
        let _originalName: String?

        /// Creates an attribute description; `@Attribute(...)` arguments are passed through here.
        public init(_ options: Option..., originalName: String? = nil, hashModifier: String? = nil) {
            self.name = ""
            self.options = options
            self._originalName = originalName
            self.hashModifier = hashModifier
        }

        init(name: String, options: [Option], originalName: String?, hashModifier: String?) {
            self.name = name
            self.options = options
            self._originalName = originalName
            self.hashModifier = hashModifier
        }

        /// Whether `.unique` is among the options.
        public var isUnique: Bool { options.contains(.unique) }
        /// Whether the value is kept out of the store (`.ephemeral`).
        public var isTransient: Bool { options.contains(.ephemeral) }

        /// `name: Type [options]`.
        public var description: String {
            let opts = options.isEmpty ? "" : " " + options.map(\.description).joined(separator: ", ")
            return "\(name): \(valueType)\(opts)"
        }
        /// Attributes are equal when they describe the same stored column.
        public static func == (lhs: Attribute, rhs: Attribute) -> Bool {
            lhs.name == rhs.name && lhs.options == rhs.options
                && ObjectIdentifier(lhs.valueType) == ObjectIdentifier(rhs.valueType)
        }
        /// Hashes the name and options.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(options)
        }
    }
}

/// A Swift-native stand-in for Foundation's `ValueTransformer`, which Linux lacks: converts a
/// value to and from `Data` for `@Attribute(.transformable(by:))`.
///
/// ```swift
/// struct ColorTransformer: ValueTransforming {
///     static func encode(_ value: Any) throws -> Data { ... }
///     static func decode(_ data: Data) throws -> Any { ... }
/// }
/// ```
public protocol ValueTransforming {
    /// Converts a property value to the bytes stored in the column.
    static func encode(_ value: Any) throws -> Data
    /// Converts stored bytes back to the property value.
    static func decode(_ data: Data) throws -> Any
}

/// What stores a transformable attribute: a ``ValueTransforming`` type, or a ``ValueTransformer``
/// registered under the attribute's transformer name.
struct ResolvedTransformer {
    let encode: (Any) throws -> Data
    let decode: (Data) throws -> Any
}

func _transformer(named name: String) -> ResolvedTransformer? {
    if let type = ValueTransformerRegistry.transformingType(named: name) {
        return ResolvedTransformer(encode: { try type.encode($0) }, decode: { try type.decode($0) })
    }
    guard let transformer = ValueTransformerRegistry.transformer(forName: NSValueTransformerName(name)) else {
        return nil
    }
    return ResolvedTransformer(
        encode: { value in
            switch transformer.transformedValue(value) {
            case let data as Data: return data
            case let data as NSData: return Data(referencing: data)
            default:
                throw SwiftDataError(
                    SwiftDataError.storeError.code,
                    "value transformer \(name) did not turn the value into Data")
            }
        },
        decode: { data in
            guard type(of: transformer).allowsReverseTransformation() else {
                throw SwiftDataError(
                    SwiftDataError.storeError.code,
                    "value transformer \(name) does not allow reverse transformation, so stored values cannot be read")
            }
            guard let value = transformer.reverseTransformedValue(data) else {
                throw SwiftDataError(
                    SwiftDataError.storeError.code,
                    "value transformer \(name) could not turn the stored Data back into a value")
            }
            return value
        })
}

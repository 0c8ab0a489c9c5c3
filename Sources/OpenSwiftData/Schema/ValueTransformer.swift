import Foundation

/// The name a ``ValueTransformer`` is registered under (Foundation's `NSValueTransformerName`).
///
/// ```swift
/// extension NSValueTransformerName {
///     static let colorTransformer = NSValueTransformerName("ColorTransformer")
/// }
/// ```
public struct NSValueTransformerName: RawRepresentable, Hashable, Sendable {
    /// The name as a string.
    public let rawValue: String
    /// A name from its string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A name from its string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// Converts values one way and, optionally, back: Foundation's `ValueTransformer`, which Linux
/// Foundation does not have; ``Schema/Attribute/Option/transformable(by:)-(ValueTransformer.Type)``
/// stores a property through one.
///
/// ```swift
/// final class PointTransformer: ValueTransformer {
///     override class func transformedValueClass() -> AnyClass { NSData.self }
///     override class func allowsReverseTransformation() -> Bool { true }
///     override func transformedValue(_ value: Any?) -> Any? {
///         (value as? Point).map { try! JSONEncoder().encode($0) }
///     }
///     override func reverseTransformedValue(_ value: Any?) -> Any? {
///         (value as? Data).flatMap { try? JSONDecoder().decode(Point.self, from: $0) }
///     }
/// }
/// @Attribute(.transformable(by: PointTransformer.self)) var origin: Point
/// ```
/// For storage, the forward direction turns the property's value into `Data` and the reverse
/// direction turns the stored `Data` back. `init()` is `required` here (the store creates the
/// transformer from its class), so a subclass that overrides it writes `required override init()`.
open class ValueTransformer: NSObject {
    /// The registered transformer this one forwards to, for instances made by ``init(forName:)``.
    private var forwardingTarget: ValueTransformer?

    /// A transformer.
    public required override init() {
        super.init()
    }

    /// The transformer registered under `name`, or nil when none is.
    ///
    /// ```swift
    /// let transformer = ValueTransformer(forName: .colorTransformer)
    /// ```
    /// A Swift initialiser cannot return the registered object itself, so this is a transformer
    /// that forwards ``transformedValue(_:)`` and ``reverseTransformedValue(_:)`` to it; the class
    /// methods answer for the base class.
    public convenience init?(forName name: NSValueTransformerName) {
        guard let registered = ValueTransformerRegistry.transformer(forName: name) else { return nil }
        self.init()
        forwardingTarget = registered
    }

    /// Registers `transformer` under `name`; nil removes the registration.
    ///
    /// ```swift
    /// ValueTransformer.setValueTransformer(PointTransformer(), forName: .init("PointTransformer"))
    /// ```
    open class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        ValueTransformerRegistry.set(transformer, forName: name)
    }

    /// The names of every registered transformer.
    open class func valueTransformerNames() -> [NSValueTransformerName] {
        ValueTransformerRegistry.names()
    }

    /// Whether ``reverseTransformedValue(_:)`` is supported; `true` unless overridden.
    open class func allowsReverseTransformation() -> Bool { true }

    /// The class of the values ``transformedValue(_:)`` returns; `NSObject` unless overridden.
    open class func transformedValueClass() -> AnyClass { NSObject.self }

    /// Converts `value` in the forward direction; returns it unchanged unless overridden.
    open func transformedValue(_ value: Any?) -> Any? {
        if let forwardingTarget { return forwardingTarget.transformedValue(value) }
        return value
    }

    /// Converts `value` back; calls ``transformedValue(_:)`` unless overridden, and returns nil
    /// when the class does not allow reverse transformation.
    open func reverseTransformedValue(_ value: Any?) -> Any? {
        if let forwardingTarget { return forwardingTarget.reverseTransformedValue(value) }
        guard type(of: self).allowsReverseTransformation() else { return nil }
        return transformedValue(value)
    }
}

/// The transformers transformable attributes are stored through, behind one lock: the
/// ``ValueTransformer`` instances registered by name
/// (``ValueTransformer/setValueTransformer(_:forName:)``), and the ``ValueTransforming`` types
/// named by `.transformable(by:)`. An attribute's option names its transformer (the name is
/// part of the schema), so both are found by that name; a ``ValueTransforming`` type is
/// registered once, by its identity, under its full name.
enum ValueTransformerRegistry {
    nonisolated(unsafe) private static var table: [NSValueTransformerName: ValueTransformer] = [:]
    /// The ``ValueTransforming`` types by identity, with the name each is registered under.
    nonisolated(unsafe) private static var transformingTypes: [ObjectIdentifier: String] = [:]
    /// The ``ValueTransforming`` types by the name in their attributes' options.
    nonisolated(unsafe) private static var transformingByName: [String: any ValueTransforming.Type] = [:]
    private static let lock = NSLock()

    /// Registers `type` (once) and returns the name an attribute's option refers to it by: its
    /// full name, `Module.Type`.
    static func register(_ type: any ValueTransforming.Type) -> String {
        let id = ObjectIdentifier(type)
        if let name = lock.withLock({ transformingTypes[id] }) { return name }
        let name = String(reflecting: type)
        lock.withLock {
            transformingTypes[id] = name
            transformingByName[name] = type
        }
        return name
    }

    /// The ``ValueTransforming`` type registered under `name` by ``register(_:)``, if any.
    static func transformingType(named name: String) -> (any ValueTransforming.Type)? {
        lock.withLock { transformingByName[name] }
    }

    static func set(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        lock.withLock { table[name] = transformer }
    }

    static func transformer(forName name: NSValueTransformerName) -> ValueTransformer? {
        lock.withLock { table[name] }
    }

    static func names() -> [NSValueTransformerName] {
        lock.withLock { Array(table.keys) }.sorted { $0.rawValue < $1.rawValue }
    }

    /// Registers a new instance of `type` under `name` unless a transformer already has that name.
    static func registerIfAbsent(_ type: ValueTransformer.Type, forName name: NSValueTransformerName) {
        lock.withLock { if table[name] == nil { table[name] = type.init() } }
    }
}

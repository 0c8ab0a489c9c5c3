import Foundation

/// Everything the runtime knows about one model class, computed once from the metadata the
/// ``Model()`` macro generated: its slots (inherited ones first), their codecs, and its place in
/// an inheritance hierarchy. Shared process-wide; independent of any container.
final class ModelLayout: @unchecked Sendable {
    /// One property slot.
    final class Slot: @unchecked Sendable {
        enum Kind {
            case attribute(AttributeCodec)
            case toOne(target: any PersistentModel.Type, optional: Bool)
            case toMany(target: any PersistentModel.Type)
        }
        let index: Int
        let name: String
        let keyPath: AnyKeyPath
        let kind: Kind
        let isConstant: Bool
        let defaultValue: Any?
        let attribute: Schema.Attribute?
        let relationship: Schema.Relationship?
        /// The class that declares the property.
        let declaringType: any PersistentModel.Type
        /// The key path as the runtime posts Observation notifications through it (the
        /// conformance looked up once, not on every runtime write).
        let notifying: (any _ObservationNotifying)?

        /// What a to-one slot's value is.
        enum ToOne {
            /// `nil` (or not a to-one slot).
            case empty
            /// The key of a row not resolved to a model yet (the slot holds a ``ForeignKey``; never 0).
            case foreignKey(Int64)
            /// A model.
            case model(any PersistentModel)
        }

        /// Reads a to-one slot's value (``ToOne``); `.empty` for other slots.
        /// Reads a loaded to-one slot where it is stored (``SlotValues/withSlots(_:)``).
        let toOne: (UnsafePointer<Any>) -> ToOne

        /// The model in a to-one slot's value; `nil` for other slots, an empty value or a key
        /// not resolved yet.
        func toOneModel(_ value: Any) -> (any PersistentModel)? {
            if case .model(let m) = withUnsafePointer(to: value, toOne) { return m }
            return nil
        }

        init(
            index: Int, name: String, keyPath: AnyKeyPath, kind: Kind, isConstant: Bool, defaultValue: Any?,
            attribute: Schema.Attribute?, relationship: Schema.Relationship?, declaringType: any PersistentModel.Type
        ) {
            self.index = index
            self.name = name
            self.keyPath = keyPath
            self.kind = kind
            self.isConstant = isConstant
            self.defaultValue = defaultValue
            self.attribute = attribute
            self.relationship = relationship
            self.declaringType = declaringType
            notifying = keyPath as? any _ObservationNotifying
            if case .toOne(let target, _) = kind {
                toOne = Slot.toOneReader(target)
            } else {
                toOne = { _ in .empty }
            }
        }

        /// A to-one slot's reader for target class `M`. A slot holds the property's declared
        /// type, `M?` or `M`, or a ``ForeignKey`` (always boxed as exactly that): those are
        /// recognised by their type metadata (`M?` and `M` are both one nullable reference), so
        /// the common case costs no dynamic cast; anything else (a subclass-typed box) takes the
        /// runtime's casts.
        private static func toOneReader<M: PersistentModel>(_ type: M.Type) -> (UnsafePointer<Any>) -> ToOne {
            let optionalType = AnyCell.metadata(of: M?.self)
            let plainType = AnyCell.metadata(of: M.self)
            let foreignKeyType = AnyCell.metadata(of: ForeignKey.self)
            return { slot in
                // The value's type, read without copying it (``AnyCell/typeMetadata(at:)``).
                let t = AnyCell.typeMetadata(at: slot)
                if t == optionalType || t == plainType {
                    // One reference, nil or an `M`, stored inline.
                    guard let object = UnsafeRawPointer(slot).load(as: AnyObject?.self) else { return .empty }
                    return .model(unsafeDowncast(object, to: M.self))
                }
                if t == foreignKeyType {
                    let pk = UnsafeRawPointer(slot).load(as: ForeignKey.self).pk
                    return pk == 0 ? .empty : .foreignKey(pk)
                }
                let value = slot.pointee
                if let optional = value as? M? { return optional.map { .model($0) } ?? .empty }
                if let model = value as? M { return .model(model) }
                return (_flattenOptional(value) as? any PersistentModel).map { .model($0) } ?? .empty
            }
        }

        /// For a to-many slot, `[Target]`: the array type the slot's value always holds, also
        /// when the property is declared `[Target]?` (an optional to-many reads `[]`, never nil).
        var arrayType: (any _ArrayProtocol.Type)? {
            if case .toMany(let t) = kind { return (t as any PersistentModel.Type).arrayType }
            return nil
        }
        var isRelationship: Bool { relationship != nil }
        var isToMany: Bool { if case .toMany = kind { true } else { false } }
        var isEphemeral: Bool { attribute?.isTransient ?? false }
        var codec: AttributeCodec? { if case .attribute(let c) = kind { c } else { nil } }
        var target: (any PersistentModel.Type)? {
            switch kind {
            case .attribute: nil
            case .toOne(let t, _), .toMany(let t): t
            }
        }
    }

    let type: any PersistentModel.Type
    let name: String
    let superLayout: ModelLayout?
    let slots: [Slot]
    let ownSlots: Range<Int>
    /// Uniqueness groups (property names) declared on this class or a superclass.
    let uniquenessConstraints: [[String]]
    /// Indexes (property names) declared on this class or a superclass.
    let indices: [[String]]
    let slotByName: [String: Int]
    let slotByKeyPath: [AnyKeyPath: Int]
    /// Each slot's key path rooted at this class, when the macro provided it (inherited slots of
    /// a subclass included); see ``keyPath(rootedAt:)``.
    private let rootedKeyPaths: [Int: AnyKeyPath]
    /// Relationship slots, for quick iteration.
    let relationshipSlots: [Int]
    /// The relationship slots below 64 as bits (bit `i` = slot `i`), to test an initialiser's
    /// ``BackingData/initSlotMask`` against without a loop.
    let relationshipMask: UInt64
    /// Whether a slot is a to-many relationship.
    let hasToMany: Bool
    /// Whether a to-many relationship has a `minimumModelCount` or `maximumModelCount` (which a
    /// save checks).
    let hasCountLimits: Bool

    var root: ModelLayout { superLayout?.root ?? self }

    /// The key path of `slot` rooted at this class: `\Sub.name` for a subclass's inherited
    /// `name` (the metadata's own is `\Base.name`), else the slot's declared key path.
    func keyPath(rootedAt slot: Int) -> AnyKeyPath { rootedKeyPaths[slot] ?? slots[slot].keyPath }
    var isRelationshipSlot: [Bool]

    private init(type: any PersistentModel.Type, superLayout: ModelLayout?) throws {
        self.type = type
        self.name = String(describing: type)
        self.superLayout = superLayout
        var slots = superLayout?.slots ?? []
        let start = slots.count
        for meta in type.schemaMetadata {
            slots.append(try ModelLayout.slot(meta, index: slots.count, declaredBy: type))
        }
        self.slots = slots
        self.ownSlots = start..<slots.count
        let own = type._$entityConstraints
        self.uniquenessConstraints =
            (superLayout?.uniquenessConstraints ?? []) + own.unique
            + slots[start...].filter { $0.attribute?.isUnique == true || $0.relationship?.isUnique == true }.map {
                [$0.name]
            }
        self.indices = (superLayout?.indices ?? []) + own.indices
        let slotByName = Dictionary(slots.map { ($0.name, $0.index) }, uniquingKeysWith: { a, _ in a })
        self.slotByName = slotByName
        (self.rootedKeyPaths, self.slotByKeyPath) = ModelLayout.keyPaths(of: type, slots, slotByName)
        self.relationshipSlots = slots.filter(\.isRelationship).map(\.index)
        self.isRelationshipSlot = slots.map(\.isRelationship)
        self.relationshipMask = relationshipSlots.reduce(0) { $1 < 64 ? $0 | (1 << UInt64($1)) : $0 }
        self.hasToMany = slots.contains(where: \.isToMany)
        self.hasCountLimits = slots.contains {
            $0.isToMany
                && (($0.relationship?.minimumModelCount ?? 0) > 0 || ($0.relationship?.maximumModelCount ?? 0) > 0)
        }
        try ModelLayout.checkConstraints(own, of: name, slots, slotByName)
    }

    /// The slot at `index` for property `meta` of class `type`: a relationship when its type is
    /// a model, an optional model or an array of models, else an attribute.
    ///
    /// - Throws: ``SwiftDataError/unknownSchema`` for a `@Relationship` on another type, or a
    ///   type that cannot be stored.
    private static func slot(
        _ meta: Schema.PropertyMetadata, index: Int, declaredBy type: any PersistentModel.Type
    ) throws -> Slot {
        let valueType = Swift.type(of: meta.keypath).valueType
        let relationship = meta.metadata as? Schema.Relationship
        if let target = ModelLayout.modelTarget(valueType) {
            let rel = relationship ?? Schema.Relationship()
            rel.name = meta.name
            rel.keypath = meta.keypath
            rel.destination = String(describing: target.type)
            rel.isToOneRelationship = !target.toMany
            rel.isOptional = target.optional
            let kind: Slot.Kind =
                target.toMany
                ? .toMany(target: target.type) : .toOne(target: target.type, optional: target.optional)
            return Slot(
                index: index, name: meta.name, keyPath: meta.keypath, kind: kind,
                isConstant: meta.isConstant, defaultValue: meta.defaultValue,
                attribute: nil, relationship: rel, declaringType: type)
        }
        if relationship != nil {
            throw SwiftDataError(
                SwiftDataError.unknownSchema.code,
                "@Relationship on '\(meta.name)' needs a model type, an optional model or an array of models, not \(valueType)",
                entityName: String(describing: type), propertyName: meta.name)
        }
        let attr = (meta.metadata as? Schema.Attribute) ?? Schema.Attribute()
        attr.name = meta.name
        attr.keypath = meta.keypath
        attr.valueType = valueType
        attr.isOptional = valueType is any _OptionalProtocol.Type
        attr.defaultValue = meta.defaultValue
        guard let codec = AttributeCodec.make(for: valueType, options: attr.options) else {
            throw SwiftDataError(
                SwiftDataError.unknownSchema.code,
                "'\(meta.name)' has type \(valueType), which cannot be stored: use a number, Bool, String, Date, UUID, URL, Data, Decimal, a raw-value enum, a Codable type, a model or an array of models; or mark it @Transient",
                entityName: String(describing: type), propertyName: meta.name)
        }
        return Slot(
            index: index, name: meta.name, keyPath: meta.keypath, kind: .attribute(codec),
            isConstant: meta.isConstant, defaultValue: meta.defaultValue,
            attribute: attr, relationship: nil, declaringType: type)
    }

    /// The key paths rooted at `type` (`\Sub.name` for an inherited `name`) that the macro
    /// provides, by slot, and every slot by key path (declared and rooted ones).
    private static func keyPaths(
        of type: any PersistentModel.Type, _ slots: [Slot], _ slotByName: [String: Int]
    ) -> (rooted: [Int: AnyKeyPath], slotByKeyPath: [AnyKeyPath: Int]) {
        var rooted: [Int: AnyKeyPath] = [:]
        var slotByKeyPath = Dictionary(slots.map { ($0.keyPath, $0.index) }, uniquingKeysWith: { a, _ in a })
        for (name, keyPath) in type._$rootedKeyPaths() {
            guard let slot = slotByName[name] else { continue }
            rooted[slot] = keyPath
            if slotByKeyPath[keyPath] == nil { slotByKeyPath[keyPath] = slot }
        }
        return (rooted, slotByKeyPath)
    }

    /// Checks the `#Unique` and `#Index` groups class `name` declares (`own`).
    ///
    /// - Throws: ``SwiftDataError/unknownSchema`` for a name that is not a stored property, or a
    ///   uniqueness group holding a to-many relationship.
    private static func checkConstraints(
        _ own: _EntityConstraints, of name: String, _ slots: [Slot], _ slotByName: [String: Int]
    ) throws {
        for group in own.unique + own.indices {
            for property in group where slotByName[property] == nil {
                throw SwiftDataError(
                    SwiftDataError.unknownSchema.code,
                    "#Unique/#Index names '\(property)', which is not a stored property",
                    entityName: name, propertyName: property)
            }
        }
        for group in own.unique {
            for property in group where slots[slotByName[property]!].isToMany {
                throw SwiftDataError(
                    SwiftDataError.unknownSchema.code,
                    "a uniqueness constraint cannot include the to-many relationship '\(property)'",
                    entityName: name, propertyName: property)
            }
        }
    }

    /// Whether `type` is a model, an optional model, an array of models or an optional array of
    /// models (`[Tag]?`, the CloudKit-style to-many).
    static func modelTarget(_ type: Any.Type) -> (type: any PersistentModel.Type, optional: Bool, toMany: Bool)? {
        if let m = type as? any PersistentModel.Type { return (m, false, false) }
        if let a = type as? any _ArrayProtocol.Type, let m = a._elementType as? any PersistentModel.Type {
            return (m, false, true)
        }
        if let o = type as? any _OptionalProtocol.Type, let inner = modelTarget(o._wrappedType), !inner.optional {
            return (inner.type, true, inner.toMany)
        }
        return nil
    }

    /// Uniqueness groups with the class that declares each: a group declared on a base class
    /// spans the hierarchy below it; one declared on a subclass spans that subclass's subtree.
    var uniquenessGroupsWithOwner: [(names: [String], owner: ModelLayout)] {
        var out: [(names: [String], owner: ModelLayout)] = []
        var chain: [ModelLayout] = []
        var l: ModelLayout? = self
        while let c = l {
            chain.insert(c, at: 0)
            l = c.superLayout
        }
        for level in chain {
            for group in level.type._$entityConstraints.unique { out.append((group, level)) }
            for slot in level.slots[level.ownSlots]
            where slot.attribute?.isUnique == true || slot.relationship?.isUnique == true {
                out.append(([slot.name], level))
            }
        }
        return out
    }

    /// Whether `self` is `other` or one of its subclasses.
    func isKind(of other: ModelLayout) -> Bool {
        var l: ModelLayout? = self
        while let c = l {
            if c === other { return true }
            l = c.superLayout
        }
        return false
    }

    // MARK: Inverses

    private var inverseCache: [Int: (ModelLayout, Int)?] = [:]

    /// The layout and slot of the inverse of relationship `slot`, declared or inferred, or `nil`
    /// for a one-way relationship.
    func inverse(of slot: Int) -> (layout: ModelLayout, slot: Int)? {
        ModelLayout.lock.lock()
        if let cached = inverseCache[slot] {
            ModelLayout.lock.unlock()
            return cached.map { ($0.0, $0.1) }
        }
        ModelLayout.lock.unlock()
        // try?: resolveInverse throws only ModelLayout.of's error for the target, which the schema reports (Schema.buildError).
        let resolved = try? resolveInverse(slot)
        ModelLayout.lock.lock()
        inverseCache[slot] = .some(resolved.flatMap { $0 })
        ModelLayout.lock.unlock()
        return resolved.flatMap { $0 }
    }

    private func resolveInverse(_ slot: Int) throws -> (ModelLayout, Int)? {
        let s = slots[slot]
        guard let rel = s.relationship, let targetType = s.target else { return nil }
        let target = try ModelLayout.of(targetType)
        if let kp = rel.inverseKeyPath {
            if let i = target.slotByKeyPath[kp] { return (target, i) }
            // The inverse may be declared on a subclass of the target.
            return nil
        }
        // A property on the target that names this relationship as its inverse.
        for t in target.slots where t.isRelationship {
            if let kp = t.relationship?.inverseKeyPath, kp == s.keyPath { return (target, t.index) }
        }
        // Inferred: the only relationship each way between the two classes, neither naming another
        // inverse, and not both to-many (SwiftData never infers a many-to-many pair).
        func candidates(_ l: ModelLayout, to other: ModelLayout) -> [Slot] {
            l.slots.filter { c in
                guard c.isRelationship, c.relationship?.inverseKeyPath == nil, let t = c.target else { return false }
                return ObjectIdentifier(t) == ObjectIdentifier(other.type)
            }
        }
        let mine = candidates(self.declaringLayout(of: s), to: target)
        let theirs = candidates(target, to: self.declaringLayout(of: s))
        if mine.count == 1, theirs.count == 1, mine[0].index == slot, !(mine[0].isToMany && theirs[0].isToMany),
            !(target === self.declaringLayout(of: s) && theirs[0].index == slot)
        {
            return (target, theirs[0].index)
        }
        return nil
    }

    private func declaringLayout(of slot: Slot) -> ModelLayout {
        ModelLayout.known(slot.declaringType) ?? self
    }

    // MARK: Registry

    nonisolated(unsafe) private static var registry: [ObjectIdentifier: ModelLayout] = [:]
    static let lock = NSRecursiveLock()

    /// The layout of the model class named `name`, when exactly one such class has been used
    /// in this process (``ModelContext/model(for:)`` for an identifier from another schema).
    static func registered(named name: String) -> ModelLayout? {
        lock.lock()
        defer { lock.unlock() }
        let matches = registry.values.filter { $0.name == name }
        return matches.count == 1 ? matches[0] : nil
    }

    /// The layout of `type`, built on first use.
    ///
    /// Each thread remembers the last layout it got: a run of models of one class, created one
    /// after another (a batch insert's), takes no lock and hashes nothing. Layouts live as long
    /// as the process (the registry keeps them), so the memo holds its layout unretained.
    static func of(_ type: any PersistentModel.Type) throws -> ModelLayout {
        let id = ObjectIdentifier(type)
        let memo = LastLayout.current
        if memo.type == id, let layout = memo.layout { return layout }
        let layout = try registered(type)
        memo.type = id
        memo.layout = layout
        return layout
    }

    /// The layout of `type`, or `nil` when it has none, for code that runs inside a container.
    ///
    /// `nil` is safe there: a container builds the layout of every model in its schema when it
    /// is made, and a model whose layout cannot be built makes the schema's `buildError`, which
    /// fetches and saves throw before they get here. So inside a container `nil` only means
    /// "not a model of this schema", which callers treat like any other unknown type.
    static func known(_ type: any PersistentModel.Type) -> ModelLayout? {
        try? of(type)
    }

    /// One thread's last ``of(_:)`` answer.
    private final class LastLayout {
        var type: ObjectIdentifier?
        var layout: ModelLayout?

        private static let key: pthread_key_t = {
            var key = pthread_key_t()
            // The thread's memo is released when the thread ends.
            pthread_key_create(&key) { memo in
                guard let memo else { return }
                Unmanaged<LastLayout>.fromOpaque(memo).release()
            }
            return key
        }()

        /// This thread's memo, made on first use.
        static var current: LastLayout {
            if let memo = pthread_getspecific(key) {
                return Unmanaged<LastLayout>.fromOpaque(memo).takeUnretainedValue()
            }
            let memo = LastLayout()
            pthread_setspecific(key, Unmanaged.passRetained(memo).toOpaque())
            return memo
        }
    }

    /// The registry's layout of `type`, built and registered on first use.
    private static func registered(_ type: any PersistentModel.Type) throws -> ModelLayout {
        lock.lock()
        defer { lock.unlock() }
        if let l = registry[ObjectIdentifier(type)] { return l }
        var superLayout: ModelLayout?
        if let sup = _getSuperclass(type), let superModel = sup as? any PersistentModel.Type {
            superLayout = try registered(superModel)
        }
        let layout = try ModelLayout(type: type, superLayout: superLayout)
        registry[ObjectIdentifier(type)] = layout
        return layout
    }
}

/// The first slot index of `type`'s own properties: the number of properties its model
/// superclasses declare. Called by code the ``Model()`` macro generates for subclasses.
public func _slotBase(of type: AnyClass) -> Int {
    var count = 0
    var current: AnyClass? = _getSuperclass(type)
    while let c = current, let m = c as? any PersistentModel.Type {
        count += m.schemaMetadata.count
        current = _getSuperclass(c)
    }
    return count
}

import Foundation
import Observation

/// A model's storage: one slot per persisted property (an array access, not a dictionary
/// lookup), plus identity, lifecycle state, change tracking and the observation registrar.
///
/// The ``Model()`` macro routes every persisted property through `_getValue`/`_setValue`;
/// user code rarely touches this type.
public final class BackingData {
    enum Status { case unmanaged, inserted, persisted, deleted, removed }

    // What every property read, every fetched row and every saved row touches is
    // `@exclusivity(unchecked)` (no run-time exclusivity check, about a hundred instructions
    // per access): a model is used from one thread at a time, and no access to these is held
    // while other code runs.

    /// Slot values, each boxed as exactly the property's declared type; `nil` = not loaded.
    @exclusivity(unchecked) var values: SlotValues
    /// The model class's layout; set on first use.
    @exclusivity(unchecked) var layout: ModelLayout? {
        didSet { _hasLayout = layout != nil }
    }
    /// The context the model is registered in (held through the context's shared weak handle,
    /// so registering a model costs a retain, not a weak-reference setup).
    var context: ModelContext? {
        get { contextHandle?.context }
        set { contextHandle = newValue?.handle }
    }
    @exclusivity(unchecked) var contextHandle: ContextHandle?
    /// The row's primary key; 0 while the model has never been saved.
    @exclusivity(unchecked) var pk: Int64 = 0
    /// The row's version (`Z_OPT`) when its values were read or last saved; 0 = unknown. A save
    /// compares it with the store's to detect a change made by someone else in between.
    @exclusivity(unchecked) var version: Int64 = 0
    /// The key a save in progress assigned to a new row; made permanent only if the save commits.
    @exclusivity(unchecked) var pendingPK: Int64 = 0
    var tempKey: UInt64 = 0
    /// The store the row is in, `nil` until the model is saved or read from one.
    @exclusivity(unchecked) var storeIdentity: StoreIdentity?
    /// ``storeIdentity``'s identifier. Setting one makes an identity of its own (a stand-in's
    /// path); fetches and saves share their store's.
    var storeIdentifier: String? {
        get { storeIdentity?.identifier }
        set { storeIdentity = newValue.map(StoreIdentity.init) }
    }
    /// Slots (< 64) an initialiser assigned through its `init` accessors: their relationships'
    /// inverses are synced when the model is inserted (an `init` accessor cannot reach `self`).
    @exclusivity(unchecked) var initSlotMask: UInt64 = 0
    /// The store generation the values were read at; a fetch refreshes them only when the
    /// store has changed since.
    @exclusivity(unchecked) var loadedGeneration = StoreGeneration.unknown
    /// Values as last saved, kept from the first change after a save, for rollback and updates.
    @exclusivity(unchecked) var committed: SlotValues?
    /// Slots changed since the last save.
    @exclusivity(unchecked) var changed: [Bool] = []
    /// Posts change notifications for `Observable`; created on first property access, so
    /// models that are fetched but never read cost no registrar.
    var registrar: ObservationRegistrar {
        if let r = registrarStorage { return r }
        let r = ObservationRegistrar()
        registrarStorage = r
        return r
    }
    /// ``registrar`` once created (not a `lazy var`: its storage would get an exclusivity
    /// check on every property read).
    @exclusivity(unchecked) var registrarStorage: ObservationRegistrar?

    /// What the save in progress does with a new model (``UpsertPlan``'s decision, kept here so
    /// the save's loops read it without hashing the model); set for every new model by
    /// ``UniquenessResolution/resolve()`` before anything reads it. Last but for the
    /// one-byte fields, which fill the bytes after its case tag.
    @exclusivity(unchecked) var disposition = UpsertPlan.Disposition.insert

    // The one-byte fields, together at the end: between the eight-byte fields each would take
    // eight bytes of padding, and the object's size class would be the next one up.

    /// Whether ``layout`` is set (the storage is ready for the accessors): a stored flag, read
    /// by the inlined `persistentBackingData` getter without a call.
    @usableFromInline @exclusivity(unchecked) var _hasLayout = false
    /// Where the model is in its life: never inserted, inserted, saved, deleted, or gone from its context.
    @exclusivity(unchecked) var status: Status = .unmanaged
    /// Attributes have not been read from the row yet (``ModelContext/model(for:)`` faults).
    @exclusivity(unchecked) var isFault = false
    /// ``ModelContext/insertRelated(of:_:)`` walked this model's relationships and no
    /// relationship slot was written since (a write or a sync through an inverse clears it).
    @exclusivity(unchecked) var relatedInserted = false
    /// The stand-in ``ModelContext/model(for:)`` returns for a row that no longer exists.
    var vanished = false

    init(slotCount: Int = 0) {
        values = SlotValues(repeating: nil, count: slotCount)
    }

    init(layout: ModelLayout) {
        self.layout = layout
        _hasLayout = true
        values = SlotValues(repeating: nil, count: layout.slots.count)
    }

    /// A stored row's storage, complete in one initialiser (the row-decoding loop's path).
    init(
        layout: ModelLayout, values: SlotValues, pk: Int64, version: Int64 = 0, storeIdentity: StoreIdentity,
        contextHandle: ContextHandle?
    ) {
        self.layout = layout
        _hasLayout = true
        self.values = values
        self.pk = pk
        self.version = version
        self.status = .persisted
        self.storeIdentity = storeIdentity
        self.contextHandle = contextHandle
    }

    /// The primary key held by a to-one slot that has not been resolved to a model yet
    /// (0 = nil), or `nil` when the slot holds something else.
    func unresolvedForeignKey(_ slot: Int) -> Int64? {
        values.exactValue(at: slot, as: ForeignKey.self)?.pk
    }

    /// What to-one `slot` holds, read where it is stored: nothing, a row's key not resolved to
    /// a model yet, or a model (``ModelLayout/Slot/toOne``).
    func toOne(_ slot: Int) -> ModelLayout.Slot.ToOne {
        guard let layout, slot < layout.slots.count else { return .empty }
        return toOne(layout.slots[slot])
    }

    /// ``toOne(_:)`` for a caller that holds the slot's description: the layout and its slot
    /// list are not looked up (each a retain and a release, on every new model's save).
    func toOne(_ slot: ModelLayout.Slot) -> ModelLayout.Slot.ToOne {
        let index = slot.index
        return values.withSlots { slots, count in
            index < count && !SlotValues.isUnloaded(at: slots + index) ? slot.toOne(slots + index) : .empty
        }
    }

    // MARK: Generated-code entry points

    /// Returns `storage`, creating it (and attaching `model`'s layout) on first use. Inlined
    /// into the model's code: every property access starts here.
    @inlinable
    public static func _resolve<M: PersistentModel>(_ storage: inout BackingData?, for model: M) -> BackingData {
        if let s = storage, s._hasLayout { return s }
        return _resolveFirst(&storage, model, M.self)
    }

    /// ``_resolve(_:for:)``'s first use: creates the storage and attaches the layout.
    @usableFromInline
    static func _resolveFirst(
        _ storage: inout BackingData?, _ model: any PersistentModel, _ type: any PersistentModel.Type
    )
        -> BackingData
    {
        if let s = storage {
            s.attachLayout(type, model: model)
            return s
        }
        let s = BackingData(slotCount: 0)
        storage = s
        s.attachLayout(type, model: model)
        return s
    }

    /// Stores a property's initial value (from an `init` accessor, before the model exists).
    ///
    /// Inlined into the model's code, so the value is boxed there, specialised for its type;
    /// the rest is not generic.
    ///
    /// The first call makes the storage with room for `slotCount` slots (the class's own and
    /// its superclasses': `@Model` passes how many), so the initialiser's other properties are
    /// stored without growing it.
    ///
    /// A model being materialised from a row (`init(backingData:)` runs the properties'
    /// default values before its body takes the row's storage) is told apart here, before the
    /// value is boxed: boxing it, passing it on and destroying it cost about a hundred
    /// instructions per default-valued property of every fetched row.
    @inlinable
    public static func _initialize<V>(_ storage: inout BackingData?, slot: Int, value: V, slotCount: Int = 16) {
        if storage == nil, _isMaterializing { return }
        _initializeSlot(&storage, slot: slot, boxed: value as Any, slotCount: slotCount)
    }

    /// Whether this thread is materialising rows (``MaterializationScope``): a property's
    /// default value is then not stored.
    @usableFromInline static var _isMaterializing: Bool { MaterializationScope.isActive }

    /// ``_initialize(_:slot:value:slotCount:)`` once the value is boxed, never while a row is
    /// materialised (the caller has returned then, before boxing).
    @usableFromInline
    static func _initializeSlot(
        _ storage: inout BackingData?, slot: Int, boxed value: __owned Any, slotCount: Int
    ) {
        if storage == nil {
            let s = BackingData(slotCount: 0)
            s.values.reserveCapacity(max(slotCount, slot + 1))
            storage = s
        }
        // Written through `storage` itself, which holds the backing data for the whole call (it
        // is borrowed inout): a local reference to it would be retained around the write.
        storage!.values.set(consume value, at: slot)
        if slot < 64 { storage!.initSlotMask |= 1 << UInt64(slot) }
    }

    /// Moves the slots a subclass initialiser filled into this storage.
    public func _absorb(_ other: BackingData) {
        initSlotMask |= other.initSlotMask
        relatedInserted = false
        grow(to: other.values.count)
        for (i, v) in other.values.enumerated() where v != nil { values[i] = v }
    }

    /// A `let` property's loaded value, for `init(backingData:)`.
    public func _constantValue<V>(_ slot: Int) -> V {
        if slot < values.count, let v = values[slot] { return v as! V }
        if let ctx = contextHandle?.loadingContext { ctx.fulfillFault(self) }
        if slot < values.count, let v = values[slot] { return v as! V }
        return BackingData.coerce(placeholder(slot), to: V.self)
    }

    // The property accessors are inlined into the model's code, specialised for the property's
    // type: the cast of the slot's box to `V` and the observation calls then look up no generic
    // metadata (an unspecialised `as? V` asks the runtime for `Optional<V>` on every read).
    // What they call here is not generic.

    /// Reads slot `slot`, loading it from the store when needed, and records the access.
    @inlinable
    public func _getValue<M: PersistentModel, V>(_ model: M, _ slot: Int, _ keyPath: KeyPath<M, V>) -> V {
        _registrar.access(model, keyPath: keyPath)
        if let typed = _exactValue(slot, V.self) { return typed }
        if let v = _loadedValue(slot), let typed = v as? V { return typed }
        return BackingData._coerce(_load(model, slot), to: V.self)
    }

    /// Writes slot `slot`: keeps inverse relationships in sync, records the change for the
    /// context and notifies observers.
    @inlinable
    public func _setValue<M: PersistentModel, V>(_ model: M, _ slot: Int, _ keyPath: KeyPath<M, V>, _ newValue: V) {
        // The storage came through `_resolve`, so the layout is attached. Without a registrar
        // nothing observes the model (an observer registers through one, which a read
        // creates): the write then notifies no one, and makes no registrar.
        if let registrar = _existingRegistrar {
            registrar.withMutation(of: model, keyPath: keyPath) { _write(model, slot, newValue as Any) }
        } else {
            _write(model, slot, newValue as Any)
        }
    }

    /// The observation registrar (created on first use), for the inlined accessors.
    @usableFromInline var _registrar: ObservationRegistrar { registrar }

    /// The observation registrar if a read (an observer's, or any) has created it.
    @usableFromInline var _existingRegistrar: ObservationRegistrar? { registrarStorage }

    /// Slot `slot`'s value when it is loaded and boxed as exactly a `V` (what the accessors
    /// store), read in place without the runtime's dynamic cast; else `nil`. Inlined into the
    /// model's code, specialised for `V`.
    @inlinable func _exactValue<V>(_ slot: Int, _ type: V.Type) -> V? {
        withUnsafeTemporaryAllocation(of: V.self, capacity: 1) { buffer in
            _loadExact(slot, into: buffer.baseAddress!) ? buffer.baseAddress!.move() : nil
        }
    }

    /// Initialises `result` with slot `slot`'s value and returns `true` when the slot is loaded
    /// and boxed as exactly a `V`; returns `false` otherwise. Not specialised, so it asks for no
    /// generic metadata (an unspecialised `V?` would: a hash lookup in the runtime).
    @usableFromInline func _loadExact<V>(_ slot: Int, into result: UnsafeMutablePointer<V>) -> Bool {
        values.withSlots { slots, count in slot < count && SlotValues.loadExact(at: slots + slot, into: result) }
    }

    /// Slot `slot`'s value, or `nil` when it is not loaded.
    @usableFromInline func _loadedValue(_ slot: Int) -> Any? {
        slot < values.count ? values[slot] : nil
    }

    /// ``load(_:_:)`` for the inlined accessors.
    @usableFromInline func _load(_ model: any PersistentModel, _ slot: Int) -> Any? { load(model, slot) }

    /// A property write once the value is boxed, inside the registrar's mutation: inverse
    /// relationships, the change record and the slot.
    @usableFromInline func _write(_ model: any PersistentModel, _ slot: Int, _ newValue: __owned Any) {
        var newValue = newValue
        if let layout, layout.isRelationshipSlot[slot] {
            if layout.slots[slot].isToMany { newValue = RelationshipGraph.distinct(newValue, layout.slots[slot]) }
            RelationshipGraph.willSet(model, self, slot: slot, to: newValue)
            if slot < 64 { initSlotMask &= ~(1 << UInt64(slot)) }
            relatedInserted = false
        }
        recordChange(slot)
        values.set(newValue, at: slot)
    }

    // MARK: Optional to-many relationships

    /// Stores the initial value of an optional to-many property (`var tags: [Tag]?`): `nil`
    /// is stored as `[]`, as SwiftData does.
    ///
    /// SwiftData materialises an optional to-many relationship as an empty array, never `nil`,
    /// even right after `self.tags = nil` in an initialiser (article "What works today", "Optional to-many relationships");
    /// assigning `nil` clears the relationship. The slot therefore always holds `[Tag]`, and the
    /// rest of the runtime treats the property exactly like `var tags: [Tag]`.
    public static func _initialize<E: PersistentModel>(
        _ storage: inout BackingData?, slot: Int, value: [E]?, slotCount: Int = 16
    ) {
        _initialize(&storage, slot: slot, value: value ?? [], slotCount: slotCount)
    }

    /// Reads an optional to-many property: the related models, `[]` when there are none (never `nil`).
    @inlinable
    public func _getValue<M: PersistentModel, E: PersistentModel>(_ model: M, _ slot: Int, _ keyPath: KeyPath<M, [E]?>)
        -> [E]?
    {
        _registrar.access(model, keyPath: keyPath)
        if let typed = _exactValue(slot, [E].self) { return typed }
        if let v = _loadedValue(slot), let typed = v as? [E] { return typed }
        return BackingData._coerce(_load(model, slot), to: [E].self)
    }

    /// Writes an optional to-many property; `nil` clears the relationship (the property then reads `[]`).
    @inlinable
    public func _setValue<M: PersistentModel, E: PersistentModel>(
        _ model: M, _ slot: Int, _ keyPath: KeyPath<M, [E]?>, _ newValue: [E]?
    ) {
        let models = newValue ?? []
        if let registrar = _existingRegistrar {
            registrar.withMutation(of: model, keyPath: keyPath) { _write(model, slot, models as Any) }
        } else {
            _write(model, slot, models as Any)
        }
    }

    // MARK: Internals

    func attachLayout(_ type: any PersistentModel.Type, model: any PersistentModel) {
        let dynamicType = Swift.type(of: model)
        layout = ModelLayout.known(dynamicType)
        if let layout { grow(to: layout.slots.count) }
        // Subclass values set before `super.init` are absorbed lazily by the subclass's own
        // accessors and by the context (insert, save); doing it here would re-enter the
        // storage property while it is being accessed.
    }

    func grow(to count: Int) {
        values.extend(to: count)
    }

    /// Marks `slot` changed and tells the context (persisted models), or only keeps the saved
    /// values (models pending deletion: a relationship synced through an inverse changes them,
    /// and `rollback()` must give them back).
    func recordChange(_ slot: Int) {
        guard status == .persisted || status == .deleted else { return }
        if committed == nil {
            if isFault, let ctx = context { ctx.fulfillFault(self) }
            committed = values
        }
        if changed.count <= slot { changed.append(contentsOf: repeatElement(false, count: slot + 1 - changed.count)) }
        changed[slot] = true
        if status == .persisted { context?.noteChanged(self) }
    }

    var hasChangedSlots: Bool { changed.contains(true) }

    /// Loads a slot that is not in memory: a relationship or a faulted attribute.
    func load(_ model: any PersistentModel, _ slot: Int) -> Any? {
        guard let layout, slot < layout.slots.count else { return nil }
        let s = layout.slots[slot]
        if s.isRelationship {
            let ctx = contextHandle?.loadingContext
            let failures = ctx?.readFailures.count ?? 0
            let value = ctx?.resolveRelationship(self, slot: s) ?? BackingData.emptyValue(for: s)
            // A read that failed (reported as an OperationFailure) is not kept: the next read retries.
            if let ctx, ctx.readFailures.count != failures { return value }
            grow(to: slot + 1)
            values[slot] = value
            return value
        }
        if let ctx = contextHandle?.loadingContext, status == .persisted || status == .deleted {
            ctx.fulfillFault(self)
            if slot < values.count, let v = values[slot] { return v }
        }
        return placeholder(slot)
    }

    /// What an attribute reads when no value can be loaded (the row is gone): the declared
    /// default, else the type's zero value (0, "", empty data, the first enum case …).
    func placeholder(_ slot: Int) -> Any? {
        guard let layout, slot < layout.slots.count else { return nil }
        let s = layout.slots[slot]
        if let d = s.defaultValue { return d }
        return s.codec?.placeholder()
    }

    static func emptyValue(for slot: ModelLayout.Slot) -> Any? {
        switch slot.kind {
        case .toMany(let target): return (target as any PersistentModel.Type).emptyArray
        case .toOne: return nil
        case .attribute: return slot.defaultValue
        }
    }

    /// ``coerce(_:to:)`` for the inlined accessors (not inlined itself: the rare path).
    @usableFromInline static func _coerce<V>(_ value: Any?, to type: V.Type) -> V { coerce(value, to: type) }

    /// Converts a loaded box to the property's type; `nil` becomes `Optional.none`.
    static func coerce<V>(_ value: Any?, to: V.Type) -> V {
        if let value {
            if let v = value as? V { return v }
        } else if let opt = V.self as? any _OptionalProtocol.Type {
            return opt._none as! V
        } else if let arr = V.self as? any _ArrayProtocol.Type {
            return arr._make(from: []) as! V
        }
        preconditionFailure(
            "OpenSwiftData: cannot read a \(V.self) property: the model's row was deleted or never loaded")
    }

    // MARK: Identity and state

    func persistentModelID(of model: any PersistentModel) -> PersistentIdentifier {
        if layout == nil, let standIn = model as? UnknownEntityModel { return standIn.identifier }
        let name = layout?.name ?? String(describing: Swift.type(of: model))
        if pk != 0 {
            return PersistentIdentifier(entityName: name, storeIdentifier: storeIdentifier, key: .permanent(pk))
        }
        if tempKey == 0 { tempKey = PersistentIdentifier.nextTemporaryKey() }
        return PersistentIdentifier(entityName: name, storeIdentifier: nil, key: .temporary(tempKey))
    }

    /// Deleted, pending or saved: such a model is never written as a relationship target.
    var isDeleted: Bool { status == .deleted || status == .removed }
    /// What `PersistentModel.isDeleted` reports (DEL-10 in Docs/BehaviourReference.md): true while a
    /// delete is pending, false again once the save removed the row; true for a vanished row.
    var reportsDeleted: Bool { status == .deleted || vanished }
    var hasChanges: Bool {
        switch status {
        case .inserted, .deleted: true
        case .persisted: hasChangedSlots
        case .unmanaged, .removed: false
        }
    }
}

/// Marks the current thread as materialising rows (see ``BackingData/_initialize(_:slot:value:slotCount:)``).
enum MaterializationScope {
    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k, nil)
        return k
    }()

    static var isActive: Bool { pthread_getspecific(key) != nil }

    static func run<T>(_ body: () throws -> T) rethrows -> T {
        let outer = enter()
        defer { leave(outer) }
        return try body()
    }

    /// Enters the scope and returns what ``leave(_:)`` restores (an enclosing scope's mark).
    /// For a caller that cannot pass a closure to ``run(_:)``; nothing between the two may throw.
    @inline(__always)
    static func enter() -> UnsafeMutableRawPointer? {
        let outer = pthread_getspecific(key)
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
        return outer
    }

    /// Leaves the scope ``enter()`` entered.
    @inline(__always)
    static func leave(_ outer: UnsafeMutableRawPointer?) {
        pthread_setspecific(key, outer)
    }
}

/// A to-one slot's target as the row stores it, before it is resolved to a model (0 = nil).
struct ForeignKey {
    let pk: Int64
}

extension PersistentModel {
    /// `models` as a `[Self]` (each one is a `Self`, or a subclass of it), boxed: a class cast
    /// per model, not the boxing and unboxing of `_ArrayProtocol._make(from:)`.
    static func arrayValue(of models: [any PersistentModel]) -> Any { models.map { $0 as! Self } }
    static var emptyArray: Any { [Self]() }
    static var arrayType: any _ArrayProtocol.Type { [Self].self }
}

/// Lets the runtime post Observation notifications through a key path it only knows as
/// `AnyKeyPath`.
protocol _ObservationNotifying {
    func _willSet(_ registrar: ObservationRegistrar, _ subject: Any)
    func _didSet(_ registrar: ObservationRegistrar, _ subject: Any)
}

extension KeyPath: _ObservationNotifying where Root: Observable {
    func _willSet(_ registrar: ObservationRegistrar, _ subject: Any) {
        if let s = subject as? Root { registrar.willSet(s, keyPath: self) }
    }
    func _didSet(_ registrar: ObservationRegistrar, _ subject: Any) {
        if let s = subject as? Root { registrar.didSet(s, keyPath: self) }
    }
}

extension BackingData {
    /// Writes a slot from the runtime (inverse maintenance, rollback, refresh), notifying observers.
    func setSlot(_ slot: Int, _ value: Any?, of model: any PersistentModel, recordChange record: Bool) {
        // Without a registrar nothing has observed the model (observers register through
        // the accessors, which create it): no one to notify.
        let observed = registrarStorage.map { ($0, layout?.slots[slot].notifying) }
        if let (registrar, kp) = observed { kp?._willSet(registrar, model) }
        if record { recordChange(slot) }
        grow(to: slot + 1)
        values[slot] = value
        if slot < 64 { initSlotMask &= ~(1 << UInt64(slot)) }
        if layout?.isRelationshipSlot[slot] == true { relatedInserted = false }
        if let (registrar, kp) = observed { kp?._didSet(registrar, model) }
    }
}

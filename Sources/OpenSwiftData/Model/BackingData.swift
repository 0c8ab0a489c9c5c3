import Foundation
import Observation

/// A model's storage: one slot per persisted property (an array access, not a dictionary
/// lookup), plus identity, lifecycle state, change tracking and the observation registrar.
///
/// The ``Model()`` macro routes every persisted property through `_getValue`/`_setValue`;
/// user code rarely touches this type.
public final class BackingData {
    enum Status { case unmanaged, inserted, persisted, deleted, removed }

    // The storage is one allocation: the fields below live in the object's tail and the
    // slots after them (Unsafe/BackingStorage.swift), so a fetched row's storage costs one
    // `malloc`. Each field is read and written through the fields' address: no run-time
    // exclusivity check (a model is used from one thread at a time, and no access to these
    // is held while other code runs).

    /// Made only by the factories below (``allocate(slotCapacity:)``), which allocate
    /// the object with room for its fields and slots.
    private init() {}

    deinit { destroyStorage() }

    /// Slot values, each boxed as exactly the property's declared type; `nil` = not loaded.
    var values: Slots { Slots(data: self) }
    /// The model class's layout; set on first use.
    var layout: ModelLayout? {
        get { _fields.pointee.layout }
        set {
            _fields.pointee.layout = newValue
            _fields.pointee.hasLayout = newValue != nil
        }
    }
    /// The context the model is registered in (held through the context's shared weak handle,
    /// so registering a model costs a retain, not a weak-reference setup).
    var context: ModelContext? {
        get { contextHandle?.context }
        set { contextHandle = newValue?.handle }
    }
    var contextHandle: ContextHandle? {
        get { _fields.pointee.contextHandle }
        _modify { yield &_fields.pointee.contextHandle }
    }
    /// The row's primary key; 0 while the model has never been saved.
    var pk: Int64 {
        get { _fields.pointee.pk }
        _modify { yield &_fields.pointee.pk }
    }
    /// The row's version (`Z_OPT`) when its values were read or last saved; 0 = unknown. A save
    /// compares it with the store's to detect a change made by someone else in between.
    var version: Int64 {
        get { _fields.pointee.version }
        _modify { yield &_fields.pointee.version }
    }
    /// The key a save in progress assigned to a new row; made permanent only if the save commits.
    var pendingPK: Int64 {
        get { _fields.pointee.pendingPK }
        _modify { yield &_fields.pointee.pendingPK }
    }
    /// The temporary identifier's key of a model never saved (0 until asked for).
    var tempKey: UInt64 {
        get { _fields.pointee.tempKey }
        _modify { yield &_fields.pointee.tempKey }
    }
    /// The store the row is in, `nil` until the model is saved or read from one.
    var storeIdentity: StoreIdentity? {
        get { _fields.pointee.storeIdentity }
        _modify { yield &_fields.pointee.storeIdentity }
    }
    /// ``storeIdentity``'s identifier. Setting one makes an identity of its own (a stand-in's
    /// path); fetches and saves share their store's.
    var storeIdentifier: String? {
        get { storeIdentity?.identifier }
        set { storeIdentity = newValue.map(StoreIdentity.init) }
    }
    /// Slots (< 64) an initialiser assigned through its `init` accessors: their relationships'
    /// inverses are synced when the model is inserted (an `init` accessor cannot reach `self`).
    var initSlotMask: UInt64 {
        get { _fields.pointee.initSlotMask }
        _modify { yield &_fields.pointee.initSlotMask }
    }
    /// The store generation the values were read at; a fetch refreshes them only when the
    /// store has changed since.
    var loadedGeneration: StoreGeneration {
        get { _fields.pointee.loadedGeneration }
        _modify { yield &_fields.pointee.loadedGeneration }
    }
    /// Values as last saved, kept from the first change after a save, for rollback and updates.
    var committed: SlotValues? {
        get { _fields.pointee.committed }
        _modify { yield &_fields.pointee.committed }
    }
    /// Slots changed since the last save.
    var changed: [Bool] {
        get { _fields.pointee.changed }
        _modify { yield &_fields.pointee.changed }
    }
    /// The registrar that posts change notifications for `Observable`, once made. A read made
    /// inside an observation tracking scope makes it (``_observeRead(_:_:)``), so models that
    /// nothing observes cost no registrar.
    var registrarStorage: ObservationRegistrar? { _fields.pointee.registrar?.pointee }

    /// What the save in progress does with a new model (``UpsertPlan``'s decision, kept here so
    /// the save's loops read it without hashing the model); set for every new model by
    /// ``UniquenessResolution/resolve()`` before anything reads it.
    var disposition: UpsertPlan.Disposition {
        get { _fields.pointee.disposition }
        _modify { yield &_fields.pointee.disposition }
    }

    /// Whether ``layout`` is set (the storage is ready for the accessors): a stored flag, read
    /// by the inlined `persistentBackingData` getter without a call.
    @inlinable var _hasLayout: Bool { _fields.pointee.hasLayout }
    /// Where the model is in its life: never inserted, inserted, saved, deleted, or gone from its context.
    var status: Status {
        get { _fields.pointee.status }
        _modify { yield &_fields.pointee.status }
    }
    /// Attributes have not been read from the row yet (``ModelContext/model(for:)`` faults).
    var isFault: Bool {
        get { _fields.pointee.isFault }
        _modify { yield &_fields.pointee.isFault }
    }
    /// ``ModelContext/insertRelated(of:_:)`` walked this model's relationships and no
    /// relationship slot was written since (a write or a sync through an inverse clears it).
    var relatedInserted: Bool {
        get { _fields.pointee.relatedInserted }
        _modify { yield &_fields.pointee.relatedInserted }
    }
    /// The stand-in ``ModelContext/model(for:)`` returns for a row that no longer exists.
    var vanished: Bool {
        get { _fields.pointee.vanished }
        _modify { yield &_fields.pointee.vanished }
    }

    /// Empty storage: `slotCount` unloaded slots, room for `capacity` (at least `slotCount`)
    /// without growing, and `layout` when it is known.
    static func make(slotCount: Int = 0, capacity: Int = 0, layout: ModelLayout? = nil) -> BackingData {
        let room = Swift.max(capacity, slotCount)
        let data = allocate(slotCapacity: room)
        if let layout { data.layout = layout }
        data.values.extend(to: slotCount)
        return data
    }

    /// Empty storage for a model of `layout`: its slots, unloaded.
    static func make(layout: ModelLayout) -> BackingData {
        make(slotCount: layout.slots.count, layout: layout)
    }

    /// A stored row's storage, complete in one allocation (the row-decoding loop's path):
    /// `initialize` writes the `slotCount` slots (``SlotValues/init(unsafeUninitializedCount:initializingWith:)``'s
    /// contract); on a throw the slots written are destroyed with the storage and the error
    /// passes on.
    @inline(__always)
    static func make(
        stored layout: ModelLayout, slotCount: Int, pk: Int64, version: Int64 = 0, storeIdentity: StoreIdentity,
        contextHandle: ContextHandle?,
        initializingSlots initialize: (UnsafeMutablePointer<Any>, inout Int) throws -> Void
    ) rethrows -> BackingData {
        let data = allocate(slotCapacity: slotCount)
        let f = data._fields
        f.pointee.layout = layout
        f.pointee.hasLayout = true
        f.pointee.pk = pk
        f.pointee.version = version
        f.pointee.status = .persisted
        f.pointee.storeIdentity = storeIdentity
        f.pointee.contextHandle = contextHandle
        var initialized = 0
        defer { f.pointee.slotCount = Int32(initialized) }
        try initialize(data.slotBase, &initialized)
        precondition(initialized == slotCount, "BackingData: \(initialized) of \(slotCount) slots initialised")
        return data
    }

    /// ``make(stored:slotCount:pk:version:storeIdentity:contextHandle:initializingSlots:)`` with
    /// the slots copied from `values`.
    static func make(
        stored layout: ModelLayout, values: SlotValues, pk: Int64, storeIdentity: StoreIdentity,
        contextHandle: ContextHandle?
    ) -> BackingData {
        values.withSlots { source, count in
            make(
                stored: layout, slotCount: count, pk: pk, storeIdentity: storeIdentity, contextHandle: contextHandle
            ) { slots, initialized in
                slots.initialize(from: source, count: count)
                initialized = count
            }
        }
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

    /// Whether a relationship slot of `layout` holds a model in memory: a to-one's model, or
    /// any loaded to-many value (an empty list included). `false` means that neither
    /// linking an initialiser's relationships nor inserting related models has anything to do.
    func holdsRelatedModel(_ layout: ModelLayout) -> Bool {
        values.withSlots { slots, count in
            for index in layout.relationshipSlots where index < count && !SlotValues.isUnloaded(at: slots + index) {
                let slot = layout.slots[index]
                if slot.isToMany { return true }
                if case .model = slot.toOne(slots + index) { return true }
            }
            return false
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
        // Made with room for the model's slots, which `attachLayout` then adds.
        let s = BackingData.make(capacity: ModelLayout.known(Swift.type(of: model))?.slots.count ?? 0)
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
            storage = BackingData.make(capacity: max(slotCount, slot + 1))
        }
        // Written through `storage` itself, which holds the backing data for the whole call (it
        // is borrowed inout): a local reference to it would be retained around the write.
        storage!.setSlotValue(consume value, at: slot)
        if slot < 64 { storage!.initSlotMask |= 1 << UInt64(slot) }
    }

    /// Moves the slots a subclass initialiser filled into this storage.
    public func _absorb(_ other: BackingData) {
        initSlotMask |= other.initSlotMask
        relatedInserted = false
        grow(to: other.values.count)
        other.values.withSlots { slots, count in
            for i in 0..<count where !SlotValues.isUnloaded(at: slots + i) { values.set(slots[i], at: i) }
        }
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

    /// Reads slot `slot`, loading it from the store when needed, and records the access
    /// (`keyPath` is made only when the access is recorded).
    @inlinable
    public func _getValue<M: PersistentModel, V>(_ model: M, _ slot: Int, _ keyPath: @autoclosure () -> KeyPath<M, V>)
        -> V
    {
        _observeRead(model, keyPath)
        if let typed = _exactValue(slot, V.self) { return typed }
        if let v = _loadedValue(slot), let typed = v as? V { return typed }
        return BackingData._coerce(_load(model, slot), to: V.self)
    }

    /// Writes slot `slot`: keeps inverse relationships in sync, records the change for the
    /// context and notifies observers.
    @inlinable
    public func _setValue<M: PersistentModel, V>(
        _ model: M, _ slot: Int, _ keyPath: @autoclosure () -> KeyPath<M, V>, _ newValue: V
    ) {
        // The storage came through `_resolve`, so the layout is attached. Without a registrar
        // nothing observes the model (an observer registers through one, which a read inside
        // a tracking scope makes): the write then notifies no one, and makes no registrar.
        if let registrar = _fields.pointee.registrar {
            registrar.pointee.withMutation(of: model, keyPath: keyPath()) { _write(model, slot, newValue as Any) }
        } else {
            _write(model, slot, newValue as Any)
        }
    }

    /// Records a read of `keyPath` with the model's observation registrar, which the read
    /// makes when an observation tracking scope may be recording it (``ObservationProbe``):
    /// outside every scope nothing can register through the read, so it makes none. The
    /// registrar is called where it is stored; a copy of it would go through its value
    /// witnesses (`ObservationRegistrar` is a resilient type), a retain and a release.
    @inlinable func _observeRead<M: PersistentModel, V>(_ model: M, _ keyPath: () -> KeyPath<M, V>) {
        if let registrar = _fields.pointee.registrar ?? _registrarIfTracking() {
            registrar.pointee.access(model, keyPath: keyPath())
        }
    }

    /// The registrar, made now, when a tracking scope may be recording reads on this thread
    /// (or when that cannot be told); else `nil`.
    @usableFromInline func _registrarIfTracking() -> UnsafeMutablePointer<ObservationRegistrar>? {
        guard ObservationProbe.shared?.mayBeTracking() ?? true else { return nil }
        return _makeRegistrar()
    }

    /// Slot `slot`'s value when it is loaded and boxed as exactly a `V` (what the accessors
    /// store), read in place without the runtime's dynamic cast; else `nil`. Inlined into the
    /// model's code, specialised for `V`.
    @inlinable func _exactValue<V>(_ slot: Int, _ type: V.Type) -> V? {
        withUnsafeTemporaryAllocation(of: V.self, capacity: 1) { buffer in
            _loadExact(slot, into: buffer.baseAddress!) ? buffer.baseAddress!.move() : nil
        }
    }

    /// Initialises `result` with slot `slot`'s value and returns `true` when the slot is loaded
    /// and boxed as exactly a `V`; returns `false` otherwise. Inlined into the accessors,
    /// specialised for `V`: a value stored inline is compared and read in place.
    @inlinable func _loadExact<V>(_ slot: Int, into result: UnsafeMutablePointer<V>) -> Bool {
        slot < Int(_fields.pointee.slotCount) && AnyCell.loadExact(at: slotBase + slot, into: result)
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
    public func _getValue<M: PersistentModel, E: PersistentModel>(
        _ model: M, _ slot: Int, _ keyPath: @autoclosure () -> KeyPath<M, [E]?>
    )
        -> [E]?
    {
        _observeRead(model, keyPath)
        if let typed = _exactValue(slot, [E].self) { return typed }
        if let v = _loadedValue(slot), let typed = v as? [E] { return typed }
        return BackingData._coerce(_load(model, slot), to: [E].self)
    }

    /// Writes an optional to-many property; `nil` clears the relationship (the property then reads `[]`).
    @inlinable
    public func _setValue<M: PersistentModel, E: PersistentModel>(
        _ model: M, _ slot: Int, _ keyPath: @autoclosure () -> KeyPath<M, [E]?>, _ newValue: [E]?
    ) {
        let models = newValue ?? []
        if let registrar = _fields.pointee.registrar {
            registrar.pointee.withMutation(of: model, keyPath: keyPath()) { _write(model, slot, models as Any) }
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
            committed = values.snapshot()
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

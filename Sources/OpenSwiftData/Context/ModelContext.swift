import Foundation

/// Tracks models, their pending inserts, changes and deletes, and saves them to the container's
/// store in one transaction. Holds one object per row (an identity map).
///
/// ```swift
/// let context = ModelContext(container)
/// context.insert(Trip(name: "Lisbon"))
/// try context.save()
/// let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
/// ```
/// Not thread-safe (like SwiftData's): use one context per thread or actor and pass
/// ``PersistentIdentifier``s between them.
public final class ModelContext {
    /// Posted before a save writes, with no user info.
    public static let willSave = Notification.Name("OpenSwiftData.ModelContext.willSave")
    /// Posted after a save commits; user info holds the ``NotificationKey`` sets of identifiers.
    public static let didSave = Notification.Name("OpenSwiftData.ModelContext.didSave")

    /// Keys of the `didSave` notification's user info.
    public enum NotificationKey: String, Sendable {
        /// `[PersistentIdentifier]` of inserted models (permanent identifiers).
        case insertedIdentifiers
        /// `[PersistentIdentifier]` of updated models.
        case updatedIdentifiers
        /// `[PersistentIdentifier]` of deleted models.
        case deletedIdentifiers
        /// Present when every identifier was invalidated.
        case invalidatedAllIdentifiers
        /// The query generation token (unused on Linux).
        case queryGeneration
    }

    /// The container whose store this context reads and writes.
    public var container: ModelContainer {
        if let c = retainedContainer ?? mainOf { return c }
        // The container was released while this context lives on: a new one over the same store.
        let revived = ModelContainer(stack: stack)
        mainOf = revived
        return revived
    }
    /// The container, for contexts created with ``init(_:)`` (they keep it alive).
    private let retainedContainer: ModelContainer?
    /// The container whose ``ModelContainer/mainContext`` this is (it holds this context).
    private weak var mainOf: ModelContainer?
    /// What the container's contexts share: the store, mapping, schema and query cache.
    let stack: ContainerStack
    /// Whether the context saves by itself after changes; `false` for contexts you create,
    /// `true` for ``ModelContainer/mainContext``. Autosave runs at ``processPendingChanges()``.
    public var autosaveEnabled: Bool = false
    /// The author recorded with saved changes (history).
    public var author: String?

    /// A stored row: its table's root class and its key (keys repeat across tables, so a key
    /// alone does not name a row).
    struct RowKey: Hashable {
        let table: ObjectIdentifier
        let pk: Int64

        init(table: ObjectIdentifier, pk: Int64) {
            self.table = table
            self.pk = pk
        }

        /// Row `pk` of `table`.
        init(_ table: StoreMapping.Table, pk: Int64) {
            self.init(table: ObjectIdentifier(table.root), pk: pk)
        }
    }

    /// What the context holds for its next save or fetch, in one variable: a fetch checks that
    /// nothing is pending with one access to it (each access of a class's variable is checked at
    /// run time), not one per collection. Each collection is also a property of the context.
    struct Pending {
        var inserted: [any PersistentModel] = []
        var changed: [ObjectIdentifier: any PersistentModel] = [:]
        var changedOrder: [ObjectIdentifier] = []
        var deleted: [ObjectIdentifier: any PersistentModel] = [:]
        var deletedOrder: [ObjectIdentifier] = []
        var readFailures: [OperationFailure] = []

        /// No pending insert, change or delete, and no read failure to throw.
        var isEmpty: Bool { inserted.isEmpty && changed.isEmpty && deleted.isEmpty && readFailures.isEmpty }
    }

    /// The registered models (one object per row).
    let registered = IdentityMap()
    /// The pending inserts, changes and deletes, and the read failures not yet thrown.
    var pending = Pending()
    /// Pending inserts, in insert order.
    var inserted: [any PersistentModel] {
        get { pending.inserted }
        _modify { yield &pending.inserted }
    }
    /// Pending changes of saved models, by model.
    var changed: [ObjectIdentifier: any PersistentModel] {
        get { pending.changed }
        _modify { yield &pending.changed }
    }
    /// The keys of ``changed`` in the order the models first changed.
    var changedOrder: [ObjectIdentifier] {
        get { pending.changedOrder }
        _modify { yield &pending.changedOrder }
    }
    /// Pending deletes, by model.
    var deleted: [ObjectIdentifier: any PersistentModel] {
        get { pending.deleted }
        _modify { yield &pending.deleted }
    }
    /// The keys of ``deleted`` in delete order.
    var deletedOrder: [ObjectIdentifier] {
        get { pending.deletedOrder }
        _modify { yield &pending.deletedOrder }
    }
    /// Pending deletes whose delete rules have run (``propagateDeletes(deferringRefusals:)``):
    /// they have left the loaded lists, so lists loaded from the store leave them out too.
    var propagatedDeletes = Set<ObjectIdentifier>()
    /// Cascades the running save deletes in SQL, without loading the rows
    /// (`ModelContext+SetCascade.swift`); empty outside a save.
    var setCascades: [SetCascade] = []
    /// Problems found at insert time that `save()` must report (insert cannot throw).
    var deferredErrors: [SwiftDataError] = []
    /// Reads that could not throw and failed, for the next fetch or save to throw
    /// (`ModelContext+Failures.swift`).
    var readFailures: [OperationFailure] {
        get { pending.readFailures }
        _modify { yield &pending.readFailures }
    }
    /// One-way relationships pointing at each entity (`ModelContext+Delete.swift`), by layout.
    var oneWaySlotCache: [ObjectIdentifier: [OneWaySlot]] = [:]
    /// The query shape this context fetched last, with its compiled query (`query(_:)`). A
    /// class: each fetch reads it, and reading a reference copies none of its fields.
    final class LastQuery {
        let key: QueryCache.Key
        let structure: [PredicateLeaves.Item]
        let compiled: CompiledQuery
        /// The predicate's node kinds in visit order (``PredicateLeaves/replay``), once recorded.
        var plan: [LeafNodeKinds.Step]?

        init(
            key: QueryCache.Key, structure: [PredicateLeaves.Item], compiled: CompiledQuery, plan: [LeafNodeKinds.Step]?
        ) {
            self.key = key
            self.structure = structure
            self.compiled = compiled
            self.plan = plan
        }
    }
    /// The last query shape fetched: a loop repeating one fetch finds its SQL here.
    var lastQuery: LastQuery?
    /// The prepared statement this context's last fetch ran (``LastStatement``).
    let lastStatement = LastStatement()
    /// The captured values' array of the last fetch, emptied and refilled by the next one
    /// (``lookupQuery(_:_:_:failuresChecked:)``), so a fetch of a cached shape allocates no array for them.
    var spareArguments: [SQLValue] = []
    /// The class of the last model ``insertAny(_:)`` found in the schema: the next model of it
    /// is not looked up again (a save of many new models of one class).
    var lastInsertableLayout: ModelLayout?

    /// A context on `container`'s store.
    public init(_ container: ModelContainer) {
        retainedContainer = container
        stack = container.stack
        handle = ContextHandle(stack: stack)
        handle.context = self
    }

    /// A container's main context: it does not keep its container alive (the container keeps it).
    init(mainOf container: ModelContainer) {
        retainedContainer = nil
        mainOf = container
        stack = container.stack
        handle = ContextHandle(stack: stack)
        handle.context = self
    }

    /// A private context on a stack (models that outlived their context load through one).
    init(stack: ContainerStack) {
        retainedContainer = nil
        self.stack = stack
        handle = ContextHandle(stack: stack)
        handle.context = self
    }

    /// The weak reference every registered model holds to this context.
    let handle: ContextHandle

    /// Saved models point at each other through loaded relationships (a category's words, each
    /// word's category): strong references both ways, and every model holds the container
    /// through its handle, so without this a released container would keep its connection and
    /// file open for ever. When the context goes, the loaded relationships of its unchanged
    /// saved models turn back into keys; a model still in use reloads them from the store on
    /// its next read (through a private context, as any model that outlives its context does).
    /// Models with unsaved changes keep their references: their graph cannot be reloaded.
    deinit {
        // swift-format-ignore: ReplaceForEachWithForLoop
        // (IdentityMap is not a Sequence: forEach walks its open-addressing tables.)
        registered.forEach { model in
            let d = model.persistentBackingData
            guard d.status == .persisted, d.committed == nil, let layout = d.layout else { return }
            for slot in layout.relationshipSlots where slot < d.values.count {
                // A slot not loaded, holding a key (a fetched row's to-one) or nil has no model.
                if d.values.holdsNoModel(slot) { continue }
                if layout.slots[slot].isToMany {
                    d.values[slot] = nil
                } else if case .model(let target) = d.toOne(slot) {
                    let pk = target.persistentBackingData.pk
                    if pk != 0 { d.values[slot] = ForeignKey(pk: pk) }
                }
            }
        }
    }

    /// The first configuration's store (the only one, almost always); per-entity work goes
    /// through ``ContainerStack/store(for:)`` and ``ContainerStack/table(for:)``.
    var store: SQLiteStore { stack.store }

    // MARK: Pending changes

    /// Whether there are unsaved inserts, changes or deletes.
    public var hasChanges: Bool { !inserted.isEmpty || !deleted.isEmpty || !changedOrder.isEmpty }
    /// Models inserted since the last save.
    public var insertedModelsArray: [any PersistentModel] { inserted }
    /// Registered models changed since the last save (not counting inserted or deleted ones).
    public var changedModelsArray: [any PersistentModel] { changedOrder.compactMap { changed[$0] } }
    /// Models deleted since the last save.
    public var deletedModelsArray: [any PersistentModel] { deletedOrder.compactMap { deleted[$0] } }

    func noteChanged(_ data: BackingData) {
        guard data.status == .persisted, let model = registered[rowKey(data)] else { return }
        let id = ObjectIdentifier(model)
        if changed[id] == nil {
            changed[id] = model
            changedOrder.append(id)
        }
    }

    func rowKey(_ data: BackingData) -> RowKey {
        RowKey(table: ObjectIdentifier(data.layout!.root), pk: data.pk)
    }

    // MARK: Insert

    /// Registers a new model (and the new models its relationships reach) for insertion at the
    /// next save. Inserting a model twice is a no-op; inserting a deleted model un-deletes it.
    public func insert<T: PersistentModel>(_ model: T) {
        insertAny(model)
    }

    func insertAny(_ model: any PersistentModel) {
        let data = model.persistentBackingData
        model._$absorbPendingValues()
        if let ctx = data.context, ctx !== self { return }
        switch data.status {
        case .inserted, .persisted: return
        case .deleted:
            let id = ObjectIdentifier(model)
            deleted[id] = nil
            deletedOrder.removeAll { $0 == id }
            data.status = .persisted
            return
        case .unmanaged, .removed: break
        }
        guard let layout = data.layout,
            layout === lastInsertableLayout || (stack.table(for: layout)?.entityID(layout) != nil)
        else {
            deferredErrors.append(
                SwiftDataError(
                    SwiftDataError.unknownSchema.code,
                    "\(type(of: model)) is not in the container's schema; add it to Schema([...]) or ModelContainer(for:)",
                    entityName: String(describing: type(of: model))))
            return
        }
        lastInsertableLayout = layout
        data.context = self
        data.status = .inserted
        data.pk = 0
        inserted.append(model)
        // A new model whose relationships hold no model (most new models) has nothing to link
        // or insert: one look at its relationship slots instead of a walk per step.
        guard data.holdsRelatedModel(layout) else {
            data.initSlotMask = 0
            data.relatedInserted = true
            return
        }
        syncInitializerRelationships(of: model, data)
        insertRelated(of: model, data)
    }

    /// Relationships an initialiser assigned (`self.category = category`) went through `init`
    /// accessors, which cannot update the other side; do it now, as a setter would have (REL-02).
    func syncInitializerRelationships(of model: any PersistentModel, _ data: BackingData) {
        guard data.initSlotMask != 0, let layout = data.layout else { return }
        let mask = data.initSlotMask
        data.initSlotMask = 0
        // An initialiser that assigned no relationship (the common case) has nothing to sync.
        guard mask & layout.relationshipMask != 0 else { return }
        for slot in layout.relationshipSlots where slot < 64 && mask & (1 << UInt64(slot)) != 0 {
            // The inverse is looked up only for a slot that holds a model (an initialiser's
            // default `nil` or `[]` links nothing).
            var inverse: (layout: ModelLayout, slot: Int)?
            var lookedUp = false
            forEachLoadedTarget(data, layout.slots[slot]) { target in
                if !lookedUp {
                    inverse = layout.inverse(of: slot)
                    lookedUp = true
                }
                guard let (inverseLayout, inverseSlot) = inverse else { return }
                RelationshipGraph.link(target, inverse: inverseLayout.slots[inverseSlot], to: model)
            }
        }
    }

    /// Inserts unmanaged models reachable through loaded relationships (REL-01).
    /// Afterwards ``BackingData/relatedInserted`` is set until one of the model's relationships
    /// is written again: a save walks only the new models whose relationships changed since.
    func insertRelated(of model: any PersistentModel, _ data: BackingData) {
        model._$absorbPendingValues()
        guard let layout = data.layout else { return }
        data.relatedInserted = true
        for slot in layout.relationshipSlots where slot < data.values.count {
            forEachLoadedTarget(data, layout.slots[slot]) { target in
                let td = target.persistentBackingData
                if td.status == .unmanaged || (td.status == .removed && td.pk == 0) { insertAny(target) }
            }
        }
    }

    /// Calls `body` with each model relationship `slot` holds in memory (none for an empty,
    /// unloaded or unresolved one). A to-one is read in place, without a dynamic cast or an array.
    private func forEachLoadedTarget(
        _ data: BackingData, _ slot: ModelLayout.Slot, _ body: (any PersistentModel) -> Void
    ) {
        if slot.isToMany {
            guard slot.index < data.values.count, let value = data.values[slot.index] else { return }
            for target in RelationshipGraph.models(in: value) { body(target) }
        } else if case .model(let target) = data.toOne(slot) {
            body(target)
        }
    }

    // MARK: Delete

    /// Marks a model for deletion at the next save; an unsaved inserted model is simply dropped.
    ///
    /// ```swift
    /// context.delete(house)                                   // rooms: .cascade
    /// try context.fetchCount(FetchDescriptor<Room>())         // 0: the rooms are pending deletes
    /// context.rollback()                                      // house and rooms are back
    /// ```
    /// Delete rules run lazily, not here: before a fetch that includes pending changes (`fetch`,
    /// `fetchCount`, `fetchIdentifiers`, `enumerate`), at ``processPendingChanges()`` and at
    /// ``save()`` — where Core Data propagates deletes, and what the repository's behaviour
    /// reference recommends (`Docs/BehaviourReference.md`; SwiftData does not document the
    /// timing). Cascaded models become pending deletes and nullified references read `nil`;
    /// nothing is written before the save. A `.deny` rule is checked only by ``save()``, which throws
    /// ``SwiftDataError/deleteRuleDenied`` having written nothing; until then a refused delete
    /// applies none of its rules. A model read through a reference before any of those points
    /// still shows the deleted model (`isDeleted == true`).
    public func delete<T: PersistentModel>(_ model: T) {
        deleteAny(model)
    }

    func deleteAny(_ model: any PersistentModel) {
        let data = model.persistentBackingData
        guard data.context === self else { return }
        let id = ObjectIdentifier(model)
        switch data.status {
        case .inserted:
            inserted.removeAll { $0 === model }
            // The dropped model leaves the lists and references of the models it was linked to
            // (DEL-09): otherwise a loaded list still holding it would insert it again at the
            // save, while an unloaded one would not. Found by the differential change scripts.
            // Its `.cascade` relationships still delete their members (DEL-02, DEL-03).
            var cascaded: [any PersistentModel] = []
            if let layout = data.layout, !FaultInjection.isActive(.deletedInsertKeepsLinks) {
                for slot in layout.relationshipSlots where slot < data.values.count {
                    guard let value = data.values[slot], !(value is ForeignKey) else { continue }
                    if layout.slots[slot].relationship?.deleteRule == .cascade,
                        !FaultInjection.isActive(.cascadeNullifies)
                    {
                        cascaded += RelationshipGraph.models(in: value)
                    }
                    guard let (invLayout, invSlot) = layout.inverse(of: slot) else { continue }
                    for target in RelationshipGraph.models(in: value) {
                        RelationshipGraph.unlink(target, inverse: invLayout.slots[invSlot], from: model)
                    }
                }
            }
            if !FaultInjection.isActive(.deletedInsertKeepsLinks) { unlinkPendingOneWayReferences(to: model) }
            data.status = .removed
            data.context = nil
            for member in cascaded { deleteAny(member) }
        case .persisted:
            data.status = .deleted
            deleted[id] = model
            deletedOrder.append(id)
        default: break
        }
    }

    // MARK: Rollback

    /// Discards every pending insert, change and delete; changed models get their saved values back.
    public func rollback() {
        let keepsInserts = FaultInjection.isActive(.rollbackKeepsInserts)
        for model in inserted where !keepsInserts {
            let d = model.persistentBackingData
            d.status = .unmanaged
            d.context = nil
        }
        if !keepsInserts { inserted.removeAll() }
        for id in deletedOrder where !FaultInjection.isActive(.rollbackKeepsDeletes) {
            guard let m = deleted[id] else { continue }
            m.persistentBackingData.status = .persisted
            restoreCommitted(m)
        }
        deleted.removeAll()
        deletedOrder.removeAll()
        propagatedDeletes.removeAll()
        for id in changedOrder where !FaultInjection.isActive(.rollbackKeepsChanges) {
            if let m = changed[id] { restoreCommitted(m) }
        }
        changed.removeAll()
        changedOrder.removeAll()
        deferredErrors.removeAll()
        // A to-many list loaded while changes were pending holds them (pending links are merged
        // in when a list loads, and an unchanged owner keeps no saved copy): every loaded list
        // reloads from the store on its next read. Found by the differential change scripts.
        // swift-format-ignore: ReplaceForEachWithForLoop
        // (IdentityMap is not a Sequence: forEach walks its open-addressing tables.)
        registered.forEach { model in
            let d = model.persistentBackingData
            guard let layout = d.layout else { return }
            for slot in layout.slots where slot.isToMany && slot.index < d.values.count { d.values[slot.index] = nil }
        }
    }

    func restoreCommitted(_ model: any PersistentModel) {
        let d = model.persistentBackingData
        guard let committed = d.committed else { return }
        for (slot, was) in d.changed.enumerated() where was && slot < committed.count {
            d.setSlot(slot, committed[slot], of: model, recordChange: false)
        }
        d.committed = nil
        d.changed = []
    }

    // MARK: Lookup

    /// The model with this identifier if this context has it registered; never reads the store.
    public func registeredModel<T: PersistentModel>(for id: PersistentIdentifier) -> T? {
        registeredAny(for: id) as? T
    }

    func registeredAny(for id: PersistentIdentifier) -> (any PersistentModel)? {
        if id.isTemporary {
            return inserted.first { $0.persistentModelID == id }
        }
        guard let (table, _) = tableAndLayout(for: id), let pk = id.primaryKey else { return nil }
        if let sid = id.storeIdentifier, sid != stack.store(of: table).identifier { return nil }
        return registered[RowKey(table, pk: pk)]
    }

    /// The model with this identifier: the registered instance, or one whose attributes load from
    /// the store on first access. A row that no longer exists gives a deleted-looking model whose
    /// attributes read their defaults instead of crashing (CTX-09).
    ///
    /// An identifier of an entity outside this container's schema (another container's model, or
    /// one decoded from elsewhere) gets the same kind of stand-in, registered nowhere: its
    /// `persistentModelID` is `id`, `isDeleted` is true, `modelContext` is nil, and its class is
    /// the model class of that name when this process has exactly one (else an internal class
    /// with no properties). SwiftData returns a placeholder without checking the store too.
    public func model(for id: PersistentIdentifier) -> any PersistentModel {
        if let m = registeredAny(for: id) { return m }
        guard let (table, layout) = tableAndLayout(for: id) else {
            return Self.standIn(for: id, layout: ModelLayout.registered(named: id.entityName))
        }
        if let pk = id.primaryKey, id.storeIdentifier == nil || id.storeIdentifier == stack.store(of: table).identifier
        {
            do {
                if let m = try materialize(table: table, pk: pk) { return m }
            } catch {
                // The stand-in is not the answer: the failure is reported (OperationFailure).
                recordFailure(.modelLoad, error, sql: table.selectByKeySQL)
            }
        }
        return Self.standIn(for: id, layout: layout)
    }

    /// A deleted-looking model standing for `id`, whose attributes read their defaults.
    static func standIn(for id: PersistentIdentifier, layout: ModelLayout?) -> any PersistentModel {
        guard let layout else { return UnknownEntityModel(id) }
        let data = BackingData.make(layout: layout)
        data.status = .removed
        data.vanished = true
        data.pk = id.primaryKey ?? 0
        if case .temporary(let key) = id.key { data.tempKey = key }
        data.storeIdentifier = id.storeIdentifier
        for s in layout.slots { data.values[s.index] = BackingData.emptyValue(for: s) ?? data.placeholder(s.index) }
        return MaterializationScope.run { layout.type.init(backingData: data) }
    }

    func tableAndLayout(for id: PersistentIdentifier) -> (StoreMapping.Table, ModelLayout)? {
        guard let entity = stack.schema.entitiesByName[id.entityName],
            let table = stack.table(for: entity.layout)
        else { return nil }
        return (table, entity.layout)
    }

    // MARK: Transactions and pending-change processing

    /// Runs `block`, then saves. If `block` throws, nothing is saved, the error is rethrown and
    /// the changes made in the block stay pending (CTX-07).
    public func transaction(block: () throws -> Void) throws {
        try block()
        try save()
    }

    /// Propagates pending deletes through delete rules (cascade, nullify), and autosaves when
    /// ``autosaveEnabled`` is on. A `.deny` rule is left for ``save()`` to report.
    ///
    /// This cannot throw (SwiftData's signature). A store error while applying the delete rules
    /// (``OperationFailure/Operation/pendingChanges``; a related list that cannot be read is a
    /// ``OperationFailure/Operation/relationshipLoad``, which the autosave then throws rather than
    /// save an incomplete cascade) or a failed autosave (``OperationFailure/Operation/autosave``)
    /// is posted as ``operationDidFail`` and logged to standard error; the changes stay pending,
    /// and ``save()`` applies the rules again and throws.
    public func processPendingChanges() {
        do {
            try propagateDeletes(deferringRefusals: true)
        } catch {
            recordFailure(.pendingChanges, error)
        }
        guard autosaveEnabled, hasChanges else { return }
        do {
            try save()
        } catch {
            recordFailure(.autosave, error)
        }
    }
}

extension ModelContext: Equatable, Hashable {
    /// Contexts are equal when they are the same object (as on Apple platforms).
    ///
    /// ```swift
    /// if trip.modelContext == context { … }   // also `context == .none` for an optional context
    /// ```
    public static func == (lhs: ModelContext, rhs: ModelContext) -> Bool { lhs === rhs }

    /// Hashes the context's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}

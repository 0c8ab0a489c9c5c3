import Foundation

extension ModelContext {
    // MARK: Public fetch API

    /// The models matching `descriptor`, with pending changes merged when it asks (default).
    ///
    /// Merging pending changes first applies the delete rules of pending deletes (Docs/BehaviourReference.md), so
    /// models a pending delete cascades to are left out and nullified references read `nil`;
    /// nothing is written, and ``rollback()`` undoes it (see ``delete(_:)``).
    ///
    /// ```sql
    /// SELECT t."Z_PK", t."Z_ENT", … FROM "ZTRIP" t
    /// WHERE t."Z_ENT" IN (1, 2) AND (<predicate>) ORDER BY …, t."Z_PK" LIMIT ? OFFSET ?
    /// ```
    /// - Throws: ``SwiftDataError/unsupportedPredicate`` and friends for what cannot be
    ///   translated (or exceeds SQLite's limits); ``SwiftDataError/arithmeticOverflow`` when the
    ///   predicate's integer arithmetic overflows for a stored row or a pending model (Swift
    ///   would trap); ``SwiftDataError/storeError`` for other SQLite failures.
    @inlinable
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        // Inlined into the caller, specialised for `T`: the common case (a shape fetched
        // before, no pending changes of this kind) runs in code that is not generic.
        var models: [T] = []
        if try fetchCached(FetchRequest(descriptor), descriptor.predicateExpression, { m, _ in models.append(m as! T) })
        {
            return models
        }
        // The same collecting closure, specialised here too: in the library's generic code
        // each append would look up `Array<T>`'s metadata.
        if let merged = try fetchTranslatingOrMerging(descriptor, { m, _ in models.append(m as! T) }) {
            return merged
        }
        return models
    }

    /// ``fetch(_:)`` of a cached shape with nothing pending to merge: passes each model and its
    /// row's key to `sink` and returns `true`; returns `false` (having read nothing) when the query is not
    /// cached yet or pending changes of this kind must be merged. `expression` is the
    /// descriptor's ``FetchDescriptor/predicateExpression``, borrowed (never copied).
    @usableFromInline
    func fetchCached(
        _ request: FetchRequest, _ expression: borrowing any StandardPredicateExpression<Bool>,
        _ sink: (any PersistentModel, Int64) -> Void
    ) throws -> Bool {
        // Nothing pending (the usual case): one access to the context's pending state answers
        // both the read-failure check and the pending-changes check.
        let nothingPending = pending.isEmpty
        var leaves = PredicateLeaves()
        guard case .found(let q) = try lookupQuery(request, expression, &leaves, failuresChecked: nothingPending)
        else { return false }
        // Kept for the next fetch (small ones only); by then nothing else holds it.
        defer { if q.arguments.capacity <= 64 { spareArguments = q.arguments } }
        if !nothingPending, request.includePendingChanges, !(inserted.isEmpty && changed.isEmpty && deleted.isEmpty) {
            // Delete rules may have to run first, and pending models to be merged.
            if !deleted.isEmpty || pendingModels(kindOf: q.layout) != nil { return false }
        }
        try materializePage(q, fetchLimit: request.fetchLimit, fetchOffset: request.fetchOffset, into: sink)
        return true
    }

    /// The store's rows of `q` in fetch order, paged in SQL (`LIMIT ? OFFSET ?`) when the
    /// descriptor pages; nothing pending is merged.
    func materializePage(
        _ q: BoundQuery, fetchLimit: Int?, fetchOffset: Int?, into sink: (any PersistentModel, Int64) -> Void
    ) throws {
        let paging = FetchPaging(limit: fetchLimit, offset: fetchOffset)
        if paging.isPaged {
            try materializeRows(q.compiled.paged, q.arguments + paging.arguments, table: q.table, into: sink)
        } else {
            try materializeRows(q.compiled.select, q.arguments, table: q.table, into: sink)
        }
    }

    /// ``fetch(_:)`` of a shape not cached yet (translated here), or with pending changes to
    /// merge: passes the models in fetch order to `sink` and returns `nil`, except for a merge
    /// the descriptor sorts, whose models it returns (and passes nothing to `sink`).
    @usableFromInline
    func fetchTranslatingOrMerging<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, _ sink: (any PersistentModel, Int64) -> Void
    ) throws -> [T]? {
        let q = try query(descriptor)
        if descriptor.includePendingChanges { try applyDeleteRulesForFetch() }
        let pending = descriptor.includePendingChanges ? pendingModels(kindOf: q.layout) : nil
        guard let pending, !pending.isEmpty else {
            try materializePage(q, fetchLimit: descriptor.fetchLimit, fetchOffset: descriptor.fetchOffset, into: sink)
            return nil
        }
        // Pending changes: evaluate the store part in SQL, the in-memory part with
        // Predicate.evaluate, then merge, sort and page the result (FET-07).
        var stored: [any PersistentModel] = []
        // The pending models in the result so far: a model changed and inserted is taken once.
        var seen = Set<ObjectIdentifier>()
        let keepStoredValues = FaultInjection.isActive(.fetchMatchesStoredValues)
        try materializeRows(q.compiled.storeOrder, q.arguments, table: q.table) { m, _ in
            let id = ObjectIdentifier(m)
            if pending.contains(id) {
                // A pending model is matched by its values in memory, not by its row.
                guard keepStoredValues else { return }
                seen.insert(id)
            }
            stored.append(m)
        }
        var extras: [any PersistentModel] = []
        let pendingInserts = FaultInjection.isActive(.fetchIgnoresPendingInserts) ? [] : inserted
        for m in changedOrder.compactMap({ changed[$0] }) + pendingInserts where pending.contains(ObjectIdentifier(m)) {
            guard let model = m as? T, !model.isDeleted, !seen.contains(ObjectIdentifier(m)) else { continue }
            if let p = descriptor.predicate {
                // Predicate.evaluate traps on integer overflow: find it first (PendingOverflowCheck).
                if q.hasIntegerArithmetic {
                    do { try checkOverflow(p, model) } catch var e as SwiftDataError {
                        e.entityName = q.layout.name
                        throw e
                    }
                }
                if !(try p.evaluate(model)) { continue }
            }
            seen.insert(ObjectIdentifier(m))
            extras.append(m)
        }
        let merged = Self.inStoreOrder(stored, extras)
        let paging = FetchPaging(limit: descriptor.fetchLimit, offset: descriptor.fetchOffset)
        guard !descriptor.sortBy.isEmpty else {
            for m in merged[paging.range(in: merged.count)] { sink(m, m.persistentBackingData.pk) }
            return nil
        }
        // One array of `T` made in place: appending in this generic code would look up
        // `Array<T>`'s metadata for every model.
        let result = [T](unsafeUninitializedCapacity: merged.count) { buffer, count in
            for (i, m) in merged.enumerated() { (buffer.baseAddress! + i).initialize(to: m as! T) }
            count = merged.count
        }
        let sorted = result.sorted(using: descriptor.sortBy, stringSortStyle: stringSortStyle(of: descriptor))
        return Array(sorted[paging.range(in: sorted.count)])
    }

    /// A fetch's models merged from `stored` (its store rows, in key order) and `extras` (its
    /// pending models: the changed ones, then the inserts in the order they were inserted): the
    /// models with a key by key, then those without one in the order given — the order the
    /// descriptor's sort breaks its ties by (FET-12). Only the few changed models are sorted.
    static func inStoreOrder(
        _ stored: [any PersistentModel], _ extras: [any PersistentModel]
    ) -> [any PersistentModel] {
        let reversed = FaultInjection.isActive(.mergedSortUnstable)
        if extras.isEmpty { return reversed ? stored.reversed() : stored }
        let keyed = extras.map { (key: $0.persistentBackingData.pk, model: $0) }
        let changed = keyed.filter { $0.key != 0 }.sorted { $0.key < $1.key }
        var merged: [any PersistentModel] = []
        merged.reserveCapacity(stored.count + keyed.count)
        var next = 0
        for m in stored {
            let key = m.persistentBackingData.pk
            while next < changed.count, changed[next].key < key {
                merged.append(changed[next].model)
                next += 1
            }
            merged.append(m)
        }
        for extra in changed[next...] { merged.append(extra.model) }
        for extra in keyed where extra.key == 0 { merged.append(extra.model) }
        return reversed ? merged.reversed() : merged
    }

    /// How many models match, honouring pending changes, offset and limit (FET-03).
    ///
    /// ```sql
    /// SELECT count(*) FROM "Trip" t WHERE t."Z_ENT" IN (…) AND (<predicate>)
    /// ```
    @inlinable
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        // Inlined into the caller, as `fetch(_:)`: a cached shape with nothing pending to merge
        // is counted in code that is not generic over the model.
        if let count = try countCached(FetchRequest(descriptor), descriptor.predicateExpression) { return count }
        return try countTranslatingOrMerging(descriptor)
    }

    /// ``fetchCount(_:)`` of a cached shape with nothing pending to merge; `nil` (having
    /// counted nothing) when the query is not cached yet or pending changes of this kind must
    /// be merged. `expression` is the descriptor's ``FetchDescriptor/predicateExpression``, borrowed.
    @usableFromInline
    func countCached(_ request: FetchRequest, _ expression: borrowing any StandardPredicateExpression<Bool>) throws
        -> Int?
    {
        // One access to the context's pending state when nothing is pending (see `fetchCached`).
        let nothingPending = pending.isEmpty
        var leaves = PredicateLeaves()
        guard case .found(let q) = try lookupQuery(request, expression, &leaves, failuresChecked: nothingPending)
        else { return nil }
        // Kept for the next fetch (small ones only); by then nothing else holds it.
        defer { if q.arguments.capacity <= 64 { spareArguments = q.arguments } }
        if !nothingPending, request.includePendingChanges, !(inserted.isEmpty && changed.isEmpty && deleted.isEmpty) {
            // Delete rules may have to run first, and pending models to be counted.
            if !deleted.isEmpty || pendingModels(kindOf: q.layout) != nil { return nil }
        }
        return try storeCount(q, FetchPaging(limit: request.fetchLimit, offset: request.fetchOffset))
    }

    /// ``fetchCount(_:)`` of a shape not cached yet (translated here), or with pending changes
    /// to merge.
    @usableFromInline
    func countTranslatingOrMerging<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        let q = try query(descriptor)
        if descriptor.includePendingChanges { try applyDeleteRulesForFetch() }
        let paging = FetchPaging(limit: descriptor.fetchLimit, offset: descriptor.fetchOffset)
        if descriptor.includePendingChanges, !FaultInjection.isActive(.fetchCountIgnoresPending),
            let pending = pendingModels(kindOf: q.layout), !pending.isEmpty
        {
            var unpaged = descriptor
            unpaged.fetchLimit = nil
            unpaged.fetchOffset = nil
            return paging.apply(toCount: try fetch(unpaged).count)
        }
        return try storeCount(q, paging)
    }

    /// The number of the store's rows of `q` (`SELECT count(*) …`), paged.
    private func storeCount(_ q: BoundQuery, _ paging: FetchPaging) throws -> Int {
        let total = try withFetchConnection(sql: q.compiled.countSQL, table: q.table) { db in
            if case .integer(let n)? = try db.scalar(q.compiled.count, q.arguments) { return Int(n) }
            return 0
        }
        return paging.apply(toCount: total)
    }

    /// The identifiers of the matching models, in fetch order (FET-09).
    ///
    /// Without pending changes of this model type only keys are read (no models are created):
    /// `SELECT t."Z_PK", t."Z_ENT" … ORDER BY … LIMIT ? OFFSET ?`. With pending changes the
    /// merged fetch gives the identifiers, so they always equal `fetch(d).map(\.persistentModelID)`.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier]
    {
        let q = try query(descriptor)
        if descriptor.includePendingChanges { try applyDeleteRulesForFetch() }
        if descriptor.includePendingChanges, pendingModels(kindOf: q.layout) != nil {
            return try fetch(descriptor).map(\.persistentModelID)
        }
        let paging = FetchPaging(limit: descriptor.fetchLimit, offset: descriptor.fetchOffset)
        let storeID = stack.store(of: q.table).identifier
        return try withFetchConnection(sql: q.compiled.keysSQL, table: q.table) { db in
            let stmt = try db.cachedStatement(q.compiled.keys)
            defer { stmt.reset() }
            try stmt.bind(q.arguments + paging.arguments)
            var ids: [PersistentIdentifier] = []
            while try stmt.step() {
                guard let name = q.table.layout(forEntityID: stmt.int64(at: 1))?.name else {
                    throw unknownEntityError(q.table, entity: stmt.int64(at: 1), pk: stmt.int64(at: 0))
                }
                ids.append(
                    PersistentIdentifier(entityName: name, storeIdentifier: storeID, key: .permanent(stmt.int64(at: 0)))
                )
            }
            return ids
        }
    }

    /// Calls `block` for each matching model, fetching `batchSize` at a time (FET-10).
    ///
    /// The matching keys are read first, in fetch order (`SELECT t."Z_PK" … ORDER BY …`), then
    /// each batch by key (`… WHERE t."Z_PK" IN (…)`), so every batch costs the same however far
    /// into the results it is (no `OFFSET` rescans). An unsorted fetch with no predicate reads
    /// no keys up front: only the first and last matching key, then each batch from the last
    /// key read (`… AND t."Z_PK" BETWEEN ? AND ? ORDER BY t."Z_PK" LIMIT ?`), the same rows.
    /// With pending changes of this model type and `includePendingChanges`, batches are pages
    /// of the merged fetch instead.
    ///
    /// Memory holds one batch: after its batch, a model `enumerate` registered is released
    /// from the context unless something still references it (the block kept it, another
    /// registered model's loaded relationship reaches it, or it has pending changes), so the
    /// context keeps one object per row and a million rows need one batch (and the keys, when
    /// they are read first).
    ///
    /// - Throws: ``SwiftDataError/modelValidationFailure`` when `block` changes a model of a
    ///   context that had no changes and `allowEscapingMutations` is false; what `block` throws;
    ///   the errors of ``fetch(_:)``.
    public func enumerate<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int = 5000,
        allowEscapingMutations: Bool = false,
        block: (T) throws -> Void
    ) throws {
        let size = max(batchSize, 1)
        func run(_ batch: [T]) throws {
            let before = hasChanges
            for model in batch {
                // A model the block deleted (allowEscapingMutations) is no longer a match
                // (`isDeleted`, read from the backing data: not through the generic extension).
                if descriptor.includePendingChanges, model.persistentBackingData.reportsDeleted { continue }
                try block(model)
                if !allowEscapingMutations, !before, hasChanges {
                    throw SwiftDataError(
                        SwiftDataError.modelValidationFailure.code,
                        "enumerate's block changed a model while allowEscapingMutations is false",
                        entityName: String(describing: T.self))
                }
            }
        }
        let q = try query(descriptor)
        if descriptor.includePendingChanges { try applyDeleteRulesForFetch() }
        guard descriptor.includePendingChanges, pendingModels(kindOf: q.layout) != nil else {
            if readsByKeyRange(q, descriptor) { return try enumerateKeyRanges(q, descriptor, batchSize: size, run) }
            let keys = try storeKeys(q, descriptor)
            var start = 0
            while start < keys.count {
                let end = min(start + size, keys.count)
                var batch: ReleasableBatch<T> = try materializeBatch(keys: keys.keys(start..<end), table: q.table)
                try run(batch.models)
                release(&batch)
                start = end
            }
            return
        }
        var page = descriptor
        let paging = FetchPaging(limit: descriptor.fetchLimit, offset: descriptor.fetchOffset)
        var offset = paging.offset
        var remaining = paging.limit
        while true {
            page.fetchOffset = offset
            page.fetchLimit = remaining.map { min($0, size) } ?? size
            let batch = try fetch(page)
            try run(batch)
            offset += batch.count
            if let r = remaining {
                remaining = r - batch.count
                if remaining! <= 0 { break }
            }
            if batch.count < (page.fetchLimit ?? size) { break }
        }
    }

    /// The models of a batch read by key (`enumerate`'s, or one of a ``FetchResultsCollection``),
    /// with which of them the read registered: the ones ``release(_:)`` may unregister.
    struct ReleasableBatch<T: PersistentModel> {
        var models: [T]
        /// The batch's keys, in fetch order.
        let keys: ArraySlice<Int64>
        /// Per key: its row was not registered before this batch was read; `nil` when no row of
        /// the table was registered then (every row is the batch's own).
        let fresh: [Bool]?
        let tableKey: ObjectIdentifier
        /// Whether `models[i]` is the row of the `i`-th key for every key (no row was deleted
        /// since the keys were read), so a position needs no check of its model's key.
        var isAligned: Bool { models.count == keys.count }
    }

    /// Reads the models of `keys` (``materializeRows(keys:table:as:)``), noting which it registers.
    func materializeBatch<T: PersistentModel>(keys: ArraySlice<Int64>, table: StoreMapping.Table) throws
        -> ReleasableBatch<T>
    {
        let tableKey = ObjectIdentifier(table.root)
        let known = registered.table(tableKey, create: false)
        // Nothing of the table registered (the usual batch after the one before was released):
        // every row is the batch's own, and no key is looked up.
        var fresh: [Bool]?
        if let known, known.count > 0 { fresh = keys.map { known.find($0) == nil } }
        return ReleasableBatch(
            models: try materializeRows(keys: keys, table: table, as: T.self), keys: keys, fresh: fresh,
            tableKey: tableKey)
    }

    /// Unregisters the models of a batch that this batch registered and that nothing else
    /// references — not the caller, not another model's relationship, not the context's pending
    /// changes — so reading a million rows holds a batch or two at a time. A model still
    /// referenced anywhere stays registered, so the context keeps one object per row.
    func release<T: PersistentModel>(_ batch: inout ReleasableBatch<T>) {
        // A row vanished meanwhile (the models no longer line up with the keys): keep them all.
        guard batch.isAligned, let identities = registered.table(batch.tableKey, create: false) else { return }
        let (keys, fresh) = (batch.keys, batch.fresh)
        // Through the buffer: the array's uniqueness is checked once, not once a model.
        batch.models.withUnsafeMutableBufferPointer { models in
            var key = keys.startIndex
            for i in models.indices {
                defer { key += 1 }
                if let fresh, !fresh[i] { continue }
                // Unregistered first, so a model only the batch holds is uniquely referenced here.
                identities.remove(keys[key])
                if !isKnownUniquelyReferenced(&models[i]) { identities.insert(keys[key], models[i]) }
            }
        }
    }

    /// `model` as a `T`: a class-identity check and an unchecked downcast when it is exactly a
    /// `T` (the usual row), else the runtime's checked cast (a subclass entity's row). A generic
    /// `as!` outside specialised code costs a dynamic cast through the runtime for every row.
    @inline(__always)
    static func downcast<T: PersistentModel>(_ model: any PersistentModel, to: T.Type) -> T {
        if ObjectIdentifier(type(of: model)) == ObjectIdentifier(T.self) { return unsafeDowncast(model, to: T.self) }
        return model as! T
    }

    // MARK: Query building

    /// A compiled query with this fetch's captured values.
    struct BoundQuery {
        let compiled: CompiledQuery
        let arguments: [SQLValue]
        /// Whether pending models need ``PendingOverflowCheck`` before `Predicate.evaluate`.
        var hasIntegerArithmetic = false
        var layout: ModelLayout { compiled.layout }
        var table: StoreMapping.Table { compiled.table }
    }

    /// What a fetch found in the caches (``lookupQuery(_:_:_:failuresChecked:)``).
    enum QueryLookup {
        /// The shape was compiled before: its query, bound to this fetch's values.
        case found(BoundQuery)
        /// Not found: what a translation needs to cache the query of this shape (its cache key
        /// and string order), with the leaves.
        case missing(key: QueryCache.Key, style: StringSortStyle)
    }

    /// Collects the leaves of `request`'s predicate `expression` (``NoPredicateExpression``
    /// for none) into `leaves` (empty on entry) and finds its
    /// compiled query: the one this context used last, else the container's. Returns it bound to
    /// the leaves' values (which move into it), else what a translation needs. Not generic, so a
    /// fetch of a cached shape looks up no generic metadata (``FetchRequest`` is built in the
    /// caller, specialised for its model). The leaves are the caller's, so they are not copied.
    /// Throws first a read failure that could not be thrown where it happened (``OperationFailure``),
    /// unless the caller found none (`failuresChecked`).
    func lookupQuery(
        _ request: FetchRequest, _ expression: borrowing any StandardPredicateExpression<Bool>,
        _ leaves: inout PredicateLeaves, failuresChecked: Bool = false
    ) throws -> QueryLookup {
        if !failuresChecked { try throwPendingReadFailure() }
        let style = stringSortStyle(request.stringSortStyle, of: request.entity)
        leaves.scope = identifierScope
        swap(&leaves.values, &spareArguments)
        // Emptied value by value: `removeAll(keepingCapacity:)` takes the generic
        // `replaceSubrange` path, dearer than the few values a fetch binds.
        while leaves.values.popLast() != nil {}
        // Opened where it is (the descriptor's), not copied.
        let predicateType = try collect(expression, &leaves, entity: request.entity)
        let key = QueryCache.Key(
            entity: ObjectIdentifier(request.entity), predicateType: predicateType,
            sorts: request.isSorted ? request.sorts : nil,
            isSorted: request.isSorted, stringSortStyle: style, sortsStorage: request.sortsStorage)
        if leaves.isCacheable, let compiled = cachedQuery(key, leaves.structure, plan: leaves.plan) {
            var arguments: [SQLValue] = []
            swap(&arguments, &leaves.values)
            return .found(
                BoundQuery(compiled: compiled, arguments: arguments, hasIntegerArithmetic: leaves.hasIntegerArithmetic))
        }
        return .missing(key: key, style: style)
    }

    /// Collects the leaves of a predicate's expression and returns its type (the cache key's
    /// part), `nil` for ``NoPredicateExpression``. The expression is opened in place, not
    /// copied into an `Any`, and its root node is where the collection starts. A method, not a
    /// closure in ``lookupQuery(_:_:_:failuresChecked:)``: a closure capturing the leaves would keep them in a
    /// box, and copy them out of it.
    ///
    /// An expression type other than the last fetch's is measured first (``PredicateDepth``):
    /// collecting, translating and evaluating all recurse once per level of the tree. A type
    /// the container noted (``QueryCache/noteShape(_:plan:structure:)``: its tree is fixed by the
    /// type, and its depth was checked) is not measured again, so the first fetch in a new
    /// context costs what a repeated one does.
    /// - Throws: ``SwiftDataError/unsupportedPredicate`` for a tree deeper than
    ///   ``PredicateDepth/maximumDepth``.
    private func collect<E: StandardPredicateExpression<Bool>>(
        _ expression: borrowing E, _ leaves: inout PredicateLeaves, entity: any PersistentModel.Type
    ) throws -> ObjectIdentifier? {
        if E.self == NoPredicateExpression.self { return nil }
        let type = ObjectIdentifier(E.self)
        // The node kinds of this expression type, in visit order, when the last fetch had it.
        if let last = lastQuery, last.key.predicateType == type, let plan = last.plan {
            leaves.replay = plan
            leaves.expected = last.structure
        } else if let known = stack.queryCache.shape(of: type) {
            leaves.replay = known.plan
            leaves.expected = known.structure
        } else {
            try PredicateDepth.check(expression: copy expression, entityName: String(describing: entity))
            leaves.recorded = []
            collectNode(expression, &leaves)
            if leaves.isCacheable, let plan = leaves.recorded {
                stack.queryCache.noteShape(E.self, plan: plan, structure: leaves.structure)
            }
            return type
        }
        collectNode(expression, &leaves)
        return type
    }

    /// The query for `descriptor`, from the container's cache when its shape was seen before,
    /// else translated (and cached when later fetches' leaves bind as this one's do).
    /// Throws first a read failure that could not be thrown where it happened (``OperationFailure``).
    func query<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> BoundQuery {
        var leaves = PredicateLeaves()
        let (key, style): (QueryCache.Key, StringSortStyle)
        switch try lookupQuery(FetchRequest(descriptor), descriptor.predicateExpression, &leaves) {
        case .found(let bound): return bound
        case .missing(let k, let s): (key, style) = (k, s)
        }
        if let e = stack.schema.buildError { throw e }
        guard let layout = ModelLayout.known(T.self), let table = stack.table(for: layout),
            table.entityID(layout) != nil
        else {
            throw SwiftDataError(
                SwiftDataError.unknownSchema.code,
                "\(T.self) is not in the container's schema", entityName: String(describing: T.self))
        }
        let t = SQLTranslation(layout: layout, table: table, tableAlias: "t", identifiers: identifierScope)
        var conditions: [String] = []
        var args: [SQLValue] = []
        if let kinds = table.entityCondition(kindOf: layout) { conditions.append(kinds) }
        if let p = descriptor.predicate {
            let f = try translatePredicate(p, t)
            conditions.append(f.sql)
            args += f.arguments
        }
        let compiled = CompiledQuery(
            layout: layout, table: table,
            whereSQL: conditions.isEmpty ? "1" : conditions.joined(separator: " AND "),
            orderBy: try orderByClause(descriptor.sortBy, t, stringSortStyle: style))
        if leaves.isCacheable {
            // Cached only when later fetches' leaves bind exactly as this translation did.
            do {
                try CompiledQuery.checkBindings(whereSQL: compiled.whereSQL, translated: args, collected: leaves.values)
                stack.queryCache.insert(key, structure: leaves.structure, compiled)
                lastQuery = LastQuery(key: key, structure: leaves.structure, compiled: compiled, plan: leaves.plan)
            } catch let e as CompiledQuery.BindingMismatch where e.kind == .leafCount {
                // Not cacheable (a value bound twice, as before this check): every fetch translates.
            } catch {
                stack.queryCache.refuse("\(T.self): \(error)")
            }
        }
        return BoundQuery(compiled: compiled, arguments: args, hasIntegerArithmetic: leaves.hasIntegerArithmetic)
    }

    /// The compiled query of this shape: the one this context used last when it is the same
    /// shape (a loop of fetches repeats one shape; no lock, no hashing), else the container's.
    private func cachedQuery(
        _ key: QueryCache.Key, _ structure: [PredicateLeaves.Item], plan: [LeafNodeKinds.Step]?
    ) -> CompiledQuery? {
        if let last = lastQuery, last.key == key, last.structure == structure {
            if last.plan == nil, let plan { lastQuery?.plan = plan }
            return last.compiled
        }
        guard let compiled = stack.queryCache.lookup(key, structure: structure) else { return nil }
        lastQuery = LastQuery(key: key, structure: structure, compiled: compiled, plan: plan)
        return compiled
    }

    /// The string order of `descriptor`'s sorts: its own, else that of the configuration
    /// storing `T` (the container's, when it has one configuration).
    func stringSortStyle<T>(of descriptor: FetchDescriptor<T>) -> StringSortStyle {
        stringSortStyle(descriptor.stringSortStyle, of: T.self)
    }

    /// The string order `own` asks for, else that of the configuration storing `entity`.
    func stringSortStyle(_ own: StringSortStyle?, of entity: any PersistentModel.Type) -> StringSortStyle {
        if let own { return own }
        guard stack.stores.count > 1,
            let layout = ModelLayout.known(entity)
        else { return stack.stringSortStyle }
        return stack.configuration(for: layout).stringSortStyle
    }

    /// What captured identifiers bind to in this context's schema.
    var identifierScope: IdentifierScope { IdentifierScope(schema: stack.schema) }

    /// Identities of pending models of `layout`'s kind, or `nil` when there are none.
    func pendingModels(kindOf layout: ModelLayout) -> Set<ObjectIdentifier>? {
        var ids = Set<ObjectIdentifier>()
        func add(_ m: any PersistentModel) {
            if m.persistentBackingData.layout?.isKind(of: layout) == true { ids.insert(ObjectIdentifier(m)) }
        }
        for m in inserted { add(m) }
        for id in changedOrder { if let m = changed[id] { add(m) } }
        for id in deletedOrder where !FaultInjection.isActive(.fetchShowsPendingDeletes) {
            if let m = deleted[id] { add(m) }
        }
        return ids.isEmpty ? nil : ids
    }

    // MARK: Materialising rows

    /// Runs a `SELECT <table.selectList>` query and returns one model per row, reusing
    /// registered instances (one object per row per context).
    func materializeRows(_ sql: String, _ args: [SQLValue], table: StoreMapping.Table) throws -> [any PersistentModel] {
        try materializeRows(StatementSQL(sql), args, table: table, as: (any PersistentModel).self)
    }

    /// ``materializeRows(_:_:table:)`` returning `T`s directly (no second array), for SQL
    /// hashed once (a cached query's).
    func materializeRows<T>(_ sql: StatementSQL, _ args: [SQLValue], table: StoreMapping.Table, as: T.Type) throws
        -> [T]
    {
        var out: [T] = []
        try materializeRows(sql, args, table: table) { m, _ in out.append(m as! T) }
        return out
    }

    /// Runs a `SELECT <table.selectList>` query and passes one model per row to `sink`, with the
    /// row's key (read once here: the sink need not ask the model), reusing registered
    /// instances (one object per row per context). Not generic: the fetch of a
    /// cached shape looks up no generic metadata here. A new model reaches `sink` just before
    /// it is registered, so `sink` only collects: it must not fetch through this context.
    func materializeRows(
        _ sql: StatementSQL, _ args: [SQLValue], table: StoreMapping.Table,
        into sink: (any PersistentModel, Int64) -> Void
    ) throws {
        // Looked up once (a container can have several stores), for the connection, the
        // identity of new models and the generation of registered ones.
        let store = stack.store(of: table)
        try withFetchConnection(sql: sql.text, store: store) { db in
            let stmt = try lastStatement.statement(sql, on: db)
            defer { stmt.reset() }
            try stmt.bind(args)
            let tableKey = ObjectIdentifier(table.root)
            let identities = registered.table(tableKey, create: true)!
            let storeIdentity = store.identity
            let handle = self.handle
            var generation: StoreGeneration?
            // The entity of the last new row, its layout and its slot readers, held across rows:
            // taking them out of the table's arrays for every row costs two retains and two
            // releases, and a table's rows are mostly of one entity.
            var lastEntity = -1
            var lastLayout: ModelLayout?
            var readers: [RowCodec.SlotReader] = []
            var versionColumn: Int32 = 0
            // One scope for the whole read, not one a row (each is two thread-local writes): what
            // runs between two rows' models is this loop and the sink, which only collects.
            let outer = MaterializationScope.enter()
            defer { MaterializationScope.leave(outer) }
            // A query that binds nothing reads about the rows it read last time: the identity
            // table makes room for them at the first new row, instead of growing as it fills.
            var expectedRows = args.isEmpty ? stmt.rowsLastRun : 0
            var rows = 0
            defer { stmt.rowsLastRun = rows }
            while try stmt.step() {
                rows += 1
                let pk = stmt.int64(at: 0)
                if let existing = identities.find(pk) {
                    let d = existing.persistentBackingData
                    if d.isFault || (d.committed == nil && d.status == .persisted) {
                        generation = try RowCodec.refreshIfChanged(existing, stmt, table, store, db, generation)
                    }
                    sink(existing, pk)
                    continue
                }
                let ent = Int(stmt.int64(at: 1))
                if ent != lastEntity {
                    // Read from the table here, not held from the start: a fetch of registered
                    // rows only would retain and release both arrays for nothing.
                    guard let entity = Self.entityReading(table, ent) else {
                        throw unknownEntityError(table, entity: stmt.int64(at: 1), pk: pk)
                    }
                    (lastEntity, lastLayout, readers, versionColumn) = (
                        ent, entity.layout, entity.readers, entity.versionColumn
                    )
                }
                guard let layout = lastLayout else { continue }
                if expectedRows > 0 {
                    identities.reserve(additional: expectedRows - rows + 1)
                    expectedRows = 0
                }
                let type = layout.type
                let d: BackingData
                do {
                    d = try BackingData.make(
                        stored: layout, slotCount: readers.count, pk: pk, version: stmt.int64(at: versionColumn),
                        storeIdentity: storeIdentity, contextHandle: handle
                    ) { slots, initialized in
                        try RowCodec.initializeNew(slots, &initialized, stmt, readers)
                    }
                } catch let mismatch as StoredValueMismatch {
                    throw mismatch.error(layout: layout, table: table, pk: pk, url: store.url)
                }
                let model = type.init(backingData: consume d)
                // Handed to `sink` before it is registered, so the identity map can take the
                // reference over: the sinks only collect models, none reads the identity map.
                sink(model, pk)
                identities.insert(pk, consume model)
            }
        }
    }

    /// What the row loop of ``materializeRows(_:_:table:into:)`` reads from `table` for a new
    /// row of entity number `ent`: its layout, slot readers and `Z_OPT` column; `nil` for a
    /// number that is no entity of the table.
    ///
    /// Out of line, as ``RowCodec/refreshIfChanged(_:_:_:_:_:_:)``: the table's properties are class
    /// variables (each read checked at run time), and reads inlined in the loop were hoisted
    /// in front of it, so every fetch paid for them, whether or not a row needed them.
    @inline(never)
    static func entityReading(_ table: StoreMapping.Table, _ ent: Int) -> (
        layout: ModelLayout, readers: [RowCodec.SlotReader], versionColumn: Int32
    )? {
        guard ent > 0, ent < table.entitiesByID.count, let layout = table.entitiesByID[ent] else { return nil }
        let codec = table.codec
        return (layout, codec.readersByID[ent], codec.versionColumn)
    }

    /// The model for row `pk` of `table`, registered or freshly read; `nil` if the row is gone.
    func materialize(table: StoreMapping.Table, pk: Int64) throws -> (any PersistentModel)? {
        if let m = registered[RowKey(table, pk: pk)] { return m }
        return try materializeRows(table.selectByKeySQL, [.integer(pk)], table: table).first
    }

    /// Loads the attributes of a faulted model from its row.
    ///
    /// A row that no longer exists leaves the fault unfilled (the model reads as deleted,
    /// CTX-09). A failed read leaves it unfilled too, so the next read tries again, and is
    /// reported (``OperationFailure/Operation/faultFill``): the property read returns its
    /// placeholder, and the context's next fetch or save throws the error.
    func fulfillFault(_ data: BackingData) {
        guard data.pk != 0, let layout = data.layout, let table = stack.table(for: layout) else { return }
        do {
            try stack.store(of: table).readRow(table, pk: data.pk) { row, _ in
                try RowCodec.refresh(row, into: data, model: nil, table: table, url: stack.store(of: table).url)
            }
        } catch {
            var e = storeError(error, sql: table.selectByKeySQL)
            if e.entityName == nil { e.entityName = layout.name }
            recordFailure(.faultFill, e)
        }
    }

    /// Loads a relationship of a registered model from the store.
    func resolveRelationship(_ data: BackingData, slot: ModelLayout.Slot) -> Any? {
        guard let layout = data.layout, let storage = stack.storage(of: layout, slot: slot.index),
            let targetType = slot.target, let targetLayout = ModelLayout.known(targetType),
            let targetTable = stack.table(for: targetLayout)
        else { return BackingData.emptyValue(for: slot) }
        var models: [any PersistentModel] = []
        if data.pk != 0 {
            do {
                switch storage {
                case .foreignKey:
                    if data.unresolvedForeignKey(slot.index) == nil, data.isFault { fulfillFault(data) }
                    if let fk = data.unresolvedForeignKey(slot.index), fk != 0,
                        let m = try materialize(table: targetTable, pk: fk)
                    {
                        models = [m]
                    }
                case .inverseForeignKey(let table, let column):
                    models = try materializeRows(table.selectByColumnSQL(column), [.integer(data.pk)], table: table)
                case .joinTable(let name, let own, let other):
                    models = try materializeRows(
                        targetTable.selectThroughJoinSQL(name, own: own, other: other),
                        [.integer(data.pk)], table: targetTable)
                }
            } catch {
                // Reported, not answered: this read is empty and not kept (BackingData.load), the next one retries.
                var e = storeError(error, sql: nil)
                if e.entityName == nil { e.entityName = layout.name }
                if e.propertyName == nil { e.propertyName = slot.name }
                recordFailure(.relationshipLoad, e)
                models = []
            }
        }
        // Pending deletes stay in the list until their delete rules run (save,
        // processPendingChanges() or a fetch with pending changes), as in a list that was
        // loaded before the delete; then they leave it, as they leave a loaded list.
        models = models.filter { m in
            let md = m.persistentBackingData
            return md.status != .removed && (md.layout?.isKind(of: targetLayout) ?? false)
                && !(md.status == .deleted && propagatedDeletes.contains(ObjectIdentifier(m)))
        }
        if case .foreignKey = storage {
        } else if let owner = registered[rowKey(data)] ?? inserted.first(where: { $0.persistentBackingData === data }),
            let (_, inverseSlot) = layout.inverse(of: slot.index)
        {
            models = mergePending(models, owner: owner, inverseSlot: inverseSlot, targetLayout: targetLayout)
        }
        if slot.isToMany { return RelationshipGraph.makeArray(slot, models) }
        return models.first
    }

    /// The store's side of a relationship overlaid with unsaved changes: pending models whose
    /// (loaded) inverse now points at `owner` join; changed ones that point elsewhere leave.
    /// This lets a relationship stay unloaded while models are linked to it (see
    /// ``RelationshipGraph/link(_:inverse:to:)``) and still read correctly before the save.
    private func mergePending(
        _ stored: [any PersistentModel], owner: any PersistentModel, inverseSlot: Int,
        targetLayout: ModelLayout
    ) -> [any PersistentModel] {
        guard !inserted.isEmpty || !changedOrder.isEmpty else { return stored }
        func pointsAtOwner(_ m: any PersistentModel) -> Bool? {
            let d = m.persistentBackingData
            guard inverseSlot < d.values.count, let v = d.values[inverseSlot], !(v is ForeignKey) else { return nil }
            return RelationshipGraph.models(in: v).contains { $0 === owner }
        }
        var result = stored.filter { m in
            changed[ObjectIdentifier(m)] == nil || pointsAtOwner(m) != false
        }
        var present = Set(result.map { ObjectIdentifier($0) })
        for m in inserted + changedOrder.compactMap({ changed[$0] }) where !present.contains(ObjectIdentifier(m)) {
            guard m.persistentBackingData.layout?.isKind(of: targetLayout) == true, pointsAtOwner(m) == true else {
                continue
            }
            result.append(m)
            present.insert(ObjectIdentifier(m))
        }
        return result
    }
}

extension ModelContext {
    /// ``SwiftDataError/corruptStore`` for a row of `table` (key `pk`) whose `Z_ENT` is no
    /// entity of the model: another tool wrote it, or the store is another model's. A fetch
    /// throws it rather than leave the row out unseen.
    ///
    /// ```swift
    /// throw unknownEntityError(table, entity: 77, pk: 100)
    /// ```
    func unknownEntityError(_ table: StoreMapping.Table, entity: Int64, pk: Int64) -> SwiftDataError {
        SwiftDataError(
            SwiftDataError.corruptStore.code,
            "the row with Z_PK \(pk) in \(table.name) has Z_ENT \(entity), which is no entity of the model stored "
                + "there (another tool wrote it, or the store belongs to another model); correct or delete the row",
            entityName: table.root.name, url: stack.store(of: table).url)
    }
}

import Foundation

/// The result of ``ModelContext/fetch(_:batchSize:)``: the matching models in fetch order,
/// loaded `batchSize` at a time as they are accessed (FET-11).
///
/// ```swift
/// let all = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.start)]), batchSize: 500)
/// for trip in all { … }   // 500 rows are read per batch
/// ```
/// Only the keys are read up front (`SELECT t."Z_PK" … ORDER BY …`; for an unsorted fetch with
/// no predicate whose keys have no gaps, only their count and first and last key); each batch is
/// one `SELECT … WHERE t."Z_PK" IN (…)` (or `BETWEEN` for a run of consecutive keys).
///
/// Memory holds the keys (as runs of consecutive keys where they come in runs, as in an
/// unsorted read of a table) and at most ``batchesKept`` batches: when a batch is dropped, the
/// models it registered that nothing references — not the caller, not another model's loaded
/// relationship, not the context's pending changes — leave the context, as with
/// ``ModelContext/enumerate(_:batchSize:allowEscapingMutations:block:)``, so iterating over a
/// million rows holds two batches, and a collection that goes away lets go of the batches it
/// holds. A model still referenced stays registered, so the context keeps one object per row; a
/// dropped one is read again if its position is accessed again.
///
/// A batch that cannot be read is reported as an ``OperationFailure`` (``OperationFailure/Operation/batchLoad``):
/// the context's next fetch or save throws it, and the element read is a stand-in.
public struct FetchResultsCollection<Element: PersistentModel>: RandomAccessCollection {
    /// How many batches the collection holds at a time (the one being read and the one before
    /// it, so going back and forth across a batch boundary reads nothing again).
    public static var batchesKept: Int { 2 }

    /// Reads the batches as they are accessed, and keeps the one read last where the
    /// collection's inlined subscript finds its elements.
    @usableFromInline final class Loader {
        let context: ModelContext
        let table: StoreMapping.Table
        let keys: StoreKeyList
        @usableFromInline let batchSize: Int
        /// The number of keys (read once: a loop over the collection asks for it every step).
        @usableFromInline let count: Int
        /// The loaded batches, with which of their models each registered (the ones it may release).
        var batches: [Int: ModelContext.ReleasableBatch<Element>] = [:]
        /// Loaded batch numbers, least recently loaded first.
        var loadOrder: [Int] = []
        init(context: ModelContext, table: StoreMapping.Table, keys: StoreKeyList, batchSize: Int) {
            self.context = context
            self.table = table
            self.keys = keys
            self.batchSize = batchSize
            count = keys.count
        }

        /// A collection that goes away lets go of the batches it still holds as it lets go of
        /// one it drops: their models stay registered only while something else references them.
        deinit {
            current = []
            for number in loadOrder {
                guard var held = batches.removeValue(forKey: number) else { continue }
                context.release(&held)
            }
        }

        /// The batch the last access read from, its number (`-1` for none) and whether its
        /// models line up with its keys: a loop over the collection finds its element here
        /// without a lookup in ``batches``, in the subscript inlined into the loop. Read and
        /// written only by the context's accesses, never across a call: not checked at run time.
        @usableFromInline @exclusivity(unchecked) var current: [Element] = []
        @usableFromInline @exclusivity(unchecked) var currentNumber = -1
        @usableFromInline @exclusivity(unchecked) var currentIsAligned = false

        /// The model at `index`: from ``current`` when its batch is the one read last, else
        /// from its batch, read when it is not held.
        @usableFromInline func element(at index: Int) -> Element {
            let b = index / batchSize
            if b != currentNumber {
                guard let batch = batch(b) else { return standIn(at: index) }
                (current, currentNumber, currentIsAligned) = (batch.models, b, batch.isAligned)
            }
            let offset = index - b * batchSize
            // One read of the stored array (a retain) for the checks below, which call into
            // the model between its element reads.
            let models = current
            if currentIsAligned { return models[offset] }
            if offset < models.count, models[offset].persistentBackingData.pk == keys[index] {
                return models[offset]
            }
            // A row deleted since the keys were read: a stand-in that reads as deleted.
            return standIn(at: index)
        }

        /// Batch `b`, read when it is not held; `nil` when it cannot be read (reported as an
        /// ``OperationFailure``). Reading one drops the least recently read beyond ``batchesKept``.
        func batch(_ b: Int) -> ModelContext.ReleasableBatch<Element>? {
            if let held = batches[b] { return held }
            // Not holding the batch about to be dropped: its models must be referenced only by
            // it for `release` to find the unreferenced ones.
            (current, currentNumber) = ([], -1)
            let slice = keys.keys((b * batchSize)..<Swift.min((b + 1) * batchSize, keys.count))
            do {
                batches[b] = try context.materializeBatch(keys: slice, table: table)
                loadOrder.append(b)
            } catch {
                // Reported, not answered (OperationFailure): the batch is not kept, so the
                // next access reads it again; this one gets the model of ModelContext.model(for:).
                let sql = table.selectByKeysSQL(Swift.min(slice.count, ModelContext.keysPerSelect))
                context.recordFailure(.batchLoad, error, sql: sql)
                return nil
            }
            while loadOrder.count > FetchResultsCollection.batchesKept {
                let oldest = loadOrder.removeFirst()
                guard var dropped = batches.removeValue(forKey: oldest) else { continue }
                context.release(&dropped)
            }
            return batches[b]
        }

        /// The model of `ModelContext.model(for:)` for the row at `index`: registered, or a
        /// stand-in that reads as deleted when the row is gone.
        func standIn(at index: Int) -> Element {
            context.model(
                for: PersistentIdentifier(
                    entityName: table.root.name, storeIdentifier: context.stack.store(of: table).identifier,
                    key: .permanent(keys[index]))) as! Element
        }
    }

    @usableFromInline let loader: Loader

    /// The first position, 0.
    @inlinable public var startIndex: Int { 0 }
    /// One past the last position: the number of matching models.
    @inlinable public var endIndex: Int { loader.count }
    /// The model at `position`, loading its batch on first access.
    ///
    /// Inlined into the caller, specialised for its model: a position in the batch read last
    /// (every step of a loop but the first of each batch) is an array read; any other position
    /// goes through the loader, which reads its batch when it is not held.
    @inlinable public subscript(position: Int) -> Element {
        let loader = self.loader
        let b = position / loader.batchSize
        if b == loader.currentNumber, loader.currentIsAligned {
            return loader.current[position - b * loader.batchSize]
        }
        return loader.element(at: position)
    }
}

extension ModelContext {
    /// The matching models, read `batchSize` at a time as the collection is accessed (FET-11).
    ///
    /// - Throws: ``SwiftDataError/includePendingChangesWithBatchSize`` when the descriptor
    ///   includes pending changes and the context has unsaved changes of this model type
    ///   (batches come from the store); the translation errors of ``fetch(_:)``.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int) throws
        -> FetchResultsCollection<T>
    {
        let q = try query(descriptor)
        if descriptor.includePendingChanges, pendingModels(kindOf: q.layout) != nil {
            throw SwiftDataError(
                SwiftDataError.includePendingChangesWithBatchSize.code,
                "a batched fetch reads from the store and cannot include the context's unsaved \(q.layout.name) changes: save first, or set includePendingChanges = false",
                entityName: q.layout.name)
        }
        let keys = try (readsByKeyRange(q, descriptor) ? keyRun(q, descriptor) : nil) ?? storeKeys(q, descriptor)
        let loader = FetchResultsCollection<T>.Loader(
            context: self, table: q.table, keys: keys, batchSize: max(batchSize, 1))
        return FetchResultsCollection(loader: loader)
    }

    /// The keys of the stored rows `descriptor` matches, in fetch order (its sort, then `Z_PK`),
    /// with its offset and limit: `SELECT t."Z_PK" … ORDER BY … LIMIT ? OFFSET ?`.
    func storeKeys<T>(_ q: BoundQuery, _ descriptor: FetchDescriptor<T>) throws -> StoreKeyList {
        let paging = FetchPaging(limit: descriptor.fetchLimit, offset: descriptor.fetchOffset)
        return try withFetchConnection(sql: q.compiled.keyListSQL, table: q.table) { db in
            let stmt = try db.cachedStatement(q.compiled.keyList)
            defer { stmt.reset() }
            try stmt.bind(q.arguments + paging.arguments)
            var out = StoreKeyList()
            while try stmt.step() { out.append(stmt.int64(at: 0)) }
            return out
        }
    }

    /// For a descriptor of ``readsByKeyRange(_:_:)``: its keys when the matching rows' keys have
    /// no gaps, found without reading them — the count (SQLite counts a table's rows without
    /// stepping through them), the first and the last key, in one read transaction, and a run
    /// when the last is the first plus the count less one; `nil` (nothing decided) when there
    /// are gaps.
    func keyRun<T>(_ q: BoundQuery, _ descriptor: FetchDescriptor<T>) throws -> StoreKeyList? {
        let paging = FetchPaging(limit: descriptor.fetchLimit, offset: descriptor.fetchOffset)
        let reads = keyRangeReads(q)
        guard let bounds = try withFetchConnection(sql: q.compiled.countSQL, table: q.table, reads.bounds) else {
            return nil
        }
        let span = bounds.last.subtractingReportingOverflow(bounds.first)
        guard bounds.count == 0 || (!span.overflow && span.partialValue == bounds.count - 1) else { return nil }
        let taken = paging.apply(toCount: Int(bounds.count))
        guard taken > 0 else { return StoreKeyList() }
        return StoreKeyList(run: bounds.first + Int64(paging.offset), count: taken)
    }

    /// At most this many keys go into one `… WHERE t."Z_PK" IN (…)` (SQLite limits bound values).
    static let keysPerSelect = 4_096

    /// The models of the rows with `keys`, in the keys' order (a row deleted since the keys were
    /// read is left out).
    ///
    /// Keys that come in long runs of consecutive numbers (rows in key order with few gaps: the
    /// usual unsorted batch) are read one run at a time, `… WHERE t."Z_PK" BETWEEN ? AND ?`: a
    /// new row never takes a key inside a run (keys are handed out above `Z_MAX`), so a run
    /// reads exactly its keys' rows. Other keys are read with `… WHERE t."Z_PK" IN (…)`, at most
    /// ``keysPerSelect`` per statement.
    func materializeRows<T: PersistentModel>(keys: ArraySlice<Int64>, table: StoreMapping.Table, as: T.Type) throws
        -> [T]
    {
        var runs: [(first: Int64, last: Int64)] = []
        var next = keys.startIndex
        while next < keys.endIndex {
            // One run: the keys that follow on by one (a tight loop, the array of runs untouched).
            let first = keys[next]
            var last = first
            next += 1
            while next < keys.endIndex, keys[next] == last &+ 1 {
                last = keys[next]
                next += 1
            }
            runs.append((first, last))
            if runs.count * 32 > keys.count { break }  // short runs: IN is cheaper
        }
        var byKey: [Int64: any PersistentModel] = [:]
        if runs.count * 32 <= keys.count {
            var complete = true
            var extra: [any PersistentModel] = []
            let sql = StatementSQL(table.selectByKeyRangeSQL)
            // The models are written in place: appending to a `[T]` in this generic code (not
            // specialised for the model) would look up the array's type metadata for every row.
            let rows = try [T](unsafeUninitializedCapacity: keys.count) { buffer, count in
                for run in runs {
                    let before = count
                    try materializeRows(sql, [.integer(run.first), .integer(run.last)], table: table) { m, _ in
                        // A run reads at most its own keys' rows (every key in its range is one of them).
                        guard count < buffer.count else { return extra.append(m) }
                        (buffer.baseAddress! + count).initialize(to: Self.downcast(m, to: T.self))
                        count += 1
                    }
                    // A run reads its keys' rows in key order, each once: all of them are there
                    // exactly when it read as many rows as it has keys.
                    if count - before != Int(run.last - run.first) + 1 { complete = false }
                }
            }
            // Usually no row is missing: then the runs' rows are the answer as they are.
            if complete, extra.isEmpty { return rows }
            byKey.reserveCapacity(rows.count + extra.count)
            for m in rows { byKey[m.persistentBackingData.pk] = m }
            for m in extra { byKey[m.persistentBackingData.pk] = m }
        } else {
            byKey.reserveCapacity(keys.count)
            var rest = keys
            while !rest.isEmpty {
                let chunk = rest.prefix(Self.keysPerSelect)
                rest = rest.dropFirst(chunk.count)
                try materializeRows(
                    StatementSQL(table.selectByKeysSQL(chunk.count)), chunk.map { SQLValue.integer($0) }, table: table
                ) { m, pk in byKey[pk] = m }
            }
        }
        return [T](unsafeUninitializedCapacity: keys.count) { buffer, count in
            for k in keys {
                guard let m = byKey[k] else { continue }
                (buffer.baseAddress! + count).initialize(to: Self.downcast(m, to: T.self))
                count += 1
            }
        }
    }
}

extension ModelContext {
    /// The most rows one statement of ``enumerateKeyRanges(_:_:batchSize:_:)`` reads (a larger
    /// batch is read in parts, so a batch size of `Int.max` reserves no memory for it).
    static let rowsPerRangeRead = 16_384

    /// Whether `enumerate` can read `q`'s rows by key range: an unsorted fetch (key order) with
    /// no predicate, so which stored rows match cannot change while it runs (a row's entity
    /// never does), and the rows of the keys when it started are the rows in their key range.
    func readsByKeyRange<T>(_ q: BoundQuery, _ descriptor: FetchDescriptor<T>) -> Bool {
        descriptor.predicate == nil && descriptor.sortBy.isEmpty && q.compiled.orderBy == "t.\"Z_PK\" ASC"
    }

    /// `enumerate`'s store batches for a descriptor of ``readsByKeyRange(_:_:)``, with no keys read
    /// up front: only the first and last key of the matching rows when it starts (after the
    /// offset, within the limit), then `batchSize` rows at a time from the last key read,
    /// `… WHERE … AND t."Z_PK" BETWEEN ? AND ? ORDER BY t."Z_PK" LIMIT ?`. These are the rows of
    /// the keys it would have read first: a new row's key is above every key handed out
    /// (`Z_MAX`), and a row deleted meanwhile is not read. `body` gets each batch's models.
    func enumerateKeyRanges<T: PersistentModel>(
        _ q: BoundQuery, _ descriptor: FetchDescriptor<T>, batchSize: Int, _ body: ([T]) throws -> Void
    ) throws {
        let paging = FetchPaging(limit: descriptor.fetchLimit, offset: descriptor.fetchOffset)
        let reads = keyRangeReads(q)
        let window = try withFetchConnection(sql: reads.keyAtOffset.text, table: q.table) {
            try reads.window(on: $0, paging)
        }
        guard let window else { return }
        let sql = reads.rowsInRange
        var from = window.first
        var done = false
        while !done {
            var batch: ReleasableBatch<T>?
            while !done, (batch?.models.count ?? 0) < batchSize {
                let want = Swift.min(batchSize - (batch?.models.count ?? 0), Self.rowsPerRangeRead)
                let part: ReleasableBatch<T> = try materializeKeyRange(
                    sql, q, from: from, through: window.last, limit: want)
                // Fewer rows than asked, or the window's last key: nothing is left to read.
                if part.models.count < want || part.keys.last == window.last { done = true }
                if let last = part.keys.last { from = last + 1 }
                batch = batch.map { $0.appending(part) } ?? part
            }
            guard var full = batch, !full.models.isEmpty else { return }
            // `full` alone holds the models now, so `release` finds the ones nothing else holds.
            batch = nil
            try body(full.models)
            release(&full)
        }
    }

    /// The reads by key range of `q` (``KeyRangeReads``).
    func keyRangeReads(_ q: BoundQuery) -> KeyRangeReads {
        KeyRangeReads(
            table: q.table, whereSQL: q.compiled.whereSQL, count: q.compiled.count, arguments: q.arguments)
    }

    /// At most `limit` matching rows of `q` with keys from `from` through `upper`, in key order,
    /// as a batch: with their keys, and which of them the read registered.
    func materializeKeyRange<T: PersistentModel>(
        _ sql: StatementSQL, _ q: BoundQuery, from: Int64, through upper: Int64, limit: Int
    ) throws -> ReleasableBatch<T> {
        let tableKey = ObjectIdentifier(q.table.root)
        let identities = registered.table(tableKey, create: true)!
        // Nothing of the table registered (the usual batch after the one before was released):
        // every row read is the batch's own, and no key is looked up.
        let allFresh = identities.count == 0
        var keys: [Int64] = []
        var fresh: [Bool] = []
        keys.reserveCapacity(limit)
        if !allFresh { fresh.reserveCapacity(limit) }
        let arguments = q.arguments + [.integer(from), .integer(upper), .integer(Int64(limit))]
        // Written in place, as in `materializeRows(keys:table:as:)`; a new model reaches the sink
        // before it is registered, so the identity table tells whether this read registers it.
        let models = try [T](unsafeUninitializedCapacity: limit) { buffer, count in
            try materializeRows(sql, arguments, table: q.table) { m, pk in
                guard count < buffer.count else { return }  // `LIMIT ?`: never
                keys.append(pk)
                if !allFresh { fresh.append(identities.find(pk) == nil) }
                (buffer.baseAddress! + count).initialize(to: Self.downcast(m, to: T.self))
                count += 1
            }
        }
        return ReleasableBatch(models: models, keys: keys[...], fresh: allFresh ? nil : fresh, tableKey: tableKey)
    }
}

extension ModelContext.ReleasableBatch {
    /// This batch followed by `next` (a batch read in parts).
    func appending(_ next: Self) -> Self {
        let fresh: [Bool]? =
            fresh == nil && next.fresh == nil
            ? nil
            : (fresh ?? Array(repeating: true, count: keys.count))
                + (next.fresh ?? Array(repeating: true, count: next.keys.count))
        return Self(
            models: models + next.models, keys: (Array(keys) + next.keys)[...], fresh: fresh, tableKey: tableKey)
    }
}

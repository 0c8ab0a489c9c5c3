import Foundation

extension ModelContext {
    /// The transactions `descriptor` selects, oldest first unless it sorts them.
    ///
    /// ```swift
    /// var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
    /// descriptor.predicate = #Predicate { $0.token > lastToken && $0.author == "widget" }
    /// for transaction in try context.fetchHistory(descriptor) {
    ///     for change in transaction.changes { print(change.changedPersistentIdentifier) }
    /// }
    /// ```
    /// Every save that changed something recorded one transaction (`ATRANSACTION`) with one
    /// change per inserted, updated and deleted row (`ACHANGE`), batch deletes and cascades
    /// included; an upsert into a stored row is an update of that row (HIS-08).
    ///
    /// The predicate runs as SQL where it compares `token`, `transactionIdentifier`,
    /// `timestamp`, `author` or `storeIdentifier` with captured values (HIS-12), so a fetch
    /// after a token reads only the newer transactions; other parts are evaluated in Swift on
    /// the transactions the SQL keeps, with the same result. A sort by `token` or
    /// `transactionIdentifier` and a `fetchLimit` are applied by SQLite when the whole
    /// predicate is SQL (HIS-13); other sorts run in Swift.
    /// - Throws: ``SwiftDataError/historyTokenExpired`` when the predicate compares with a token
    ///   whose transaction ``deleteHistory(_:)`` removed; ``SwiftDataError/unsupportedPredicate``
    ///   for a transaction type other than ``DefaultHistoryTransaction``; what evaluating the
    ///   predicate throws.
    public func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        guard T.self == DefaultHistoryTransaction.self else {
            throw SwiftDataError(
                SwiftDataError.unsupportedPredicate.code,
                "history is recorded as DefaultHistoryTransaction; fetch HistoryDescriptor<DefaultHistoryTransaction>")
        }
        let pushable = stack.stores.count == 1 ? HistorySortPushdown(descriptor.sortBy) : nil
        let conditions = stack.stores.map { store in
            descriptor.predicate.map { HistoryTranslation.condition(of: $0, storeIdentifier: store.identifier) }
        }
        // Exactness does not depend on the store (other stores' tokens fold to constants).
        let exact = conditions.allSatisfy { $0?.isExact ?? true }
        if let predicate = descriptor.predicate {
            // An exact translation visited every captured value; otherwise look everywhere.
            let tokens = exact ? conditions.compactMap { $0?.tokens }.first ?? [] : capturedTokens(in: predicate)
            for store in stack.stores { try checkTokens(tokens, of: store) }
            // Predicate.evaluate recurses once per level; an exact translation has a few levels only.
            if !exact { try PredicateDepth.check(predicate) }
        }
        var all: [DefaultHistoryTransaction] = []
        for (store, condition) in zip(stack.stores, conditions) {
            var selection = HistorySelection()
            if let condition { selection.condition = condition.upper }
            if let pushable {
                selection.descending = pushable.descending
                if exact, let limit = descriptor.fetchLimit, limit >= 0 { selection.limit = limit }
            }
            all += try store.readHistory(selection).map { transaction(from: $0, of: store) }
        }
        // Several stores: their transactions interleave by time (each store's keep their order).
        if stack.stores.count > 1 {
            all = all.enumerated().sorted { ($0.1.timestamp, $0.0) < ($1.1.timestamp, $1.0) }.map(\.1)
        }
        var result = all as! [T]
        if let predicate = descriptor.predicate, !exact {
            result = try result.filter { try predicate.evaluate($0) }
        }
        if !descriptor.sortBy.isEmpty && pushable == nil { result.sort(using: descriptor.sortBy) }
        if let limit = descriptor.fetchLimit, limit >= 0 { result = Array(result.prefix(limit)) }
        return result
    }

    /// Deletes the transactions `descriptor` selects (all of them without a predicate), with
    /// their changes. Tokens of deleted transactions expire: a later ``fetchHistory(_:)``
    /// comparing with one throws ``SwiftDataError/historyTokenExpired``.
    ///
    /// ```swift
    /// try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token < processed }))
    /// ```
    public func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws {
        var selection = HistoryDescriptor<T>(
            predicate: descriptor.predicate, sortBy: descriptor.sortBy, fetchLimit: descriptor.fetchLimit)
        if descriptor.predicate == nil && descriptor.fetchLimit == nil { selection.sortBy = [] }
        let doomed = try fetchHistory(selection)
        for store in stack.stores {
            let keys = doomed.filter { $0.storeIdentifier == store.identifier }.map(\.transactionIdentifier)
            if !keys.isEmpty { try store.deleteTransactions(keys) }
        }
    }

    /// Throws ``SwiftDataError/historyTokenExpired`` when one of `tokens` is of `store` and
    /// names a transaction that was handed out but no longer exists.
    private func checkTokens(_ tokens: [DefaultHistoryToken], of store: SQLiteStore) throws {
        let own = tokens.filter { $0.storeIdentifier == store.identifier }
        guard !own.isEmpty else { return }
        let largest = try store.largestTransactionKey()
        for token in own where token.transactionIdentifier <= largest {
            if try !store.transactionExists(token.transactionIdentifier) {
                throw SwiftDataError(
                    SwiftDataError.historyTokenExpired.code,
                    "the history token \(token) names a transaction that deleteHistory(_:) removed; fetch without it (all remaining history) and store a newer token"
                )
            }
        }
    }

    /// The history tokens captured anywhere in `predicate`.
    private func capturedTokens<T>(in predicate: Predicate<T>) -> [DefaultHistoryToken] {
        var tokens: [DefaultHistoryToken] = []
        collectTokens(predicate.expression, into: &tokens, depth: 0)
        return tokens
    }

    /// The history tokens captured anywhere in an expression tree.
    private func collectTokens(_ value: Any, into tokens: inout [DefaultHistoryToken], depth: Int) {
        if let token = value as? DefaultHistoryToken {
            tokens.append(token)
            return
        }
        guard depth < 64 else { return }
        for child in Mirror(reflecting: value).children { collectTokens(child.value, into: &tokens, depth: depth + 1) }
    }

    /// A stored transaction as the public value.
    private func transaction(from stored: StoredTransaction, of store: SQLiteStore) -> DefaultHistoryTransaction {
        let storeID = store.identifier
        let process = stored.process ?? ""
        return DefaultHistoryTransaction(
            author: stored.author,
            changes: stored.changes.compactMap { change(from: $0, transaction: stored.key, of: store) },
            storeIdentifier: storeID, timestamp: stored.timestamp,
            token: DefaultHistoryToken(storeIdentifier: storeID, transactionIdentifier: stored.key),
            transactionIdentifier: stored.key, bundleIdentifier: stored.bundle ?? process, processIdentifier: process)
    }

    private func change(from stored: StoredChange, transaction: Int64, of store: SQLiteStore) -> HistoryChange? {
        guard let layout = store.mapping.layoutsByEntityNumber[stored.entity] else { return nil }
        return Self.change(
            layout.type, layout: layout, stored: stored, transaction: transaction,
            info: store.mapping.historyInfo(layout), storeIdentifier: store.identifier)
    }

    private static func change<M: PersistentModel>(
        _ type: M.Type, layout: ModelLayout, stored: StoredChange, transaction: Int64,
        info: StoreMapping.HistoryInfo?, storeIdentifier: String
    ) -> HistoryChange? {
        let id = PersistentIdentifier(
            entityName: layout.name, storeIdentifier: storeIdentifier, key: .permanent(stored.entityKey))
        switch stored.kind {
        case 0:
            return .insert(
                DefaultHistoryInsert<M>(
                    changeIdentifier: stored.key, changedPersistentIdentifier: id,
                    transactionIdentifier: transaction))
        case 1:
            let slots = stored.columns.map { info?.slots(in: $0) ?? [] } ?? []
            let keyPaths = slots.compactMap { layout.keyPath(rootedAt: $0) as? PartialKeyPath<M> }
            return .update(
                DefaultHistoryUpdate<M>(
                    changeIdentifier: stored.key, changedPersistentIdentifier: id,
                    transactionIdentifier: transaction, updatedAttributes: keyPaths))
        case 2:
            var values: [(keyPath: PartialKeyPath<M>, value: any Sendable)] = []
            for (slot, sql) in zip(info?.tombstoneSlots ?? [], stored.tombstone) where sql != .null {
                let s = layout.slots[slot]
                guard let keyPath = layout.keyPath(rootedAt: slot) as? PartialKeyPath<M>, let codec = s.codec,
                    let value = codec.decode(sql).flatMap(_flattenOptional)
                else { continue }
                // A decoded attribute value (a value type or a Codable value); `any Sendable` is
                // `Any` with a marker protocol, so the existential is reused as it is.
                let sendable = withUnsafePointer(to: value) {
                    $0.withMemoryRebound(to: (any Sendable).self, capacity: 1) { $0.pointee }
                }
                values.append((keyPath, sendable))
            }
            return .delete(
                DefaultHistoryDelete<M>(
                    changeIdentifier: stored.key, changedPersistentIdentifier: id,
                    transactionIdentifier: transaction, tombstone: HistoryTombstone(values: values)))
        default:
            return nil
        }
    }
}

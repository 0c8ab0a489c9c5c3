import Foundation
import OpenSwiftData

extension ConformanceSuite {
    /// Persistent history: one transaction per save with changes, tokens, authors, tombstones,
    /// batch deletes, upserts and many-to-many saves, read back with `fetchHistory`.
    public static var history: ConformanceSuite {
        ConformanceSuite(
            name: "history", title: "persistent history: transactions, changes, tokens, tombstones",
            cases: [
                ConformanceCase(
                    suite: "history", id: "HIS-01",
                    title: "insert, update, delete in three saves are three transactions in order"
                ) { check in
                    let container = try check.container(for: ConformanceEntry.self, ConformanceReader.self)
                    let context = ModelContext(container)
                    let entry = ConformanceEntry(key: "a", title: "first")
                    context.insert(entry)
                    try context.save()
                    let id = entry.persistentModelID
                    entry.pages = 2
                    try context.save()
                    context.delete(entry)
                    try context.save()
                    let history = try check.history(in: container)
                    try check.expectEqual(
                        history.map { $0.changes.map(HistoryShape.init) },
                        [[HistoryShape(.insert, id)], [HistoryShape(.update, id)], [HistoryShape(.delete, id)]],
                        "the changes of each transaction")
                    let identifiers = history.map(\.transactionIdentifier)
                    try check.expectEqual(
                        identifiers, identifiers.sorted(), "transactions in the order they were saved")
                    try check.expectEqual(Set(identifiers).count, 3, "distinct transactions")
                    try check.expectEqual(
                        history.map(\.token), history.map(\.token).sorted(), "tokens order as the saves")
                    guard case .update(let update as DefaultHistoryUpdate<ConformanceEntry>) = history[1].changes.first
                    else {
                        throw check.failure(
                            "the second change", expected: "a DefaultHistoryUpdate<ConformanceEntry>",
                            actual: "\(history[1].changes)")
                    }
                    try check.expect(
                        update.updatedAttributes.contains(\ConformanceEntry.pages),
                        "updatedAttributes contains \\.pages",
                        actual: "\(update.updatedAttributes)")
                    try check.expect(
                        !update.updatedAttributes.contains(\ConformanceEntry.title),
                        "updatedAttributes leaves out \\.title",
                        actual: "\(update.updatedAttributes)")
                    try check.expect(
                        history.allSatisfy {
                            $0.storeIdentifier == id.storeIdentifier && $0.token.storeIdentifier == id.storeIdentifier
                        },
                        "every transaction and token names the model's store",
                        actual: "\(history.map(\.storeIdentifier))")
                    try check.expect(
                        history[0].timestamp <= history[2].timestamp, "timestamps in save order",
                        actual: "\(history.map(\.timestamp))")
                    try check.expectEqual(
                        history[0].processIdentifier, ProcessInfo.processInfo.processName, "the process identifier")
                },
                ConformanceCase(
                    suite: "history", id: "HIS-02",
                    title: "two inserts in one save are one transaction with two inserts"
                ) { check in
                    let container = try check.container(for: ConformanceEntry.self, ConformanceReader.self)
                    let context = ModelContext(container)
                    let a = ConformanceEntry(key: "a", title: "A")
                    let b = ConformanceEntry(key: "b", title: "B")
                    context.insert(a)
                    context.insert(b)
                    try context.save()
                    let history = try check.history(in: container)
                    try check.expectEqual(history.count, 1, "transactions")
                    try check.expectEqual(
                        Set(history.first?.changes.map(HistoryShape.init) ?? []),
                        [HistoryShape(.insert, a.persistentModelID), HistoryShape(.insert, b.persistentModelID)],
                        "the transaction's changes")
                    try check.expectEqual(history.first?.changes.count, 2, "changes (no duplicates)")
                },
                ConformanceCase(
                    suite: "history", id: "HIS-03",
                    title: "a delete's tombstone holds the .preserveValueOnDeletion values only"
                ) { check in
                    let container = try check.container(for: ConformanceEntry.self, ConformanceReader.self)
                    let context = ModelContext(container)
                    let entry = ConformanceEntry(key: "k", title: "kept", body: "dropped", pages: 7)
                    context.insert(entry)
                    try context.save()
                    context.delete(entry)
                    try context.save()
                    let tombstones = try check.tombstones(in: check.history(in: container).last)
                    try check.expectEqual(tombstones.count, 1, "delete changes")
                    let tombstone = tombstones[0]
                    try check.expectEqual(tombstone[\ConformanceEntry.title] as? String, "kept", "tombstone[\\.title]")
                    try check.expect(
                        tombstone[\ConformanceEntry.body] == nil, "tombstone[\\.body] is absent",
                        actual: "\(String(describing: tombstone[\ConformanceEntry.body]))")
                    try check.expect(
                        tombstone[\ConformanceEntry.pages] == nil, "tombstone[\\.pages] is absent",
                        actual: "\(String(describing: tombstone[\ConformanceEntry.pages]))")
                    try check.expectEqual(Array(tombstone).count, 1, "preserved values")
                },
                ConformanceCase(
                    suite: "history", id: "HIS-04", title: "a token > t1 predicate returns only later transactions"
                ) { check in
                    let container = try check.container(for: ConformanceEntry.self, ConformanceReader.self)
                    let context = ModelContext(container)
                    for key in ["a", "b", "c"] {
                        context.insert(ConformanceEntry(key: key, title: key))
                        try context.save()
                    }
                    let all = try check.history(in: container)
                    try check.expectEqual(all.count, 3, "transactions")
                    let t1 = all[0].token
                    let later = try check.history(
                        in: container, HistoryDescriptor(predicate: #Predicate { $0.token > t1 }))
                    try check.expectEqual(
                        later.map(\.transactionIdentifier), all.dropFirst().map(\.transactionIdentifier),
                        "transactions after t1")
                    // Tokens are Codable: a token kept across launches compares equal after a round trip.
                    let decoded = try JSONDecoder().decode(DefaultHistoryToken.self, from: JSONEncoder().encode(t1))
                    try check.expectEqual(decoded, t1, "t1 after a JSON round trip")
                    let again = try check.history(
                        in: container, HistoryDescriptor(predicate: #Predicate { $0.token > decoded }))
                    try check.expectEqual(
                        again.map(\.transactionIdentifier), later.map(\.transactionIdentifier),
                        "transactions after the decoded t1")
                },
                ConformanceCase(
                    suite: "history", id: "HIS-05",
                    title: "an author predicate returns only that context's transactions"
                ) { check in
                    let container = try check.container(for: ConformanceEntry.self, ConformanceReader.self)
                    let app = ModelContext(container)
                    let widget = ModelContext(container)
                    app.author = "app"
                    widget.author = "widget"
                    app.insert(ConformanceEntry(key: "a", title: "from the app"))
                    try app.save()
                    let fromWidget = ConformanceEntry(key: "w", title: "from the widget")
                    widget.insert(fromWidget)
                    try widget.save()
                    app.insert(ConformanceEntry(key: "b", title: "from the app again"))
                    try app.save()
                    let all = try check.history(in: container)
                    try check.expectEqual(all.map(\.author), ["app", "widget", "app"], "authors in save order")
                    let author = "widget"
                    let mine = try check.history(
                        in: container, HistoryDescriptor(predicate: #Predicate { $0.author == author }))
                    try check.expectEqual(
                        mine.map { $0.changes.map(HistoryShape.init) },
                        [[HistoryShape(.insert, fromWidget.persistentModelID)]],
                        "the widget's transactions")
                },
                ConformanceCase(
                    suite: "history", id: "HIS-06", title: "deleteHistory before t2 expires t1; t2 still works"
                ) { check in
                    let container = try check.container(for: ConformanceEntry.self, ConformanceReader.self)
                    let context = ModelContext(container)
                    for key in ["a", "b", "c"] {
                        context.insert(ConformanceEntry(key: key, title: key))
                        try context.save()
                    }
                    let all = try check.history(in: container)
                    try check.expectEqual(all.count, 3, "transactions before deleteHistory")
                    let t1 = all[0].token
                    let t2 = all[1].token
                    let t3 = all[2].token
                    try context.deleteHistory(
                        HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token < t2 }))
                    let reader = ModelContext(try check.reopen(container))
                    try check.expectError(.historyTokenExpired, "fetchHistory with the deleted t1") {
                        try reader.fetchHistory(
                            HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > t1 }))
                    }
                    let after = try check.history(
                        in: container, HistoryDescriptor(predicate: #Predicate { $0.token > t2 }))
                    try check.expectEqual(after.map(\.token), [t3], "transactions after t2")
                    try check.expectEqual(try check.history(in: container).map(\.token), [t2, t3], "the history left")
                },
                ConformanceCase(
                    suite: "history", id: "HIS-07",
                    title: "a batch delete records a delete with its tombstone for every row"
                ) { check in
                    let container = try check.container(for: ConformanceEntry.self, ConformanceReader.self)
                    let context = ModelContext(container)
                    for i in 0..<5 { context.insert(ConformanceEntry(key: "k\(i)", title: "t\(i)", pages: i)) }
                    try context.save()
                    let doomed = Set(
                        try context.fetch(FetchDescriptor(predicate: #Predicate<ConformanceEntry> { $0.pages >= 2 }))
                            .map(\.persistentModelID))
                    try context.delete(model: ConformanceEntry.self, where: #Predicate { $0.pages >= 2 })
                    try context.save()
                    let history = try check.history(in: container)
                    try check.expectEqual(history.count, 2, "transactions (the inserts, then the batch delete)")
                    try check.expectEqual(
                        Set(history.last?.changes.map(HistoryShape.init) ?? []),
                        Set(doomed.map { HistoryShape(.delete, $0) }), "the batch delete's changes")
                    let titles = try check.tombstones(in: history.last).compactMap {
                        $0[\ConformanceEntry.title] as? String
                    }
                    try check.expectEqual(titles.sorted(), ["t2", "t3", "t4"], "preserved titles")
                },
                ConformanceCase(
                    suite: "history", id: "HIS-08", title: "[REC] an upsert into a stored row is an update of that row"
                ) { check in
                    let container = try check.container(for: ConformanceEntry.self, ConformanceReader.self)
                    let context = ModelContext(container)
                    let original = ConformanceEntry(key: "same", title: "v1")
                    context.insert(original)
                    try context.save()
                    let id = original.persistentModelID
                    context.insert(ConformanceEntry(key: "same", title: "v2", pages: 3))
                    try context.save()
                    let history = try check.history(in: container)
                    try check.expectEqual(history.count, 2, "transactions")
                    try check.expectEqual(
                        history.last?.changes.map(HistoryShape.init), [HistoryShape(.update, id)],
                        "the upsert's changes")
                    try check.expectEqual(
                        try check.storedCount(ConformanceEntry.self, in: container), 1, "rows after the upsert")
                },
                ConformanceCase(
                    suite: "history", id: "HIS-09",
                    title: "many-to-many saves record updates on both sides and read back"
                ) { check in
                    let container = try check.container(for: ConformanceEntry.self, ConformanceReader.self)
                    let context = ModelContext(container)
                    let entry = ConformanceEntry(key: "e", title: "E")
                    let reader = ConformanceReader(name: "r")
                    entry.readers = [reader]
                    context.insert(entry)
                    try context.save()
                    let other = ConformanceReader(name: "s")
                    context.insert(other)
                    try context.save()
                    entry.readers.append(other)
                    try context.save()
                    entry.readers.removeAll()
                    try context.save()
                    let history = try check.history(in: container)
                    try check.expectEqual(history.count, 4, "transactions")
                    try check.expectEqual(
                        Set(history[0].changes.map(HistoryShape.init)),
                        [
                            HistoryShape(.insert, entry.persistentModelID),
                            HistoryShape(.insert, reader.persistentModelID),
                        ],
                        "inserting a linked pair")
                    for (index, readers) in [(2, [other]), (3, [reader, other])] {
                        try check.within("transaction=\(index + 1)") {
                            let shapes = Set(history[index].changes.map(HistoryShape.init))
                            let expected = Set(
                                [HistoryShape(.update, entry.persistentModelID)]
                                    + readers.map { HistoryShape(.update, $0.persistentModelID) })
                            try check.expectEqual(shapes, expected, "updates on both sides")
                            let updated = history[index].changes.compactMap {
                                change -> [PartialKeyPath<ConformanceEntry>]? in
                                if case .update(let u as DefaultHistoryUpdate<ConformanceEntry>) = change {
                                    return u.updatedAttributes
                                }
                                return nil
                            }
                            try check.expectEqual(
                                updated, [[\ConformanceEntry.readers]], "the entry's updatedAttributes")
                        }
                    }
                },
                ConformanceCase(
                    suite: "history", id: "HIS-10",
                    title: "sortBy reverse with fetchLimit 1 returns the latest transaction"
                ) { check in
                    let container = try check.container(for: ConformanceEntry.self, ConformanceReader.self)
                    let context = ModelContext(container)
                    for key in ["a", "b", "c", "d"] {
                        context.insert(ConformanceEntry(key: key, title: key))
                        try context.save()
                    }
                    let all = try check.history(in: container)
                    var latest = HistoryDescriptor<DefaultHistoryTransaction>()
                    latest.sortBy = [SortDescriptor(\.transactionIdentifier, order: .reverse)]
                    latest.fetchLimit = 1
                    let got = try check.history(in: container, latest)
                    try check.expectEqual(got.map(\.token), all.suffix(1).map(\.token), "the latest transaction")
                    try check.expectEqual(got.first?.token, all.map(\.token).max(), "the largest token")
                },
                ConformanceCase(suite: "history", id: "HIS-11", title: "a save with no changes records no transaction")
                { check in
                    let container = try check.container(for: ConformanceEntry.self, ConformanceReader.self)
                    let context = ModelContext(container)
                    try context.save()
                    try check.expectEqual(try check.history(in: container).count, 0, "transactions after an empty save")
                    let entry = ConformanceEntry(key: "a", title: "A")
                    context.insert(entry)
                    try context.save()
                    try context.save()
                    _ = try context.fetch(FetchDescriptor<ConformanceEntry>())
                    try context.save()
                    let transient = ConformanceEntry(key: "t", title: "T")
                    context.insert(transient)
                    context.delete(transient)
                    try context.save()
                    try check.expectEqual(
                        try check.history(in: container).count, 1, "transactions after saves without changes")
                },
            ])
    }
}

/// A change reduced to what the HIS- cases compare: its kind and the changed row.
struct HistoryShape: Hashable, CustomStringConvertible {
    enum Kind: String { case insert, update, delete }
    let kind: Kind
    let id: PersistentIdentifier

    init(_ kind: Kind, _ id: PersistentIdentifier) {
        self.kind = kind
        self.id = id
    }

    init(_ change: HistoryChange) {
        switch change {
        case .insert: kind = .insert
        case .update: kind = .update
        case .delete: kind = .delete
        }
        id = change.changedPersistentIdentifier
    }

    var description: String { "\(kind.rawValue)(\(id.entityName) \(id))" }
}

extension ConformanceCheck {
    /// The history `descriptor` selects, read through a fresh context on a reopened container.
    ///
    /// ```swift
    /// let history = try check.history(in: container)
    /// ```
    package func history(
        in container: ModelContainer,
        _ descriptor: HistoryDescriptor<DefaultHistoryTransaction> = HistoryDescriptor()
    ) throws -> [DefaultHistoryTransaction] {
        try expectNoError("fetchHistory") { try ModelContext(reopen(container)).fetchHistory(descriptor) }
    }

    /// The tombstones of the entry deletes of `transaction`, in change order.
    func tombstones(in transaction: DefaultHistoryTransaction?) throws -> [HistoryTombstone<ConformanceEntry>] {
        guard let transaction else {
            throw failure("a transaction to read tombstones from", expected: "a transaction", actual: "none")
        }
        return transaction.changes.compactMap { change in
            if case .delete(let d as DefaultHistoryDelete<ConformanceEntry>) = change { return d.tombstone }
            return nil
        }
    }
}

import Foundation
import OpenSwiftData

extension ConformanceSuite {
    /// Context lifecycle: change tracking, save, rollback, identity.
    public static var lifecycle: ConformanceSuite {
        ConformanceSuite(
            name: "lifecycle", title: "change tracking, save, rollback and identity",
            cases: [
                ConformanceCase(
                    suite: "lifecycle", id: "CTX-01", title: "insert marks the context changed and lists the model"
                ) { check in
                    let context = ModelContext(try check.container(for: ConformanceRecord.self))
                    try check.expectEqual(context.hasChanges, false, "hasChanges of a new context")
                    let record = ConformanceRecord(name: "a", number: 1)
                    context.insert(record)
                    try check.expectEqual(context.hasChanges, true, "hasChanges after insert")
                    try check.expect(
                        context.insertedModelsArray.contains { $0 === record }, "the model is in insertedModelsArray")
                    try context.save()
                    try check.expectEqual(context.hasChanges, false, "hasChanges after save")
                },
                ConformanceCase(
                    suite: "lifecycle", id: "CTX-01",
                    title: "the identifier is temporary until save, then permanent and stable across a reopen"
                ) { check in
                    let container = try check.container(for: ConformanceRecord.self)
                    let context = ModelContext(container)
                    let record = ConformanceRecord(name: "a", number: 1)
                    context.insert(record)
                    let temporary = record.persistentModelID
                    try check.expectEqual(temporary.isTemporary, true, "isTemporary before save")
                    try check.expectEqual(temporary.entityName, "ConformanceRecord", "entityName")
                    try context.save()
                    let permanent = record.persistentModelID
                    try check.expectEqual(permanent.isTemporary, false, "isTemporary after save")
                    try check.expect(
                        permanent != temporary, "the permanent identifier differs from the temporary one",
                        actual: "equal")
                    try check.expect(
                        permanent.primaryKey != nil, "the permanent identifier has a primary key", actual: "nil")
                    try check.expect(
                        permanent.storeIdentifier != nil, "the permanent identifier names its store", actual: "nil")
                    try check.expectEqual(
                        context.insertedModelsArray.count + context.changedModelsArray.count
                            + context.deletedModelsArray.count, 0,
                        "pending models after save")
                    try check.expectEqual(
                        try context.fetch(FetchDescriptor<ConformanceRecord>()).map(\.persistentModelID), [permanent],
                        "identifier on refetch")
                    let fresh = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceRecord>())
                    try check.expectEqual(fresh.map(\.persistentModelID), [permanent], "identifier in a reopened store")
                    try check.expectEqual(fresh.map(\.name), ["a"], "name in a reopened store")
                },
                ConformanceCase(
                    suite: "lifecycle", id: "CTX-02",
                    title: "a change to a saved model is tracked; rollback restores the saved values"
                ) { check in
                    let container = try check.container(for: ConformanceRecord.self)
                    let context = ModelContext(container)
                    let record = ConformanceRecord(name: "saved", number: 1, note: "kept")
                    context.insert(record)
                    try context.save()
                    record.name = "edited"
                    record.note = nil
                    try check.expectEqual(context.hasChanges, true, "hasChanges after an edit")
                    try check.expect(
                        context.changedModelsArray.count == 1 && context.changedModelsArray.first === record,
                        "changedModelsArray holds the model", actual: "\(context.changedModelsArray.count) models")
                    try check.expectEqual(context.insertedModelsArray.count, 0, "insertedModelsArray after an edit")
                    try check.expectEqual(record.hasChanges, true, "the model's hasChanges after an edit")
                    context.rollback()
                    try check.expectEqual(record.name, "saved", "name after rollback")
                    try check.expectEqual(record.note, "kept", "note after rollback")
                    try check.expectEqual(context.hasChanges, false, "hasChanges after rollback")
                    try check.expectEqual(context.changedModelsArray.count, 0, "changedModelsArray after rollback")
                    try check.expectEqual(record.hasChanges, false, "the model's hasChanges after rollback")
                    try context.save()
                    let stored = try ModelContext(try check.reopen(container)).fetch(
                        FetchDescriptor<ConformanceRecord>())
                    try check.expectEqual(
                        stored.map { "\($0.name) \($0.note ?? "nil")" }, ["saved kept"], "stored values")
                },
                ConformanceCase(
                    suite: "lifecycle", id: "CTX-03",
                    title: "rollback after insert discards the model; rollback of a delete restores it"
                ) { check in
                    let container = try check.container(for: ConformanceRecord.self)
                    let context = ModelContext(container)
                    let kept = ConformanceRecord(name: "kept", number: 1)
                    context.insert(kept)
                    try context.save()
                    context.insert(ConformanceRecord(name: "discarded", number: 2))
                    context.delete(kept)
                    try check.expectEqual(
                        try context.fetch(FetchDescriptor<ConformanceRecord>()).map(\.name), ["discarded"],
                        "fetch with pending insert and delete")
                    context.rollback()
                    try check.expectEqual(context.insertedModelsArray.count, 0, "insertedModelsArray after rollback")
                    try check.expectEqual(context.deletedModelsArray.count, 0, "deletedModelsArray after rollback")
                    try check.expectEqual(kept.isDeleted, false, "isDeleted of the restored model")
                    try check.expectEqual(context.hasChanges, false, "hasChanges after rollback")
                    try check.expectEqual(
                        try context.fetch(FetchDescriptor<ConformanceRecord>()).map(\.name), ["kept"],
                        "fetch after rollback")
                    try check.expectEqual(
                        try context.fetchCount(FetchDescriptor<ConformanceRecord>()), 1, "fetchCount after rollback")
                    try context.save()
                    try check.expectEqual(
                        try check.stored(ConformanceRecord.self, in: container, key: \.name), ["kept"],
                        "stored after rollback and save")
                },
                ConformanceCase(
                    suite: "lifecycle", id: "CTX-04",
                    title: "autosaveEnabled is false on a new context and true on mainContext"
                ) { check in
                    let container = try check.container(for: ConformanceRecord.self)
                    try check.expectEqual(
                        ModelContext(container).autosaveEnabled, false, "autosaveEnabled of ModelContext(container)")
                    try check.expectEqual(container.mainContext.autosaveEnabled, true, "autosaveEnabled of mainContext")
                    try check.expect(
                        container.mainContext === container.mainContext, "mainContext is one object",
                        actual: "two objects")
                    try check.expect(
                        container.mainContext.container === container, "mainContext's container",
                        actual: "another container")
                },
                ConformanceCase(
                    suite: "lifecycle", id: "CTX-05",
                    title: "[REC] with autosave a change is saved at processPendingChanges()"
                ) { check in
                    let container = try check.container(for: ConformanceRecord.self)
                    let main = container.mainContext
                    main.insert(ConformanceRecord(name: "auto", number: 1))
                    try check.expectEqual(
                        try ModelContext(container).fetchCount(FetchDescriptor<ConformanceRecord>()), 0,
                        "stored before processPendingChanges")
                    main.processPendingChanges()
                    try check.expectEqual(main.hasChanges, false, "hasChanges after processPendingChanges")
                    try check.expectEqual(
                        try check.stored(ConformanceRecord.self, in: container, key: \.name), ["auto"],
                        "stored after processPendingChanges")
                    let manual = ModelContext(container)
                    manual.insert(ConformanceRecord(name: "manual", number: 2))
                    manual.processPendingChanges()
                    try check.expectEqual(manual.hasChanges, true, "a context without autosave keeps its changes")
                },
                ConformanceCase(suite: "lifecycle", id: "CTX-06", title: "transaction saves the block's changes") {
                    check in
                    let container = try check.container(for: ConformanceRecord.self)
                    let context = ModelContext(container)
                    try context.transaction {
                        context.insert(ConformanceRecord(name: "a", number: 1))
                        context.insert(ConformanceRecord(name: "b", number: 2))
                    }
                    try check.expectEqual(context.hasChanges, false, "hasChanges after the transaction")
                    try check.expectEqual(
                        try check.stored(ConformanceRecord.self, in: container, key: \.name), ["a", "b"],
                        "stored after the transaction")
                },
                ConformanceCase(
                    suite: "lifecycle", id: "CTX-07",
                    title: "[REC] a throwing transaction block rethrows and saves nothing; changes stay pending"
                ) { check in
                    let container = try check.container(for: ConformanceRecord.self)
                    let context = ModelContext(container)
                    do {
                        try context.transaction {
                            context.insert(ConformanceRecord(name: "a", number: 1))
                            throw LifecycleMarker()
                        }
                        throw check.failure(
                            "the transaction's error", expected: "LifecycleMarker rethrown", actual: "no error")
                    } catch is LifecycleMarker {
                    }
                    try check.expectEqual(
                        try check.storedCount(ConformanceRecord.self, in: container), 0,
                        "stored after the failed transaction")
                    try check.expectEqual(
                        context.insertedModelsArray.count, 1, "pending inserts after the failed transaction")
                    try check.expectEqual(context.hasChanges, true, "hasChanges after the failed transaction")
                },
                ConformanceCase(
                    suite: "lifecycle", id: "CTX-08",
                    title: "registeredModel is nil in a fresh context and the fetched instance after a fetch"
                ) { check in
                    let container = try check.container(for: ConformanceRecord.self)
                    let writer = ModelContext(container)
                    let record = ConformanceRecord(name: "x", number: 7)
                    writer.insert(record)
                    try check.expect(
                        (writer.registeredModel(for: record.persistentModelID) as ConformanceRecord?) === record,
                        "registered in the inserting context before save", actual: "not registered")
                    try writer.save()
                    let id = record.persistentModelID
                    try check.expect(
                        (writer.registeredModel(for: id) as ConformanceRecord?) === record,
                        "registered in the inserting context under its permanent identifier after save",
                        actual: "not registered")
                    let reader = ModelContext(try check.reopen(container))
                    try check.expect(
                        (reader.registeredModel(for: id) as ConformanceRecord?) == nil,
                        "registeredModel in a fresh context",
                        expected: "nil", actual: "a model")
                    let fetched = try reader.fetch(FetchDescriptor<ConformanceRecord>())
                    try check.expectEqual(fetched.count, 1, "rows fetched")
                    try check.expect(
                        (reader.registeredModel(for: id) as ConformanceRecord?) === fetched.first,
                        "registeredModel after a fetch",
                        actual: "not the fetched instance")
                    try check.expect(
                        (reader.registeredModel(for: id) as ConformanceAccount?) == nil,
                        "registeredModel with the wrong type",
                        expected: "nil", actual: "a model")
                },
                ConformanceCase(
                    suite: "lifecycle", id: "CTX-09",
                    title: "model(for:) in a fresh context loads the stored attributes, one instance per row"
                ) { check in
                    let container = try check.container(for: ConformanceRecord.self)
                    let writer = ModelContext(container)
                    let date = Date(timeIntervalSince1970: 86_400 * 3)
                    writer.insert(
                        ConformanceRecord(
                            name: "lazy", number: 42, amount: 1.5, note: "n", rank: 2, flag: true, date: date))
                    try writer.save()
                    let id = try writer.fetchIdentifiers(FetchDescriptor<ConformanceRecord>())[0]
                    let reader = ModelContext(try check.reopen(container))
                    let model = reader.model(for: id)
                    try check.expectEqual(model.persistentModelID, id, "identifier of model(for:)")
                    guard let loaded = model as? ConformanceRecord else {
                        throw check.failure(
                            "type of model(for:)", expected: "ConformanceRecord", actual: "\(type(of: model))")
                    }
                    try check.expectEqual(
                        "\(loaded.name) \(loaded.number) \(loaded.amount) \(loaded.note ?? "-") \(loaded.rank ?? -1) \(loaded.flag) \(loaded.date == date)",
                        "lazy 42 1.5 n 2 true true", "loaded attributes")
                    try check.expectEqual(loaded.isDeleted, false, "isDeleted of the loaded model")
                    try check.expect(
                        loaded.modelContext === reader, "the loaded model's context", actual: "another context")
                    try check.expect(
                        reader.model(for: id) as? ConformanceRecord === loaded,
                        "model(for:) again gives the same instance", actual: "another")
                    try check.expect(
                        try reader.fetch(FetchDescriptor<ConformanceRecord>()).first === loaded,
                        "fetch gives the same instance", actual: "another")
                },
                ConformanceCase(
                    suite: "lifecycle", id: "CTX-10",
                    title: "willSave then didSave post once per save with the inserted/updated/deleted identifiers"
                ) { check in
                    let container = try check.container(for: ConformanceRecord.self)
                    let context = ModelContext(container)
                    let keep = ConformanceRecord(name: "keep", number: 1)
                    let doomed = ConformanceRecord(name: "doomed", number: 2)
                    context.insert(keep)
                    context.insert(doomed)
                    try context.save()
                    let recorder = SaveRecorder(context)
                    let added = ConformanceRecord(name: "added", number: 3)
                    context.insert(added)
                    keep.number = 10
                    let doomedID = doomed.persistentModelID
                    context.delete(doomed)
                    try context.save()
                    let events = recorder.events
                    try check.expectEqual(
                        events.map(\.name), [ModelContext.willSave, ModelContext.didSave], "notifications posted")
                    try check.expectEqual(events.first?.hasUserInfo, false, "willSave has no user info")
                    try check.expectEqual(events.last?.inserted, [added.persistentModelID], "inserted identifiers")
                    try check.expectEqual(events.last?.updated, [keep.persistentModelID], "updated identifiers")
                    try check.expectEqual(events.last?.deleted, [doomedID], "deleted identifiers")
                    try check.expect(
                        events.last?.inserted.allSatisfy { !$0.isTemporary } ?? false,
                        "inserted identifiers are permanent", actual: "temporary")
                    let other = ModelContext(container)
                    other.insert(ConformanceRecord(name: "elsewhere", number: 4))
                    try other.save()
                    try check.expectEqual(recorder.events.count, 2, "notifications after another context saved")
                },
                ConformanceCase(
                    suite: "lifecycle", id: "CTX-11",
                    title: "[REC] a save in B is seen by a new fetch in A and refreshes A's unmodified instance"
                ) { check in
                    let container = try check.container(for: ConformanceRecord.self)
                    let seed = ModelContext(container)
                    seed.insert(ConformanceRecord(name: "old", number: 1))
                    try seed.save()
                    let a = ModelContext(container)
                    let b = ModelContext(container)
                    let inA = try a.fetch(FetchDescriptor<ConformanceRecord>())[0]
                    let inB = try b.fetch(FetchDescriptor<ConformanceRecord>())[0]
                    try check.expect(inA !== inB, "each context has its own instance", actual: "shared")
                    inB.name = "new"
                    inB.number = 2
                    b.insert(ConformanceRecord(name: "added", number: 3))
                    try b.save()
                    let again = try a.fetch(FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.number)]))
                    try check.expectEqual(again.map(\.name), ["new", "added"], "A's new fetch")
                    try check.expect(again.first === inA, "A keeps one instance per row", actual: "another instance")
                    try check.expectEqual(inA.name, "new", "A's registered instance")
                    try check.expectEqual(inA.number, 2, "A's registered instance's number")
                    try check.expectEqual(a.hasChanges, false, "A has no changes")
                    let matching = try a.fetch(
                        FetchDescriptor<ConformanceRecord>(predicate: #Predicate { $0.name == "new" }))
                    try check.expect(
                        matching.count == 1 && matching.first === inA,
                        "a predicate on B's saved value finds A's instance",
                        actual: "\(matching.count) models")
                },
                ConformanceCase(
                    suite: "lifecycle", id: "CTX-11",
                    title: "[REC] a refetch in A keeps A's own pending change over B's saved one"
                ) { check in
                    let container = try check.container(for: ConformanceRecord.self)
                    let seed = ModelContext(container)
                    seed.insert(ConformanceRecord(name: "x", number: 1, amount: 1))
                    try seed.save()
                    let a = ModelContext(container)
                    let b = ModelContext(container)
                    let inA = try a.fetch(FetchDescriptor<ConformanceRecord>())[0]
                    inA.amount = 5
                    try b.fetch(FetchDescriptor<ConformanceRecord>())[0].number = 9
                    try b.save()
                    _ = try a.fetch(FetchDescriptor<ConformanceRecord>())
                    try check.expectEqual(inA.amount, 5, "A's pending amount")
                    try check.expectEqual(a.hasChanges, true, "A keeps its changes")
                    try check.expectEqual(a.changedModelsArray.count, 1, "A's changed models")
                },
                ConformanceCase(
                    suite: "lifecycle", id: "CTX-11",
                    title: "[REC] a save makes a new row version: with mergePolicy .error, A's stale change throws"
                ) { check in
                    var configuration =
                        check.store == .memory
                        ? ModelConfiguration(isStoredInMemoryOnly: true)
                        : ModelConfiguration(url: check.scratch.file("strict.store"))
                    configuration.mergePolicy = .error
                    let container = try ModelContainer(for: ConformanceRecord.self, configurations: configuration)
                    let seed = ModelContext(container)
                    seed.insert(ConformanceRecord(name: "x", number: 1))
                    try seed.save()
                    let a = ModelContext(container)
                    let b = ModelContext(container)
                    let inA = try a.fetch(FetchDescriptor<ConformanceRecord>())[0]
                    try b.fetch(FetchDescriptor<ConformanceRecord>())[0].number = 2
                    try b.save()
                    inA.number = 10
                    try check.expectError(.mergeConflict, "A's save of a row B saved since A read it") { try a.save() }
                    let stored = try ModelContext(container).fetch(FetchDescriptor<ConformanceRecord>())
                    try check.expectEqual(stored.map(\.number), [2], "the stored number (B's)")
                },
                ConformanceCase(
                    suite: "lifecycle", id: "CTX-12", title: "a save with no changes posts nothing and writes nothing"
                ) { check in
                    let container = try check.container(for: ConformanceRecord.self)
                    let context = ModelContext(container)
                    let recorder = SaveRecorder(context)
                    try context.save()
                    try check.expectEqual(recorder.events.count, 0, "notifications after an empty save")
                    context.insert(ConformanceRecord(name: "a", number: 1))
                    try context.save()
                    try context.save()
                    try check.expectEqual(
                        recorder.events.map(\.name), [ModelContext.willSave, ModelContext.didSave],
                        "notifications after one real and one empty save")
                    context.insert(ConformanceRecord(name: "b", number: 2))
                    context.rollback()
                    try context.save()
                    try check.expectEqual(recorder.events.count, 2, "notifications after insert, rollback, save")
                    try check.expectEqual(
                        try check.storedCount(ConformanceRecord.self, in: container), 1, "rows stored")
                },
                ConformanceCase(
                    suite: "lifecycle", id: "PID-01",
                    title: "an identifier survives JSON encoding and a reopen, and model(for:) finds the row"
                ) { check in
                    let container = try check.container(for: ConformanceRecord.self)
                    let context = ModelContext(container)
                    context.insert(ConformanceRecord(name: "first", number: 1))
                    let record = ConformanceRecord(name: "coded", number: 5, note: "still here")
                    context.insert(record)
                    try context.save()
                    let id = record.persistentModelID
                    let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: JSONEncoder().encode(id))
                    try check.expectEqual(decoded, id, "decoded identifier")
                    try check.expectEqual(decoded.hashValue, id.hashValue, "hash of the decoded identifier")
                    try check.expectEqual(decoded.storeIdentifier, id.storeIdentifier, "storeIdentifier")
                    try check.expectEqual(
                        decoded.entityName, "ConformanceRecord", "entityName of the decoded identifier")
                    try check.expectEqual(decoded.isTemporary, false, "isTemporary of the decoded identifier")
                    let map = [id: "coded"]
                    let back = try JSONDecoder().decode(
                        [PersistentIdentifier: String].self, from: JSONEncoder().encode(map))
                    try check.expectEqual(back, map, "a dictionary keyed by identifiers after JSON")
                    let reader = ModelContext(try check.reopen(container))
                    guard let found = reader.model(for: decoded) as? ConformanceRecord else {
                        throw check.failure(
                            "model(for: decoded)", expected: "a ConformanceRecord",
                            actual: "\(type(of: reader.model(for: decoded)))")
                    }
                    try check.expectEqual(
                        "\(found.name) \(found.number) \(found.note ?? "-")", "coded 5 still here",
                        "attributes of the found row")
                    try check.expectEqual(found.persistentModelID, id, "identifier of the found model")
                    try check.expectEqual(found.isDeleted, false, "isDeleted of the found model")
                    try check.expect(
                        (reader.registeredModel(for: decoded) as ConformanceRecord?) === found,
                        "the found model is registered",
                        actual: "not registered")
                    let fetched = try reader.fetch(
                        FetchDescriptor<ConformanceRecord>(predicate: #Predicate { $0.number == 5 }))
                    try check.expectEqual(
                        fetched.map(\.persistentModelID), [id], "identifier of a fetch in the reopened store")
                    try check.expect(
                        fetched.first === found, "the fetch gives the found instance", actual: "another instance")
                    try check.expectEqual(
                        fetched.first?.persistentModelID.storeIdentifier, id.storeIdentifier,
                        "storeIdentifier after the reopen")
                },
                ConformanceCase(
                    suite: "lifecycle", id: "PID-01",
                    title:
                        "a temporary identifier is stable until save, Codable, finds its model, and differs from the permanent one"
                ) { check in
                    let context = ModelContext(try check.container(for: ConformanceRecord.self))
                    let record = ConformanceRecord(name: "t", number: 1)
                    context.insert(record)
                    let temporary = record.persistentModelID
                    try check.expectEqual(temporary.isTemporary, true, "isTemporary before save")
                    try check.expectEqual(record.persistentModelID, temporary, "the identifier is stable until saved")
                    let decoded = try JSONDecoder().decode(
                        PersistentIdentifier.self, from: JSONEncoder().encode(temporary))
                    try check.expectEqual(decoded, temporary, "the decoded temporary identifier")
                    try check.expectEqual(decoded.isTemporary, true, "isTemporary of the decoded identifier")
                    try check.expect(
                        context.model(for: temporary) as? ConformanceRecord === record,
                        "model(for:) with the temporary identifier",
                        actual: "another model")
                    try context.save()
                    try check.expect(
                        record.persistentModelID != temporary, "the permanent identifier differs", actual: "equal")
                    try check.expectEqual(record.persistentModelID.isTemporary, false, "isTemporary after save")
                },
                ConformanceCase(
                    suite: "lifecycle", id: "PID-02",
                    title: "two models never share an identifier; two stores differ in storeIdentifier"
                ) { check in
                    let container = try check.container(for: ConformanceRecord.self, ConformanceAccount.self)
                    let context = ModelContext(container)
                    let records = (0..<20).map { ConformanceRecord(name: "r\($0)", number: $0) }
                    let accounts = (0..<5).map { ConformanceAccount(handle: "a\($0)", balance: $0) }
                    for r in records { context.insert(r) }
                    for a in accounts { context.insert(a) }
                    let temporary = records.map(\.persistentModelID) + accounts.map(\.persistentModelID)
                    try check.expectEqual(Set(temporary).count, 25, "distinct temporary identifiers")
                    try context.save()
                    let permanent = records.map(\.persistentModelID) + accounts.map(\.persistentModelID)
                    try check.expectEqual(Set(permanent).count, 25, "distinct permanent identifiers")
                    try check.expect(
                        Set(permanent).isDisjoint(with: Set(temporary)), "permanent and temporary identifiers differ",
                        actual: "overlap")
                    try check.expect(
                        records[0].persistentModelID != accounts[0].persistentModelID,
                        "identifiers of two entities differ", actual: "equal")
                    try check.expectEqual(
                        accounts[0].persistentModelID.entityName, "ConformanceAccount",
                        "entityName of an account's identifier")
                    let again = try ModelContext(container).fetch(
                        FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.number)]))
                    try check.expectEqual(
                        again.map(\.persistentModelID), records.map(\.persistentModelID),
                        "identifiers seen by a second context")
                    let second = try check.container(for: ConformanceRecord.self)
                    let other = ModelContext(second)
                    let twin = ConformanceRecord(name: "r0", number: 0)
                    other.insert(twin)
                    try other.save()
                    try check.expect(
                        twin.persistentModelID.storeIdentifier != nil
                            && records[0].persistentModelID.storeIdentifier != nil,
                        "both stores name themselves", actual: "a nil storeIdentifier")
                    try check.expect(
                        twin.persistentModelID.storeIdentifier != records[0].persistentModelID.storeIdentifier,
                        "storeIdentifier of two stores", expected: "different", actual: "equal")
                    try check.expectEqual(
                        twin.persistentModelID.entityName, records[0].persistentModelID.entityName,
                        "entityName across stores")
                    try check.expectEqual(
                        Set([twin.persistentModelID, records[0].persistentModelID]).count, 2, "distinct in a set")
                    try check.expect(
                        twin.persistentModelID != records[0].persistentModelID, "identifiers from two stores differ",
                        actual: "equal")
                    try check.expect(
                        (context.registeredModel(for: twin.persistentModelID) as ConformanceRecord?) == nil,
                        "another store's identifier is not registered here", expected: "nil", actual: "a model")
                },
            ])
    }
}

/// The error a CTX-07 transaction block throws.
private struct LifecycleMarker: Error {}

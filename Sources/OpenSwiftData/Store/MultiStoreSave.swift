import Foundation

/// What a store remembers of the saves that wrote several stores of one container at once,
/// kept in its own `Z_METADATA` property list under ``key`` (Core Data keeps metadata keys it
/// does not know, so the store stays readable by SwiftData and Core Data; no table is added).
///
/// ```text
/// OpenSwiftDataSave = {
///   identifier   = "9E1C…"               the last such save that wrote this store
///   participants = ["5B0C…", "77AD…"]    Z_UUID of every store that save wrote
///   recent       = ["41F2…", …, "9E1C…"] this store's last 16 such saves, oldest first
///   undo         = <changeset>           only until the save is known to be in every store
/// }
/// ```
/// A several-store save commits its stores one after another, so a process that dies between
/// two commits leaves some stores with the save and some without. Every store that commits
/// before the last keeps an undo of the save (``SQLiteChangeRecorder``) until the save is
/// known to be everywhere; ``StoreCoordination/resolveIncompleteSaves(_:)`` undoes it where
/// another store lacks it.
struct MultiStoreSaveRecord: Equatable {
    /// The property-list key.
    static let key = "OpenSwiftDataSave"
    /// How many save identifiers ``recent`` keeps.
    static let recentLimit = 16

    /// The save's identifier (a UUID string).
    var identifier: String
    /// The `Z_UUID` of every store the save wrote, this one included.
    var participants: [String]
    /// This store's last several-store saves, oldest first, ``identifier`` last.
    var recent: [String]
    /// The changeset that undoes the save in this store, until the save is known complete.
    var undo: Data?

    /// Reads the record from a store's metadata; `nil` when the store has none.
    ///
    /// - Throws: ``SwiftDataError/corruptStore`` when the entry is not shaped as written here.
    init?(_ metadata: StoreMetadata) throws {
        guard let value = metadata.otherEntries[Self.key] else { return nil }
        func corrupt(_ what: String) -> SwiftDataError {
            SwiftDataError(
                SwiftDataError.corruptStore.code,
                "\(Self.key) in Z_METADATA.Z_PLIST \(what); the file was not modified. Restore the stores from a backup"
            )
        }
        guard let dict = value.dictionary else { throw corrupt("is not a dictionary") }
        guard let identifier = dict["identifier"]?.string else { throw corrupt("has no identifier") }
        func strings(_ key: String) throws -> [String] {
            guard let items = dict[key]?.array else { throw corrupt("has no \(key) list") }
            return try items.map { item in
                guard let s = item.string else { throw corrupt("holds a \(key) entry that is not a string") }
                return s
            }
        }
        self.identifier = identifier
        participants = try strings("participants")
        recent = try strings("recent")
        switch dict["undo"] {
        case nil: undo = nil
        case .data(let d)?: undo = d
        default: throw corrupt("holds an undo that is not data")
        }
    }

    /// A record for save `identifier` written to a store whose earlier record was `previous`.
    init(identifier: String, participants: [String], previous: MultiStoreSaveRecord?, undo: Data?) {
        self.identifier = identifier
        self.participants = participants
        self.recent = Array(((previous?.recent ?? []) + [identifier]).suffix(Self.recentLimit))
        self.undo = undo
    }

    /// The record as a property-list value.
    var propertyList: PropertyListValue {
        var dict: [String: PropertyListValue] = [
            "identifier": .string(identifier),
            "participants": .array(participants.map { .string($0) }),
            "recent": .array(recent.map { .string($0) }),
        ]
        if let undo { dict["undo"] = .data(undo) }
        return .dictionary(dict)
    }

    /// The record after the save was undone in this store: the save is forgotten, and with it
    /// its undo.
    var undone: MultiStoreSaveRecord {
        var r = self
        r.recent.removeAll { $0 == identifier }
        r.identifier = r.recent.last ?? ""
        r.participants = []
        r.undo = nil
        return r
    }
}

/// Saves that write several stores of one container, and the repair of such a save that a
/// dying process left in some of its stores only.
///
/// **The guarantee.** When a process dies at any moment during a save that writes several
/// on-disk stores, the next container that opens those stores (with the same configurations)
/// sees every store with the same set of saves: the save is in all of them or in none. A save
/// that throws leaves all of them as they were, as a one-store save does. A container of one
/// store, and a save that writes one store of several, do none of this and pay nothing for it.
///
/// **How.** Such a save takes the write lock of every writable on-disk store of the container,
/// always in the container's order, so two of them never wait on each other. Under the locks
/// it first repairs what an earlier save left incomplete; then it writes each store's part,
/// recording the changes of every store but the first (``SQLiteChangeRecorder``); then it
/// writes each store's ``MultiStoreSaveRecord`` (with the undo of the recorded ones); then the
/// stores commit, the first last. Once all committed, the undos are dropped. A store holding
/// an undo is therefore either in the middle of a save of a live process (which holds the
/// first store's lock until it is done) or left by a dead one; the repair, under all the
/// locks, keeps the save where every other store it wrote has it and undoes it where one lacks
/// it. Opening a container of several writable on-disk stores runs the repair when any of them
/// holds an undo.
///
/// **Limits.** The repair knows the stores of the container that runs it: a store the save
/// wrote that this container does not open is not consulted (the undo is kept for a container
/// that opens it). A store changed by another program between the crash and the repair, in
/// rows the save wrote, cannot be rolled back: opening throws `.loadIssueModelContainer`
/// naming both stores. In-memory stores take part in the save's all-or-nothing on errors, but
/// a crash loses them anyway.
enum StoreCoordination {
    /// Runs `body` with every store of `stores` in its own `BEGIN IMMEDIATE` transaction (taken
    /// in order), the writers by store. With `recording`, the saves left incomplete in
    /// `stores` are repaired first, and those stores (at least two, all on disk, a subset of
    /// `stores` in their order) get this save's record, with an undo in all but the first.
    /// The transactions commit in reverse order; the undos are dropped after the last commit.
    ///
    /// - Throws: whatever `body` throws, or ``SwiftDataError/storeError``; nothing is written
    ///   then (a failing `COMMIT` of an earlier store after a later one committed is repaired
    ///   on the spot, or at the next open when even that fails).
    static func write(
        _ stores: [SQLiteStore], recording: [SQLiteStore]?,
        _ body: ([ObjectIdentifier: StoreWriter]) throws -> Void
    ) throws {
        var writers: [ObjectIdentifier: StoreWriter] = [:]
        var committed = 0
        let identifier = UUID().uuidString
        #if DEBUG
            let stop = recording.flatMap { FaultInjection.stop(at: $0.first?.url) }
        #endif
        func open(_ k: Int) throws {
            guard k < stores.count else {
                if let recording {
                    try resolveIncompleteSaves(stores.filter { $0.url != nil }, writers)
                    try recorded(recording, identifier, writers, body)
                } else {
                    try body(writers)
                }
                return
            }
            let store = stores[k]
            try store.withConnection { db in
                try db.immediateTransactionMapped {
                    writers[ObjectIdentifier(store)] = StoreWriter(db: db, mapping: store.mapping)
                    try open(k + 1)
                }
                store.noteCommit()
                committed += 1
            }
            #if DEBUG
                if let stop, committed == stop { throw SimulatedCrash(commits: committed) }
            #endif
        }
        do {
            try open(0)
        } catch let crash as SimulatedCrash {
            throw crash
        } catch {
            // A later store committed and an earlier one could not: undo the save where it is.
            if let recording, committed > 0 {
                // try?: the save's own error says more; the next open repairs what this could not.
                try? repair(recording)
            }
            throw error
        }
        if let recording { dropUndos(recording.dropFirst(), identifier) }
    }

    /// Writes the parts (`body`) with every store of `recording` but the first recorded, then
    /// each store's record of save `identifier`.
    private static func recorded(
        _ recording: [SQLiteStore], _ identifier: String, _ writers: [ObjectIdentifier: StoreWriter],
        _ body: ([ObjectIdentifier: StoreWriter]) throws -> Void
    ) throws {
        var recorders: [ObjectIdentifier: SQLiteChangeRecorder] = [:]
        do {
            for store in recording.dropFirst() {
                recorders[ObjectIdentifier(store)] = try SQLiteChangeRecorder(writers[ObjectIdentifier(store)]!.db)
            }
        } catch let e as SQLiteError {
            throw SwiftDataError(
                SwiftDataError.storeError.code,
                "a save that writes several stores needs SQLite's session extension to keep them in step, and \(e.message); nothing was saved",
                underlying: e)
        }
        try body(writers)
        let participants = recording.map(\.identifier)
        for store in recording {
            let db = writers[ObjectIdentifier(store)]!.db
            var metadata = try metadata(of: store, db)
            let undo = try recorders[ObjectIdentifier(store)].map { try $0.undoChangeset() }
            let record = MultiStoreSaveRecord(
                identifier: identifier, participants: participants, previous: try MultiStoreSaveRecord(metadata),
                undo: undo)
            metadata.otherEntries[MultiStoreSaveRecord.key] = record.propertyList
            try writeMetadata(metadata, db)
        }
    }

    /// Drops the undo of save `identifier` from each of `stores` whose record still holds it,
    /// one short transaction each. The save is in every store by now; an undo left behind
    /// (this process dies, or a write fails) is dropped by the next repair instead.
    private static func dropUndos(_ stores: ArraySlice<SQLiteStore>, _ identifier: String) {
        for store in stores {
            // try?: dropping is tidying only; a record still holding the undo is recognised as complete later.
            try? store.withConnection { db in
                try db.immediateTransactionMapped {
                    var metadata = try metadata(of: store, db)
                    guard var record = try MultiStoreSaveRecord(metadata), record.identifier == identifier,
                        record.undo != nil
                    else { return }
                    record.undo = nil
                    metadata.otherEntries[MultiStoreSaveRecord.key] = record.propertyList
                    try writeMetadata(metadata, db)
                }
            }
        }
    }

    /// Repairs `stores` (a container's writable on-disk stores, in its order) when any holds
    /// an undo: takes every store's write lock and runs ``resolveIncompleteSaves(_:_:)``.
    ///
    /// - Throws: `.loadIssueModelContainer` when a save cannot be undone (see the type's
    ///   limits), `.corruptStore` for an unreadable record, `.storeError` from SQLite.
    static func repair(_ stores: [SQLiteStore]) throws {
        guard stores.count > 1 else { return }
        var pending = false
        for store in stores {
            try store.withConnection { db in
                if try MultiStoreSaveRecord(metadata(of: store, db))?.undo != nil { pending = true }
            }
        }
        guard pending else { return }
        try write(stores, recording: nil) { writers in
            try resolveIncompleteSaves(stores, writers)
        }
    }

    /// Under every store's write lock: for each store holding an undo, keeps the save when
    /// every other store it wrote has it (the undo is dropped) and undoes it when one of them
    /// lacks it. A store the save wrote that is not among `stores` leaves the decision open.
    ///
    /// - Throws: `.loadIssueModelContainer` when the undo no longer fits the store.
    private static func resolveIncompleteSaves(_ stores: [SQLiteStore], _ writers: [ObjectIdentifier: StoreWriter])
        throws
    {
        var records: [String: (store: SQLiteStore, metadata: StoreMetadata, record: MultiStoreSaveRecord?)] = [:]
        for store in stores {
            let metadata = try metadata(of: store, writers[ObjectIdentifier(store)]!.db)
            records[store.identifier] = (store, metadata, try MultiStoreSaveRecord(metadata))
        }
        // Every decision is taken on the records as they are before any is acted on.
        var decisions: [(store: SQLiteStore, metadata: StoreMetadata, record: MultiStoreSaveRecord, keep: Bool)] = []
        for (uuid, entry) in records {
            guard let record = entry.record, record.undo != nil else { continue }
            var lacks = false
            var unknown = false
            for other in record.participants where other != uuid {
                guard let holder = records[other] else {
                    unknown = true
                    continue
                }
                if holder.record?.recent.contains(record.identifier) != true { lacks = true }
            }
            if lacks {
                decisions.append((entry.store, entry.metadata, record, false))
            } else if !unknown {
                decisions.append((entry.store, entry.metadata, record, true))
            }
        }
        for decision in decisions {
            let db = writers[ObjectIdentifier(decision.store)]!.db
            var metadata = decision.metadata
            var record = decision.record
            if decision.keep {
                record.undo = nil
            } else {
                do {
                    try db.applyUndo(record.undo ?? Data())
                } catch let e as SQLiteError {
                    let others = record.participants.filter { $0 != decision.store.identifier }
                    let names = others.map { uuid in records[uuid]?.store.url?.lastPathComponent ?? uuid }
                    throw SwiftDataError(
                        SwiftDataError.loadIssueModelContainer.code,
                        "\(decision.store.url?.lastPathComponent ?? "a store") holds a save that \(names.joined(separator: ", ")) lack(s) (the process saving them died between their commits), and it was changed since, so the save cannot be undone (\(e.message)); nothing was modified. Restore the stores together from a backup",
                        url: decision.store.url, underlying: e)
                }
                record = record.undone
            }
            metadata.otherEntries[MultiStoreSaveRecord.key] = record.propertyList
            try writeMetadata(metadata, db)
        }
    }

    /// The store's metadata as it is in the open transaction on `db`.
    private static func metadata(of store: SQLiteStore, _ db: SQLiteConnection) throws -> StoreMetadata {
        do {
            return try SQLiteStore.storedMetadata(db, url: store.url)
        } catch let e as SQLiteError {
            throw SwiftDataError(
                SwiftDataError.storeError.code, "the store's metadata could not be read", url: store.url,
                underlying: e)
        }
    }

    /// Writes `metadata`'s property list into the open transaction on `db`.
    private static func writeMetadata(_ metadata: StoreMetadata, _ db: SQLiteConnection) throws {
        try db.run("UPDATE Z_METADATA SET Z_PLIST = ? WHERE Z_VERSION = 1", [.blob(metadata.encodedPropertyList())])
    }
}

import Foundation
import OpenSwiftData

/// Which store a workload runs on.
public enum BenchStore: String, CaseIterable, Sendable {
    /// The on-disk store (WAL, synchronous=NORMAL).
    case disk
    /// The in-memory store.
    case memory
}

/// Creates and caches the databases the workloads read: one populated container and one
/// populated raw database per (store, rows), built once and reused across iterations.
public final class FixtureCache {
    let directory: URL
    private var ours: [String: ModelContainer] = [:]
    private var raw: [String: RawStore] = [:]
    /// The strategy each cached database has now: changing indexes changes the schema, which
    /// makes SQLite re-prepare every statement, so it happens only when the strategy changes.
    private var applied: [String: IndexStrategy] = [:]
    private var counter = 0

    /// Fixtures live under `directory` (a fresh temporary folder by default) until `removeAll()`.
    public init(directory: URL? = nil) {
        self.directory =
            directory
            ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("openswiftdata-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        // try?: a directory that cannot be made fails the first fixture write, which throws.
        try? FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
    }

    /// Deletes every fixture file.
    public func removeAll() {
        ours.removeAll()
        raw.removeAll()
        // try?: best-effort cleanup of scratch files; a leftover is harmless and must not mask the real result.
        try? FileManager.default.removeItem(at: directory)
    }

    func freshURL(_ label: String) -> URL {
        counter += 1
        return directory.appendingPathComponent("\(label)-\(counter).sqlite")
    }

    /// A new, empty container of the benchmark schema.
    func emptyContainer(_ store: BenchStore) throws -> ModelContainer {
        let schema = Schema([BenchItem.self, BenchGroup.self])
        switch store {
        case .memory:
            return try ModelContainer(for: schema, configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        case .disk:
            let url = freshURL("ours")
            removeStoreFiles(url)
            return try ModelContainer(for: schema, configurations: [ModelConfiguration(url: url)])
        }
    }

    /// A new, empty raw database.
    func emptyRaw(_ store: BenchStore, strategy: IndexStrategy = .declared) throws -> RawStore {
        try RawStore(url: store == .disk ? freshURL("raw") : nil, strategy: strategy)
    }

    /// A new container holding items 0..<`rows`, saved 10k at a time (not shared: for a
    /// workload that changes its store).
    func filledContainer(_ store: BenchStore, rows: Int) throws -> ModelContainer {
        let container = try emptyContainer(store)
        let context = ModelContext(container)
        for start in stride(from: 0, to: rows, by: 10_000) {
            for i in start..<min(start + 10_000, rows) { context.insert(BenchItem(row: i)) }
            try context.save()
        }
        return container
    }

    /// A new raw database holding items 0..<`rows` (not shared).
    func filledRaw(_ store: BenchStore, rows: Int) throws -> RawStore {
        let db = try emptyRaw(store)
        try db.insertRows(rows)
        return db
    }

    /// The shared container holding `rows` items, with `strategy`'s indexes.
    func populated(_ store: BenchStore, rows: Int, strategy: IndexStrategy) throws -> ModelContainer {
        let key = "\(store)-\(rows)"
        let container: ModelContainer
        if let c = ours[key] {
            container = c
        } else {
            container = try filledContainer(store, rows: rows)
            ours[key] = container
            applied["ours-" + key] = .declared
        }
        if applied["ours-" + key] != strategy {
            try container.applyIndexStrategy(strategy)
            applied["ours-" + key] = strategy
        }
        return container
    }

    /// The shared raw database holding `rows` items, with `strategy`'s indexes.
    func populatedRaw(_ store: BenchStore, rows: Int, strategy: IndexStrategy) throws -> RawStore {
        let key = "\(store)-\(rows)"
        let db: RawStore
        if let r = raw[key] {
            db = r
        } else {
            db = try filledRaw(store, rows: rows)
            raw[key] = db
            applied["raw-" + key] = .declared
        }
        if applied["raw-" + key] != strategy {
            try db.apply(strategy)
            applied["raw-" + key] = strategy
        }
        return db
    }

    /// A new, empty container of the record schema (``BenchRecord``).
    func emptyRecordContainer(_ store: BenchStore) throws -> ModelContainer {
        let schema = Schema([BenchRecord.self])
        switch store {
        case .memory:
            return try ModelContainer(for: schema, configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        case .disk:
            let url = freshURL("ours-records")
            removeStoreFiles(url)
            return try ModelContainer(for: schema, configurations: [ModelConfiguration(url: url)])
        }
    }

    /// A new, empty raw database of the record schema.
    func emptyRawRecords(_ store: BenchStore) throws -> RawStore {
        try RawStore.records(url: store == .disk ? freshURL("raw-records") : nil)
    }

    /// The shared container holding `rows` records (its index strategy is never changed: the
    /// record schema declares no index).
    func populatedRecords(_ store: BenchStore, rows: Int) throws -> ModelContainer {
        let key = "records-\(store)-\(rows)"
        if let c = ours[key] { return c }
        let container = try emptyRecordContainer(store)
        let context = ModelContext(container)
        for start in stride(from: 0, to: rows, by: 10_000) {
            for i in start..<min(start + 10_000, rows) { context.insert(BenchRecord(row: i)) }
            try context.save()
        }
        ours[key] = container
        return container
    }

    /// The shared raw database holding `rows` records.
    func populatedRawRecords(_ store: BenchStore, rows: Int) throws -> RawStore {
        let key = "records-\(store)-\(rows)"
        if let r = raw[key] { return r }
        let db = try emptyRawRecords(store)
        try db.insertRecords(rows)
        raw[key] = db
        return db
    }

    /// A new container holding `rows` items in groups of `groupSize`.
    func grouped(_ store: BenchStore, rows: Int, groupSize: Int) throws -> ModelContainer {
        let container = try emptyContainer(store)
        let context = ModelContext(container)
        var group: BenchGroup?
        for i in 0..<rows {
            if i % groupSize == 0 {
                group = BenchGroup(name: "group-\(i / groupSize)")
                context.insert(group!)
            }
            let item = BenchItem(row: i)
            item.group = group
        }
        try context.save()
        return container
    }

    private func removeStoreFiles(_ url: URL) {
        for suffix in ["", "-wal", "-shm"] {
            // try?: removes a fixture's files before regenerating; missing files are the usual case.
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }
}

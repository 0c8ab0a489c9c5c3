/// One object per row per context: registered models by (table, primary key).
///
/// Rows are looked up once per fetched row, so this is a hot path: each table has its own
/// open-addressing table keyed by the primary key (no per-lookup hasher set-up), with linear
/// probing and backward-shift deletion.
struct IdentityMap {
    private var tables: [ObjectIdentifier: PrimaryKeyTable] = [:]
    private var lastKey: ObjectIdentifier?
    private var last: PrimaryKeyTable?

    /// The table for one root entity's rows (created on first use when `create`).
    mutating func table(_ id: ObjectIdentifier, create: Bool) -> PrimaryKeyTable? {
        if id == lastKey, let last { return last }
        if let t = tables[id] {
            lastKey = id
            last = t
            return t
        }
        guard create else { return nil }
        let t = PrimaryKeyTable()
        tables[id] = t
        lastKey = id
        last = t
        return t
    }

    /// The model registered for the row, or `nil`; assigning `nil` unregisters it.
    subscript(key: ModelContext.RowKey) -> (any PersistentModel)? {
        mutating get { table(key.table, create: false)?.find(key.pk) }
        set {
            if let newValue {
                table(key.table, create: true)!.insert(key.pk, newValue)
            } else {
                table(key.table, create: false)?.remove(key.pk)
            }
        }
    }

    /// Every registered model.
    var count: Int { tables.values.reduce(0) { $0 + $1.count } }

    /// Calls `body` with every registered model (in no particular order).
    func forEach(_ body: (any PersistentModel) -> Void) {
        for t in tables.values { t.forEach(body) }
    }
}

/// An open-addressing hash table from primary key to model (keys ≤ 0, which this library never
/// assigns but another writer might, live in a side dictionary).
///
/// Linear probing; removal leaves a tombstone (consecutive keys form long runs of occupied
/// slots, so shifting entries back on removal would cost a scan of the whole run); the table
/// is rebuilt when tombstones and entries together pass half its capacity.
final class PrimaryKeyTable {
    private static let empty: Int64 = 0
    private static let tombstone: Int64 = .min
    private var others: [Int64: any PersistentModel] = [:]
    private var keys: [Int64]
    private var values: [(any PersistentModel)?]
    private var mask: Int
    private var stored = 0
    private var tombstones = 0
    /// The number of registered models.
    var count: Int { stored + others.count }

    /// Calls `body` with every model in the table.
    func forEach(_ body: (any PersistentModel) -> Void) {
        for case let m? in values { body(m) }
        for m in others.values { body(m) }
    }

    init(capacity: Int = 64) {
        keys = Array(repeating: PrimaryKeyTable.empty, count: capacity)
        values = Array(repeating: nil, count: capacity)
        mask = capacity - 1
    }

    /// Primary keys are mostly consecutive, so neighbouring keys go to neighbouring slots
    /// (cache-friendly, collision-free); folding the high bits in spreads strided patterns.
    @inline(__always) private func slot(_ pk: Int64) -> Int {
        let k = UInt64(bitPattern: pk)
        return Int(truncatingIfNeeded: (k ^ (k >> 17) ^ (k >> 35))) & mask
    }

    func find(_ pk: Int64) -> (any PersistentModel)? {
        if pk <= 0 { return others[pk] }
        var i = slot(pk)
        while true {
            let k = keys[i]
            if k == pk { return values[i] }
            if k == PrimaryKeyTable.empty { return nil }
            i = (i + 1) & mask
        }
    }

    func insert(_ pk: Int64, _ model: any PersistentModel) {
        if pk <= 0 {
            others[pk] = model
            return
        }
        if (stored + tombstones + 1) * 2 > keys.count { rebuild() }
        var i = slot(pk)
        var reusable = -1
        while true {
            let k = keys[i]
            if k == pk {
                values[i] = model
                return
            }
            if k == PrimaryKeyTable.tombstone, reusable < 0 { reusable = i }
            if k == PrimaryKeyTable.empty { break }
            i = (i + 1) & mask
        }
        if reusable >= 0 {
            i = reusable
            tombstones -= 1
        }
        keys[i] = pk
        values[i] = model
        stored += 1
    }

    func remove(_ pk: Int64) {
        if pk <= 0 {
            others[pk] = nil
            return
        }
        var i = slot(pk)
        while true {
            let k = keys[i]
            if k == PrimaryKeyTable.empty { return }
            if k == pk { break }
            i = (i + 1) & mask
        }
        keys[i] = PrimaryKeyTable.tombstone
        values[i] = nil
        stored -= 1
        tombstones += 1
    }

    /// Re-inserts the live entries into a table sized for them (growing ×4 when full).
    private func rebuild() {
        let oldKeys = keys
        let oldValues = values
        var capacity = keys.count
        while (stored + 1) * 2 > capacity / 2 { capacity *= 4 }
        keys = Array(repeating: PrimaryKeyTable.empty, count: capacity)
        values = Array(repeating: nil, count: capacity)
        mask = capacity - 1
        stored = 0
        tombstones = 0
        for (k, v) in zip(oldKeys, oldValues) where k > 0 { insert(k, v!) }
    }
}

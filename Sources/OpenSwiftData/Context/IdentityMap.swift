/// One object per row per context: registered models by (table, primary key).
///
/// Rows are looked up once per fetched row, so this is a hot path: each table has its own
/// open-addressing table keyed by the primary key (no per-lookup hasher set-up), with linear
/// probing and backward-shift deletion.
///
/// A class the context holds in a constant: a fetch asks it for its table without an access to
/// a variable of the context (each such access of a class's variable is checked at run time).
final class IdentityMap {
    /// A table and the root entity it is for: the one asked for last.
    private struct Last {
        let key: ObjectIdentifier
        let table: PrimaryKeyTable
    }
    private var tables: [ObjectIdentifier: PrimaryKeyTable] = [:]
    private var last: Last?

    /// The table for one root entity's rows (created on first use when `create`).
    func table(_ id: ObjectIdentifier, create: Bool) -> PrimaryKeyTable? {
        if let last, last.key == id { return last.table }
        if let t = tables[id] {
            last = Last(key: id, table: t)
            return t
        }
        guard create else { return nil }
        let t = PrimaryKeyTable()
        tables[id] = t
        last = Last(key: id, table: t)
        return t
    }

    /// The model registered for the row, or `nil`; assigning `nil` unregisters it.
    subscript(key: ModelContext.RowKey) -> (any PersistentModel)? {
        get { table(key.table, create: false)?.find(key.pk) }
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
///
/// The slots are two buffers this table allocates and frees itself: every fetched row is
/// looked up here and every new one inserted, and an array in a class costs a uniqueness
/// check on each write.
final class PrimaryKeyTable {
    private static let empty: Int64 = 0
    private static let tombstone: Int64 = .min
    private var others: [Int64: any PersistentModel] = [:]
    /// `capacity` keys: ``empty``, ``tombstone`` or a primary key.
    private var keys: UnsafeMutablePointer<Int64>
    /// `capacity` slots, initialised exactly where `keys` holds a primary key.
    private var values: UnsafeMutablePointer<any PersistentModel>
    /// The number of slots: a power of two, at least twice the keys held.
    private(set) var capacity: Int
    private var mask: Int
    private var stored = 0
    private var tombstones = 0
    /// The number of registered models.
    var count: Int { stored + others.count }

    /// Calls `body` with every model in the table.
    func forEach(_ body: (any PersistentModel) -> Void) {
        for i in 0..<capacity where keys[i] > 0 { body(values[i]) }
        for m in others.values { body(m) }
    }

    init(capacity: Int = 64) {
        precondition(capacity > 0 && capacity & (capacity - 1) == 0, "the capacity is a power of two")
        self.capacity = capacity
        keys = .allocate(capacity: capacity)
        keys.initialize(repeating: PrimaryKeyTable.empty, count: capacity)
        values = .allocate(capacity: capacity)
        mask = capacity - 1
    }

    deinit {
        for i in 0..<capacity where keys[i] > 0 { (values + i).deinitialize(count: 1) }
        values.deallocate()
        keys.deallocate()
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

    /// Registers `model` under `pk`, replacing a model registered there. Takes the caller's
    /// reference over (`consuming`): a caller done with it passes it without a retain.
    func insert(_ pk: Int64, _ model: consuming any PersistentModel) {
        if pk <= 0 {
            others[pk] = model
            return
        }
        if (stored + tombstones + 1) * 2 > capacity { rebuild() }
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
        (values + i).initialize(to: model)
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
        (values + i).deinitialize(count: 1)
        stored -= 1
        tombstones += 1
    }

    /// Makes room for `additional` more keys, so that inserting them rebuilds nothing on the
    /// way: a fetch that knows about how many rows it reads sizes the table once instead of
    /// growing it several times while it fills.
    func reserve(additional: Int) {
        guard additional > 0, (stored + tombstones + additional) * 2 > capacity else { return }
        var newCapacity = capacity
        while (stored + additional) * 2 > newCapacity { newCapacity *= 2 }
        rebuild(capacity: newCapacity)
    }

    /// Re-inserts the live entries into a table sized for them (growing ×4 when full).
    private func rebuild() {
        var newCapacity = capacity
        while (stored + 1) * 2 > newCapacity / 2 { newCapacity *= 4 }
        rebuild(capacity: newCapacity)
    }

    /// Re-inserts the live entries into a table of `newCapacity` slots (a power of two that
    /// holds them at most half full).
    private func rebuild(capacity newCapacity: Int) {
        let (oldKeys, oldValues, oldCapacity) = (keys, values, capacity)
        capacity = newCapacity
        keys = .allocate(capacity: newCapacity)
        keys.initialize(repeating: PrimaryKeyTable.empty, count: newCapacity)
        values = .allocate(capacity: newCapacity)
        mask = newCapacity - 1
        stored = 0
        tombstones = 0
        for j in 0..<oldCapacity where oldKeys[j] > 0 {
            // Moved, not copied: no retain and release per entry.
            var i = slot(oldKeys[j])
            while keys[i] != PrimaryKeyTable.empty { i = (i + 1) & mask }
            keys[i] = oldKeys[j]
            (values + i).moveInitialize(from: oldValues + j, count: 1)
            stored += 1
        }
        oldValues.deallocate()
        oldKeys.deallocate()
    }
}

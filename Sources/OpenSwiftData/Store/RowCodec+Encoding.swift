import Foundation

/// What the row encoder needs from outside the table it writes: where a to-one's destination
/// is stored, and which entity a stored destination row is (``RowCodec``'s destination
/// entity numbers, `Z<n>_<NAME>`).
protocol RowDestinations {
    /// The table storing `layout`'s rows in the container, `nil` when none does.
    func table(for layout: ModelLayout) -> StoreMapping.Table?
    /// The entity number (`Z_ENT`) stored in row `pk` of `table`, `nil` when there is no such row.
    func storedEntity(ofRow pk: Int64, in table: StoreMapping.Table) throws -> Int64?
    /// Called before `value` of `d`'s `Decimal` property `slot` is written rounded (a `DECIMAL`
    /// column holds a double): reports the rounding, or throws ``SwiftDataError/invalidValue``
    /// to refuse the value.
    func storingInexactly(_ value: Decimal, _ d: BackingData, slot: Int) throws
}

/// Where ``RowCodec`` puts the value (or, for a composite attribute, the values) it encodes
/// for a column.
protocol ColumnSink {
    /// An integer, bound as SQLite's `INTEGER`.
    mutating func integer(_ value: Int64) throws
    /// A double that is not NaN, bound as SQLite's `REAL`.
    mutating func real(_ value: Double) throws
    /// Text already in Unicode Normalization Form C.
    mutating func text(_ value: String) throws
    /// Any encoded value.
    mutating func value(_ value: SQLValue) throws
    /// The statement the values are bound to, `nil` when there is none (a composite's coders
    /// keep their state with it from row to row).
    var statement: SQLiteStatement? { get }
}

extension RowCodec {
    /// Binds the columns of `reads` for `d`'s row (`model`'s), from value position 0; returns
    /// how many values were bound (a composite binds one per element).
    @discardableResult
    static func bind(
        _ stmt: RowStatement, _ d: BackingData, _ reads: [StoreMapping.Table.ColumnRead],
        model: any PersistentModel, destinations: some RowDestinations
    ) throws -> Int {
        // The slots are read in place, through one borrow of the model's buffer.
        try d.values.withSlots { slots, count in
            try reads.withUnsafeBufferPointer { reads in
                var sink = StatementSink(stmt: stmt)
                for index in reads.indices {
                    try encode(
                        reads.baseAddress! + index, slots, count: count, d, model: model, destinations: destinations,
                        into: &sink)
                }
                return sink.position
            }
        }
    }

    /// The value bound for `read`, a single column (``StoreMapping/Table/ColumnRead/width``
    /// 1), of `d`'s row (`model`'s).
    static func encode(
        _ d: BackingData, _ read: StoreMapping.Table.ColumnRead, model: any PersistentModel,
        destinations: some RowDestinations
    ) throws -> SQLValue {
        try d.values.withSlots { slots, count in
            try withUnsafePointer(to: read) { read in
                var sink = ValueSink()
                try encode(read, slots, count: count, d, model: model, destinations: destinations, into: &sink)
                return sink.result
            }
        }
    }

    /// Puts the value(s) of `read` for `d`'s row into `sink`: the one choice per column. An
    /// `Int`, `Double` or `String` attribute is read where it is stored (`slots`, `count` of
    /// them) and put as its type when it holds exactly that type (a string NFC-normalised, as
    /// ``String/sqlValue()`` does); anything else — not loaded, another type, a NaN — takes
    /// its codec, which encodes it or refuses it with the property named. A composite puts one
    /// value per element; a to-one puts its destination's key (``RowDestinations`` gives the
    /// entity number column's value). `read` is read where it is (a copy would retain and
    /// release its codec for every column of every row).
    @inline(__always)
    static func encode<S: ColumnSink>(
        _ read: UnsafePointer<StoreMapping.Table.ColumnRead>, _ slots: UnsafePointer<Any>, count: Int,
        _ d: BackingData, model: any PersistentModel, destinations: some RowDestinations, into sink: inout S
    ) throws {
        let slot = read.pointee.slot
        if read.pointee.role == .foreignEntity {
            try sink.value(try foreignEntity(d, slot, destinations))
            return
        }
        if let direct = read.pointee.codec?.directRead, slot < count, try put(slots + slot, direct, into: &sink) {
            return
        }
        guard let codec = read.pointee.codec else {
            switch d.toOne(slot) {
            case .empty: try sink.value(.null)
            case .foreignKey(let fk): try sink.integer(fk)
            case .model(let target):
                if !target.isDeleted, let key = key(of: target.persistentBackingData) {
                    try sink.integer(key)
                } else {
                    try sink.value(.null)
                }
            }
            return
        }
        if let composite = read.pointee.composite {
            let stmt = sink.statement
            if slot < count, !SlotValues.isUnloaded(at: slots + slot) {
                // Read where it is stored, as the direct reads above.
                try naming(d, slot) { try composite.encode(at: slots + slot, on: stmt, into: &sink) }
            } else {
                let value = slot < d.values.count ? d.values[slot] : nil
                try naming(d, slot) { try composite.encode(value, on: stmt, into: &sink) }
            }
            return
        }
        let encoded = try naming(d, slot) {
            var value = slot < d.values.count ? d.values[slot] : nil
            if value == nil, let s = d.layout?.slots[slot], s.isConstant { value = model[keyPath: s.keyPath] }
            if codec.storesDecimal, let v = value.flatMap(_flattenOptional) as? Decimal {
                let stored = try v.storedValue(checkingExactness: true)
                if !stored.isExact { try destinations.storingInexactly(v, d, slot: slot) }
                return stored.value
            }
            return try codec.encode(value)
        }
        try sink.value(encoded)
    }

    /// Puts the slot at `slot` into `sink` as `direct`'s type and returns `true` when it holds
    /// exactly that type and needs none of the codec's checks but the ones made here; returns
    /// `false`, putting nothing, for anything else. No ``SQLValue`` is made for a statement.
    @inline(__always)
    private static func put<S: ColumnSink>(
        _ slot: UnsafePointer<Any>, _ direct: AttributeCodec.DirectRead, into sink: inout S
    ) throws -> Bool {
        switch direct {
        case .int:
            guard let v = SlotValues.exactValue(at: slot, as: Int.self) else { return false }
            try sink.integer(Int64(v))
        case .double:
            guard let v = SlotValues.exactValue(at: slot, as: Double.self), !v.isNaN else { return false }
            try sink.real(v)
        case .string:
            guard let v = SlotValues.exactValue(at: slot, as: String.self) else { return false }
            try sink.text(nfcNormalized(v))
        }
        return true
    }

    /// The key of `d`'s row: its stored `Z_PK`, else the one a save assigned it, else `nil`.
    static func key(of d: BackingData) -> Int64? {
        if d.pk != 0 { return d.pk }
        return d.pendingPK != 0 ? d.pendingPK : nil
    }

    /// Runs `body`, naming `d`'s class and property `slot` in the ``SwiftDataError`` it throws
    /// (a value that does not encode).
    private static func naming<T>(_ d: BackingData, _ slot: Int, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch var e as SwiftDataError {
            e.entityName = d.layout?.name
            e.propertyName = d.layout?.slots[slot].name
            throw e
        }
    }

    /// The destination's `Z_ENT` of to-one `slot`, or NULL when it is empty. A destination
    /// that is not loaded is read back from its row (a missing row keeps the declared
    /// destination's number).
    private static func foreignEntity(_ d: BackingData, _ slot: Int, _ destinations: some RowDestinations) throws
        -> SQLValue
    {
        if let fk = d.unresolvedForeignKey(slot) {
            guard fk != 0, let target = d.layout?.slots[slot].target else { return .null }
            let tl = try ModelLayout.of(target)
            guard let table = destinations.table(for: tl) else { return .null }
            if let stored = try destinations.storedEntity(ofRow: fk, in: table), stored > 0 { return .integer(stored) }
            return table.entityID(tl).map { .integer($0) } ?? .null
        }
        guard case .model(let target) = d.toOne(slot), !target.isDeleted, let tl = target.persistentBackingData.layout,
            let id = destinations.table(for: tl)?.entityID(tl)
        else { return .null }
        return .integer(id)
    }

    /// Which of `reads` (at most the first 64) an upsert into a stored row can leave out: the
    /// indexed columns its lookup read (`stored`) whose value is exactly the one `m` would
    /// write (``StoredColumn/isWritten(by:)``). Bit `i` stands for `reads[i]`.
    static func unchangedIndexedColumns(
        _ reads: [StoreMapping.Table.ColumnRead], of m: any PersistentModel, _ d: BackingData,
        _ stored: StoredRow?, destinations: some RowDestinations
    ) throws -> UInt64 {
        guard let stored else { return 0 }
        var unchanged: UInt64 = 0
        // The reads and the slots are read in place (a read copied per column would retain and
        // release its codec, and the slots' borrow would be taken again per column).
        try d.values.withSlots { slots, count in
            try reads.withUnsafeBufferPointer { reads in
                for index in reads.indices.prefix(64)
                where reads[index].width == 1 {
                    guard let position = stored.columns.firstIndex(of: reads[index].column) else { continue }
                    var sink = ValueSink()
                    try encode(
                        reads.baseAddress! + index, slots, count: count, d, model: m, destinations: destinations,
                        into: &sink)
                    if stored.values[position].isWritten(by: sink.result) { unchanged |= 1 << UInt64(index) }
                }
            }
        }
        return unchanged
    }
}

extension StoreMapping.Table {
    /// The columns an upsert writes into the stored row of `layout` it adopted: all of them,
    /// except the unique group's when the layout has one group of `Int` or `String` columns.
    /// The row matched on exactly those values (SQLite's `=` and Swift's `==` agree on them),
    /// so writing them again would only rewrite the unique index's entry. (A `Double` keeps
    /// its column: `0.0` matches `-0.0`, and the new model's sign must win.)
    func adoptionColumns(_ layout: ModelLayout) -> [ColumnRead] {
        let reads = plan(layout)
        guard let groups = uniqueGroups[ObjectIdentifier(layout.type)], groups.count == 1,
            groups[0].reads.allSatisfy({ read in
                read.role == .value && read.composite == nil
                    && (read.codec?.directRead == .int || read.codec?.directRead == .string)
            })
        else { return reads }
        let matched = Set(groups[0].reads.map(\.slot))
        return reads.filter { $0.role != .value || !matched.contains($0.slot) }
    }
}

/// ``RowCodec``'s sink binding a ``RowStatement``'s values, from position 0.
private struct StatementSink: ColumnSink {
    let stmt: RowStatement
    /// The next value's position.
    var position = 0

    var statement: SQLiteStatement? { stmt.statement }

    mutating func integer(_ value: Int64) throws {
        try stmt.bindInteger(value, at: position)
        position += 1
    }

    mutating func real(_ value: Double) throws {
        try stmt.bindReal(value, at: position)
        position += 1
    }

    mutating func text(_ value: String) throws {
        try stmt.bindText(value, at: position)
        position += 1
    }

    mutating func value(_ value: SQLValue) throws {
        try stmt.bind(value, at: position)
        position += 1
    }
}

/// ``RowCodec``'s sink keeping the value put (a single column's: one is).
private struct ValueSink: ColumnSink {
    var result: SQLValue = .null

    var statement: SQLiteStatement? { nil }

    mutating func integer(_ value: Int64) throws { self.value(.integer(value)) }
    mutating func real(_ value: Double) throws { self.value(.real(value)) }
    mutating func text(_ value: String) throws { self.value(.text(value)) }
    mutating func value(_ value: SQLValue) { result = value }
}

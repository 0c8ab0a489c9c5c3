import CSQLite
import Foundation

/// A table's row codec: the one place that decides how a model's slot is read from its
/// column (or run of columns) of a `SELECT <selectList>` row, and how it is written as an
/// `INSERT`'s or `UPDATE`'s parameters.
///
/// The choice per column is the same both ways: a composite attribute's run of element
/// columns (``CompositeColumns``); an `Int`, `Double` or `String` attribute read or bound in
/// place (``AttributeCodec/DirectRead``), its codec taking a `NULL` or any other value; any
/// other attribute through its ``AttributeCodec``; a to-one's destination key (a
/// ``ForeignKey`` in the slot); and, written only, the destination's entity number.
///
/// Decoding serves a new row (``initializeNew(_:_:_:_:)``, straight into its storage's slots)
/// and a row read again into a model that has values
/// (``refresh(_:into:model:table:url:)``, which writes only the values that changed, so
/// observers hear of real changes only); both take a column's value from
/// ``initialize(_:_:_:slot:)``. Encoding binds a row statement's parameters
/// (``bind(_:_:_:model:destinations:)``) or gives one column's ``SQLValue``
/// (``encode(_:_:model:destinations:)``); both go through
/// ``encode(_:_:count:_:model:destinations:into:)``.
struct RowCodec {
    /// Per entity number (`Z_ENT`): how to fill each slot of the entity's model from a row
    /// (empty for a number that is no entity of the table). Read by every fetch; written only
    /// while the mapping is built.
    var readersByID: [[SlotReader]] = []
    /// The index of `Z_OPT` in the table's select list (``StoreMapping/Table/versionColumn``),
    /// kept here so the row-decoding loop reads the codec alone, not the table's columns too
    /// (each a read of a class's variable, checked at run time).
    var versionColumn: Int32 = 0

    /// How to fill one slot from a row: a column through a codec, a foreign-key column, or
    /// nothing (`column < 0`: to-many relationships and ephemeral attributes).
    struct SlotReader {
        let column: Int32
        let codec: AttributeCodec?
        let composite: CompositeColumns?
        /// `codec`'s ``AttributeCodec/directRead`` (for a single column), held here so the
        /// row-decoding loop reads an `Int`, `Double` or `String` column without touching
        /// the codec object (a retain and a release per column). Set only when `codec` is.
        let direct: AttributeCodec.DirectRead?

        init(column: Int32, codec: AttributeCodec?, composite: CompositeColumns?) {
            self.column = column
            self.codec = codec
            self.composite = composite
            direct = composite == nil ? codec?.directRead : nil
        }

        /// A slot no column fills.
        static let none = SlotReader(column: -1, codec: nil, composite: nil)
    }

    /// The readers of `table`'s entities, from their column plans (``StoreMapping/Table/plan(_:)``).
    init(table: StoreMapping.Table) {
        let largest = Int(table.entityIDs.values.max() ?? 0)
        readersByID = Array(repeating: [], count: largest + 1)
        versionColumn = table.versionColumn
        for e in table.entities {
            guard let id = table.entityID(e) else { continue }
            var readers = Array(repeating: SlotReader.none, count: e.slots.count)
            for read in table.plan(e) where read.role != .foreignEntity {
                readers[read.slot] = SlotReader(column: read.column, codec: read.codec, composite: read.composite)
            }
            readersByID[Int(id)] = readers
        }
    }

    /// A codec with no readers (a table whose mapping is being built).
    init() {}
}

// MARK: - Decoding

extension RowCodec {
    /// Reads a new row's columns into its storage's uninitialised slots (one per reader), each
    /// slot written exactly once; `initialized` counts the slots written, for the storage to
    /// destroy when this throws.
    ///
    /// - Throws: ``StoredValueMismatch`` for an `Int`, `Double` or `String` column holding a
    ///   value of another storage class or text that is not UTF-8 (the caller names the row);
    ///   the codecs' errors.
    @inline(__always)
    static func initializeNew(
        _ slots: UnsafeMutablePointer<Any>, _ initialized: inout Int, _ stmt: SQLiteStatement, _ readers: [SlotReader]
    ) throws {
        try readers.withUnsafeBufferPointer { readers in
            for i in readers.indices {
                if readers[i].column < 0 {
                    SlotValues.initializeUnloaded(slots + i, count: 1)
                } else {
                    try initialize(slots + i, stmt, readers.baseAddress! + i, slot: i)
                }
                initialized = i + 1
            }
        }
    }

    /// Initialises `value` with the value `reader`'s column (or run of columns) of `stmt`'s
    /// row holds for slot `slot`: an `Int`, `Double` or `String` read in place (a NULL is the
    /// codec's, which throws for a non-optional attribute; the codec is touched only then), a
    /// composite through its elements, any other attribute through its codec, a to-one's key
    /// as a ``ForeignKey``. `value` is left uninitialised when this throws. The reader is read
    /// where it is (a copy would retain and release its codec for every column of every row).
    ///
    /// - Throws: ``StoredValueMismatch`` (for slot `slot`) when a direct read finds a value of
    ///   another storage class; the codecs' errors.
    @inline(__always)
    static func initialize(
        _ value: UnsafeMutablePointer<Any>, _ stmt: SQLiteStatement, _ reader: UnsafePointer<SlotReader>, slot: Int
    ) throws {
        let column = reader.pointee.column
        if let direct = reader.pointee.direct {
            switch read(stmt, column, direct, into: value) {
            case .read: break
            case .null: value.initialize(to: try reader.pointee.codec!.read(stmt, column))
            case let outcome: throw StoredValueMismatch(slot: slot, outcome: outcome)
            }
        } else if let composite = reader.pointee.composite {
            value.initialize(to: try composite.read(stmt, column))
        } else if let codec = reader.pointee.codec {
            value.initialize(to: try codec.read(stmt, column))
        } else {
            value.initialize(to: ForeignKey(pk: foreignKey(stmt, column)))
        }
    }

    /// ``initialize(_:_:_:slot:)``'s value, returned.
    static func value(_ stmt: SQLiteStatement, _ reader: UnsafePointer<SlotReader>, slot: Int) throws -> Any {
        try withUnsafeTemporaryAllocation(of: Any.self, capacity: 1) { buffer in
            let value = buffer.baseAddress!
            try initialize(value, stmt, reader, slot: slot)
            return value.move()
        }
    }

    /// The destination key a to-one's column holds (0 for `NULL`: no destination).
    @inline(__always)
    static func foreignKey(_ stmt: SQLiteStatement, _ column: Int32) -> Int64 {
        stmt.isNull(at: column) ? 0 : stmt.int64(at: column)
    }

    /// Initialises `slot` with column `column`'s value as `direct`'s type, boxed as its codec
    /// boxes it, and returns ``DirectReadOutcome/read``. Leaves `slot` uninitialised for a NULL
    /// (which the codec reads, and throws for when the attribute is not optional) and for a
    /// value of the wrong storage class (another tool wrote it): an `Int` column holding
    /// anything but an INTEGER (`'abc'` would read 0, `2.5` would read 2), a `Double` column
    /// anything but a number, a `String` column text that is not UTF-8 (it would read U+FFFD).
    /// The value is built in place: no `Any` is copied into the slot.
    ///
    /// The numbers' check is the storage class SQLite gives, asked before the value instead of
    /// after a 0 (where NULL needed it anyway); the text's is the UTF-8 validation that
    /// decoding the bytes into a `String` performs in any case.
    @inline(__always)
    private static func read(
        _ stmt: SQLiteStatement, _ column: Int32, _ direct: AttributeCodec.DirectRead,
        into slot: UnsafeMutablePointer<Any>
    ) -> DirectReadOutcome {
        switch direct {
        case .int:
            let (type, value) = stmt.integerColumn(at: column)
            guard type == SQLITE_INTEGER else { return type == SQLITE_NULL ? .null : .storageClass(type) }
            slot.initialize(to: Int(value))
        case .double:
            let (type, value) = stmt.realColumn(at: column)
            guard type == SQLITE_FLOAT || type == SQLITE_INTEGER else {
                return type == SQLITE_NULL ? .null : .storageClass(type)
            }
            slot.initialize(to: value)
        case .string:
            switch stmt.validTextIfPresent(at: column) {
            case .text(let s): slot.initialize(to: s)
            case .null: return .null
            case .invalidUTF8: return .invalidUTF8
            }
        }
        return .read
    }

    /// Reads a registered model's row (`stmt`'s current row) again when the store changed since
    /// its values were read (CTX-11), or when it is a fault; returns the store's generation, read
    /// once a fetch (`generation`, `nil` until then). Out of line: the row-decoding loop calls it
    /// only for such a model, and inlined its reads would be hoisted in front of every row.
    @inline(never)
    static func refreshIfChanged(
        _ model: any PersistentModel, _ stmt: SQLiteStatement, _ table: StoreMapping.Table, _ store: SQLiteStore,
        _ db: SQLiteConnection, _ generation: StoreGeneration?
    ) throws -> StoreGeneration {
        let d = model.persistentBackingData
        let now = try generation ?? store.generation(db)
        if d.isFault || d.loadedGeneration != now {
            try refresh(stmt, into: d, model: model, table: table, url: store.url)
            d.loadedGeneration = now
        }
        return now
    }

    /// Reads `stmt`'s row (a `SELECT <selectList>` of `table`) into `data`, a model's values
    /// that are already there (a refresh; `model` is the registered model) or not loaded yet
    /// (a fault's fill; `model` is `nil`), and marks them loaded. A refresh writes only the
    /// values that changed, through ``BackingData/setSlot(_:_:of:recordChange:)`` so observers
    /// hear of them, and unloads the to-many relationships (the store changed). A key column
    /// that still names the loaded destination, or a `NULL` where the slot holds none, keeps
    /// what the slot holds.
    ///
    /// - Throws: ``SwiftDataError/corruptStore`` (``StoredValueMismatch``, naming the row and
    ///   the store at `url`) for a value of the wrong storage class; the codecs' errors.
    static func refresh(
        _ stmt: SQLiteStatement, into data: BackingData, model: (any PersistentModel)?,
        table: StoreMapping.Table, url: @autoclosure () -> URL?
    ) throws {
        guard let layout = data.layout else { return }
        data.version = stmt.int64(at: table.versionColumn)
        let readers = table.entityID(layout).map { table.codec.readersByID[Int($0)] } ?? []
        do {
            try readers.withUnsafeBufferPointer { readers in
                for slot in readers.indices where readers[slot].column >= 0 {
                    try refresh(slot, readers.baseAddress! + slot, stmt, into: data, model: model)
                }
            }
        } catch let mismatch as StoredValueMismatch {
            throw mismatch.error(layout: layout, table: table, pk: data.pk, url: url())
        }
        if model != nil {
            for slot in layout.relationshipSlots where layout.slots[slot].isToMany { data.values[slot] = nil }
        }
        data.isFault = false
    }

    /// ``refresh(_:into:model:table:url:)``'s slot `slot`.
    private static func refresh(
        _ slot: Int, _ reader: UnsafePointer<SlotReader>, _ stmt: SQLiteStatement, into data: BackingData,
        model: (any PersistentModel)?
    ) throws {
        guard let codec = reader.pointee.codec else {
            let current = slot < data.values.count ? data.values[slot] : nil
            let fk = foreignKey(stmt, reader.pointee.column)
            let loaded = current.flatMap { RelationshipGraph.models(in: $0).first }
            let same =
                current.map { $0 is ForeignKey ? (($0 as! ForeignKey).pk == fk) : false } ?? false
                || (loaded.map { $0.persistentBackingData.pk == fk } ?? false)
                || (fk == 0 && current != nil && loaded == nil && !(current! is ForeignKey))
            if !same { data.values[slot] = ForeignKey(pk: fk) }
            return
        }
        guard let model else {
            data.values[slot] = try value(stmt, reader, slot: slot)
            return
        }
        // A composite is written whole; another attribute only when its stored value differs.
        // try?: only skips writing an unchanged value; a value that does not encode is replaced by the row's.
        if reader.pointee.composite == nil, let current = slot < data.values.count ? data.values[slot] : nil,
            let old = try? codec.encode(current),
            old == stmt.value(at: reader.pointee.column)
        {
            return
        }
        data.setSlot(slot, try value(stmt, reader, slot: slot), of: model, recordChange: false)
    }
}

/// What ``RowCodec`` found reading a column of an `Int`, `Double` or `String` attribute.
enum DirectReadOutcome {
    /// The value was read into the slot.
    case read
    /// The column is NULL (the attribute's codec decides what that reads as).
    case null
    /// The column holds a value of SQLite storage class `SQLITE_…` that the attribute's type
    /// is never stored as.
    case storageClass(Int32)
    /// The column holds text that is not valid UTF-8.
    case invalidUTF8
}

/// A column of the row being read holds a value its attribute is never stored as; thrown by
/// the row reader, which knows the slot, and turned by the fetch, which knows the row, into
/// the error ``error(layout:table:pk:url:)`` gives.
struct StoredValueMismatch: Error {
    /// The attribute's slot.
    let slot: Int
    /// What the reader found (``DirectReadOutcome/storageClass(_:)`` or `.invalidUTF8`).
    let outcome: DirectReadOutcome

    /// ``SwiftDataError/corruptStore`` naming the entity, the property, the row's `Z_PK`, the
    /// table and what is stored there. The value is not coerced: a wrong number read as a
    /// right one would be a wrong answer.
    ///
    /// ```swift
    /// throw mismatch.error(layout: layout, table: table, pk: 7, url: store.url)
    /// // corruptStore: HostileItem.count of the row with Z_PK 7 in ZHOSTILEITEM holds TEXT …
    /// ```
    func error(layout: ModelLayout, table: StoreMapping.Table, pk: Int64, url: URL?) -> SwiftDataError {
        let property = slot < layout.slots.count ? layout.slots[slot].name : "slot \(slot)"
        let stored: String
        switch outcome {
        case .storageClass(SQLITE_INTEGER): stored = "an INTEGER"
        case .storageClass(SQLITE_FLOAT): stored = "a REAL"
        case .storageClass(SQLITE_TEXT): stored = "TEXT"
        case .storageClass(SQLITE_BLOB): stored = "a BLOB"
        case .invalidUTF8: stored = "text that is not valid UTF-8"
        default: stored = "a value of another type"
        }
        return SwiftDataError(
            SwiftDataError.corruptStore.code,
            "\(layout.name).\(property) of the row with Z_PK \(pk) in \(table.name) holds \(stored), which a "
                + "\(layout.name).\(property) is never stored as (another tool wrote it); the value is not coerced: "
                + "correct or delete the row",
            entityName: layout.name, propertyName: property, url: url)
    }
}

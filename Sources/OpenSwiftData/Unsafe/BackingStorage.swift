import Observation

// A model's storage in one allocation: `BackingData` is a class with no stored properties of
// its own, allocated through `ManagedBufferPointer(bufferClass:minimumCapacity:)` with room
// in its tail for its fields (``BackingData/Fields``) and, right after them, its slots
// (`Any`s): a fetched row's storage is one `malloc`. The tail is declared as words and bound
// to the two types when the storage is made. (The fields are not the buffer's header: making
// a buffer reads its header back once, a copy of every reference the fields hold.) A model
// whose slots outgrow the room it was made with (a subclass's values absorbed into its root's
// storage, a slot written past the end) moves them to an overflow buffer of its own
// (``BackingData/reserveSlots(_:)``); the tail's slots are then unused.
//
// Each field is read and written through the fields' address (``BackingData/_fields``),
// taken once per access: the object never moves, and every access is made by a method of the
// object, which holds it alive.

extension BackingData {
    /// A model's fields, kept at the start of its object's tail.
    @usableFromInline
    struct Fields {
        /// Room for the observation registrar, made when first needed (``registrar`` then points
        /// here; to an allocation of its own if a registrar is larger than a word, which it is
        /// not on the platforms this builds for).
        var registrarCell = 0
        /// The observation registrar once made, read where it is stored.
        @usableFromInline var registrar: UnsafeMutablePointer<ObservationRegistrar>?
        /// The slots once they outgrew the tail (``reserveSlots(_:)``); `nil` while they are
        /// the tail elements.
        @usableFromInline var overflow: UnsafeMutablePointer<Any>?
        /// How many slots are initialised (32 bits, as ``slotCapacity``: the two share a word).
        @usableFromInline var slotCount: Int32 = 0
        /// How many slots fit where they are stored (the tail, or ``overflow``).
        var slotCapacity: Int32
        var layout: ModelLayout?
        var contextHandle: ContextHandle?
        var pk: Int64 = 0
        var version: Int64 = 0
        var pendingPK: Int64 = 0
        var tempKey: UInt64 = 0
        var storeIdentity: StoreIdentity?
        var initSlotMask: UInt64 = 0
        var loadedGeneration = StoreGeneration.unknown
        var committed: SlotValues?
        var changed: [Bool] = []
        var disposition = UpsertPlan.Disposition.insert
        // The one-byte fields, together at the end (each between eight-byte fields would take
        // eight bytes).
        @usableFromInline var hasLayout = false
        var status = Status.unmanaged
        var isFault = false
        var relatedInserted = false
        var vanished = false

        /// Fields with room for `slotCapacity` slots (none initialised yet), all else unset.
        init(slotCapacity: Int) {
            self.slotCapacity = Int32(slotCapacity)
        }
    }

    /// The buffer: no header, a tail of words holding the fields, then the slots.
    @usableFromInline typealias _Buffer = ManagedBufferPointer<Void, Int>

    /// Where the slots start in the tail, in bytes: right after the fields (whose alignment,
    /// a word's, is the slots' too, so their stride ends where a slot may start).
    @inlinable @inline(__always)
    static var _slotsOffset: Int { MemoryLayout<Fields>.stride }

    /// A new storage with room for `slotCapacity` slots, none initialised, and its fields
    /// unset (``Fields/init(slotCapacity:)``): the caller sets them where they are kept (a
    /// `Fields` holding references, made first and moved in, is copied there by the
    /// optimised code, a retain and a release per reference).
    @inline(__always)
    static func allocate(slotCapacity: Int) -> BackingData {
        let bytes = _slotsOffset + slotCapacity * MemoryLayout<Any>.stride
        let buffer = _Buffer(
            bufferClass: BackingData.self, minimumCapacity: bytes / MemoryLayout<Int>.stride
        ) { _, _ in () }
        buffer.withUnsafeMutablePointerToElements { words in
            let tail = UnsafeMutableRawPointer(words)
            (tail + _slotsOffset).bindMemory(to: Any.self, capacity: slotCapacity)
            tail.bindMemory(to: Fields.self, capacity: 1).initialize(to: Fields(slotCapacity: slotCapacity))
        }
        return unsafeDowncast(buffer.buffer, to: BackingData.self)
    }

    /// The fields' address (the start of the tail), valid while this object lives.
    @inlinable @inline(__always)
    var _fields: UnsafeMutablePointer<Fields> {
        _Buffer(unsafeBufferObject: self).withUnsafeMutablePointerToElements {
            UnsafeMutableRawPointer($0).assumingMemoryBound(to: Fields.self)
        }
    }

    /// The first slot's address: in the tail, or the overflow buffer.
    @inlinable @inline(__always)
    var slotBase: UnsafeMutablePointer<Any> {
        let f = _fields
        if let overflow = f.pointee.overflow { return overflow }
        return (UnsafeMutableRawPointer(f) + BackingData._slotsOffset).assumingMemoryBound(to: Any.self)
    }

    /// Makes room for `capacity` slots: when the tail (or the overflow buffer) is too small,
    /// the slots move to a new overflow buffer of at least twice the room.
    func reserveSlots(_ capacity: Int) {
        let f = _fields
        let oldCapacity = Int(f.pointee.slotCapacity)
        guard capacity > oldCapacity else { return }
        let newCapacity = Swift.max(capacity, oldCapacity * 2)
        let grown = UnsafeMutablePointer<Any>.allocate(capacity: newCapacity)
        grown.moveInitialize(from: slotBase, count: Int(f.pointee.slotCount))
        f.pointee.overflow?.deallocate()
        f.pointee.overflow = grown
        f.pointee.slotCapacity = Int32(newCapacity)
    }

    /// Makes the observation registrar, in the fields' cell when it fits there. Not inlined:
    /// its caller's common path, a read nothing tracks, then looks up no registrar metadata.
    @usableFromInline @inline(never)
    func _makeRegistrar() -> UnsafeMutablePointer<ObservationRegistrar> {
        let f = _fields
        let address: UnsafeMutablePointer<ObservationRegistrar>
        if MemoryLayout<ObservationRegistrar>.size <= MemoryLayout<Int>.size,
            MemoryLayout<ObservationRegistrar>.alignment <= MemoryLayout<Int>.alignment
        {
            let cell = UnsafeMutableRawPointer(f) + MemoryLayout<Fields>.offset(of: \Fields.registrarCell)!
            address = cell.bindMemory(to: ObservationRegistrar.self, capacity: 1)
        } else {
            address = .allocate(capacity: 1)
        }
        address.initialize(to: ObservationRegistrar())
        f.pointee.registrar = address
        return address
    }

    /// ``Slots/set(_:at:)``, called on the storage itself: an initialiser stores each of its
    /// properties here, and going through a ``Slots`` value would retain and release the
    /// storage around every store.
    func setSlotValue(_ value: __owned Any, at slot: Int) {
        let f = _fields
        let oldCount = Int(f.pointee.slotCount)
        if slot < oldCount {
            let target = slotBase + slot
            if SlotValues.isUnloaded(at: target) {
                // The sentinel needs no destroying.
                target.initialize(to: consume value)
            } else {
                target.pointee = consume value
            }
            return
        }
        reserveSlots(slot + 1)
        let slots = slotBase
        if slot > oldCount { SlotValues.initializeUnloaded(slots + oldCount, count: slot - oldCount) }
        (slots + slot).initialize(to: consume value)
        f.pointee.slotCount = Int32(slot + 1)
    }

    /// What `deinit` does: destroys the slots that hold something to release (numbers and
    /// the unloaded sentinel need nothing, ``SlotValues/isTriviallyDestroyed(at:)``), the
    /// overflow buffer, the registrar and the fields.
    func destroyStorage() {
        let f = _fields
        let slots = slotBase
        for i in 0..<Int(f.pointee.slotCount) where !SlotValues.isTriviallyDestroyed(at: slots + i) {
            (slots + i).deinitialize(count: 1)
        }
        f.pointee.overflow?.deallocate()
        if let registrar = f.pointee.registrar {
            registrar.deinitialize(count: 1)
            let cell = UnsafeMutableRawPointer(f) + MemoryLayout<Fields>.offset(of: \Fields.registrarCell)!
            if UnsafeMutableRawPointer(registrar) != cell { registrar.deallocate() }
        }
        f.deinitialize(count: 1)
    }
}

extension BackingData {
    /// A model's slot values where its storage holds them (``BackingData/values``): `Any?`
    /// per slot, `nil` = not loaded. Writes go to the storage (the setters are
    /// `nonmutating`); ``snapshot()`` copies the values out.
    struct Slots {
        let data: BackingData

        var count: Int { Int(data._fields.pointee.slotCount) }

        subscript(position: Int) -> Any? {
            get {
                precondition(position >= 0 && position < count, "slot \(position) out of range 0..<\(count)")
                let slot = data.slotBase + position
                return SlotValues.isUnloaded(at: slot) ? nil : slot.pointee
            }
            nonmutating set {
                precondition(position >= 0 && position < count, "slot \(position) out of range 0..<\(count)")
                set(newValue ?? SlotValues.unloaded, at: position)
            }
        }

        /// Writes `value` at `slot`, first appending unloaded slots up to it when there are
        /// fewer (an initialiser fills its slots in declaration order). The value is moved in.
        func set(_ value: __owned Any, at slot: Int) {
            data.setSlotValue(value, at: slot)
        }

        /// Calls `body` with the slots and their count, for a loop that reads many slots of
        /// one model in place.
        func withSlots<R>(_ body: (UnsafePointer<Any>, Int) throws -> R) rethrows -> R {
            try body(data.slotBase, count)
        }

        /// Slot `position`'s value when it is loaded and exactly a `T` (``exactCast(_:to:)``);
        /// `nil` otherwise, also when it is a `T` of another dynamic type (a subclass).
        func exactValue<T>(at position: Int, as type: T.Type) -> T? {
            guard position >= 0, position < count else { return nil }
            return SlotValues.exactValue(at: data.slotBase + position, as: type)
        }

        /// Whether relationship slot `position` holds no model (``SlotValues/holdsNoModel(at:)``).
        func holdsNoModel(_ position: Int) -> Bool {
            guard position >= 0, position < count else { return true }
            return SlotValues.holdsNoModel(at: data.slotBase + position)
        }

        /// Whether slot `position` holds a value (is loaded).
        func isLoaded(_ position: Int) -> Bool {
            position >= 0 && position < count && !SlotValues.isUnloaded(at: data.slotBase + position)
        }

        /// Appends unloaded slots until there are `newCount` (none when there are as many).
        func extend(to newCount: Int) {
            let f = data._fields
            let oldCount = Int(f.pointee.slotCount)
            guard newCount > oldCount else { return }
            data.reserveSlots(newCount)
            SlotValues.initializeUnloaded(data.slotBase + oldCount, count: newCount - oldCount)
            f.pointee.slotCount = Int32(newCount)
        }

        /// A copy of the values (kept as the committed values before a change).
        func snapshot() -> SlotValues {
            let n = count
            let slots = data.slotBase
            return SlotValues(unsafeUninitializedCount: n) { target, initialized in
                target.initialize(from: slots, count: n)
                initialized = n
            }
        }
    }
}

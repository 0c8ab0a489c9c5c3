/// A model's slot values as a value of their own (``BackingData``'s committed values, a
/// stand-in's values): a copy-on-write collection of `Any?` (`nil` = not loaded) in one
/// allocation of a class that is not generic. A model's live slots are in its storage's
/// allocation (``BackingData/Slots``), read with this type's static helpers.
///
/// An `Array` would be allocated by the standard
/// library's unspecialised code, which asks the runtime for `_ContiguousArrayStorage<Any?>`'s
/// metadata on each allocation (a lock and a hash lookup, about a tenth of a fetched row's
/// cost); ``Storage`` is allocated with its class's metadata, which is a constant.
///
/// The buffer holds `Any`s, not `Any?`s: an unloaded slot holds a private sentinel value. An
/// `Any?` is copied, destroyed and pattern-matched through the runtime's generic `Optional`
/// witnesses (about a hundred instructions each, and matching one copies it); an `Any` is
/// handed to ``withLoadedValue(at:_:)`` where it is stored, without a copy.
struct SlotValues: RandomAccessCollection, MutableCollection, RangeReplaceableCollection {
    /// The count and capacity, kept in the buffer's header.
    struct Header {
        var count: Int
        let capacity: Int
    }

    /// What an unloaded slot holds.
    private struct Unloaded {}

    /// The value a buffer filled through ``init(unsafeUninitializedCount:initializingWith:)``
    /// holds in a slot that is not loaded (reads as `nil`).
    static var unloaded: Any { Unloaded() }

    /// The bytes of an `Any` holding the sentinel: `Unloaded` is empty and trivial, so its
    /// container may be copied bit for bit and needs no destroying (no value witness calls,
    /// some forty instructions each, for every slot a model's storage starts with).
    private static let unloadedBits: (Int, Int, Int, Int) = {
        // Through a typed pointer: `withUnsafeBytes(of: &anyValue)` would open the existential.
        let slot = UnsafeMutablePointer<Any>.allocate(capacity: 1)
        defer { slot.deallocate() }
        slot.initialize(to: Unloaded())
        defer { slot.deinitialize(count: 1) }
        return UnsafeRawPointer(slot).load(as: (Int, Int, Int, Int).self)
    }()

    /// Initialises `count` slots from `slots` as not loaded (``unloaded``).
    @inline(__always)
    static func initializeUnloaded(_ slots: UnsafeMutablePointer<Any>, count: Int) {
        let bits = unloadedBits
        let raw = UnsafeMutableRawPointer(slots)
        for i in 0..<count {
            raw.storeBytes(of: bits, toByteOffset: i * MemoryLayout<Any>.stride, as: (Int, Int, Int, Int).self)
        }
    }

    // MARK: Reading a slot where it is stored
    //
    // Passing `pointer.pointee` of an `UnsafePointer<Any>` to a function copies the `Any`
    // (the callee might write through the pointer): a call to the value's copy witness and,
    // later, its destroy witness, some fifty instructions each. The slot reads of a save and
    // of the relationship code look at the value's type first, and load only the values they
    // take. The `Any` container's layout is Swift's stable ABI: three words of value buffer,
    // then the type metadata pointer; a value of at most three words, word-aligned and
    // bitwise-takable (`Int`, `Double`, `String`, a class reference…) is stored inline, at
    // the start of the buffer. `SlotValuesTests` checks both facts on this platform.

    /// Whether the slot at `slot` holds the sentinel of an unloaded slot (no copy).
    @inline(__always)
    static func isUnloaded(at slot: UnsafePointer<Any>) -> Bool {
        AnyCell.typeMetadata(at: slot) == AnyCell.metadata(of: Unloaded.self)
    }

    /// Whether destroying the `Any` at `slot` would do nothing: its value is stored inline and
    /// is plain data (`Int`, `Double`, `Bool`, a ``ForeignKey``, the unloaded sentinel …), so
    /// its container may simply be forgotten. Read from the value witness table's flags (the
    /// runtime's stable ABI: the table's address is the word before the type metadata, its
    /// flags the 32 bits after eight witnesses, a size and a stride; `IsNonPOD` is bit 16,
    /// `IsNonInline` bit 17). Destroying through the runtime costs an outlined call and the
    /// type's destroy witness per slot, even for an `Int`. `SlotValuesTests` checks the flags
    /// of inline, boxed, plain and reference-holding types on this platform.
    @inline(__always)
    static func isTriviallyDestroyed(at slot: UnsafePointer<Any>) -> Bool {
        let witnesses = AnyCell.typeMetadata(at: slot).load(
            fromByteOffset: -MemoryLayout<Int>.stride, as: UnsafeRawPointer.self)
        let flags = witnesses.load(fromByteOffset: 10 * MemoryLayout<Int>.stride, as: UInt32.self)
        return flags & 0x0003_0000 == 0
    }

    /// The value the slot at `slot` holds when it is exactly a `T`, else `nil` (also when not
    /// loaded); a copy of the value only, never of the `Any`. Exactly ``exactCast(_:to:)``.
    @inline(__always)
    static func exactValue<T>(at slot: UnsafePointer<Any>, as type: T.Type) -> T? {
        withUnsafeTemporaryAllocation(of: T.self, capacity: 1) { buffer in
            AnyCell.loadExact(at: slot, into: buffer.baseAddress!) ? buffer.baseAddress!.move() : nil
        }
    }

    /// Calls `body` with the value the slot at `slot` holds, where it is (never copied), and
    /// returns `true` when it is exactly a `T`; returns `false`, calling nothing, otherwise.
    /// A value stored inline is read in the slot's buffer (``AnyCell/loadExact(at:into:)``'s test);
    /// a boxed one is opened by the runtime.
    ///
    /// - Throws: `body`'s error.
    static func withExactValue<T>(
        at slot: UnsafePointer<Any>, as type: T.Type, _ body: (UnsafePointer<T>) throws -> Void
    ) throws -> Bool {
        guard AnyCell.typeMetadata(at: slot) == AnyCell.metadata(of: T.self) else { return false }
        if MemoryLayout<T>.size <= 3 * MemoryLayout<Int>.stride
            && MemoryLayout<T>.alignment <= MemoryLayout<Int>.alignment
            && _isBitwiseTakable(T.self)
        {
            try body(UnsafeRawPointer(slot).assumingMemoryBound(to: T.self))
            return true
        }
        func open<U>(_ u: U) throws {
            try withUnsafePointer(to: u) { try body(UnsafeRawPointer($0).assumingMemoryBound(to: T.self)) }
        }
        try _openExistential(slot.pointee, do: open)
        return true
    }

    /// The buffer: a header and `capacity` slots, the first `count` initialised.
    final class Storage: ManagedBuffer<Header, Any> {
        /// A buffer with room for `capacity` values, none initialised.
        static func make(capacity: Int) -> Storage {
            let buffer = Storage.create(minimumCapacity: capacity) { _ in Header(count: 0, capacity: capacity) }
            return unsafeDowncast(buffer, to: Storage.self)
        }

        /// The header, read through its pointer: `header` is a stored property of a class, and
        /// each access to it costs a run-time exclusivity check (every slot read and write
        /// asks for the count).
        var count: Int {
            get { withUnsafeMutablePointerToHeader { $0.pointee.count } }
            set { withUnsafeMutablePointerToHeader { $0.pointee.count = newValue } }
        }

        /// The capacity asked for (see ``count``).
        var slotCapacity: Int { withUnsafeMutablePointerToHeader { $0.pointee.capacity } }

        deinit {
            // One value at a time, and only those that hold something to release: destroying
            // an `Any` is inlined (its payload's own destroy), where `deinitialize(count:)` goes
            // through the runtime's `swift_arrayDestroy` for every slot. The unloaded sentinel
            // and plain values (a fetched row's numbers) need nothing.
            withUnsafeMutablePointers { header, elements in
                for i in 0..<header.pointee.count where !SlotValues.isTriviallyDestroyed(at: elements + i) {
                    (elements + i).deinitialize(count: 1)
                }
            }
        }
    }

    /// `nil` while empty with no capacity reserved.
    private var storage: Storage?

    /// No values.
    init() {}

    /// `count` values written by `initialize`, which sets `initialized` to how many it wrote
    /// (in order; ``unloaded`` for a slot that is not loaded); on a throw those are destroyed
    /// and the error passes on.
    init(
        unsafeUninitializedCount count: Int,
        initializingWith initialize: (UnsafeMutablePointer<Any>, inout Int) throws -> Void
    ) rethrows {
        guard count > 0 else { return }
        let s = Storage.make(capacity: count)
        try s.withUnsafeMutablePointers { header, elements in
            var initialized = 0
            defer { header.pointee.count = initialized }
            try initialize(elements, &initialized)
            precondition(initialized == count, "SlotValues: \(initialized) of \(count) values initialised")
        }
        storage = s
    }

    /// `count` copies of `value`.
    init(repeating value: Any?, count: Int) {
        self.init(unsafeUninitializedCount: count) { elements, initialized in
            if let value {
                elements.initialize(repeating: value, count: count)
            } else {
                SlotValues.initializeUnloaded(elements, count: count)
            }
            initialized = count
        }
    }

    var startIndex: Int { 0 }
    var endIndex: Int { storage?.count ?? 0 }
    var count: Int { storage?.count ?? 0 }

    subscript(position: Int) -> Any? {
        get {
            precondition(position >= 0 && position < count, "SlotValues: index \(position) out of range 0..<\(count)")
            return storage!.withUnsafeMutablePointerToElements { elements -> Any? in
                SlotValues.isUnloaded(at: elements + position) ? nil : elements[position]
            }
        }
        set {
            precondition(position >= 0 && position < count, "SlotValues: index \(position) out of range 0..<\(count)")
            makeUnique(capacity: count)
            storage!.withUnsafeMutablePointerToElements { $0[position] = newValue ?? SlotValues.unloaded }
        }
    }

    /// Writes `value` at `slot`, first appending unloaded slots up to it when the values are
    /// fewer (a model's initialiser fills its slots in declaration order, one at a time). The
    /// value is moved in.
    mutating func set(_ value: __owned Any, at slot: Int) {
        let oldCount = count
        makeUnique(capacity: Swift.max(oldCount, slot + 1))
        let s = storage.unsafelyUnwrapped
        // The elements' address, taken out of the closure so that `value` is moved into the
        // slot, not captured and copied.
        let elements = s.withUnsafeMutablePointerToElements { $0 }
        if slot < oldCount {
            if SlotValues.isUnloaded(at: elements + slot) {
                // The sentinel needs no destroying (``unloadedBits``).
                (elements + slot).initialize(to: consume value)
            } else {
                (elements + slot).pointee = consume value
            }
        } else {
            if slot > oldCount { SlotValues.initializeUnloaded(elements + oldCount, count: slot - oldCount) }
            (elements + slot).initialize(to: consume value)
            s.count = slot + 1
        }
    }

    /// Calls `body` with slot `position`'s value where it is stored (no copy), or returns `nil`
    /// when the slot is not loaded or out of range.
    func withLoadedValue<R>(at position: Int, _ body: (Any) throws -> R) rethrows -> R? {
        guard position >= 0, position < count, let s = storage else { return nil }
        return try s.withUnsafeMutablePointerToElements { elements -> R? in
            SlotValues.isUnloaded(at: elements + position) ? nil : try body(elements[position])
        }
    }

    /// Calls `body` with the buffer of slots and their count, for a loop that reads many slots
    /// of one model in place; `exactValue(at:as:)` reads one.
    func withSlots<R>(_ body: (UnsafePointer<Any>, Int) throws -> R) rethrows -> R {
        guard let s = storage else {
            // No slots: `body` gets a pointer it may not read (the count is 0).
            return try withUnsafeTemporaryAllocation(of: Any.self, capacity: 1) { try body($0.baseAddress!, 0) }
        }
        return try s.withUnsafeMutablePointers { header, elements in try body(elements, header.pointee.count) }
    }

    /// Whether relationship slot `position` holds no model, read in place: it is not loaded,
    /// holds a ``ForeignKey``, or a `nil` (a relationship slot holds a model, an optional model
    /// or an array of models, all stored inline as one reference; only `nil` is a zero word, an
    /// empty array is not).
    func holdsNoModel(_ position: Int) -> Bool {
        guard position >= 0, position < count, let s = storage else { return true }
        return s.withUnsafeMutablePointerToElements { SlotValues.holdsNoModel(at: $0 + position) }
    }

    /// Whether the relationship slot at `slot` holds no model, read in place
    /// (``holdsNoModel(_:)``).
    @inline(__always)
    static func holdsNoModel(at slot: UnsafePointer<Any>) -> Bool {
        let type = AnyCell.typeMetadata(at: slot)
        return type == AnyCell.metadata(of: Unloaded.self) || type == AnyCell.metadata(of: ForeignKey.self)
            || UnsafeRawPointer(slot).load(as: UInt.self) == 0
    }

    /// Whether slot `position` holds a value (is loaded).
    func isLoaded(_ position: Int) -> Bool {
        guard position >= 0, position < count, let s = storage else { return false }
        return s.withUnsafeMutablePointerToElements { !SlotValues.isUnloaded(at: $0 + position) }
    }

    /// Slot `position`'s value when it is loaded and exactly a `T` (``exactCast(_:to:)``);
    /// `nil` otherwise, also when it is a `T` of another dynamic type (a subclass): callers
    /// fall back to `as?` then.
    func exactValue<T>(at position: Int, as type: T.Type) -> T? {
        guard position >= 0, position < count, let s = storage else { return nil }
        return s.withUnsafeMutablePointerToElements { SlotValues.exactValue(at: $0 + position, as: type) }
    }

    /// Appends unloaded slots until there are `newCount` values (none when there are as many already).
    mutating func extend(to newCount: Int) {
        let oldCount = count
        guard newCount > oldCount else { return }
        makeUnique(capacity: newCount)
        storage!.withUnsafeMutablePointers { header, elements in
            SlotValues.initializeUnloaded(elements + oldCount, count: newCount - oldCount)
            header.pointee.count = newCount
        }
    }

    /// Room for `minimumCapacity` values without another allocation.
    mutating func reserveCapacity(_ minimumCapacity: Int) {
        makeUnique(capacity: minimumCapacity)
    }

    mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C)
    where C.Element == Any? {
        let oldCount = count
        precondition(
            subrange.lowerBound >= 0 && subrange.upperBound <= oldCount,
            "SlotValues: range \(subrange) out of range 0..<\(oldCount)")
        let inserted = newElements.count
        let newCount = oldCount - subrange.count + inserted
        if subrange.lowerBound == oldCount {
            // Appending (the common case): in place when the buffer is ours and has room.
            makeUnique(capacity: newCount)
            guard let s = storage else { return }
            s.withUnsafeMutablePointers { header, elements in
                var i = oldCount
                for element in newElements {
                    (elements + i).initialize(to: element ?? SlotValues.unloaded)
                    i += 1
                }
                header.pointee.count = i
            }
            return
        }
        // Anything else: a new buffer holding the prefix, the new values and the suffix.
        var result = SlotValues()
        result.reserveCapacity(newCount)
        result.append(contentsOf: self[..<subrange.lowerBound])
        result.append(contentsOf: newElements)
        result.append(contentsOf: self[subrange.upperBound...])
        self = result
    }

    /// How many values fit without another allocation.
    var capacity: Int { storage?.slotCapacity ?? 0 }

    /// Makes the buffer this value's own, with room for at least `capacity` values: a copy
    /// of a shared buffer keeps its capacity, a buffer too small grows to at least twice it.
    private mutating func makeUnique(capacity: Int) {
        let unique = isKnownUniquelyReferenced(&storage)  // false while `nil`
        let oldCapacity = self.capacity
        if unique, oldCapacity >= capacity { return }
        let oldCount = count
        let needed = Swift.max(capacity, oldCount, 1)
        let grown = Storage.make(capacity: needed > oldCapacity ? Swift.max(needed, oldCapacity * 2) : oldCapacity)
        if let s = storage {
            s.withUnsafeMutablePointers { header, elements in
                grown.withUnsafeMutablePointerToElements { target in
                    if unique {
                        // Moved: the old buffer is left with nothing to destroy.
                        target.moveInitialize(from: elements, count: oldCount)
                        header.pointee.count = 0
                    } else {
                        target.initialize(from: elements, count: oldCount)
                    }
                }
            }
            grown.count = oldCount
        }
        storage = grown
    }
}

/// `value` as a `T` when its dynamic type is exactly `T`, else `nil`.
///
/// A comparison of type metadata and a load, where `value as? T` asks the runtime's dynamic
/// cast (a few hundred instructions: it unwraps the existential, considers bridging, optionals
/// and class hierarchies). For a value that is not exactly a `T` — a subclass instance, an
/// optional wrapping — callers fall back to `as?`, so the answers are the same.
@inline(__always)
func exactCast<T>(_ value: Any, to type: T.Type) -> T? {
    func open<U>(_ u: U) -> T? { U.self == T.self ? unsafeBitCast(u, to: T.self) : nil }
    return _openExistential(value, do: open)
}

/// The reads of one `Any` where it is stored (``SlotValues``' slots, a model's live slots),
/// without copying it: its type, and its value when it is exactly a given type. Usable from
/// the model accessors that `@Model` generates, which inline them.
@usableFromInline
enum AnyCell {
    /// The type metadata of the value the `Any` at `slot` holds, read without copying it.
    @inlinable @inline(__always)
    static func typeMetadata(at slot: UnsafePointer<Any>) -> UnsafeRawPointer {
        UnsafeRawPointer(slot).load(fromByteOffset: 3 * MemoryLayout<Int>.stride, as: UnsafeRawPointer.self)
    }

    /// The metadata pointer of `type`, as ``typeMetadata(at:)`` reads it.
    @inlinable @inline(__always)
    static func metadata(of type: Any.Type) -> UnsafeRawPointer { unsafeBitCast(type, to: UnsafeRawPointer.self) }

    /// Initialises `result` with the value the slot at `slot` holds and returns `true` when it
    /// is exactly a `T`; returns `false` otherwise. Inlined into the property accessors
    /// (``BackingData/_loadExact(_:into:)``) and specialised for the property's type there, so
    /// a value stored inline is compared and read with a few loads. Called unspecialised too:
    /// it names no `T?`, whose metadata the runtime would look up on every call.
    @inlinable
    static func loadExact<T>(at slot: UnsafePointer<Any>, into result: UnsafeMutablePointer<T>) -> Bool {
        guard typeMetadata(at: slot) == metadata(of: T.self) else { return false }
        if MemoryLayout<T>.size <= 3 * MemoryLayout<Int>.stride
            && MemoryLayout<T>.alignment <= MemoryLayout<Int>.alignment
            && _isBitwiseTakable(T.self)
        {
            result.initialize(to: UnsafeRawPointer(slot).load(as: T.self))
            return true
        }
        // Boxed out of line: the runtime opens it.
        func open<U>(_ u: U) -> Bool {
            result.initialize(to: unsafeBitCast(u, to: T.self))
            return true
        }
        return _openExistential(slot.pointee, do: open)
    }
}

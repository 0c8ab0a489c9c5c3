// The runtime-layout assumptions the library makes, in one place.
//
// Everything else in OpenSwiftData is ordinary safe Swift. What is here, and the two attribute
// opt-outs listed below, stays because each one measured above 5 % of its path (callgrind,
// instructions per row on a release build: an on-disk model of five attributes, 10,000 rows
// inserted in one save, then fetched). Tricks that measured less were removed.
//
// 1. An `Any` is four words: three of value buffer, then the type metadata pointer; a value of
//    at most three words, word-aligned and bitwise-takable is stored inline at the buffer's
//    start (Swift's stable ABI for existential containers). `SlotValues` reads a slot's type
//    and value where it is stored, without copying the `Any`.
//    Gain: 5.8 % of an inserted row, 6.6 % of a fetched row.
//    Pinned by: SlotValuesTests ("in-place slot reads agree with exactCast for inline and boxed
//    values of many types", the layout test).
// 2. A type's value witness table is the word before its metadata; its flags are the 32 bits
//    after eight witnesses, a size and a stride, with `IsNonPOD` at bit 16 and `IsNonInline` at
//    bit 17 (stable ABI). `SlotValues.isTriviallyDestroyed(at:)` skips destroying plain values.
//    Gain: included in 1 (measured together).
//    Pinned by: SlotValuesTests (the flags of inline, boxed, plain and reference-holding types).
// 3. `@exclusivity(unchecked)` on BackingData's stored properties: each is read or written only
//    by the model's own accessors and the context's single-threaded row loops, never while
//    another access to it is open. Gain: 10.0 % of an inserted row, 7.5 % of a fetched row.
//    Pinned by: the whole suite, run in debug builds where other accesses are checked.
// 4. `@exclusivity(unchecked)` on the backing-data property `@Model` generates
//    (OpenSwiftDataMacros/ModelMembers.swift), for the same reason.
//    Gain: 6.1 % of an inserted row, 4.1 % of a fetched row.
// 5. `@exclusivity(unchecked)` on the stored properties of a composite's coding state
//    (`CompositeCodingState`, `CompositeCursor`): the state is kept on one statement, which
//    one thread at a time steps, and only the composite's own coders touch it, one value at a
//    time. Gain: 16 % of a composite value's encoding and binding (5,061 → 4,240
//    instructions; 3.8 % of an inserted row of a model with one four-element composite).
//    Pinned by: CompositeCodingTests, run in debug builds where other accesses are checked.
// 6. `BackingData` is a class without stored properties, allocated by
//    `ManagedBufferPointer(bufferClass:minimumCapacity:)` with a tail of words that holds its
//    fields and then its slots, each bound to its type when the storage is made
//    (Unsafe/BackingStorage.swift): standard-library API, whose conditions are that the class
//    declares no stored properties and that its `deinit` destroys what the tail holds
//    (`destroyStorage()`). The slots start at the fields' stride, a multiple of an `Any`'s
//    alignment. The tail's address is used outside the closure that gives it, while the object
//    lives (an object never moves); the registrar is kept in a one-word cell of the fields
//    when it fits there.
//    Gain: one allocation of a fetched row's three, and the registrar read in place.
//    Pinned by: BackingDataSizeTests (no stored properties, the fields' alignment),
//    BackingStorageTests (tail and overflow slots, what they release, the registrar's cell),
//    the whole suite.
// 7. SQLite keeps the row a statement stands on in an array of equal-size value cells, one a
//    column in order (the registers the virtual machine's `ResultRow` names), and
//    `sqlite3_column_value(stmt, i)` returns cell `i` of that array (SQLite's source, not its
//    documentation). A statement's row view (SQLite/SQLiteRow.swift) asks SQLite for column 0's
//    cell once a row and reads column `i` at `i` strides from it with the `sqlite3_value_*`
//    functions, instead of one `sqlite3_column_*` call a value, each of which looks the column
//    up, checks its range and the connection's allocation failures again. `ResultCells`
//    measures the stride once a process on statements of its own, checking every cell's
//    address and value; when anything differs it leaves the stride 0 and every read asks SQLite.
//    A column outside the row is always asked of SQLite.
//    Gain: about 390 instructions of a fetched row of eight columns (10 % of fetch all).
//    Pinned by: ResultCellsTests; in debug builds every cell the row view reads is compared
//    with SQLite's own lookup of it, so the whole suite checks it.
// 8. Observation's registrar keeps its observers in one shared-state object, reached through
//    its private fields `extent.context.state.buffer` (Observation's source), and a read
//    recorded inside a tracking scope retains that object until the scope's tracking ends.
//    `ObservationProbe` finds the object by reflection (`Mirror`), and reads its strong count
//    with the runtime's exported `swift_retainCount`, to tell whether a model's first read may
//    be tracked; a read outside every scope then makes no registrar (two allocations, and
//    about 830 instructions when the model is freed). The probe checks itself once a process:
//    a read inside a scope of its own must show, and the count must return to its idle value
//    once that tracking fires. When the fields are not found or the check fails, every read
//    makes a registrar, as before.
//    Gain: about 1,200 instructions of a streamed row that reads one attribute (6,170 → 4,970,
//    `enumerate` over 10,000 rows on disk), and two of its four allocations.
//    Pinned by: ObservationTests (the probe inside and outside nested scopes; an untracked
//    read makes no registrar, and a later tracked read makes one and sees the write).
//
// The container layout in 1 and 2 is that of 64-bit platforms; elsewhere the build stops here
// rather than read memory under assumptions nobody checked.
#if !_pointerBitWidth(_64)
    #error("OpenSwiftData reads Swift's existential container layout as 64-bit platforms lay it out (Unsafe/)")
#endif

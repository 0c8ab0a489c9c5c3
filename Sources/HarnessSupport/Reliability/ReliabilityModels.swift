import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

// The models the reliability probes write. They have package access so a store a probe left behind
// (`harness reliability --keep`) can be opened and inspected with the same schema.

/// A parent of the crash loop: one per save, with ten children, numbered by the counter.
///
/// ```swift
/// let parent = ReliabilityParent(serial: 7)
/// parent.children = (0..<10).map { ReliabilityChild(slot: $0) }   // the inverse is set
/// ```
@Model package final class ReliabilityParent {
    /// The counter's value after the save that inserted this parent (1, 2, 3 …).
    package var serial: Int
    /// Filler text, so a save writes several pages and the WAL grows faster than the data.
    package var note: String
    /// The ten children of the save; deleted with the parent.
    @Relationship(deleteRule: .cascade, inverse: \ReliabilityChild.parent) package var children: [ReliabilityChild] = []
    /// A parent with its serial number.
    package init(serial: Int, note: String = "") {
        self.serial = serial
        self.note = note
    }
}

/// A child of a ``ReliabilityParent`` (the to-one side of the to-many relationship).
///
/// ```swift
/// let child = ReliabilityChild(slot: 3)
/// ```
@Model package final class ReliabilityChild {
    /// Its position among the parent's children (0…9).
    package var slot: Int
    /// The parent; `nil` would mean a half-written save.
    package var parent: ReliabilityParent?
    /// A child in the given slot.
    package init(slot: Int) { self.slot = slot }
}

/// A named counter: the crash loop counts parents with it, the concurrent-writers probe
/// increments it from several processes.
///
/// ```swift
/// let counter = ReliabilityCounter(name: "shared", value: 0)
/// counter.value += 1
/// ```
@Model package final class ReliabilityCounter {
    /// The counter's name (one row per name).
    package var name: String
    /// The current value.
    package var value: Int
    /// A counter.
    package init(name: String, value: Int) {
        self.name = name
        self.value = value
    }
}

/// One row of a batch the readers-during-writes writer saves at once: every row of a batch
/// carries the batch number and the batch's size, so a reader can tell a half save.
///
/// ```swift
/// let row = ReliabilityBatchRow(batch: 12, slot: 0, size: 5)
/// ```
@Model package final class ReliabilityBatchRow {
    /// The save that wrote this row (1, 2, 3 …).
    package var batch: Int
    /// Its position in the batch (0..<size).
    package var slot: Int
    /// How many rows that save wrote.
    package var size: Int
    /// A batch row.
    package init(batch: Int, slot: Int, size: Int) {
        self.batch = batch
        self.slot = slot
        self.size = size
    }
}

/// The single row the readers-during-writes writer updates in every save, with the totals a
/// reader checks against the batch rows.
///
/// ```swift
/// let ledger = ReliabilityLedger(batches: 0, rows: 0)
/// ```
@Model package final class ReliabilityLedger {
    /// Batches saved so far.
    package var batches: Int
    /// Batch rows saved so far (the sum of the batch sizes).
    package var rows: Int
    /// A ledger.
    package init(batches: Int, rows: Int) {
        self.batches = batches
        self.rows = rows
    }
}

/// The row each process of the concurrent-creation probe writes into the store they create together.
///
/// ```swift
/// let row = ReliabilityCreation(trial: 3, worker: 1)
/// ```
@Model package final class ReliabilityCreation {
    /// The trial (one new store per trial).
    package var trial: Int
    /// The process that wrote the row (0..<processes).
    package var worker: Int
    /// A creation row.
    package init(trial: Int, worker: Int) {
        self.trial = trial
        self.worker = worker
    }
}

/// A row of the disk-full probe: a serial and a payload that fills pages.
///
/// ```swift
/// let row = ReliabilityFill(serial: 1, payload: Data(repeating: 7, count: 2_000))
/// ```
@Model package final class ReliabilityFill {
    /// The row's number; saves write consecutive serials.
    package var serial: Int
    /// Bytes that take room.
    package var payload: Data
    /// A fill row.
    package init(serial: Int, payload: Data) {
        self.serial = serial
        self.payload = payload
    }
}

/// A row of the hostile-values probe: a hostile string and extreme numbers.
///
/// ```swift
/// let row = ReliabilityValue(serial: 0, text: "O'Brien %_\\", int: .min, double: -0.0)
/// ```
@Model package final class ReliabilityValue {
    /// The row's number, the key results are compared by.
    package var serial: Int
    /// The hostile string.
    package var text: String
    /// An extreme integer.
    package var int: Int
    /// An extreme double.
    package var double: Double
    /// A value row.
    package init(serial: Int, text: String, int: Int = 0, double: Double = 0) {
        self.serial = serial
        self.text = text
        self.int = int
        self.double = double
    }
}

/// A row the actors probe inserts: its key is unique in the store (the worker's label and a
/// serial), so a lost or doubled insert shows.
///
/// ```swift
/// let entry = ReliabilityEntry(key: "thread 3-17", worker: "thread 3")
/// ```
@Model package final class ReliabilityEntry {
    /// `<worker>-<serial>`, unique.
    @Attribute(.unique) package var key: String
    /// The thread or actor that inserted it.
    package var worker: String
    /// An entry.
    package init(key: String, worker: String) {
        self.key = key
        self.worker = worker
    }
}

/// The schemas the probes open their stores with.
enum ReliabilitySchemas {
    /// The crash loop: parents, children, the counter.
    static var crash: Schema { Schema([ReliabilityParent.self, ReliabilityChild.self, ReliabilityCounter.self]) }
    /// Readers during writes: batch rows and the ledger.
    static var batches: Schema { Schema([ReliabilityBatchRow.self, ReliabilityLedger.self]) }
    /// Concurrent writers: the counter alone.
    static var counter: Schema { Schema([ReliabilityCounter.self]) }
    /// Concurrent creation.
    static var creation: Schema { Schema([ReliabilityCreation.self]) }
    /// Disk full.
    static var fill: Schema { Schema([ReliabilityFill.self]) }
    /// Hostile values.
    static var values: Schema { Schema([ReliabilityValue.self]) }
    /// Actors: counters and unique entries.
    static var actors: Schema { Schema([ReliabilityCounter.self, ReliabilityEntry.self]) }
}

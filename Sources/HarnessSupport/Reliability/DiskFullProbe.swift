import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

extension ReliabilityProbe {
    /// Saves into a store capped with `PRAGMA max_page_count` until it is full: the failing
    /// save must throw a typed `SwiftDataError` (not an `SQLiteError`), leave every committed
    /// row intact and none of its own, keep the context's pending changes, and succeed once
    /// the cap is raised.
    ///
    /// Each save inserts three rows of 1.5 KB, so a save can fail half-way through its inserts
    /// or at commit. The cap is set on the store's own connection through
    /// `ModelContainer.withStoreConnection` (SQLite's stand-in for a full disk).
    package static let diskFull = ReliabilityProbe(
        name: "disk-full",
        title:
            "A save into a full store throws a typed error, writes nothing, keeps its changes, and succeeds after room is made",
        runsInWorker: true, body: DiskFullProbe.run)
}

/// The disk-full experiment (runs inside one worker).
enum DiskFullProbe {
    /// Rows per save.
    static let rowsPerSave = 3
    /// Bytes per row's payload.
    static let payloadSize = 1_500
    /// Pages of room left above the store's size when the cap is set.
    static let headroomPages = 24

    static func payload(_ serial: Int, seed: UInt64) -> Data {
        var rng = SeededGenerator(
            seed: SeededGenerator.derive(seed, labels: ["disk-full", "payload"], index: UInt64(serial)))
        return Data((0..<payloadSize).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
    }

    static func run(_ run: ReliabilityRun, _ tally: inout ReliabilityTally) throws -> String {
        let seed = run.configuration.seed
        let store = run.store("full")
        let container = try ModelContainer(
            for: ReliabilitySchemas.fill, configurations: [ModelConfiguration(url: store)])
        let context = ModelContext(container)
        var serial = 0
        func insertSave() {
            for _ in 0..<rowsPerSave {
                context.insert(ReliabilityFill(serial: serial, payload: payload(serial, seed: seed)))
                serial += 1
            }
        }
        insertSave()
        try context.save()
        let pages = try container.withStoreConnection { db -> Int in
            guard case .integer(let n)? = try db.scalar("PRAGMA page_count") else {
                throw ReliabilityWorkerError("no page_count")
            }
            try db.execute("PRAGMA max_page_count = \(Int(n) + headroomPages)")
            return Int(n)
        }
        tally.set("page cap", pages + headroomPages)
        var committed = rowsPerSave
        var failure: (any Error)?
        // Bounded: the cap is reached after a few dozen saves.
        for _ in 0..<10_000 {
            insertSave()
            do {
                try context.save()
                committed += rowsPerSave
            } catch {
                failure = error
                break
            }
        }
        tally.set("saves before full", committed / rowsPerSave)
        tally.set("rows committed", committed)
        guard let failure else {
            tally.fail("the store never filled up under a cap of \(pages + headroomPages) pages")
            return ""
        }
        let thrown = ThrownError(failure)
        tally.set("typed errors", thrown.typed ? 1 : 0)
        tally.set("untyped errors", thrown.typed ? 0 : 1)
        if !thrown.typed { tally.fail("the full store threw \(thrown)") }

        // Committed rows intact, none of the failed save's, as a fresh context sees them.
        let rows = try ModelContext(container).fetch(
            FetchDescriptor<ReliabilityFill>(sortBy: [SortDescriptor(\.serial)]))
        tally.set("rows found after the failure", rows.count)
        if rows.map(\.serial) != Array(0..<committed) {
            tally.fail(
                "after the failed save the store holds serials \(rows.first?.serial ?? -1)…\(rows.last?.serial ?? -1) (\(rows.count) rows); expected 0..<\(committed)"
            )
        }
        let damaged = rows.filter { $0.payload != payload($0.serial, seed: seed) }.count
        tally.set("damaged rows", damaged)
        if damaged > 0 { tally.fail("\(damaged) committed rows read back with different payloads") }

        // The context keeps the failed save's inserts.
        let pending = context.insertedModelsArray.count
        tally.set("pending inserts kept", pending)
        if !context.hasChanges || pending != rowsPerSave {
            tally.fail("after the failed save the context has \(pending) pending inserts; expected \(rowsPerSave)")
        }

        // Raising the cap lets the same pending changes save.
        try container.withStoreConnection { try $0.execute("PRAGMA max_page_count = 1073741823") }
        do {
            try context.save()
            let after = try ModelContext(container).fetchCount(FetchDescriptor<ReliabilityFill>())
            tally.set("rows after raising the cap", after)
            if after != committed + rowsPerSave {
                tally.fail(
                    "after raising the cap and saving again the store has \(after) rows; expected \(committed + rowsPerSave)"
                )
            }
        } catch {
            tally.fail("saving again after raising the cap failed: \(ThrownError(error))")
        }
        let integrity = try container.integrityCheck()
        if integrity != "ok" { tally.fail("integrity_check: \(integrity)") }
        return
            "full after \(committed / rowsPerSave) saves: \(thrown.typed ? "SwiftDataError.\(thrown.code)" : thrown.code), committed rows intact, pending changes kept, saved after raising the cap"
    }
}

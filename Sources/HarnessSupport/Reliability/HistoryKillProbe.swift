import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

#if canImport(Glibc)
    import Glibc
#endif

extension ReliabilityProbe {
    /// A writer process saves in a loop with persistent history recording (every store has the
    /// history tables) and is SIGKILLed at seeded moments; after each kill a checker finds one
    /// history transaction per committed save, no change without its transaction, and each
    /// transaction's changes exactly its save's rows (HIS-01, HIS-02).
    ///
    /// Save *n* increments the counter (its insert, for the first save) and inserts
    /// 1 + *n* mod 4 rows of batch *n*. A kill lands after 0…``ReliabilityConfiguration/maxSavesBeforeKill``
    /// reported saves plus 0…``ReliabilityConfiguration/maxKillDelayMicroseconds``, inside the
    /// next save or its commit; ``ReliabilityConfiguration/historyKills`` kills in all.
    ///
    /// After each kill the checker opens the store and reads it with SQL: saves = the counter;
    /// committed ≤ saves ≤ committed + 1 (committed: the last save the writer reported);
    /// every batch 1…saves has its rows and no later batch exists; `ATRANSACTION` has one row
    /// per save; every `ACHANGE` row's transaction exists; and transaction *i* (in key order)
    /// holds exactly save *i*'s changes: the counter's insert or update and one insert per row
    /// of batch *i*.
    package static let history = ReliabilityProbe(
        name: "history",
        title:
            "SIGKILL a writer recording history: one transaction per committed save, no orphan change, each with its save's rows",
        runsInWorker: false, body: HistoryKillProbe.run)
}

/// A row the history writer inserts: `1 + batch % 4` rows per save, numbered by the save.
///
/// ```swift
/// let row = ReliabilityHistoryRow(batch: 3, slot: 0)
/// ```
@Model package final class ReliabilityHistoryRow {
    /// The save that inserted the row (the counter's value after it).
    package var batch: Int
    /// Its position in the batch.
    package var slot: Int
    /// A row of a batch.
    package init(batch: Int, slot: Int) {
        self.batch = batch
        self.slot = slot
    }
}

/// The history probe's coordinator, writer and checker.
enum HistoryKillProbe {
    /// The counter's name.
    static let counterName = "history saves"

    /// The models the history writer saves.
    static var schema: Schema { Schema([ReliabilityCounter.self, ReliabilityHistoryRow.self]) }

    /// How many rows save `batch` inserts.
    static func rows(inBatch batch: Int) -> Int { 1 + batch % 4 }

    /// What a checker found after a kill.
    struct Check: Codable {
        /// The counter's value (0 before the first save).
        var saves = 0
        /// Rows of every batch.
        var rows = 0
        /// Batches whose row count is not `1 + batch % 4`, or numbered past the counter.
        var badBatches = 0
        /// `ATRANSACTION` rows.
        var transactions = 0
        /// `ACHANGE` rows.
        var changes = 0
        /// `ACHANGE` rows whose transaction does not exist.
        var orphanChanges = 0
        /// Transactions whose changes are not their save's.
        var mismatchedTransactions = 0
        /// The first such transaction, described.
        var firstMismatch: String?
        /// The error that stopped the check, if any.
        var error: ThrownError?
    }

    static func run(_ run: ReliabilityRun, _ tally: inout ReliabilityTally) throws -> String {
        let c = run.configuration
        let store = run.store("history")
        var rng = run.random("history")
        var committed = 0
        for figure in [
            "kills", "saves committed", "history transactions", "history changes checked",
            "saves without their transaction", "orphan changes", "transactions with wrong changes",
            "failed reopens", "writer errors",
        ] {
            tally.set(figure, 0)
        }
        for round in 1...max(1, c.historyKills) {
            let saves = rng.uniform(in: 0...c.maxSavesBeforeKill)
            let delay = rng.uniform(in: 0...c.maxKillDelayMicroseconds)
            let at = "kill \(round) (seed \(c.seed), \(delay) µs after save \(saves))"
            let writer = try run.spawn("history-writer", ["store=\(store.path)"], label: "history writer \(round)")
            if writer.line(startingWith: "opened") != nil && writer.awaitCommits(saves) { usleep(UInt32(delay)) }
            guard writer.killAndTally(at: at, committed: &committed, &tally) else { break }

            let (answer, checkerEnd) = try run.check(
                "history-checker", ["store=\(store.path)"], label: "history checker \(round)", as: Check.self)
            guard let check = answer else {
                tally.add("failed reopens")
                tally.fail("\(at): the checker gave no answer: \(checkerEnd)")
                break
            }
            if let error = check.error {
                tally.add("failed reopens")
                tally.fail("\(at): reopening or reading the store failed: \(error)")
                break
            }
            var violations: [String] = []
            if check.saves < committed {
                violations.append("counter \(check.saves) but \(committed) saves were reported committed")
            }
            if check.saves > committed + 1 {
                violations.append("counter \(check.saves) but only \(committed) saves were reported")
            }
            if check.badBatches > 0 { violations.append("\(check.badBatches) batches of rows are not whole saves") }
            if check.transactions != check.saves {
                tally.set(
                    "saves without their transaction",
                    max(tally.value("saves without their transaction"), check.saves - check.transactions))
                violations.append("\(check.transactions) history transactions for \(check.saves) saves")
            }
            if check.orphanChanges > 0 {
                tally.add("orphan changes", check.orphanChanges)
                violations.append("\(check.orphanChanges) changes whose transaction does not exist")
            }
            if check.mismatchedTransactions > 0 {
                tally.add("transactions with wrong changes", check.mismatchedTransactions)
                violations.append(
                    "\(check.mismatchedTransactions) transactions whose changes are not their save's rows (first: \(check.firstMismatch ?? "?"))"
                )
            }
            if !violations.isEmpty { tally.fail("\(at): " + violations.joined(separator: "; ")) }
            committed = max(committed, check.saves)
            tally.set("saves committed", committed)
            tally.set("history transactions", check.transactions)
            tally.set("history changes checked", tally.value("history changes checked") + check.changes)
        }
        return
            "\(tally.value("kills")) kills, \(tally.value("saves committed")) saves: one history transaction per save, each with exactly its save's changes, no orphan change"
    }

    // MARK: Worker roles

    /// Opens the store and saves until killed (counter + 1, a batch of rows per save),
    /// printing `committed <counter>` after each save.
    static func writer(_ args: WorkerArguments) throws -> Int32 {
        let store = try args.url("store")
        let container = try ModelContainer(for: schema, configurations: [ModelConfiguration(url: store)])
        WorkerIO.say("opened")
        let context = ModelContext(container)
        return try WorkerIO.saveUntilKilled(context, counter: counterName) { value in
            for slot in 0..<rows(inBatch: value) {
                context.insert(ReliabilityHistoryRow(batch: value, slot: slot))
            }
        }
    }

    /// Opens the store (recovering what the kill left), reads the rows and the history with
    /// SQL, prints `check <json>`, and exits without closing the store.
    static func checker(_ args: WorkerArguments) throws -> Int32 {
        let store = try args.url("store")
        var check = Check()
        var container: ModelContainer?
        do {
            container = try ModelContainer(for: schema, configurations: [ModelConfiguration(url: store)])
            let db = try SQLiteConnection(path: store.path, mode: .readOnly)
            defer { db.close() }
            try inspect(db, &check)
        } catch {
            check.error = ThrownError(error)
        }
        WorkerIO.sayCheck(check)
        withExtendedLifetime(container) { exit(0) }
    }

    /// Reads the counter, the rows and the history tables and fills `check`.
    private static func inspect(_ db: SQLiteConnection, _ check: inout Check) throws {
        func int(_ value: SQLValue?) -> Int64 { if case .integer(let n)? = value { n } else { -1 } }
        var entity: [String: Int64] = [:]
        for row in try db.rows("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY") {
            if case .text(let name) = row[1] { entity[name] = int(row[0]) }
        }
        let counterEntity = entity["ReliabilityCounter"] ?? -1
        let rowEntity = entity["ReliabilityHistoryRow"] ?? -1
        let counter = try db.rows(
            "SELECT Z_PK, ZVALUE FROM ZRELIABILITYCOUNTER WHERE ZNAME = ?", [.text(counterName)]
        ).first
        let counterKey = int(counter?[0])
        check.saves = counter.map { Int(int($0[1])) } ?? 0
        // Save n's expected changes, as "kind entity key" texts.
        var expected: [Int: [String]] = [:]
        if check.saves > 0 {
            for n in 1...check.saves {
                expected[n] = ["\(n == 1 ? 0 : 1) \(counterEntity) \(counterKey)"]
            }
        }
        var batchSizes: [Int: Int] = [:]
        for row in try db.rows("SELECT Z_PK, ZBATCH FROM ZRELIABILITYHISTORYROW") {
            let batch = Int(int(row[1]))
            check.rows += 1
            batchSizes[batch, default: 0] += 1
            expected[batch, default: []].append("0 \(rowEntity) \(int(row[0]))")
        }
        check.badBatches = batchSizes.filter { $0.key < 1 || $0.key > check.saves }.count
        if check.saves > 0 {
            check.badBatches += (1...check.saves).filter { batchSizes[$0] != rows(inBatch: $0) }.count
        }
        let transactions = try db.rows("SELECT Z_PK FROM ATRANSACTION ORDER BY Z_PK").map { int($0[0]) }
        check.transactions = transactions.count
        var changes: [Int64: [String]] = [:]
        for row in try db.rows("SELECT ZTRANSACTIONID, ZCHANGETYPE, ZENTITY, ZENTITYPK FROM ACHANGE") {
            check.changes += 1
            changes[int(row[0]), default: []].append("\(int(row[1])) \(int(row[2])) \(int(row[3]))")
        }
        let known = Set(transactions)
        check.orphanChanges = changes.filter { !known.contains($0.key) }.reduce(0) { $0 + $1.value.count }
        for (index, key) in transactions.enumerated() {
            let save = index + 1
            let found = (changes[key] ?? []).sorted()
            let wanted = (expected[save] ?? []).sorted()
            guard found != wanted else { continue }
            check.mismatchedTransactions += 1
            if check.firstMismatch == nil {
                check.firstMismatch =
                    "transaction \(key), save \(save): changes [\(found.joined(separator: ", "))], expected [\(wanted.joined(separator: ", "))]"
            }
        }
    }
}

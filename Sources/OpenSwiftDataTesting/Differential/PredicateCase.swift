import Foundation
import OpenSwiftData

/// A difference between a store and the reference in one check of one case.
struct DifferentialMismatch: Error {
    let check: String
    let store: StoreKind
    let expected: String
    let actual: String
    var details: [String] = []
}

/// Where a check runs: the containers and the reference rows (the dataset's, or a shrunk copy's).
struct CheckEnvironment<Root: PersistentModel> {
    let rows: [Root]
    let container: (StoreKind) -> ModelContainer
}

/// Every store's failure of one case (the first is what ``DifferentialHarness/verifyCase(_:)`` throws).
struct DifferentialFailures: Error {
    let failures: [ConformanceFailure]
}

/// One random-predicate case: a predicate, sort and pivot over one entity, checked on every store.
///
/// Checks, per store: `reference` (rows and order equal the Swift evaluation), `fetchCount`
/// (count and identifiers equal the rows fetched), `partition` (`p` and `!p` split all rows,
/// no overlap), `paging` (pages stitched together equal the full fetch), `pivot` (a predicate
/// made true for a chosen row returns it).
struct PredicateCase<Root: PersistentModel> {
    let profile: EntityProfile<Root>
    let dataset: DifferentialDataset
    let harness: DifferentialHarness
    let index: Int
    let rows: [Root]
    let predicate: RandomPredicate<Root>
    let sorts: [SortDescriptor<Root>]
    /// What the case's fetch descriptors ask for (``FetchDescriptor/stringSortStyle``): `nil`
    /// (the container's default, natural) in about a third of the cases, `.natural` in about a
    /// third, `.lexical` in the rest. A sort descriptor made with `comparator: .lexical` (the
    /// profiles have some on `String` keys) sorts lexically whatever this says.
    let requestedStringSortStyle: StringSortStyle?
    /// The style that applies: ``requestedStringSortStyle``, else the default, natural.
    var stringSortStyle: StringSortStyle { requestedStringSortStyle ?? .natural }
    let sortText: String
    let pivotRow: Root?
    let pivot: RandomPredicate<Root>?
    let pageSlack: Int

    init(
        _ profile: EntityProfile<Root>, _ dataset: DifferentialDataset, harness: DifferentialHarness, index: Int,
        random: inout SeededGenerator
    ) throws {
        self.profile = profile
        self.dataset = dataset
        self.harness = harness
        self.index = index
        if !dataset.reference.contains(Root.self) { try dataset.load(Root.self) }
        rows = dataset.reference.rows(Root.self)
        predicate = profile.randomPredicate(
            depth: 1 + random.below(4), rows: rows, universe: dataset.reference, using: &random)
        var sorts: [SortDescriptor<Root>] = []
        var names: [String] = []
        for _ in 0..<(profile.sorts.isEmpty ? 0 : random.below(3)) {  // a derived profile may have no sort key
            let option = profile.sorts[random.below(profile.sorts.count)]
            let order: SortOrder = random.chance(0.5) ? .forward : .reverse
            sorts.append(option.make(order))
            names.append("SortDescriptor(\\.\(option.name)\(order == .reverse ? ", order: .reverse" : ""))")
        }
        self.sorts = sorts
        // Drawn from its own stream, so adding it left every case's predicate and sorts unchanged.
        var styleRandom = SeededGenerator(
            seed: SeededGenerator.derive(harness.seed, labels: ["stringSortStyle"], index: UInt64(index)))
        let styleDraw = styleRandom.below(3)
        requestedStringSortStyle = styleDraw == 0 ? nil : styleDraw == 1 ? .natural : .lexical
        sortText =
            "[" + names.joined(separator: ", ") + "]"
            + (requestedStringSortStyle.map { ", stringSortStyle: .\($0)" } ?? "")
        pageSlack = random.below(3)
        if rows.isEmpty {
            pivotRow = nil
            pivot = nil
        } else {
            let row = rows[random.below(rows.count)]
            pivotRow = row
            pivot = try PredicateCase.pivotPredicate(profile, row, dataset.reference, &random)
        }
    }

    /// A conjunction of 1–3 leaves over `row`'s own values, each negated if needed so it holds
    /// for `row`, sometimes or-ed with a random predicate.
    static func pivotPredicate(
        _ profile: EntityProfile<Root>, _ row: Root, _ universe: ReferenceRows,
        _ random: inout SeededGenerator
    ) throws -> RandomPredicate<Root> {
        let inputs = LeafInputs(rows: [row], depth: 2, universe: universe, level: 0)
        var q: RandomPredicate<Root>? = nil
        for _ in 0..<(1 + random.below(3)) {
            var leaf = profile.leaf(inputs, &random)
            if try !leaf.predicate.evaluate(row) { leaf = .not(leaf) }
            q = q.map { .and($0, leaf) } ?? leaf
        }
        if random.chance(0.3) {
            q = .or(
                q!,
                profile.randomPredicate(depth: 2, rows: universe.rows(Root.self), universe: universe, using: &random))
        }
        return q!
    }

    /// Runs every check on every store; returns the number of checks made.
    func run() throws -> Int {
        do {
            return try verify(predicate, only: nil)
        } catch let m as DifferentialMismatch {
            // A pivot failure is about the pivot predicate; the others about the case's predicate.
            let shown = m.check == "pivot" ? pivot ?? predicate : predicate
            var shrunk = shrink(m)
            let fewerRows = shrinkRows(shrunk)
            if let last = fewerRows?.mismatch { shrunk.1 = last }
            var failures = [
                harness.failure(
                    original: shown, index: index, dataset: dataset, shrunk: shrunk, sortText: sortText,
                    rows: fewerRows?.lines ?? [])
            ]
            // The first store that failed stopped the case: run the same check on the others,
            // so the report says which stores misbehave.
            for other in harness.stores where other != m.store {
                let isPivot = m.check == "pivot"
                do {
                    _ = try verify(
                        isPivot ? predicate : shrunk.0, pivot: isPivot ? shrunk.0 : nil, only: (m.check, other))
                } catch let again as DifferentialMismatch {
                    failures.append(
                        harness.failure(
                            original: shown, index: index, dataset: dataset, shrunk: (shrunk.0, again),
                            sortText: sortText))
                }
            }
            throw DifferentialFailures(failures: failures)
        }
    }

    func key(_ m: Root) -> Int64 { m.persistentModelID.primaryKey ?? -1 }

    /// The reference order: the sort descriptors, strings compared as the fetch compares them
    /// (``stringSortStyle``, or the descriptor's own comparator), then the primary key.
    func referenceOrder(_ rows: [Root], _ sorts: [SortDescriptor<Root>]) -> [Root] {
        rows.sorted { a, b in
            for s in sorts {
                switch s.compare(a, b, stringSortStyle: stringSortStyle) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            return key(a) < key(b)
        }
    }

    func keys(_ rows: [Root]) -> [Int64] { rows.map(key) }

    /// Checks `p` on every store (or only the check and store of `only`); throws the first mismatch.
    func verify(
        _ p: RandomPredicate<Root>, pivot: RandomPredicate<Root>? = nil,
        only: (check: String, store: StoreKind)?, in environment: CheckEnvironment<Root>? = nil
    ) throws -> Int {
        let pivot = pivot ?? self.pivot
        let env = environment ?? CheckEnvironment(rows: rows, container: dataset.pair.container)
        let rows = env.rows
        let foundation = p.predicate
        let expectedRows: [Root]
        do {
            // Predicate.evaluate recurses once per level: a tree too deep for the stack is refused first.
            try PredicateDepth.check(foundation)
            expectedRows = try rows.filter { try foundation.evaluate($0) }
        } catch {
            throw DifferentialMismatch(
                check: "reference", store: .memory, expected: "Predicate.evaluate succeeds",
                actual: "Predicate.evaluate threw \(error)")
        }
        let expectedOrdered = keys(referenceOrder(expectedRows, sorts))
        let expectedSet = Set(expectedOrdered)
        let allKeys = Set(keys(rows))
        var checks = 0
        for store in harness.stores where only == nil || only!.store == store {
            func wants(_ check: String) -> Bool { only == nil || only!.check == check }
            let context = ModelContext(env.container(store))
            func fail(_ check: String, _ expected: String, _ actual: String, _ details: [String] = [])
                -> DifferentialMismatch
            {
                DifferentialMismatch(check: check, store: store, expected: expected, actual: actual, details: details)
            }
            func attempt<T>(_ check: String, _ body: () throws -> T) throws -> T {
                do { return try body() } catch let m as DifferentialMismatch { throw m } catch {
                    throw fail(check, "no error", "\(type(of: error)): \(error)")
                }
            }
            func sorted(_ order: [SortDescriptor<Root>]) -> FetchDescriptor<Root> {
                var d = FetchDescriptor(predicate: foundation, sortBy: order)
                d.stringSortStyle = requestedStringSortStyle
                return d
            }
            let fetched = try attempt("reference") { keys(try context.fetch(sorted(sorts))) }
            if wants("reference") {
                checks += 1
                let same =
                    sorts.isEmpty
                    ? Set(fetched) == expectedSet && fetched.count == expectedSet.count : fetched == expectedOrdered
                if !same {
                    throw fail(
                        "reference", describe(expectedOrdered, sorted: !sorts.isEmpty),
                        describe(fetched, sorted: !sorts.isEmpty),
                        rowDifference(
                            expected: expectedSet, actual: Set(fetched), rows: rows, container: env.container(store)))
                }
            }
            if wants("fetchCount") {
                checks += 1
                let count = try attempt("fetchCount") { try context.fetchCount(FetchDescriptor(predicate: foundation)) }
                if count != expectedSet.count { throw fail("fetchCount", "\(expectedSet.count)", "\(count)") }
                let ids = try attempt("fetchCount") {
                    try context.fetchIdentifiers(FetchDescriptor(predicate: foundation))
                }
                let idKeys = Set(ids.compactMap(\.primaryKey))
                if idKeys != expectedSet || ids.count != expectedSet.count {
                    throw fail(
                        "fetchCount", "identifiers \(describe(Array(expectedSet), sorted: false))",
                        "identifiers \(describe(Array(idKeys), sorted: false))")
                }
            }
            if wants("partition") {
                checks += 1
                let negative = try attempt("partition") {
                    keys(try context.fetch(FetchDescriptor(predicate: p.negated)))
                }
                let overlap = Set(negative).intersection(fetched)
                let missing = allKeys.subtracting(negative).subtracting(fetched)
                if !overlap.isEmpty || !missing.isEmpty || negative.count + fetched.count != allKeys.count {
                    throw fail(
                        "partition", "fetch(p) and fetch(!p) split all \(allKeys.count) rows",
                        "\(fetched.count) + \(negative.count) rows; in both: \(describe(Array(overlap), sorted: false)); in neither: \(describe(Array(missing), sorted: false))",
                        rowDifference(
                            expected: [], actual: overlap.union(missing), rows: rows, container: env.container(store)))
                }
            }
            if wants("paging") {
                checks += 1
                let order = sorts.isEmpty ? [profile.sorts[0].make(.forward)] : sorts
                let full = try attempt("paging") { keys(try context.fetch(sorted(order))) }
                let pageSize = max(1, expectedSet.count / 3 + pageSlack)
                var stitched: [Int64] = []
                for page in 0..<6 {
                    var d = sorted(order)
                    d.fetchOffset = page * pageSize
                    d.fetchLimit = pageSize
                    let part = try attempt("paging") { keys(try context.fetch(d)) }
                    stitched += part
                    if part.count < pageSize { break }
                }
                let expectedFull = keys(referenceOrder(expectedRows, order))
                if full != expectedFull || stitched != Array(full.prefix(stitched.count))
                    || (stitched.count < full.count && stitched.count < 6 * pageSize)
                {
                    throw fail(
                        "paging", "pages of \(pageSize) stitched = \(describe(expectedFull, sorted: true))",
                        "full \(describe(full, sorted: true)), stitched \(describe(stitched, sorted: true))")
                }
                // The batched reads (keys first, then batches by key range or key list) give the
                // same rows in the same order; they read the store, so only without pending changes.
                if !context.hasChanges {
                    for size in [pageSize, 64] {
                        let batched = try attempt("paging") {
                            keys(Array(try context.fetch(sorted(order), batchSize: size)))
                        }
                        var visited: [Int64] = []
                        try attempt("paging") {
                            try context.enumerate(sorted(order), batchSize: size) { visited.append(key($0)) }
                        }
                        if batched != expectedFull || visited != expectedFull {
                            throw fail(
                                "paging", "batches of \(size) = \(describe(expectedFull, sorted: true))",
                                "fetch(_:batchSize:) \(describe(batched, sorted: true)), enumerate \(describe(visited, sorted: true))"
                            )
                        }
                    }
                }
            }
            if wants("pivot"), let pivot, let pivotRow {
                checks += 1
                let q = pivot.predicate
                let got = try attempt("pivot") { keys(try context.fetch(FetchDescriptor(predicate: q))) }
                try PredicateDepth.check(q)
                let want = try Set(rows.filter { try q.evaluate($0) }.map(key))
                if !got.contains(key(pivotRow)) || Set(got) != want {
                    throw fail(
                        "pivot",
                        "row \(key(pivotRow)) among \(describe(Array(want), sorted: false)) for \(pivot.source)",
                        describe(got, sorted: false),
                        rowDifference(expected: want, actual: Set(got), rows: rows, container: env.container(store)))
                }
            }
        }
        return checks
    }

    func describe(_ keys: [Int64], sorted: Bool) -> String {
        let shown = sorted ? keys : keys.sorted()
        let head = shown.prefix(30).map(String.init).joined(separator: ", ")
        return "\(keys.count) rows [\(head)\(shown.count > 30 ? ", …" : "")]"
    }

    /// The rows only one side has, with their stored values.
    func rowDifference(expected: Set<Int64>, actual: Set<Int64>, rows: [Root], container: ModelContainer) -> [String] {
        let byKey = Dictionary(rows.map { (key($0), $0) }, uniquingKeysWith: { a, _ in a })
        let missing = expected.subtracting(actual).sorted().prefix(5)
        let extra = actual.subtracting(expected).sorted().prefix(5)
        return missing.compactMap { byKey[$0] }.map {
            "missing: " + DifferentialDataset.describeRow($0.persistentModelID, in: container)
        }
            + extra.compactMap { byKey[$0] }.map {
                "extra:   " + DifferentialDataset.describeRow($0.persistentModelID, in: container)
            }
    }

    /// The smallest predicate (by repeatedly taking sub-predicates) that still fails the same
    /// check on the same store; for the pivot check, the smallest pivot predicate that still
    /// holds for the pivot row and still fails.
    func shrink(_ m: DifferentialMismatch) -> (RandomPredicate<Root>, DifferentialMismatch) {
        let isPivot = m.check == "pivot"
        let start = isPivot ? pivot ?? predicate : predicate
        guard harness.shrinks else { return (start, m) }
        var best = (start, m)
        var attempts = 0
        var progress = true
        while progress && attempts < 400 {
            progress = false
            for candidate in best.0.shrinkCandidates where candidate.size < best.0.size {
                if isPivot {
                    // try?: a shrink candidate that cannot be evaluated is skipped; the original failure stands.
                    guard let row = pivotRow, (try? candidate.predicate.evaluate(row)) == true else { continue }
                }
                attempts += 1
                do {
                    if isPivot {
                        _ = try verify(predicate, pivot: candidate, only: (m.check, m.store))
                    } else {
                        _ = try verify(candidate, only: (m.check, m.store))
                    }
                } catch let again as DifferentialMismatch where again.check == m.check {
                    best = (candidate, again)
                    progress = true
                    break
                } catch {}
                if attempts >= 400 { break }
            }
        }
        return best
    }
}

extension DifferentialHarness {
    /// The report of a mismatch: seed, case, dataset, the (shrunk) predicate and its SQL.
    func failure<Root: PersistentModel>(
        original: RandomPredicate<Root>, index: Int, dataset: DifferentialDataset,
        shrunk: (RandomPredicate<Root>, DifferentialMismatch), sortText: String,
        rows: [String] = []
    ) -> ConformanceFailure {
        let (p, m) = shrunk
        let descriptor = FetchDescriptor(predicate: p.predicate)
        // try?: the SQL decorates a failure report; a predicate without SQL says so.
        let sql = (try? dataset.pair.container(m.store).sql(for: descriptor)) ?? "(not translatable)"
        let replay =
            dataset.name == "schema"
            ? "try DifferentialHarness(schema: …, seed: \(seed)).verifyCase(\(index))"
            : "harness conform --suite differential --seed \(seed) --case \(index)"
        var details = [
            "replay:    " + replay,
            "dataset:   \(dataset.name), \(dataset.pair.memory.schema.entities.count) entities",
            "predicate: #Predicate<\(Root.self)> { \(p.source) }",
            "sort:      \(sortText)",
            "SQL:       \(sql)",
        ]
        if p.size < original.size { details.append("shrunk from \(original.size) nodes: { \(original.source) }") }
        details += rows + m.details
        return ConformanceFailure(
            suite: "differential", caseID: "\(m.check) #\(index)", store: m.store, seed: seed,
            check: "\(m.check) of \(Root.self) predicate", expected: m.expected, actual: m.actual,
            trace: ["seed=\(seed)", "case=\(index)", "dataset=\(dataset.name)", "store=\(m.store)"],
            details: details)
    }
}

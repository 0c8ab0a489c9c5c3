import Foundation
import OpenSwiftData

extension PredicateCase {
    /// The fewest rows of the queried entity for which the (already shrunk) check still fails:
    /// rows are deleted, half the candidates at a time and then fewer, from private copies of the
    /// failing store (delete rules apply, so related rows may go too), keeping each deletion
    /// after which the same check still fails on the same store. The pivot row is never deleted.
    ///
    /// Returns the report lines (the remaining rows with their stored values) and the mismatch
    /// on the smallest copy; `nil` when shrinking is off or the copy cannot be made.
    func shrinkRows(_ shrunk: (RandomPredicate<Root>, DifferentialMismatch)) -> (
        lines: [String], mismatch: DifferentialMismatch
    )? {
        let (p, m) = shrunk
        guard harness.shrinks, rows.count > 1 else { return nil }
        let isPivot = m.check == "pivot"
        // try?: shrinking is best effort; nil reports the unshrunk failure.
        guard let scratch = try? ScratchDirectory(prefix: "shrink-rows") else { return nil }
        let snapshot = scratch.url.appendingPathComponent("snapshot.sqlite")
        let source = dataset.pair.container(m.store)
        // try?: shrinking is best effort; nil reports the unshrunk failure.
        guard (try? source.backup(to: snapshot)) != nil else { return nil }

        var copies = 0
        /// A copy of the snapshot of the failing store's kind, with the rows in `removed` deleted.
        func copy(removing removed: Set<Int64>) throws -> (ModelContainer, [Root]) {
            copies += 1
            let container: ModelContainer
            if m.store == .disk {
                let url = scratch.url.appendingPathComponent("copy\(copies).store")
                try FileManager.default.copyItem(at: snapshot, to: url)
                container = try ModelContainer(for: source.schema, configurations: [ModelConfiguration(url: url)])
            } else {
                container = try StoreKind.memory.makeContainer(source.schema, in: scratch.url)
                try container.restore(from: snapshot)
            }
            if !removed.isEmpty {
                let context = ModelContext(container)
                for row in try context.fetch(FetchDescriptor<Root>()) where removed.contains(key(row)) {
                    context.delete(row)
                }
                try context.save()
            }
            return (container, try ModelContext(container).fetch(FetchDescriptor<Root>()))
        }
        /// The mismatch of the same check on a copy without `removed`, if it still fails.
        func failure(removing removed: Set<Int64>) -> DifferentialMismatch? {
            // try?: shrinking is best effort; nil reports the unshrunk failure.
            guard let (container, remaining) = try? copy(removing: removed) else { return nil }
            let env = CheckEnvironment(rows: remaining, container: { _ in container })
            do {
                _ =
                    isPivot
                    ? try verify(predicate, pivot: p, only: (m.check, m.store), in: env)
                    : try verify(p, only: (m.check, m.store), in: env)
            } catch let again as DifferentialMismatch where again.check == m.check {
                return again
            } catch {}
            return nil
        }

        // The failure must show on a full copy first (it may depend on state a copy lacks).
        guard var last = failure(removing: []) else { return nil }
        let protected: Set<Int64> = isPivot ? Set(pivotRow.map { [key($0)] } ?? []) : []
        let candidates = keys(rows).filter { !protected.contains($0) }
        let all = Set(candidates)
        let (kept, shrunkFailure) = ChunkShrinker.shrink(candidates, attempts: 200) { kept in
            failure(removing: all.subtracting(kept))
        }
        let removed = all.subtracting(kept)
        if let shrunkFailure { last = shrunkFailure }
        // try?: shrinking is best effort; nil reports the unshrunk failure.
        guard let (container, remaining) = try? copy(removing: removed) else { return nil }
        var lines = [
            "rows:      \(remaining.count) of \(rows.count) \(Root.self) rows still fail \(m.check) on a copy of the \(m.store) store"
                + " (the others deleted, delete rules applied):"
        ]
        lines += remaining.prefix(12).map {
            "  " + DifferentialDataset.describeRow($0.persistentModelID, in: container)
        }
        if remaining.count > 12 { lines.append("  …") }
        return (lines, last)
    }
}

/// The shrinker of every differential failure: a failing list (a script's steps, a store's rows)
/// loses chunks while the failure persists.
///
/// Chunks of half the list are tried first, then of a quarter and so on down to single
/// elements; a removal after which the list still fails is kept, so the next chunk starts at the
/// same place. At most `attempts` lists are tried. The order of the tries is fixed, so a seed
/// shrinks to the same list on every run.
enum ChunkShrinker {
    /// The shortest list found for which `stillFails` answers a failure, with the failure of
    /// that list (`nil` when no removal kept the failure: the list is `items`).
    static func shrink<Element, Failure>(
        _ items: [Element], attempts limit: Int, stillFails: ([Element]) -> Failure?
    ) -> (items: [Element], failure: Failure?) {
        var best = items
        var failure: Failure?
        var chunk = max(1, items.count / 2)
        var attempts = 0
        while attempts < limit {
            var i = 0
            while i < best.count && attempts < limit {
                attempts += 1
                var candidate = best
                candidate.removeSubrange(i..<min(i + chunk, best.count))
                if let again = stillFails(candidate) {
                    best = candidate
                    failure = again
                } else {
                    i += chunk
                }
            }
            if chunk == 1 { break }
            chunk = max(1, chunk / 2)
        }
        return (best, failure)
    }

    /// The shortest script of `steps` found that still fails `first`'s check when `execute` runs
    /// it, and its failure (`first` when none is shorter). Any other error counts as passing.
    static func shrinkSteps(
        _ steps: [MutationScript.Step], attempts limit: Int, first: ConformanceFailure,
        execute: ([MutationScript.Step]) throws -> Int
    ) -> (steps: [MutationScript.Step], failure: ConformanceFailure) {
        let (best, failure) = shrink(steps, attempts: limit) { candidate -> ConformanceFailure? in
            do {
                _ = try execute(candidate)
            } catch let again as ConformanceFailure where again.check == first.check {
                return again
            } catch {}
            return nil
        }
        return (best, failure ?? first)
    }
}

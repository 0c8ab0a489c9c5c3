import OpenSwiftData

/// Schema fixtures: one inheritance hierarchy per step, relationships filled as the
/// ``AutomaticPlan`` decided.
extension FixtureRunner {
    /// How one relationship's targets have been used so far in this step.
    final class FillState {
        var usage: [Int: Int] = [:]
        var minimumCursor = 0
        /// Exclusive targets in a seeded random order, and how far they are used up: picking
        /// the next free one stays O(1) on average however many rows the step generates.
        var permutation: [Int] = []
        var cursor = 0
        /// The fan-out sampler for a pool of `samplerSize` targets (a Zipf sampler costs O(n) to build).
        var sampler: IntSampler?
        var samplerSize = -1
    }

    func runAutomatic(_ h: AutomaticPlan.Hierarchy, label: String) throws {
        var classOf: [Int] = []
        for (k, c) in h.classes.enumerated() { classOf += Array(repeating: k, count: c.count) }
        var shuffler = SeededGenerator(seed: SeededGenerator.derive(seed, labels: [label, "#class"]))
        shuffler.shuffle(&classOf)
        let lineage: [[String]] = h.classes.map { c in
            var names: [String] = []
            var e: Schema.Entity? = c.entity
            while let x = e {
                names.append(x.name)
                e = x.superentity
            }
            return names
        }
        var idOfRow = [PersistentIdentifier?](repeating: nil, count: classOf.count)
        var stepPool: [String: [Int]] = [:]
        var states: [String: FillState] = [:]
        var batchRows: [Int: any PersistentModel] = [:]

        var batch: Batch? = nil
        func flush() throws {
            guard let b = batch else { return }
            try b.context.save()
            for (i, m) in b.made { idOfRow[i] = m.persistentModelID }
            rowsDone += b.made.count
            b.made.removeAll(keepingCapacity: true)
            batchRows.removeAll(keepingCapacity: true)
            progress(FixtureProgress(step: label, rowsDone: rowsDone, totalRows: totalRows))
        }

        for i in 0..<classOf.count {
            if batch == nil || batch!.made.count >= batchSize {
                try flush()
                batch = Batch(container)
            }
            let b = batch!
            let entity = h.classes[classOf[i]].entity
            var row = Row(index: i, entity: label, seed: seed, traits: traits)
            row.ledger = ledger
            // Targets first: a required to-one must be in the storage before the model exists.
            var chosen: [(AutomaticPlan.Fill, [any PersistentModel])] = []
            var required: [String: any PersistentModel] = [:]
            for fill in h.fills[entity.name] ?? [] {
                let state = states[fill.relationship.name] ?? FillState()
                states[fill.relationship.name] = state
                // Pool positions index the earlier rows of this step, or the stored targets of
                // earlier steps (no per-row copy of either: that would make a step quadratic).
                let poolSize: Int
                let resolve: (Int) -> any PersistentModel
                if fill.sameStep {
                    let pool = stepPool[fill.target.name] ?? []
                    poolSize = pool.count
                    resolve = { j in batchRows[pool[j]] ?? b.context.model(for: idOfRow[pool[j]]!) }
                } else {
                    let ids = autoRegistry[fill.target.name] ?? []
                    poolSize = ids.count
                    let name = fill.target.name
                    resolve = { j in
                        if let m = b.loadedByName[name]?[j] { return m }
                        let m = b.context.model(for: ids[j])
                        b.loadedByName[name, default: [:]][j] = m
                        return m
                    }
                }
                let models = choose(fill, state, poolSize: poolSize, row: row, ownersLeft: classOf.count - i - 1).map(
                    resolve)
                if fill.relationship.isToOneRelationship && !fill.relationship.isOptional {
                    guard let target = models.first else {
                        throw AutomaticMaker.Failure(
                            entity: entity.name, attribute: fill.relationship.name,
                            reason:
                                "it is a required to-one, and no \(fill.target.name) is available; generate some (counts[\"\(fill.target.name)\"] > 0)"
                        )
                    }
                    required[fill.relationship.name] = target
                } else {
                    chosen.append((fill, models))
                }
            }
            let model = try maker.instance(of: entity, row: row, related: required)
            b.context.insert(model)
            for (fill, models) in chosen {
                (fill.relationship.keypath as? any _AutoKeyPath)?._assign(models, to: model)
            }
            b.made.append((i, model))
            batchRows[i] = model
            for name in lineage[classOf[i]] { stepPool[name, default: []].append(i) }
        }
        try flush()
        batch = nil
        for (i, id) in idOfRow.enumerated() {
            guard let id else { continue }
            for name in lineage[classOf[i]] { autoRegistry[name, default: []].append(id) }
        }
    }

    /// The pool positions `fill` relates one model to (empty: nil or no models).
    ///
    /// An exclusive to-many with a `minimumModelCount` keeps enough free targets for the
    /// `ownersLeft` models after this one to get their minimum too.
    private func choose(_ fill: AutomaticPlan.Fill, _ state: FillState, poolSize n: Int, row: Row, ownersLeft: Int)
        -> [Int]
    {
        guard n > 0 else { return [] }
        let rel = fill.relationship
        var r = row.rng("#relationship:" + rel.name)
        let options = maker.options
        let inverseToMany = fill.inverse.map { !$0.isToOneRelationship } ?? false
        let cap = fill.exclusive ? 1 : (inverseToMany ? max(0, fill.inverse?.maximumModelCount ?? 0) : 0)
        func free(_ j: Int) -> Bool { cap == 0 || (state.usage[j] ?? 0) < cap }
        func take(_ j: Int) -> Int {
            state.usage[j, default: 0] += 1
            return j
        }
        func probe(from start: Int) -> Int? {
            for k in 0..<n where free((start + k) % n) { return (start + k) % n }
            return nil
        }
        func nextExclusive() -> Int? {
            if state.permutation.count != n {
                var shuffler = SeededGenerator(seed: SeededGenerator.derive(seed, labels: ["#exclusive", rel.name]))
                state.permutation = Array(0..<n)
                shuffler.shuffle(&state.permutation)
                state.cursor = 0
            }
            while state.cursor < n && !free(state.permutation[state.cursor]) { state.cursor += 1 }
            return state.cursor < n ? state.permutation[state.cursor] : nil
        }
        let ordered = fill.exclusive && !fill.sameStep  // a fixed pool: the permutation applies
        if rel.isToOneRelationship {
            let inverseMinimum = inverseToMany ? (fill.inverse?.minimumModelCount ?? 0) : 0
            if inverseMinimum > 0 {
                while state.minimumCursor < n && (state.usage[state.minimumCursor] ?? 0) >= inverseMinimum {
                    state.minimumCursor += 1
                }
                if state.minimumCursor < n { return [take(state.minimumCursor)] }
            } else if rel.isOptional && r.bool(probability: options.nullRatio) {
                return []
            }
            if ordered { return nextExclusive().map { [take($0)] } ?? [] }
            if state.samplerSize != n {
                state.sampler = options.fanOut.distribution(parents: n).sampler()
                state.samplerSize = n
            }
            return probe(from: state.sampler!.next(using: &r)).map { [take($0)] } ?? []
        }
        let minimum = rel.minimumModelCount ?? 0
        let maximum = rel.maximumModelCount ?? 0
        var k = max(minimum, options.toMany.sample(using: &r))
        if maximum > 0 { k = min(k, maximum) }
        k = min(k, n)
        if cap == 0 { return r.distinct(k, from: n) }
        if minimum > 0 {
            let free = n - state.usage.count
            k = max(min(k, free - minimum * ownersLeft), min(minimum, free))
        }
        var picks: [Int] = []
        for _ in 0..<k {
            guard let j = ordered ? nextExclusive() : probe(from: r.uniform(in: 0...(n - 1))), !picks.contains(j) else {
                continue
            }
            picks.append(take(j))
        }
        return picks
    }
}

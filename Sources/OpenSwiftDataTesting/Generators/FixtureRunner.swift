import OpenSwiftData

/// Runs a ``Fixture``'s steps against one container: batches, fresh contexts, parent lookup.
final class FixtureRunner {
    let container: ModelContainer
    let seed: UInt64
    let traits: Traits
    let batchSize: Int
    let totalRows: Int
    let progress: (FixtureProgress) -> Void
    /// Identifiers of generated models, in generation order, for the types later steps need.
    var registry: [ObjectIdentifier: [PersistentIdentifier]] = [:]
    var neededTypes: Set<ObjectIdentifier> = []
    var counts: [String: Int] = [:]
    /// Automatic data: overrides and options of the fixture, identifiers by entity name
    /// (descendants included) for later schema steps, the ledger of the running step.
    var maker = AutomaticMaker(overrides: [], options: AutomaticData())
    var autoRegistry: [String: [PersistentIdentifier]] = [:]
    var ledger = CollisionLedger()
    var rowsDone = 0

    init(
        container: ModelContainer, seed: UInt64, traits: Traits, batchSize: Int, totalRows: Int,
        progress: @escaping (FixtureProgress) -> Void
    ) {
        self.container = container
        self.seed = seed
        self.traits = traits
        self.batchSize = batchSize
        self.totalRows = totalRows
        self.progress = progress
    }

    /// One batch: a fresh context, the models made in it (by row index), and loaded parents.
    final class Batch {
        let context: ModelContext
        var made: [(index: Int, model: any PersistentModel)] = []
        var loaded: [ObjectIdentifier: [Int: any PersistentModel]] = [:]
        var loadedByName: [String: [Int: any PersistentModel]] = [:]
        init(_ container: ModelContainer) { context = ModelContext(container) }

        func model(_ type: ObjectIdentifier, _ index: Int, _ id: PersistentIdentifier) -> any PersistentModel {
            if let m = loaded[type]?[index] { return m }
            let m = context.model(for: id)
            loaded[type, default: [:]][index] = m
            return m
        }
    }

    func run<M: PersistentModel>(_ g: Generate<M>, label: String) throws {
        // Generation order: row order, or grouped by parent so each parent loads once.
        var order = Array(0..<g.count)
        var parentOf: [Int32] = []
        var parents: [PersistentIdentifier] = []
        if let link = g.parent {
            parents = registry[link.parentType] ?? []
            if parents.isEmpty && g.count > 0 {
                throw SwiftDataError(
                    SwiftDataError.modelNotFound.code,
                    "the fixture step \(label) needs parents of type \(link.parentName), but the earlier steps generated none",
                    entityName: link.parentName)
            }
            parentOf = assignParents(count: g.count, parents: parents.count, fanOut: link.fanOut, label: label)
            order = groupedByParent(parentOf, parents: parents.count)
        }
        let record = neededTypes.contains(ObjectIdentifier(M.self))
        var recordedIDs = [PersistentIdentifier?](repeating: nil, count: record ? g.count : 0)
        var dynamicIDs: [ObjectIdentifier: [(Int, PersistentIdentifier)]] = [:]
        var linkSamplers = g.links.map { $0.count.sampler() }

        var batch: Batch? = nil
        func flush() throws {
            guard let b = batch else { return }
            try b.context.save()
            for (i, m) in b.made {
                if record { recordedIDs[i] = m.persistentModelID }
                let dynamic = ObjectIdentifier(type(of: m))
                if dynamic != ObjectIdentifier(M.self), neededTypes.contains(dynamic) {
                    dynamicIDs[dynamic, default: []].append((i, m.persistentModelID))
                }
            }
            rowsDone += b.made.count
            b.made.removeAll(keepingCapacity: true)
            progress(FixtureProgress(step: label, rowsDone: rowsDone, totalRows: totalRows))
        }

        for i in order {
            let p = parentOf.isEmpty ? -1 : Int(parentOf[i])
            // Every batch gets a fresh context, even in the middle of one parent's children, so
            // memory stays bounded by the batch size; the parent is looked up again in the new
            // context and linked through the children's to-one side, which leaves its (unloaded)
            // to-many unloaded.
            let full = (batch?.made.count ?? 0) >= batchSize
            if batch == nil || full {
                try flush()
                batch = Batch(container)
            }
            let b = batch!
            var row = Row(index: i, entity: label, seed: seed, traits: traits)
            row.ledger = ledger
            let model = g.automatic ? try maker.instance(M.self, schema: container.schema, row: row) : g.make(row)
            b.context.insert(model)
            if let link = g.parent {
                let parent = b.model(link.parentType, p, parents[p])
                // Parents are stored rows (an earlier step saved them): linking through the child's
                // to-one side never loads the parent's children, so this is O(1) per child.
                link.assign(model, parent)
            }
            for (l, many) in g.links.enumerated() {
                let targets = registry[many.targetType] ?? []
                var r = SeededGenerator(
                    seed: SeededGenerator.derive(seed, labels: [label, many.label], index: UInt64(i)))
                let k = linkSamplers[l].next(using: &r)
                let picks = r.distinct(k, from: targets.count)
                many.append(model, picks.map { b.model(many.targetType, $0, targets[$0]) })
            }
            b.made.append((i, model))
        }
        try flush()
        batch = nil

        if record { registry[ObjectIdentifier(M.self), default: []].append(contentsOf: recordedIDs.compactMap { $0 }) }
        for (type, ids) in dynamicIDs {
            registry[type, default: []].append(contentsOf: ids.sorted { $0.0 < $1.0 }.map(\.1))
        }
        if !record { registry[ObjectIdentifier(M.self)] = registry[ObjectIdentifier(M.self)] ?? [] }
    }

    /// The parent index of every child, from the step's own `#parent` stream.
    private func assignParents(count: Int, parents: Int, fanOut: FanOut, label: String) -> [Int32] {
        guard parents > 0 else { return [] }
        var r = SeededGenerator(seed: SeededGenerator.derive(seed, labels: [label, "#parent"]))
        if case .even = fanOut { return (0..<count).map { Int32($0 % parents) } }
        var sampler = fanOut.distribution(parents: parents).sampler()
        return (0..<count).map { _ in Int32(sampler.next(using: &r)) }
    }

    /// Child indices grouped by parent (parents ascending, children ascending): a counting sort.
    private func groupedByParent(_ parentOf: [Int32], parents: Int) -> [Int] {
        var starts = [Int](repeating: 0, count: parents + 1)
        for p in parentOf { starts[Int(p) + 1] += 1 }
        for k in 0..<parents { starts[k + 1] += starts[k] }
        var order = [Int](repeating: 0, count: parentOf.count)
        for (i, p) in parentOf.enumerated() {
            order[starts[Int(p)]] = i
            starts[Int(p)] += 1
        }
        return order
    }
}

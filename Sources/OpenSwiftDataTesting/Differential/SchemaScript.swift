import Foundation
import OpenSwiftData

/// A random change script over a user's schema, run on both stores in lockstep: inserts
/// (automatic instances; now and then a copy of a stored model's unique values, an upsert),
/// attribute updates, to-one and to-many relationship changes, deletes under the declared
/// delete rules, saves and rollbacks.
///
/// After every step both contexts must show the same rows; every save must have the same
/// outcome on both stores (a failed one is rolled back on both) and leave the same stored rows
/// (canonical dumps); at the end the disk store is reopened and must hold what the memory store
/// holds. A failing script is shrunk to the fewest steps that still fail the same check.
/// Every change is also made to the reference model (``OracleMirror``), which starts from the
/// fixture's rows; the memory store's context and every save's outcome must match it.
struct SchemaScript {
    let harness: DifferentialHarness
    let schema: Schema
    let index: Int
    var random: SeededGenerator
    private var log: [String] = []
    /// The reference model of this run of the steps (`nil` when the harness checks no oracle).
    private var mirror: OracleMirror?

    init(harness: DifferentialHarness, schema: Schema, index: Int, random: inout SeededGenerator) {
        self.harness = harness
        self.schema = schema
        self.index = index
        self.random = random
    }

    mutating func run() throws -> Int {
        let steps = (0..<(8 + random.below(20))).map { n in
            MutationScript.Step(roll: random.below(100), seed: random.next(), number: n + 1)
        }
        do {
            return try execute(steps)
        } catch let first as ConformanceFailure {
            guard harness.shrinks else { throw first }
            throw ChunkShrinker.shrinkSteps(steps, attempts: 80, first: first) { try execute($0) }.failure
        }
    }

    /// The models of `entity` (subclasses included) in a context, in a stable order both stores share.
    func models(_ entity: Schema.Entity, _ context: ModelContext) throws -> [any PersistentModel] {
        try SchemaRules.fetchAll(entity.modelType, context).sorted { $0.persistentModelID < $1.persistentModelID }
    }

    /// What a context shows: per entity, its models' attribute values, sorted.
    func view(_ context: ModelContext) throws -> [String] {
        try schema.entities.filter { $0.superentity == nil }.map { e in
            let rows = try models(e, context).map { m in
                "\(type(of: m))("
                    + e.attributes.map { "\($0.name)=\(SchemaRules.describe(SchemaRules.read(m, $0)))" }.joined(
                        separator: ",") + ")"
            }
            return "\(e.name): " + rows.sorted().joined(separator: " ")
        }
    }

    mutating func execute(_ steps: [MutationScript.Step]) throws -> Int {
        log = []
        let pair = try StorePair(schema: schema, seed: harness.seed)
        try pair.populate(
            Fixture(
                schema: schema, seed: SeededGenerator.derive(harness.seed, labels: ["script"], index: UInt64(index)),
                defaultCount: 3))
        let contexts = [ModelContext(pair.memory), ModelContext(pair.disk)]
        mirror = harness.checksOracle ? OracleMirror(schema: schema) : nil
        try mirror?.load(contexts[0])
        try readLikeTheOracle(contexts[1])
        let maker = AutomaticMaker(overrides: [], options: AutomaticData(nullRatio: 0.3))
        var checks = 0
        for step in steps {
            var r = SeededGenerator(seed: step.seed)
            if step.roll < 15 {
                try save(contexts, pair)
            } else if step.roll < 22 {
                for context in contexts { context.rollback() }
                mirror?.rollback()
                log.append("rollback")
            } else {
                log.append(try change(step, &r, contexts, maker))
            }
            checks += 1
            let (m, d) = (try view(contexts[0]), try view(contexts[1]))
            if m != d {
                throw failure(
                    "both contexts show the same rows", expected: m.joined(separator: "; "),
                    actual: d.joined(separator: "; "))
            }
            try expectOracle(contexts[0], "oracle: the context shows the reference's rows after each step")
            try readLikeTheOracle(contexts[1])
        }
        try save(contexts, pair)
        log.append("reopen disk store")
        try pair.reopenDisk()
        try expectStores(pair, "after reopening the disk store")
        return checks + 2
    }

    /// Saves both contexts: the same outcome, the same stored rows; a failed save is rolled back on both.
    mutating func save(_ contexts: [ModelContext], _ pair: StorePair) throws {
        let outcomes = contexts.map { c -> String in
            do {
                try c.save()
                return "saved"
            } catch let e as SwiftDataError { return "error \(e.code)" } catch { return "error \(error)" }
        }
        log.append("save → \(outcomes[0])")
        if outcomes[0] != outcomes[1] {
            throw failure("save outcome", expected: "memory: \(outcomes[0])", actual: "disk: \(outcomes[1])")
        }
        try expectStores(pair, "after save")
        if let mirror {
            let expected = mirror.save()
            if expected != outcomes[0] {
                throw failure(
                    "oracle: save outcome", expected: "oracle: \(expected)", actual: "memory store: \(outcomes[0])",
                    store: .memory)
            }
            if expected == "saved" {
                try expectOracle(ModelContext(pair.memory), "oracle: the store holds the reference's rows after a save")
            }
        }
        if outcomes[0] != "saved" {
            for context in contexts { context.rollback() }
            mirror?.rollback()
            log.append("rollback after the failed save")
        }
    }

    /// Reads in the disk store's context `context` what the reference reads in the memory
    /// store's (every relationship of every model), so that both contexts have the same lists
    /// loaded and the store comparison stays like for like.
    func readLikeTheOracle(_ context: ModelContext) throws {
        if let mirror { _ = try mirror.view(context) }
    }

    /// The memory store's context `context` shows the reference model's rows.
    func expectOracle(_ context: ModelContext, _ check: String) throws {
        guard let mirror, let diff = try mirror.compare(context, check) else { return }
        throw failure(check, expected: diff.expected, actual: diff.actual, store: .memory)
    }

    /// One change, the same on both contexts (models picked by position in the shared order).
    func change(
        _ step: MutationScript.Step, _ r: inout SeededGenerator, _ contexts: [ModelContext], _ maker: AutomaticMaker
    ) throws -> String {
        let entities = schema.entities
        let e = entities[r.below(entities.count)]
        let lists = try contexts.map { try models(e, $0).filter { type(of: $0) == e.modelType } }
        let row = Row(index: 100_000 + step.number, entity: e.name, seed: step.seed)
        switch step.roll {
        case ..<50:  // insert, now and then with a stored model's unique values (an upsert)
            var fixed: [String: Any?] = [:]
            let groups = e.uniquenessConstraints + e.attributes.filter(\.isUnique).map { [$0.name] }
            if !lists[0].isEmpty, !groups.isEmpty, r.chance(0.3) {
                let k = r.below(lists[0].count)
                for name in groups[r.below(groups.count)] {
                    if let a = e.attributes.first(where: { $0.name == name }) {
                        fixed[name] = SchemaRules.read(lists[0][k], a)
                    }
                }
            }
            var required: [[String: any PersistentModel]] = [[:], [:]]
            for rel in e.relationships where rel.isToOneRelationship && !rel.isOptional {
                guard let d = schema.entitiesByName[rel.destination] else { continue }
                let targets = try contexts.map { try models(d, $0) }
                guard !targets[0].isEmpty, targets[0].count == targets[1].count else {
                    return "insert \(e.name) skipped: no \(d.name)"
                }
                let k = r.below(targets[0].count)
                for c in 0..<2 { required[c][rel.name] = targets[c][k] }
            }
            for (c, context) in contexts.enumerated() {
                let model = try maker.instance(of: e, row: row, fixed: fixed, related: required[c])
                context.insert(model)
                if c == 0 { mirror?.insert(model) }
            }
            return "insert \(e.name) #\(step.number)" + (fixed.isEmpty ? "" : " with the unique values of a stored one")
        case ..<68:  // update an attribute
            let attributes = e.attributes.filter { !$0.isTransient }
            guard !lists[0].isEmpty, !attributes.isEmpty else { return "update \(e.name) skipped" }
            let k = r.below(lists[0].count)
            let a = attributes[r.below(attributes.count)]
            let unique =
                e.attributes.contains { $0.name == a.name && $0.isUnique }
                || e.uniquenessConstraints.joined().contains(a.name)
            // try?: a type with no synthesised value writes nil, to both lists alike (the script stays symmetric).
            let value = try? ValueSynthesizer.value(
                of: a.valueType, row: row, field: a.name, unique: unique, nullRatio: 0.3)
            for c in 0..<2 {
                let wrote = (a.keypath as? any _AutoKeyPath)?._set(value ?? nil, on: lists[c][k]) ?? false
                if c == 0, wrote { mirror?.update(lists[0][k], a.name, value ?? nil) }
            }
            return "update \(e.name)[\(k)].\(a.name) = \(SchemaRules.describe(value ?? nil))"
        case ..<85:  // relationship change
            guard !lists[0].isEmpty, !e.relationships.isEmpty else { return "relationship of \(e.name) skipped" }
            let k = r.below(lists[0].count)
            let rel = e.relationships[r.below(e.relationships.count)]
            guard let d = schema.entitiesByName[rel.destination] else { return "relationship skipped" }
            let targets = try contexts.map { try models(d, $0) }
            guard targets[0].count == targets[1].count else { return "relationship skipped" }
            let pick = targets[0].isEmpty ? nil : r.below(targets[0].count)
            let clear = r.chance(0.25)
            for c in 0..<2 {
                let owner = lists[c][k]
                var related = SchemaRules.related(owner, rel)
                if rel.isToOneRelationship {
                    related = clear && rel.isOptional ? [] : pick.map { [targets[c][$0]] } ?? related
                } else if clear || pick == nil {
                    related = Array(related.dropFirst())
                } else if let pick,
                    !related.contains(where: { $0.persistentModelID == targets[c][pick].persistentModelID })
                {
                    related.append(targets[c][pick])
                }
                SchemaRules.assign(rel, related, to: owner)
                if c == 0 { mirror?.assign(owner, rel.name, related) }
            }
            return "change \(e.name)[\(k)].\(rel.name)"
                + (clear ? " (clear/remove)" : pick.map { " → \(d.name)[\($0)]" } ?? "")
        default:  // delete
            guard !lists[0].isEmpty else { return "delete \(e.name) skipped" }
            let k = r.below(lists[0].count)
            for c in 0..<2 { contexts[c].delete(lists[c][k]) }
            mirror?.delete(lists[0][k])
            return "delete \(e.name)[\(k)]"
        }
    }

    func expectStores(_ pair: StorePair, _ label: String) throws {
        do { try pair.expectSameContents(label) } catch var f as ConformanceFailure {
            f.suite = "differential"
            f.caseID = "script #\(index)"
            f.trace = ["seed=\(harness.seed)", "case=\(index)", "script=schema"]
            f.details +=
                ["replay: try DifferentialHarness(schema: …, seed: \(harness.seed)).verifyCase(\(index))", "steps:"]
                + log.map { "  " + $0 }
            throw f
        }
    }

    func failure(_ check: String, expected: String, actual: String, store: StoreKind? = nil) -> ConformanceFailure {
        ConformanceFailure(
            suite: "differential", caseID: "script #\(index)", store: store, seed: harness.seed, check: check,
            expected: expected, actual: actual, trace: ["seed=\(harness.seed)", "case=\(index)", "script=schema"],
            details: [
                "replay: try DifferentialHarness(schema: …, seed: \(harness.seed)).verifyCase(\(index))", "steps:",
            ]
                + log.map { "  " + $0 })
    }
}

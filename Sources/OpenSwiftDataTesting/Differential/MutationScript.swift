import Foundation
import OpenSwiftData

/// A random change script run on both stores in lockstep: inserts (colliding unique values
/// included), updates, deletes, relationship changes, saves and rollbacks. Kinds: `users`
/// (unique upserts), `catalogue` (to-one, many-to-many, cascades), `dictionary` (upserts of
/// unique parents that own cascading children).
///
/// After every step the two contexts must show the same rows; after every save both stores must
/// hold the same rows (canonical dumps equal), and a failed save must fail on both with the same
/// error and change nothing; after every rollback both contexts must show what was last saved;
/// at the end the disk store is reopened and must still hold what the memory store holds.
/// Every change is also made to the reference model (``OracleMirror``), which the memory
/// store's context and every save's outcome must match.
struct MutationScript {
    let harness: DifferentialHarness
    let index: Int
    let kind: String
    var random: SeededGenerator
    private var log: [String] = []
    private var counter = 0
    /// The reference model of this run of the steps (`nil` when the harness checks no oracle).
    private var mirror: OracleMirror?

    init(harness: DifferentialHarness, index: Int, kind: String, random: inout SeededGenerator) {
        self.harness = harness
        self.index = index
        self.kind = kind
        self.random = random
    }

    /// One step: what kind (`roll`: save, rollback, or a change), the seed its parameters are
    /// drawn from when it runs, and its number (names of inserted rows), so a step means the
    /// same when other steps are removed by shrinking.
    struct Step {
        let roll: Int
        let seed: UInt64
        let number: Int
    }

    /// Generates the steps, runs them, and on a failure shrinks the steps (dropping chunks of
    /// them while the same check still fails) before throwing the failure.
    mutating func run() throws -> Int {
        let steps = (0..<(10 + random.below(25))).map { n in
            Step(roll: random.below(100), seed: random.next(), number: n + 1)
        }
        do {
            return try execute(steps)
        } catch let first as ConformanceFailure {
            guard harness.shrinks else { throw first }
            var (best, failure) = ChunkShrinker.shrinkSteps(steps, attempts: 120, first: first) { try execute($0) }
            if best.count < steps.count {
                failure.details = failure.details.map {
                    $0 == "steps:"
                        ? "steps (shrunk from \(steps.count) to \(best.count); the failure is at the last one):" : $0
                }
            }
            throw failure
        }
    }

    /// Runs `steps` on a fresh store pair; throws the first failure.
    mutating func execute(_ steps: [Step]) throws -> Int {
        log = []
        let schema = SampleSchema.named(kind)!.schema
        let pair = try StorePair(schema: schema, seed: harness.seed)
        var contexts = [ModelContext(pair.memory), ModelContext(pair.disk)]
        mirror = harness.checksOracle ? OracleMirror(schema: schema) : nil
        try seedRows(contexts)
        try expectOracleSave(outcome: "saved", pair)
        var checks = 0
        var saved = try view(contexts[0])
        for step in steps {
            random = SeededGenerator(seed: step.seed)
            counter = step.number
            let roll = step.roll
            if roll < 20 {
                // save on both; same outcome; same stored rows
                let outcomes = contexts.map { c -> String in
                    do {
                        try c.save()
                        return "saved"
                    } catch let e as SwiftDataError { return "error \(e.code)" } catch { return "error \(error)" }
                }
                log.append("save → \(outcomes[0])")
                checks += 1
                if outcomes[0] != outcomes[1] {
                    throw failure("save outcome", expected: "memory: \(outcomes[0])", actual: "disk: \(outcomes[1])")
                }
                try expectStores(pair, "after save")
                try expectOracleSave(outcome: outcomes[0], pair)
                if outcomes[0] == "saved" {
                    saved = try view(contexts[0])
                } else {
                    // nothing was written (the dumps above still equal the last save), changes are kept
                    for c in contexts where !c.hasChanges {
                        throw failure(
                            "failed save keeps pending changes", expected: "hasChanges == true", actual: "false")
                    }
                    for context in contexts { context.rollback() }
                    log.append("rollback after failed save")
                }
            } else if roll < 28 {
                for context in contexts { context.rollback() }
                mirror?.rollback()
                log.append("rollback")
                checks += 1
                let now = try contexts.map(view)
                if now[0] != saved || now[1] != saved {
                    let bad = now[0] != saved ? 0 : 1
                    throw failure(
                        "rollback restores the last saved state", expected: saved.joined(separator: "; "),
                        actual: now[bad].joined(separator: "; "), store: bad == 0 ? .memory : .disk)
                }
            } else {
                let step =
                    switch kind {
                    case "users": try userStep(contexts, roll)
                    case "catalogue": try catalogueStep(contexts, roll)
                    default: try dictionaryStep(contexts, roll)
                    }
                log.append(step)
            }
            checks += 1
            let (m, d) = (try view(contexts[0]), try view(contexts[1]))
            if m != d {
                throw failure(
                    "both contexts show the same rows", expected: m.joined(separator: "; "),
                    actual: d.joined(separator: "; "))
            }
            try expectOracle(contexts[0], "oracle: the context shows the reference's rows after each step")
            for (context, store) in zip(contexts, [StoreKind.memory, .disk]) {
                try expectUnsortedOrder(context, store: store)
            }
            checks += 1
        }
        // Final save (a failed one must fail on both, then is rolled back), then reopen the
        // disk store: what was written must still be there.
        let outcomes = contexts.map { c -> String in
            do {
                try c.save()
                return "saved"
            } catch let e as SwiftDataError {
                c.rollback()
                return "error \(e.code)"
            } catch { return "error \(error)" }
        }
        log.append("save → \(outcomes[0]); reopen disk store")
        if outcomes[0] != outcomes[1] {
            throw failure("save outcome", expected: "memory: \(outcomes[0])", actual: "disk: \(outcomes[1])")
        }
        try expectStores(pair, "after the final save")
        try expectOracleSave(outcome: outcomes[0], pair)
        contexts = []
        try pair.reopenDisk()
        try expectStores(pair, "after reopening the disk store")
        let (m, d) = (try view(ModelContext(pair.memory)), try view(ModelContext(pair.disk)))
        if m != d {
            throw failure(
                "reopened disk store shows the same rows", expected: m.joined(separator: "; "),
                actual: d.joined(separator: "; "))
        }
        return checks + 3
    }

    /// The memory store's context `context` shows the reference model's rows.
    func expectOracle(_ context: ModelContext, _ check: String) throws {
        guard let mirror, let diff = try mirror.compare(context, check) else { return }
        throw failure(check, expected: diff.expected, actual: diff.actual, store: .memory)
    }

    /// A save of the stores had `outcome`: the reference's save must have it too, and after a
    /// successful one a fresh context of the memory store shows the reference's rows. A failed
    /// save is rolled back by the caller (the reference's too).
    func expectOracleSave(outcome: String, _ pair: StorePair) throws {
        guard let mirror else { return }
        let expected = mirror.save()
        if expected != outcome {
            throw failure(
                "oracle: save outcome", expected: "oracle: \(expected)", actual: "memory store: \(outcome)",
                store: .memory)
        }
        if outcome == "saved" {
            try expectOracle(ModelContext(pair.memory), "oracle: the store holds the reference's rows after a save")
        } else {
            mirror.rollback()
        }
    }

    func expectStores(_ pair: StorePair, _ label: String) throws {
        do { try pair.expectSameContents(label) } catch var f as ConformanceFailure {
            f.suite = "differential"
            f.caseID = "script #\(index)"
            f.trace = ["seed=\(harness.seed)", "case=\(index)", "script=\(kind)"]
            f.details +=
                ["replay: harness conform --suite differential --seed \(harness.seed) --case \(index)", "steps:"]
                + log.map { "  " + $0 }
            throw f
        }
    }

    func failure(_ check: String, expected: String, actual: String, store: StoreKind? = nil) -> ConformanceFailure {
        ConformanceFailure(
            suite: "differential", caseID: "script #\(index)", store: store, seed: harness.seed, check: check,
            expected: expected, actual: actual,
            trace: ["seed=\(harness.seed)", "case=\(index)", "script=\(kind)"],
            details: ["replay: harness conform --suite differential --seed \(harness.seed) --case \(index)", "steps:"]
                + log.map { "  " + $0 })
    }

    /// The saved rows every script starts from (the same on both stores), so the first steps
    /// already have rows to update, move, link and delete.
    func seedRows(_ contexts: [ModelContext]) throws {
        for (index, c) in contexts.enumerated() {
            let o = index == 0 ? mirror : nil
            if kind == "dictionary" {
                for k in 0..<3 {
                    let category = DictionaryCategory(name: "d\(k)")
                    c.insert(category)
                    o?.insert(category)
                    for j in 0..<(k + 1) {
                        let w = DictionaryWord(text: "w\(k)\(j)")
                        c.insert(w)
                        w.category = category
                        o?.insert(w)
                        o?.assign(w, "category", [category])
                    }
                }
            } else if kind == "users" {
                for k in 0..<6 {
                    let user = AccountUser(
                        id: userID(k), username: "user\(k)", name: MutationScript.names[k],
                        email: "u\(k)@example.com",
                        joined: Date(timeIntervalSinceReferenceDate: Double(k * 86_400)), score: k * 100,
                        bio: k % 2 == 0 ? nil : "bio \(k)")
                    c.insert(user)
                    o?.insert(user)
                }
            } else {
                let categories = (0..<3).map { CatalogueCategory(name: "c0\($0)") }
                let tags = (0..<3).map { CatalogueTag(label: "t0\($0)") }
                categories.forEach(c.insert)
                tags.forEach(c.insert)
                for m in categories as [any PersistentModel] + tags { o?.insert(m) }
                for k in 0..<8 {
                    let p = CatalogueProduct(
                        name: "p0\(k)", sku: "S-0\(k)", price: Double(k) * 1.25, stock: k,
                        addedAt: Date(timeIntervalSinceReferenceDate: Double(k)))
                    c.insert(p)
                    p.category = k == 7 ? nil : categories[k % 3]
                    p.tags = k % 4 == 0 ? [] : [tags[k % 3]] + (k % 2 == 0 ? [tags[(k + 1) % 3]] : [])
                    o?.insert(p)
                    o?.assign(p, "category", k == 7 ? [] : [categories[k % 3]])
                    o?.assign(p, "tags", k % 4 == 0 ? [] : [tags[k % 3]] + (k % 2 == 0 ? [tags[(k + 1) % 3]] : []))
                }
            }
            try c.save()
        }
    }

    // MARK: views

    /// A fetch without a sort, merged with the context's pending changes, lists the saved models
    /// by their store key and then the unsaved inserts in the order they were inserted (FET-07,
    /// FET-12): checked for each model class of the script against that order, computed here
    /// from the fetched models' identifiers and `insertedModelsArray`.
    func expectUnsortedOrder(_ c: ModelContext, store: StoreKind) throws {
        switch kind {
        case "users": try expectUnsortedOrder(c, AccountUser.self, store: store)
        case "dictionary":
            try expectUnsortedOrder(c, DictionaryCategory.self, store: store)
            try expectUnsortedOrder(c, DictionaryWord.self, store: store)
        default:
            try expectUnsortedOrder(c, CatalogueCategory.self, store: store)
            try expectUnsortedOrder(c, CatalogueProduct.self, store: store)
            try expectUnsortedOrder(c, CatalogueTag.self, store: store)
        }
    }

    /// ``expectUnsortedOrder(_:store:)`` for the models of class `type`.
    func expectUnsortedOrder<T: PersistentModel>(_ c: ModelContext, _ type: T.Type, store: StoreKind) throws {
        let fetched = try c.fetch(FetchDescriptor<T>())
        let present = Set(fetched.map(ObjectIdentifier.init))
        let saved = fetched.compactMap { m in m.persistentModelID.primaryKey.map { (key: $0, model: m) } }
        let inserted = c.insertedModelsArray.compactMap { $0 as? T }.filter { present.contains(ObjectIdentifier($0)) }
        let expected = saved.sorted { $0.key < $1.key }.map(\.model) + inserted
        guard fetched.map(ObjectIdentifier.init) != expected.map(ObjectIdentifier.init) else { return }
        // A saved model by its key, an unsaved one by its place among the inserts.
        let order = Dictionary(uniqueKeysWithValues: inserted.enumerated().map { (ObjectIdentifier($1), $0 + 1) })
        func describe(_ models: [T]) -> String {
            models.map { m in
                m.persistentModelID.primaryKey.map { "#\($0)" } ?? "insert \(order[ObjectIdentifier(m)] ?? 0)"
            }.joined(separator: ", ")
        }
        throw failure(
            "a fetch without a sort lists saved \(T.self) models by key, then the inserts in order",
            expected: describe(expected), actual: describe(fetched), store: store)
    }

    func view(_ c: ModelContext) throws -> [String] {
        if kind == "dictionary" {
            let categories = try c.fetch(FetchDescriptor<DictionaryCategory>(sortBy: [SortDescriptor(\.name)])).map {
                "\($0.name):[\($0.words.map(\.text).sorted().joined(separator: ","))]"
            }
            let words = try c.fetch(
                FetchDescriptor<DictionaryWord>(sortBy: [SortDescriptor(\.text), SortDescriptor(\.length)])
            ).map {
                "\($0.text)|\($0.length)|\($0.category?.name ?? "nil")"
            }
            return categories + words
        }
        if kind == "users" {
            return try c.fetch(FetchDescriptor<AccountUser>(sortBy: [SortDescriptor(\.username)])).map {
                "\($0.username)|\($0.id)|\($0.name)|\($0.email)|\($0.score)|\($0.bio ?? "nil")"
            }
        }
        let categories = try c.fetch(FetchDescriptor<CatalogueCategory>(sortBy: [SortDescriptor(\.name)])).map {
            "\($0.name):[\($0.products.map(\.sku).sorted().joined(separator: ","))]"
        }
        let products = try c.fetch(FetchDescriptor<CatalogueProduct>(sortBy: [SortDescriptor(\.sku)])).map {
            "\($0.sku)|\($0.name)|\($0.price)|\($0.stock)|\($0.category?.name ?? "nil")|\($0.tags.map(\.label).sorted())"
        }
        let tags = try c.fetch(FetchDescriptor<CatalogueTag>(sortBy: [SortDescriptor(\.label)])).map {
            "\($0.label):\($0.products.map { "[" + $0.map(\.sku).sorted().joined(separator: ",") + "]" } ?? "nil")"
        }
        return categories + products + tags
    }

    // MARK: users: unique upserts

    static let names = ["Ada", "Émile", "Zoë", "李雷", "O'Brien", "100%_sure", "Ñandú", "Ørsted"]

    /// A UUID that is a pure function of `k`, so a username and its id collide together.
    func userID(_ k: Int) -> UUID {
        var g = SeededGenerator(seed: SeededGenerator.derive(harness.seed, labels: ["uid"], index: UInt64(k)))
        let (a, b) = (g.next(), g.next())
        return UUID(
            uuid: withUnsafeBytes(of: (a, b)) { p in
                (p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15])
            })
    }

    mutating func userStep(_ contexts: [ModelContext], _ roll: Int) throws -> String {
        let all = try contexts.map { try $0.fetch(FetchDescriptor<AccountUser>(sortBy: [SortDescriptor(\.username)])) }
        if roll < 65 || all[0].isEmpty {
            let k = random.below(16)
            // One insert in twenty takes another user's id: a collision with two rows at once.
            let idKey = random.chance(0.05) ? random.below(16) : k
            let name = MutationScript.names[random.below(MutationScript.names.count)]
            let score = random.below(1_000)
            let bio: String? = random.chance(0.4) ? nil : "bio \(random.below(50))"
            for (index, c) in contexts.enumerated() {
                let user = AccountUser(
                    id: userID(idKey), username: "user\(k)", name: name, email: "u\(k)@example.com",
                    joined: Date(timeIntervalSinceReferenceDate: Double(k * 86_400)), score: score, bio: bio)
                c.insert(user)
                if index == 0 { mirror?.insert(user) }
            }
            return "insert user\(k) id#\(idKey) name=\(name) score=\(score) bio=\(bio ?? "nil")"
        }
        let i = random.below(all[0].count)
        guard all[1].count == all[0].count else { return "skip (views differ)" }
        if roll < 85 {
            let score = random.below(1_000)
            let bio: String? = random.chance(0.5) ? nil : "edited \(random.below(9))"
            for users in all {
                users[i].score = score
                users[i].bio = bio
            }
            mirror?.update(all[0][i], "score", score)
            mirror?.update(all[0][i], "bio", bio)
            return "update \(all[0][i].username) score=\(score) bio=\(bio ?? "nil")"
        }
        for (c, users) in zip(contexts, all) { c.delete(users[i]) }
        mirror?.delete(all[0][i])
        return "delete \(all[0][i].username)"
    }

    // MARK: dictionary: upserts of parents with cascading children

    /// Categories are unique by name and cascade to their words: inserting a category whose
    /// name exists upserts it (its new word list replaces the stored one, UNQ-14); renames may
    /// collide (a typed error on both stores); words move, change and go.
    mutating func dictionaryStep(_ contexts: [ModelContext], _ roll: Int) throws -> String {
        let categories = try contexts.map {
            try $0.fetch(FetchDescriptor<DictionaryCategory>(sortBy: [SortDescriptor(\.name)]))
        }
        let words = try contexts.map {
            try $0.fetch(FetchDescriptor<DictionaryWord>(sortBy: [SortDescriptor(\.text), SortDescriptor(\.length)]))
        }
        guard categories[0].count == categories[1].count, words[0].count == words[1].count else {
            return "skip (views differ)"
        }
        let n = counter
        switch roll {
        case ..<42:
            // a category named d0…d4: an upsert when the name is taken
            let name = "d\(random.below(5))"
            let count = random.below(3)
            for (index, c) in contexts.enumerated() {
                let o = index == 0 ? mirror : nil
                let category = DictionaryCategory(name: name)
                c.insert(category)
                o?.insert(category)
                for j in 0..<count {
                    let w = DictionaryWord(text: "n\(n)\(j)")
                    if j == 0 {
                        c.insert(w)
                        w.category = category
                        o?.insert(w)
                        o?.assign(w, "category", [category])
                    } else {
                        // Not inserted: reached through the category's list, appended after the
                        // category's insert, so the save inserts it (REL-01).
                        category.words.append(w)
                        o?.append(category, "words", w)
                    }
                }
            }
            return "insert category \(name) with \(count) new words (the first inserted, the rest only linked)"
        case ..<56 where !categories[0].isEmpty:
            let ci = random.below(categories[0].count)
            for k in 0..<2 {
                let w = DictionaryWord(text: "n\(n)")
                contexts[k].insert(w)
                w.category = categories[k][ci]
                if k == 0 {
                    mirror?.insert(w)
                    mirror?.assign(w, "category", [categories[0][ci]])
                }
            }
            return "insert word n\(n) in \(categories[0][ci].name)"
        case ..<66 where !words[0].isEmpty:
            let wi = random.below(words[0].count)
            let ci = categories[0].isEmpty || random.chance(0.2) ? nil : random.below(categories[0].count)
            for k in 0..<2 { words[k][wi].category = ci.map { categories[k][$0] } }
            mirror?.assign(words[0][wi], "category", ci.map { [categories[0][$0]] } ?? [])
            return "move \(words[0][wi].text) to \(ci.map { categories[0][$0].name } ?? "nil")"
        case ..<72 where !categories[0].isEmpty:
            let ci = random.below(categories[0].count)
            let (old, name) = (categories[0][ci].name, "d\(random.below(6))")
            for k in 0..<2 { categories[k][ci].name = name }
            mirror?.update(categories[0][ci], "name", name)
            return "rename \(old) to \(name)"
        case ..<86 where !words[0].isEmpty:
            let wi = random.below(words[0].count)
            for k in 0..<2 { contexts[k].delete(words[k][wi]) }
            mirror?.delete(words[0][wi])
            return "delete word \(words[0][wi].text)"
        default:
            guard !categories[0].isEmpty else { return "nothing to delete" }
            let ci = random.below(categories[0].count)
            for k in 0..<2 { contexts[k].delete(categories[k][ci]) }
            mirror?.delete(categories[0][ci])
            return "delete category \(categories[0][ci].name) (cascades to its words)"
        }
    }

    // MARK: catalogue: relationships and cascades

    mutating func catalogueStep(_ contexts: [ModelContext], _ roll: Int) throws -> String {
        let categories = try contexts.map {
            try $0.fetch(FetchDescriptor<CatalogueCategory>(sortBy: [SortDescriptor(\.name)]))
        }
        let products = try contexts.map {
            try $0.fetch(FetchDescriptor<CatalogueProduct>(sortBy: [SortDescriptor(\.sku)]))
        }
        let tags = try contexts.map { try $0.fetch(FetchDescriptor<CatalogueTag>(sortBy: [SortDescriptor(\.label)])) }
        guard categories[0].count == categories[1].count, products[0].count == products[1].count,
            tags[0].count == tags[1].count
        else { return "skip (views differ)" }
        let n = counter
        switch roll {
        case ..<38 where categories[0].count < 4 || roll < 32:
            if random.chance(0.5) || tags[0].count > 5 {
                for (index, c) in contexts.enumerated() {
                    let category = CatalogueCategory(name: "c\(n)")
                    c.insert(category)
                    if index == 0 { mirror?.insert(category) }
                }
                return "insert category c\(n)"
            }
            for (index, c) in contexts.enumerated() {
                let tag = CatalogueTag(label: "t\(n)")
                c.insert(tag)
                if index == 0 { mirror?.insert(tag) }
            }
            return "insert tag t\(n)"
        case ..<60:
            let ci = categories[0].isEmpty || random.chance(0.2) ? nil : random.below(categories[0].count)
            let picks =
                tags[0].isEmpty ? [] : random.distinct(random.below(min(3, tags[0].count) + 1), from: tags[0].count)
            let price = Double(random.below(10_000)) / 100
            for k in 0..<2 {
                let p = CatalogueProduct(
                    name: "p\(n)", sku: "S-\(1000 + n)", price: price, stock: n % 7,
                    addedAt: Date(timeIntervalSinceReferenceDate: Double(n)))
                contexts[k].insert(p)
                if let ci { p.category = categories[k][ci] }
                p.tags = picks.map { tags[k][$0] }
                if k == 0, let mirror {
                    mirror.insert(p)
                    if let ci { mirror.assign(p, "category", [categories[0][ci]]) }
                    mirror.assign(p, "tags", picks.map { tags[0][$0] })
                }
            }
            return
                "insert product S-\(1000 + n) in \(ci.map { categories[0][$0].name } ?? "no category") tags \(picks.map { tags[0][$0].label })"
        case ..<72 where !products[0].isEmpty:
            let pi = random.below(products[0].count)
            let ci = categories[0].isEmpty || random.chance(0.25) ? nil : random.below(categories[0].count)
            for k in 0..<2 { products[k][pi].category = ci.map { categories[k][$0] } }
            mirror?.assign(products[0][pi], "category", ci.map { [categories[0][$0]] } ?? [])
            return "move \(products[0][pi].sku) to \(ci.map { categories[0][$0].name } ?? "nil")"
        case ..<80 where !products[0].isEmpty && !tags[0].isEmpty:
            let pi = random.below(products[0].count)
            let ti = random.below(tags[0].count)
            let had = products[0][pi].tags.contains { $0 === tags[0][ti] }
            // Every third step writes the tag's optional list instead (an emptied list as nil).
            let viaTag = n % 3 == 0
            for k in 0..<2 {
                let (p, t) = (products[k][pi], tags[k][ti])
                let o = k == 0 ? mirror : nil
                if viaTag {
                    if had {
                        let rest = (t.products ?? []).filter { $0 !== p }
                        t.products = rest.isEmpty ? nil : rest
                        o?.remove(t, "products", p)
                    } else {
                        // A nil list stays nil (the optional chain appends nothing).
                        if t.products != nil { o?.append(t, "products", p) }
                        t.products?.append(p)
                    }
                } else if had {
                    p.tags.removeAll { $0 === t }
                    o?.remove(p, "tags", t)
                } else {
                    p.tags.append(t)
                    o?.append(p, "tags", t)
                }
            }
            return "\(had ? "untag" : "tag") \(products[0][pi].sku) \(tags[0][ti].label)\(viaTag ? " (tag side)" : "")"
        case ..<88 where !products[0].isEmpty:
            let pi = random.below(products[0].count)
            for k in 0..<2 { contexts[k].delete(products[k][pi]) }
            mirror?.delete(products[0][pi])
            return "delete product \(products[0][pi].sku)"
        default:
            guard !categories[0].isEmpty else { return "nothing to delete" }
            let ci = random.below(categories[0].count)
            for k in 0..<2 { contexts[k].delete(categories[k][ci]) }
            mirror?.delete(categories[0][ci])
            return "delete category \(categories[0][ci].name) (cascades to its products)"
        }
    }
}

import Foundation
import OpenSwiftData

extension SchemaRules {
    /// Three cases per declared unique group: upsert, collisions in one save, nil never collides.
    func uniqueCases() -> [ConformanceCase] {
        var cases: [ConformanceCase] = []
        for e in schema.entities {
            for group in ownUniqueGroups(e) {
                let attrs = group.compactMap { name in e.attributes.first { $0.name == name } }
                guard attrs.count == group.count else { continue }  // a relationship in the group: not generated
                let label = "\(e.name)[\(group.joined(separator: ", "))]"
                cases.append(
                    ConformanceCase(
                        suite: "schema", id: "SCH-UNQ",
                        title: "\(label): a second insert with the same values updates the row; its values win"
                    ) { check in
                        try self.upsert(e, attrs, check, sameSave: false)
                    })
                cases.append(
                    ConformanceCase(
                        suite: "schema", id: "SCH-UNQ",
                        title: "\(label): colliding inserts in one save leave one row, the last's values"
                    ) { check in
                        try self.upsert(e, attrs, check, sameSave: true)
                    })
                if let optional = attrs.first(where: \.isOptional) {
                    cases.append(
                        ConformanceCase(
                            suite: "schema", id: "SCH-UNQ", title: "\(label): a nil \(optional.name) never collides"
                        ) { check in
                            let container = try check.container(for: self.schema)
                            let context = ModelContext(container)
                            let builder = Builder(self, context, seed: check.seed)
                            let first = try builder.make(e, fixed: [optional.name: nil])
                            var fixed: [String: Any?] = [:]
                            for a in attrs { fixed[a.name] = SchemaRules.read(first, a) }
                            _ = try builder.make(e, fixed: fixed)
                            try check.expectNoError("save two models whose group holds nil") { try context.save() }
                            let stored = try SchemaRules.count(e.modelType, ModelContext(try check.reopen(container)))
                            try check.expectEqual(stored, 2, "rows after saving two models with a nil in \(label)")
                        })
                }
            }
        }
        return cases
    }

    private func upsert(_ e: Schema.Entity, _ attrs: [Schema.Attribute], _ check: ConformanceCheck, sameSave: Bool)
        throws
    {
        let container = try check.container(for: schema)
        let context = ModelContext(container)
        let builder = Builder(self, context, seed: check.seed)
        var fixed: [String: Any?] = [:]
        let first = try builder.make(e)
        for a in attrs {
            let v = SchemaRules.read(first, a)
            fixed[a.name] = v
            if v == nil { return }  // nil never collides: the other case checks that
        }
        if !sameSave { try check.expectNoError("save the first model") { try context.save() } }
        let before = try SchemaRules.count(e.modelType, ModelContext(container))
        let second = try builder.make(e, fixed: fixed)
        try check.expectNoError("save the colliding model") { try context.save() }
        let fresh = ModelContext(try check.reopen(container))
        let rows = try SchemaRules.fetchAll(e.modelType, fresh)
        try check.expectEqual(rows.count, sameSave ? before + 1 : before, "rows of \(e.name) after the collision")
        guard
            let stored = rows.first(where: { r in
                attrs.allSatisfy { SchemaRules.same(SchemaRules.read(r, $0), fixed[$0.name] ?? nil) }
            })
        else {
            throw check.failure("the row with the colliding values is stored", expected: "one row", actual: "none")
        }
        for a in e.attributes where !a.isTransient {
            try check.within("attribute=\(a.name)") {
                let want = SchemaRules.read(second, a)
                let got = SchemaRules.read(stored, a)
                try check.expect(
                    SchemaRules.same(want, got), "the inserted model's values win (\(a.name))",
                    expected: SchemaRules.describe(want), actual: SchemaRules.describe(got))
            }
        }
    }

    /// One case per declared relationship: what deleting its owner does under its delete rule.
    func deleteRuleCases() -> [ConformanceCase] {
        var cases: [ConformanceCase] = []
        for e in schema.entities {
            for rel in ownRelationships(e) {
                guard let d = schema.entitiesByName[rel.destination] else { continue }
                let what: String
                switch rel.deleteRule {
                case _ where refuses(rel, d) && rel.deleteRule == .nullify:
                    what =
                        "deleting a \(e.name) with \(rel.name) makes the save throw and write nothing (their \(rel.inverseName ?? "inverse") is required)"
                case .cascade: what = "deleting a \(e.name) deletes its \(rel.name)"
                case .nullify:
                    what =
                        "deleting a \(e.name) keeps its \(rel.name)"
                        + (rel.inverseName.map { " and clears their \($0)" } ?? "")
                case .deny: what = "deleting a \(e.name) with \(rel.name) makes the save throw and write nothing"
                case .noAction: what = "deleting a \(e.name) leaves its \(rel.name) in place"
                }
                cases.append(
                    ConformanceCase(
                        suite: "schema", id: "SCH-DEL",
                        title: "\(e.name).\(rel.name) .\(rel.deleteRule.rawValue): \(what)"
                    ) { check in
                        try self.deleteRule(e, rel, d, check)
                    })
            }
        }
        return cases
    }

    /// Whether deleting the owner must fail: `.deny`, or `.nullify` of a required (non-optional) to-one inverse.
    func refuses(_ rel: Schema.Relationship, _ d: Schema.Entity) -> Bool {
        if rel.deleteRule == .deny { return true }
        guard rel.deleteRule == .nullify, let name = rel.inverseName,
            let inverse = d.relationships.first(where: { $0.name == name })
        else { return false }
        return inverse.isToOneRelationship && !inverse.isOptional
    }

    private func deleteRule(
        _ e: Schema.Entity, _ rel: Schema.Relationship, _ d: Schema.Entity, _ check: ConformanceCheck
    ) throws {
        let container = try check.container(for: schema)
        let context = ModelContext(container)
        let builder = Builder(self, context, seed: check.seed)
        let owner = try builder.make(e)
        let k =
            rel.isToOneRelationship ? 1 : max(1, min(2, (rel.maximumModelCount ?? 0) > 0 ? rel.maximumModelCount! : 2))
        let targets = try (0..<k).map { _ in try builder.make(d) }
        SchemaRules.assign(rel, targets, to: owner)
        // Cascade depth: what the related models cascade to must go too.
        var further: [(entity: Schema.Entity, model: any PersistentModel)] = []
        if rel.deleteRule == .cascade {
            for target in targets {
                for next in d.relationships where next.deleteRule == .cascade && next.name != rel.inverseName {
                    guard let d2 = schema.entitiesByName[next.destination] else { continue }
                    let model = try builder.make(d2)
                    SchemaRules.assign(next, [model], to: target)
                    further.append((d2, model))
                }
            }
        }
        try check.expectNoError("save the owner and its related models") { try context.save() }
        let furtherIDs = further.map { ($0.entity, $0.model.persistentModelID) }
        let targetIDs = targets.map(\.persistentModelID)
        let ownerID = owner.persistentModelID
        try expectLinked(e, rel, d, owner: ownerID, targets: targetIDs, container: container, check)
        let ownersBefore = try SchemaRules.count(e.modelType, ModelContext(container))
        context.delete(owner)
        if refuses(rel, d) {
            // Not swallowed: the check expects this save to throw.
            try check.expect(
                (try? context.save()) == nil, "the save after deleting a \(e.name) with \(rel.name) throws",
                expected: "an error", actual: "the save succeeded")
            let fresh = ModelContext(try check.reopen(container))
            try check.expectEqual(
                try SchemaRules.count(e.modelType, fresh), ownersBefore, "\(e.name) rows after the refused save")
            let left = try SchemaRules.identifiers(d.modelType, fresh)
            try check.expect(targetIDs.allSatisfy(left.contains), "the related models are still stored")
            context.rollback()
            return
        }
        try check.expectNoError("save the deletion") { try context.save() }
        if rel.deleteRule == .nullify, let inverseName = rel.inverseName,
            let inverse = d.relationships.first(where: { $0.name == inverseName })
        {
            // DEL-01: the deleting context's own models let go of the owner too, not only the store.
            for target in targets {
                let pointsBack = SchemaRules.related(target, inverse).contains { $0.persistentModelID == ownerID }
                try check.expect(
                    !pointsBack,
                    "in the deleting context, \(d.name).\(inverseName) no longer holds the deleted \(e.name)",
                    expected: "cleared", actual: "still holds it")
            }
        }
        let fresh = ModelContext(try check.reopen(container))
        let left = try SchemaRules.identifiers(d.modelType, fresh)
        let kept = targetIDs.filter(left.contains)
        switch rel.deleteRule {
        case .cascade:
            try check.expect(
                kept.isEmpty, "cascade deleted the related \(d.name) models",
                expected: "0 of \(targetIDs.count) left", actual: "\(kept.count) left")
            for (entity, id) in furtherIDs {
                let stillThere = try SchemaRules.identifiers(entity.modelType, fresh).contains(id)
                try check.expect(
                    !stillThere, "the cascade went on to the \(entity.name) models the \(d.name) models cascade to",
                    expected: "deleted", actual: "still stored")
            }
        case .nullify, .noAction, .deny:
            try check.expectEqual(kept.count, targetIDs.count, "related \(d.name) models kept")
            if rel.deleteRule == .nullify, let inverseName = rel.inverseName,
                let inverse = d.relationships.first(where: { $0.name == inverseName })
            {
                for id in targetIDs {
                    let target = fresh.model(for: id)
                    let pointsBack = SchemaRules.related(target, inverse).contains { $0.persistentModelID == ownerID }
                    try check.expect(
                        !pointsBack, "\(d.name).\(inverseName) no longer holds the deleted \(e.name)",
                        expected: "cleared", actual: "still holds it")
                }
            }
        }
    }

    /// Fails unless the saved owner holds every target through `rel` and, with an inverse, every
    /// target holds the owner: a delete-rule case that linked nothing would pass without testing
    /// its rule (a cascade with no child, a nullify with no holder).
    private func expectLinked(
        _ e: Schema.Entity, _ rel: Schema.Relationship, _ d: Schema.Entity, owner: PersistentIdentifier,
        targets: [PersistentIdentifier], container: ModelContainer, _ check: ConformanceCheck
    ) throws {
        let fresh = ModelContext(container)
        let held = Set(SchemaRules.related(fresh.model(for: owner), rel).map(\.persistentModelID))
        try check.expect(
            !targets.isEmpty && targets.allSatisfy(held.contains),
            "the saved \(e.name) holds its \(rel.name) before the delete (the case links what it tests)",
            expected: "\(targets.count) linked", actual: "\(targets.filter(held.contains).count) linked")
        guard let inverseName = rel.inverseName, let inverse = d.relationships.first(where: { $0.name == inverseName })
        else { return }
        let holders = targets.filter { id in
            SchemaRules.related(fresh.model(for: id), inverse).contains { $0.persistentModelID == owner }
        }
        try check.expectEqual(
            holders.count, targets.count, "\(d.name).\(inverseName) holds the \(e.name) before the delete")
    }

    /// One case per hierarchy: deep fetches and counts of every class, and the classes fetched.
    func inheritanceCases() -> [ConformanceCase] {
        schema.entities.filter { $0.superentity == nil && !$0.subentities.isEmpty }.map { root in
            let names = subtree(root).map(\.name).joined(separator: ", ")
            return ConformanceCase(
                suite: "schema", id: "SCH-INH",
                title: "\(root.name) hierarchy (\(names)): every class fetches and counts itself and its subclasses"
            ) { check in
                let container = try check.container(for: self.schema)
                let context = ModelContext(container)
                let builder = Builder(self, context, seed: check.seed)
                for e in self.subtree(root) { for _ in 0..<2 { _ = try builder.make(e) } }
                try check.expectNoError("save two models of every class") { try context.save() }
                let fresh = ModelContext(try check.reopen(container))
                for e in self.subtree(root) {
                    try check.within("class=\(e.name)") {
                        let expected = Set(self.subtree(e).map(\.name))
                        let fetched = try SchemaRules.fetchAll(e.modelType, fresh)
                        let count = try SchemaRules.count(e.modelType, fresh)
                        try check.expectEqual(count, fetched.count, "fetchCount equals fetch().count for \(e.name)")
                        let classes = fetched.map { "\(type(of: $0))" }
                        try check.expect(
                            Set(classes).isSubset(of: expected) && Set(classes) == expected,
                            "fetching \(e.name) returns exactly its classes",
                            expected: expected.sorted().joined(separator: ", "),
                            actual: Set(classes).sorted().joined(separator: ", "))
                        try check.expect(
                            fetched.count >= 2 * expected.count,
                            "fetching \(e.name) returns the subclasses' models (deep)",
                            expected: "≥ \(2 * expected.count)", actual: "\(fetched.count)")
                    }
                }
            }
        }
    }
}

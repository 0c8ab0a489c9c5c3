/// The reference model of the change scripts: SwiftData's semantics as a small object graph in
/// plain Swift, written from Docs/BehaviourReference.md and sharing no code with the library's
/// context, save, uniqueness or delete logic.
///
/// A node is one model; it holds its attribute values as text (`nil` for an empty optional)
/// and its relationships as node numbers. Two states are kept: what was last saved, and the
/// pending state a context shows.
///
/// - Changes: setting one side of a relationship updates its inverse at once (REL-02), a
///   to-many holds each node once (REL-05), removing a member clears its reference (REL-03).
/// - Deletes (DEL-*): the rules run when the delete is made, as a context runs them before
///   the next fetch: `.cascade` deletes the members (chains, DEL-04), `.nullify` and `.noAction`
///   unlink them (DEL-05…07), references through one-way relationships are cleared (DEL-14). A
///   delete that `.deny` (members left once every cascade ran) or a non-optional inverse
///   refuses stays pending with its rules unapplied, and the save throws (DEL-08).
/// - New models reached only through a relationship set after their owner's insert are
///   inserted by the save (REL-01); until then a fetch does not list them.
/// - Save: refused deletes, then `minimumModelCount`/`maximumModelCount` of new models and of
///   changed to-many relationships (REL-04; one set counts, even to the members it had), then uniqueness: new models that share a unique
///   group's values collapse into the last one (UNQ-30); a new model matching one stored row
///   (by that row's stored values, unless this save moves it away or deletes it) takes it over
///   with every attribute and relationship (UNQ-10…17, 21); matching two rows, or a row of
///   another class, throws (UNQ-18, 41); nil never collides (UNQ-19). Any two rows left with
///   the same values throw. A failed save changes nothing and keeps the pending changes (CTX-03).
///
/// Two readings where the reference is silent: an upsert replaces the stored row's to-many
/// lists whole with the new model's (UNQ-14: a member this same save linked to the stored row,
/// from either side, leaves it too unless the new model names it), while the members of a new
/// model that collapses into a later one keep their link (UNQ-30: all its links were written
/// by this save). Uniqueness is checked
/// on the save's result, so unique values handed over between rows in one save (a swap, a
/// chain of renames, an insert onto a value a saved row leaves) are saved (UNQ-33).
/// - Rollback: the pending state is the saved one again (CTX-02, CTX-03, DEL-15).
final class OracleGraph {
    /// One model.
    struct Node {
        enum State {
            /// Inserted since the last save.
            case new
            /// Saved.
            case stored
            /// Reached through a relationship set after its owner's insert: the save inserts it.
            case linked
        }
        var entity: String
        var state: State
        /// Insertion order of a new node (later inserts win collapses).
        var order: Int
        var deleted = false
        /// Whether the delete rules of a deleted node ran.
        var propagated = false
        var attributes: [String: String?]
        var toOne: [String: Int] = [:]
        var toMany: [String: [Int]] = [:]
        /// Relationships whose members changed, or that were set, since the last save.
        var changed: Set<String> = []
    }

    let schema: OracleSchema
    private(set) var nodes: [Int: Node] = [:]
    private var saved: [Int: Node] = [:]
    /// Nodes merged into another by a save (an upsert or a collapse), and where they went.
    private var forward: [Int: Int] = [:]
    private var nextID = 1
    private var nextOrder = 0

    init(schema: OracleSchema) { self.schema = schema }

    /// The node `id` became (itself unless a save merged it into another).
    func resolve(_ id: Int) -> Int {
        var i = id
        while let f = forward[i] { i = f }
        return i
    }

    /// Whether a fetch lists node `id`: inserted or saved, and not deleted.
    func isListed(_ id: Int) -> Bool {
        guard let n = nodes[id] else { return false }
        return !n.deleted && n.state != .linked
    }

    func entity(_ id: Int) -> OracleSchema.Entity { schema.entities[nodes[id]!.entity]! }

    /// Adds a model of `entity` with `attributes`; returns its number.
    func add(_ entity: String, _ attributes: [String: String?], linked: Bool) -> Int {
        let id = nextID
        nextID += 1
        nextOrder += 1
        nodes[id] = Node(entity: entity, state: linked ? .linked : .new, order: nextOrder, attributes: attributes)
        return id
    }

    /// Sets attribute `name` of node `id`.
    func set(_ id: Int, _ name: String, _ value: String?) { nodes[id]?.attributes[name] = .some(value) }

    /// The members of relationship `name` of node `id` (none or one for a to-one).
    func members(_ id: Int, _ name: String) -> [Int] {
        guard let n = nodes[id] else { return [] }
        return n.toMany[name] ?? n.toOne[name].map { [$0] } ?? []
    }

    // MARK: relationships, both sides

    private func addOneSide(_ a: Int, _ r: OracleSchema.Relationship, _ b: Int) {
        if r.toMany {
            if nodes[a]!.toMany[r.name, default: []].contains(b) { return }
            nodes[a]!.toMany[r.name, default: []].append(b)
        } else {
            nodes[a]!.toOne[r.name] = b
        }
        nodes[a]!.changed.insert(r.name)
    }

    private func removeOneSide(_ a: Int, _ name: String, _ b: Int) {
        guard nodes[a] != nil else { return }
        if let list = nodes[a]!.toMany[name], list.contains(b) {
            nodes[a]!.toMany[name] = list.filter { $0 != b }
        } else if nodes[a]!.toOne[name] == b {
            nodes[a]!.toOne[name] = nil
        } else {
            return
        }
        nodes[a]!.changed.insert(name)
    }

    /// Makes `b` a member of `a`'s relationship `name` (replacing a to-one's member), and `a`
    /// a member of the inverse on `b` (REL-02, REL-05).
    func link(_ a: Int, _ name: String, _ b: Int) {
        guard let r = entity(a).relationship(name) else { return }
        if r.toMany {
            if members(a, name).contains(b) { return }
        } else if let old = nodes[a]!.toOne[name] {
            if old == b { return }
            unlink(a, name, old)
        }
        addOneSide(a, r, b)
        guard let inverseName = r.inverse, let ir = entity(b).relationship(inverseName) else { return }
        if !ir.toMany, let old = nodes[b]!.toOne[inverseName], old != a { unlink(b, inverseName, old) }
        addOneSide(b, ir, a)
    }

    /// Removes `b` from `a`'s relationship `name`, and `a` from the inverse on `b` (REL-03).
    func unlink(_ a: Int, _ name: String, _ b: Int) {
        removeOneSide(a, name, b)
        if let inverseName = entity(a).relationship(name)?.inverse { removeOneSide(b, inverseName, a) }
    }

    /// Sets `a`'s relationship `name` to `targets` (a to-one to the first, or to none). A
    /// to-many set counts as changed for the save's count check even when it gets the members
    /// it had (REL-04).
    func assign(_ a: Int, _ name: String, _ targets: [Int]) {
        guard let r = entity(a).relationship(name) else { return }
        let wanted = r.toMany ? targets : Array(targets.prefix(1))
        for t in members(a, name) where !wanted.contains(t) { unlink(a, name, t) }
        for t in wanted { link(a, name, t) }
        if r.toMany { nodes[a]!.changed.insert(name) }
    }

    // MARK: deletes

    /// Deletes node `id` and runs the delete rules of every pending delete.
    func delete(_ id: Int) {
        guard nodes[id] != nil, !nodes[id]!.deleted else { return }
        nodes[id]!.deleted = true
        propagate()
    }

    private func live(_ ids: [Int]) -> [Int] { ids.filter { nodes[$0].map { !$0.deleted } ?? false } }

    /// The error a delete rule gives while node `id` is deleted, or `nil` when its rules may run.
    private func refusal(_ id: Int) -> String? {
        for r in entity(id).relationships where !live(members(id, r.name)).isEmpty {
            if r.rule == .deny { return "deleteRuleDenied" }
            if r.rule != .cascade, let inverseName = r.inverse,
                let ir = schema.entities[nodes[live(members(id, r.name))[0]]!.entity]?.relationship(inverseName),
                !ir.toMany, !ir.optional
            {
                return "modelValidationFailure"
            }
        }
        return nil
    }

    /// Runs the rules of the deleted nodes until nothing changes; a refused delete is retried
    /// as later cascades remove its members. Returns the first refusal left.
    @discardableResult
    private func propagate() -> String? {
        var progress = true
        while progress {
            progress = false
            for id in nodes.keys.sorted() where nodes[id]!.deleted && !nodes[id]!.propagated {
                if refusal(id) != nil { continue }
                nodes[id]!.propagated = true
                progress = true
                for r in entity(id).relationships {
                    for t in live(members(id, r.name)) {
                        if r.rule == .cascade {
                            nodes[t]!.deleted = true
                        } else if let inverseName = r.inverse {
                            removeOneSide(t, inverseName, id)
                        }
                    }
                }
                // one-way references to the deleted node read nil (DEL-14)
                for other in nodes.keys where !nodes[other]!.deleted {
                    for r in entity(other).relationships where r.inverse == nil && members(other, r.name).contains(id) {
                        removeOneSide(other, r.name, id)
                    }
                }
            }
        }
        for id in nodes.keys.sorted() where nodes[id]!.deleted && !nodes[id]!.propagated {
            if let refused = refusal(id) { return refused }
        }
        return nil
    }

    // MARK: save and rollback

    /// The pending state becomes the saved one, or nothing changes and the error's code is
    /// returned (`deleteRuleDenied`, `modelValidationFailure`, `uniqueConstraintViolation`).
    func save() -> String? {
        let before = (nodes, forward)
        if let error = prepareSave() {
            (nodes, forward) = before
            return error
        }
        for id in Array(nodes.keys) {
            if nodes[id]!.deleted || nodes[id]!.state == .linked {
                nodes[id] = nil
            } else {
                nodes[id]!.state = .stored
                nodes[id]!.changed = []
            }
        }
        saved = nodes
        return nil
    }

    /// The pending state is the saved one again (CTX-02, CTX-03, DEL-15).
    func rollback() {
        nodes = saved
    }

    private func prepareSave() -> String? {
        if let refused = propagate() { return refused }
        // New models reached through relationships are inserted (REL-01).
        var work = nodes.keys.sorted().filter { isListed($0) }
        while let id = work.popLast() {
            for r in entity(id).relationships {
                for t in members(id, r.name) where nodes[t]?.state == .linked && nodes[t]?.deleted == false {
                    nextOrder += 1
                    nodes[t]!.state = .new
                    nodes[t]!.order = nextOrder
                    work.append(t)
                }
            }
        }
        for id in nodes.keys.sorted() where isListed(id) {
            let n = nodes[id]!
            for r in entity(id).relationships where r.toMany && (r.minimum > 0 || r.maximum > 0) {
                guard n.state == .new || n.changed.contains(r.name) else { continue }
                let count = live(members(id, r.name)).count
                if (r.minimum > 0 && count < r.minimum) || (r.maximum > 0 && count > r.maximum) {
                    return "modelValidationFailure"
                }
            }
        }
        return resolveUniqueness()
    }

    /// The values of unique group `group` of `node`, or `nil` when one is nil (UNQ-19).
    private func values(_ group: [String], of node: Node) -> String? {
        var parts: [String] = []
        for name in group {
            if let v = node.attributes[name] {
                guard let v else { return nil }
                parts.append(v)
            } else if let t = node.toOne[name] {
                parts.append("#\(resolve(t))")
            } else {
                return nil
            }
        }
        return group.joined(separator: ",") + "=" + parts.joined(separator: "\u{1}")
    }

    private func resolveUniqueness() -> String? {
        let new = nodes.keys.filter { isListed($0) && nodes[$0]!.state == .new }.sorted {
            nodes[$0]!.order < nodes[$1]!.order
        }
        // New models sharing a group's values: the later one wins (UNQ-30).
        var claims: [String: Int] = [:]
        var collapsed: [Int: Int] = [:]
        for id in new {
            let e = entity(id)
            for g in e.uniqueGroups {
                guard let v = values(g, of: nodes[id]!) else { continue }
                let key = e.root + "|" + v
                if let earlier = claims[key], earlier != id, collapsed[earlier] == nil { collapsed[earlier] = id }
                claims[key] = id
            }
        }
        // The stored row each remaining new model matches, by its stored values (UNQ-10…18, 41).
        var adoptedBy: [Int: Int] = [:]
        for id in new where collapsed[id] == nil {
            let e = entity(id)
            var matches: Set<Int> = []
            for g in e.uniqueGroups {
                guard let v = values(g, of: nodes[id]!) else { continue }
                for (s, stored) in saved {
                    guard let now = nodes[s], !now.deleted, now.state == .stored,
                        schema.entities[stored.entity]?.root == e.root,
                        schema.entities[stored.entity]!.uniqueGroups.contains(g),
                        values(g, of: stored) == v, values(g, of: now) == v
                    else { continue }
                    matches.insert(s)
                }
            }
            guard !matches.isEmpty else { continue }
            guard matches.count == 1, let s = matches.first, nodes[s]!.entity == nodes[id]!.entity else {
                return "uniqueConstraintViolation"
            }
            if let previous = adoptedBy[s], previous != id { collapsed[previous] = id }
            adoptedBy[s] = id
        }
        for id in new where collapsed[id] != nil {
            var winner = collapsed[id]!
            while let next = collapsed[winner] { winner = next }
            merge(id, into: winner, takingValues: false)
        }
        for (s, id) in adoptedBy.sorted(by: { $0.key < $1.key }) where collapsed[id] == nil {
            merge(id, into: s, takingValues: true)
        }
        // Whatever still shares a group's values (an update onto another row's values) throws.
        var seen: Set<String> = []
        for id in nodes.keys where isListed(id) {
            let e = entity(id)
            for g in e.uniqueGroups {
                guard let v = values(g, of: nodes[id]!) else { continue }
                if !seen.insert(e.root + "|" + v).inserted { return "uniqueConstraintViolation" }
            }
        }
        return nil
    }

    /// Folds node `loser` into `winner`: with `takingValues` (an upsert) the winner takes the
    /// loser's attributes and relationships (UNQ-13, UNQ-14); otherwise the winner keeps its own
    /// (a collapse, UNQ-30). The loser's members that the winner does not hold are left
    /// without it; references to the loser now reach the winner.
    private func merge(_ loser: Int, into winner: Int, takingValues: Bool) {
        let relationships = entity(loser).relationships
        let taken = relationships.map { r in members(loser, r.name).map { $0 == loser ? winner : $0 } }
        for r in relationships {
            for t in members(loser, r.name) { unlink(loser, r.name, t) }
        }
        for other in nodes.keys where other != loser {
            for r in entity(other).relationships where r.inverse == nil && members(other, r.name).contains(loser) {
                removeOneSide(other, r.name, loser)
                link(other, r.name, winner)
            }
        }
        if takingValues {
            nodes[winner]!.attributes = nodes[loser]!.attributes
            for (r, targets) in zip(relationships, taken) { assign(winner, r.name, targets) }
        } else {
            // Every link of a new model was written by this save: its members stay with the row.
            for (r, targets) in zip(relationships, taken) where r.toMany {
                for t in targets { link(winner, r.name, t) }
            }
        }
        nodes[loser] = nil
        forward[loser] = winner
    }

    // MARK: what a context shows

    /// One line per listed node: its class, number, attributes and relationships' members.
    func view() -> [String] {
        nodes.keys.filter(isListed).map { id in
            let n = nodes[id]!
            let e = entity(id)
            return OracleGraph.line(
                e, id, attribute: { n.attributes[$0] ?? nil }, members: { members(id, $0).map(self.resolve) })
        }.sorted()
    }

    /// The line of node `id` of class `e` (a context's models are written the same way).
    static func line(
        _ e: OracleSchema.Entity, _ id: Int, attribute: (String) -> String?, members: (String) -> [Int]
    ) -> String {
        var parts = ["\(e.name)#\(id)"]
        for a in e.attributes { parts.append("\(a)=\(attribute(a) ?? "nil")") }
        for r in e.relationships {
            let m = members(r.name).sorted().map { "#\($0)" }
            parts.append("\(r.name)=" + (r.toMany ? "[\(m.joined(separator: ","))]" : m.first ?? "nil"))
        }
        return parts.joined(separator: " ")
    }
}

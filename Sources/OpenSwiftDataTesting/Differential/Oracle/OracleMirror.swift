import Foundation
import OpenSwiftData

/// The reference model (``OracleGraph``) beside a change script: the script tells it every
/// change it makes to the memory store's context, in terms of that context's models, and
/// compares what the context shows with what the reference holds.
///
/// A model is matched to its node by object identity (the script's own instances, and those
/// the context fetched), or, in a context that never saw the instance, by the identifier the
/// row had after a save. Only that correspondence comes from the library; values, members,
/// which rows exist and every save's outcome come from the reference.
///
/// When compared: after every step the context's rows (a fetch of every root class, pending
/// changes included) must equal the reference's pending state, attributes and relationship
/// members alike; every save must have the reference's outcome (saved, or the error's code);
/// after a successful save a fresh context of the store must show the reference's saved rows.
final class OracleMirror {
    let graph: OracleGraph
    private let schema: Schema
    private var entityOfType: [ObjectIdentifier: Schema.Entity] = [:]
    private var nodeOfModel: [ObjectIdentifier: Int] = [:]
    /// The models matched to nodes, kept alive so that no identity is reused.
    private var models: [any PersistentModel] = []
    private var nodeOfIdentifier: [PersistentIdentifier: Int] = [:]

    init(schema: Schema) {
        self.schema = schema
        graph = OracleGraph(schema: OracleSchema(schema))
        for e in schema.entities { entityOfType[ObjectIdentifier(e.modelType)] = e }
    }

    private func entity(of model: any PersistentModel) -> Schema.Entity {
        entityOfType[ObjectIdentifier(type(of: model))]!
    }

    /// How an attribute value is written and compared: exactly (dates to the bit, data by content).
    static func text(_ value: Any?) -> String? {
        guard let value else { return nil }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional { return text(mirror.children.first?.value) }
        switch value {
        case let d as Date: return "Date(\(d.timeIntervalSinceReferenceDate))"
        case let d as Data: return "Data(\(d.base64EncodedString()))"
        default: return String(reflecting: value)
        }
    }

    /// The node of `model` (`nil` if the reference never saw it).
    func node(_ model: any PersistentModel) -> Int? {
        if let id = nodeOfModel[ObjectIdentifier(model)] ?? nodeOfIdentifier[model.persistentModelID] {
            return graph.resolve(id)
        }
        return nil
    }

    /// The node of `model`, added (with the models it reaches) if the reference has not seen it:
    /// listed at once for an insert, or at the next save for a model only linked (REL-01).
    @discardableResult
    private func adopt(_ model: any PersistentModel, linked: Bool) -> Int {
        if let id = node(model) { return id }
        let e = entity(of: model)
        var attributes: [String: String?] = [:]
        for a in e.attributes where !a.isTransient {
            attributes[a.name] = .some(OracleMirror.text(SchemaRules.read(model, a)))
        }
        let id = graph.add(e.name, attributes, linked: linked)
        nodeOfModel[ObjectIdentifier(model)] = id
        models.append(model)
        for r in e.relationships {
            let targets = SchemaRules.related(model, r).map { adopt($0, linked: linked) }
            graph.assign(id, r.name, targets)
        }
        return id
    }

    /// The script inserted `model` (and so every new model it reaches).
    func insert(_ model: any PersistentModel) {
        if let id = node(model), graph.nodes[id]?.state != .linked { return }
        adopt(model, linked: false)
    }

    /// The script set attribute `name` of `model` to `value`.
    func update(_ model: any PersistentModel, _ name: String, _ value: Any?) {
        graph.set(adopt(model, linked: true), name, OracleMirror.text(value))
    }

    /// The script set relationship `name` of `model` to `targets`.
    func assign(_ model: any PersistentModel, _ name: String, _ targets: [any PersistentModel]) {
        let id = adopt(model, linked: true)
        graph.assign(id, name, targets.map { adopt($0, linked: true) })
    }

    /// The script added `target` to relationship `name` of `model`.
    func append(_ model: any PersistentModel, _ name: String, _ target: any PersistentModel) {
        graph.link(adopt(model, linked: true), name, adopt(target, linked: true))
    }

    /// The script removed `target` from relationship `name` of `model`.
    func remove(_ model: any PersistentModel, _ name: String, _ target: any PersistentModel) {
        graph.unlink(adopt(model, linked: true), name, adopt(target, linked: true))
    }

    /// The script deleted `model`.
    func delete(_ model: any PersistentModel) {
        if let id = node(model) { graph.delete(id) }
    }

    /// The rows `context` shows become the reference's saved state (a script that starts from
    /// a fixture's rows).
    func load(_ context: ModelContext) throws {
        for rootName in graph.schema.roots {
            guard let root = schema.entitiesByName[rootName] else { continue }
            for m in try SchemaRules.fetchAll(root.modelType, context) { adopt(m, linked: false) }
        }
        _ = save()
    }

    /// The script saved: the reference's outcome, `saved` or `error <code>`; after a save the
    /// identifiers of the models it knows are noted, for contexts that never saw them.
    func save() -> String {
        if let code = graph.save() { return "error \(code)" }
        for m in models {
            if let id = node(m), graph.nodes[id] != nil { nodeOfIdentifier[m.persistentModelID] = id }
        }
        return "saved"
    }

    /// The script rolled back.
    func rollback() { graph.rollback() }

    /// What `context` shows, written as ``OracleGraph/view()`` writes the reference.
    func view(_ context: ModelContext) throws -> [String] {
        var lines: [String] = []
        for rootName in graph.schema.roots {
            guard let root = schema.entitiesByName[rootName] else { continue }
            for m in try SchemaRules.fetchAll(root.modelType, context) {
                let e = entity(of: m)
                let id = node(m) ?? -1
                let attributes = Dictionary(
                    e.attributes.map { ($0.name, OracleMirror.text(SchemaRules.read(m, $0))) },
                    uniquingKeysWith: { a, _ in a })
                let relationships = Dictionary(e.relationships.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
                lines.append(
                    OracleGraph.line(
                        graph.schema.entities[e.name]!, id, attribute: { attributes[$0] ?? nil },
                        members: { r in
                            relationships[r].map { SchemaRules.related(m, $0).map { self.node($0) ?? -1 } } ?? []
                        }
                    ))
            }
        }
        return lines.sorted()
    }

    /// A failure when `context` does not show the reference's rows: what only the reference
    /// holds is `expected`, what only the context shows is `actual`.
    func compare(_ context: ModelContext, _ check: String) throws -> (expected: String, actual: String)? {
        let (want, got) = (graph.view(), try view(context))
        guard want != got else { return nil }
        let (w, g) = (Set(want), Set(got))
        return (
            "oracle (\(want.count) rows): " + want.filter { !g.contains($0) }.joined(separator: "; "),
            "memory store (\(got.count) rows): " + got.filter { !w.contains($0) }.joined(separator: "; ")
        )
    }
}

import Foundation
import OpenSwiftData

/// Entity profiles derived from a schema, for ``DifferentialHarness/init(schema:seed:counts:fixture:stores:)``:
/// the leaves and sort keys a hand-written profile (``EntityProfile/catalogueProduct``) lists,
/// found by walking the schema's key paths and opening their static types.
///
/// Per attribute (declared on the profiled class): `String` → `contains`/`starts(with:)`/
/// comparisons; `Int`, `Double` → comparisons, arithmetic; `Date`, `Decimal` → comparisons;
/// optionals of those → `nil` tests, `??`, optional chains; `UUID`, `Bool` → `==`/`!=`/captured
/// arrays (other value types — enums, `Codable` structs — are not used: their `Sendable`
/// conformance cannot be checked at run time, and predicates need it). Per relationship: to-one →
/// `$0.r == nil`, `$0.r?.a …` over the target's attributes; to-many → `isEmpty`, `count`,
/// `contains(where:)`, `allSatisfy`, `filter{}.count` with the element's own derived profile.
/// Per hierarchy root: `is Sub` and `($0 as? Sub)?.a` for each subclass attribute. Sort keys: every
/// comparable attribute and optional.
final class SchemaProfiles {
    let schema: Schema

    init(schema: Schema) { self.schema = schema }

    /// One target per root entity (subclasses are reached through `is`/`as?`).
    func targets(dataset: String) -> [DifferentialTarget] {
        schema.entities.filter { $0.superentity == nil }.map { entity in
            func target<R: PersistentModel>(_: R.Type) -> DifferentialTarget {
                .of(dataset, self.profile(R.self, entity))
            }
            return target(entity.modelType)
        }
    }

    /// The derived profile of `entity`, whose class is `R`.
    func profile<R: PersistentModel>(_: R.Type, _ entity: Schema.Entity) -> EntityProfile<R> {
        var makers: [LeafMaker<R>] = [.identity()]
        var sorts: [SortOption<R>] = []
        for attribute in entity.attributes where !attribute.isTransient {
            guard let kp = attribute.keypath as? any _ProfileKeyPath else { continue }
            let (m, s) = kp._attributeLeaves(attribute.name, R.self)
            makers += m
            sorts += s
        }
        for relationship in entity.relationships {
            guard let kp = relationship.keypath as? any _ProfileKeyPath,
                let target = schema.entitiesByName[relationship.destination]
            else { continue }
            makers += kp._relationshipLeaves(relationship.name, R.self, target: target, profiles: self)
        }
        for sub in entity.subentities.flatMap(descendants) {
            func subclassLeaves<S: PersistentModel>(_ s: S.Type) {
                makers.append(.isType(sub.name, s))
                for attribute in sub.attributes {
                    guard let kp = attribute.keypath as? any _ProfileKeyPath else { continue }
                    makers += kp._castLeaves(sub.name, S.self, attribute.name, R.self)
                }
            }
            subclassLeaves(sub.modelType)
        }
        return EntityProfile(entity.name, sorts: sorts, makers)
    }

    private func descendants(_ e: Schema.Entity) -> [Schema.Entity] { [e] + e.subentities.flatMap(descendants) }
}

/// A schema key path with its static types opened, producing the leaves it supports.
protocol _ProfileKeyPath {
    func _attributeLeaves<R: PersistentModel>(_ name: String, _: R.Type) -> ([LeafMaker<R>], [SortOption<R>])
    func _relationshipLeaves<R: PersistentModel>(
        _ name: String, _: R.Type, target: Schema.Entity,
        profiles: SchemaProfiles
    ) -> [LeafMaker<R>]
    func _castLeaves<R: PersistentModel, S: PersistentModel>(_ subName: String, _: S.Type, _ name: String, _: R.Type)
        -> [LeafMaker<R>]
    func _toOneLeaves<R: PersistentModel, T: PersistentModel>(
        _ relationship: String, _ via: KeyPath<R, T?> & Sendable,
        _ name: String
    ) -> [LeafMaker<R>]
}

extension KeyPath: _ProfileKeyPath where Root: PersistentModel {
    func _attributeLeaves<R: PersistentModel>(_ name: String, _: R.Type) -> ([LeafMaker<R>], [SortOption<R>]) {
        guard let kp = self as? KeyPath<R, Value> else { return ([], []) }
        return ProfileOpening<R>.attribute(name, kp)
    }

    func _relationshipLeaves<R: PersistentModel>(
        _ name: String, _: R.Type, target: Schema.Entity,
        profiles: SchemaProfiles
    ) -> [LeafMaker<R>] {
        guard let kp = self as? KeyPath<R, Value> else { return [] }
        func toOne<T: PersistentModel>(_: T.Type) -> [LeafMaker<R>] {
            guard let via = kp as? KeyPath<R, T?> else { return [] }
            var makers: [LeafMaker<R>] = []
            for attribute in target.attributes where !attribute.isTransient {
                if let akp = attribute.keypath as? any _ProfileKeyPath {
                    makers += akp._toOneLeaves(name, sendable(via), attribute.name)
                }
            }
            return makers
        }
        func toMany<E: PersistentModel>(_: E.Type) -> [LeafMaker<R>] {
            guard let many = kp as? KeyPath<R, [E]> else { return [] }
            return [.toMany(name, sendable(many), { profiles.profile(E.self, target) })]
        }
        return toOne(target.modelType) + toMany(target.modelType)
    }

    func _castLeaves<R: PersistentModel, S: PersistentModel>(_ subName: String, _: S.Type, _ name: String, _: R.Type)
        -> [LeafMaker<R>]
    {
        guard let kp = self as? KeyPath<S, Value>, let dv = Value.self as? any DifferentialValue.Type else { return [] }
        func cast<V: DifferentialValue>(_: V.Type) -> [LeafMaker<R>] {
            guard let typed = kp as? KeyPath<S, V> else { return [] }
            return [.castAttribute(subName, S.self, name, sendable(typed))]
        }
        return cast(dv)
    }

    func _toOneLeaves<R: PersistentModel, T: PersistentModel>(
        _ relationship: String, _ via: KeyPath<R, T?> & Sendable,
        _ name: String
    ) -> [LeafMaker<R>] {
        guard let kp = self as? KeyPath<T, Value>, let dv = Value.self as? any DifferentialValue.Type else { return [] }
        func chain<V: DifferentialValue>(_: V.Type) -> [LeafMaker<R>] {
            guard let typed = kp as? KeyPath<T, V> else { return [] }
            return [.toOne(relationship, via, name, sendable(typed), weight: 1)]
        }
        return chain(dv)
    }
}

/// The leaves of one attribute, by its value type.
enum ProfileOpening<R: PersistentModel> {
    static func attribute<Value>(_ name: String, _ kp: KeyPath<R, Value>) -> ([LeafMaker<R>], [SortOption<R>]) {
        if let plain = kp as? KeyPath<R, String> {
            let s = sendable(plain)
            return (
                [.string(name, s), .comparable(name, s, weight: 1)], [SortOption(name) { SortDescriptor(s, order: $0) }]
            )
        }
        if let n = Value.self as? any DifferentialNumber.Type { return number(name, kp, n) }
        if let d = Value.self as? any DifferentialValue.Type { return comparable(name, kp, d) }
        if let o = Value.self as? any _ProfileOptional.Type, let w = o.wrappedDifferential {
            return optional(name, kp, w)
        }
        if let u = kp as? KeyPath<R, UUID> {
            return (
                [
                    .equatable(
                        name, sendable(u), other: UUID(uuid: (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)))
                ], []
            )
        }
        if let b = kp as? KeyPath<R, Bool> { return ([.equatable(name, sendable(b), other: false)], []) }
        return ([], [])
    }

    static func number<Value, N: DifferentialNumber>(_ name: String, _ kp: KeyPath<R, Value>, _: N.Type) -> (
        [LeafMaker<R>], [SortOption<R>]
    ) {
        guard let plain = kp as? KeyPath<R, N> else { return ([], []) }
        let typed = sendable(plain)
        return (
            [.comparable(name, typed), .numeric(name, typed)], [SortOption(name) { SortDescriptor(typed, order: $0) }]
        )
    }

    static func comparable<Value, V: DifferentialValue>(_ name: String, _ kp: KeyPath<R, Value>, _: V.Type) -> (
        [LeafMaker<R>], [SortOption<R>]
    ) {
        guard let plain = kp as? KeyPath<R, V> else { return ([], []) }
        let typed = sendable(plain)
        return ([.comparable(name, typed)], [SortOption(name) { SortDescriptor(typed, order: $0) }])
    }

    static func optional<Value, V: DifferentialValue>(_ name: String, _ kp: KeyPath<R, Value>, _: V.Type) -> (
        [LeafMaker<R>], [SortOption<R>]
    ) {
        guard let plain = kp as? KeyPath<R, V?> else { return ([], []) }
        let typed = sendable(plain)
        var makers: [LeafMaker<R>] = [.optional(name, typed)]
        if let s = plain as? KeyPath<R, String?> { makers.append(.optionalStringChain(name, sendable(s))) }
        return (makers, [SortOption(name) { SortDescriptor(typed, order: $0) }])
    }
}

/// `Optional<W>` where `W` is a ``DifferentialValue``, seen through a metatype.
protocol _ProfileOptional {
    static var wrappedDifferential: (any DifferentialValue.Type)? { get }
}

extension Optional: _ProfileOptional {
    static var wrappedDifferential: (any DifferentialValue.Type)? { Wrapped.self as? any DifferentialValue.Type }
}

/// A schema's key path as `Sendable`, which the predicate leaves require.
///
/// The ``Model()`` macro writes plain stored-property key paths into the schema metadata; they
/// capture nothing and never change, so sharing them across tasks is safe. (A key path literal
/// is inferred `Sendable`; one read back from metadata has lost that static type.)
func sendable<R, V>(_ keyPath: KeyPath<R, V>) -> KeyPath<R, V> & Sendable {
    unsafeBitCast(keyPath, to: (KeyPath<R, V> & Sendable).self)
}

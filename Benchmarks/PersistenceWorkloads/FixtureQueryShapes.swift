import BenchmarkKit
import Foundation
import OpenSwiftData

/// The built-in query shapes `harness bench --fixture FILE` runs on a fixture's own entities:
/// for every indexed, non-optional `Int`, `Double`, `String` or `Date` attribute (first column of
/// an `#Index`, or unique), an equality fetch of a stored value, a range holding about 1 % of the
/// rows, and a sort on it with `fetchLimit = 20`. Strings sort with `stringSortStyle = .lexical`,
/// the order the index holds; a `String` attribute also gets the sort with the default, natural
/// order (Apple's default `localizedStandard` comparator), which no ordinary index can serve on
/// either platform: its index speedup stays near 1×.
///
/// ```swift
/// var bench = IndexBenchmark("catalogue", schema: sample.schema, data: .storeFile(url, rows: 10_000))
/// for type in sample.modelTypes { try FixtureQueryShapes.add(type, to: &bench, sampling: fixtureContainer) }
/// ```
/// Values are sampled from the fixture (the median row, and the row 1 % after it in the
/// attribute's order), so the shapes are as selective on any fixture as on the built-in data.
public enum FixtureQueryShapes {
    /// Adds the shapes of every indexed attribute of `type` to `bench`, sampling values through
    /// `container` (the fixture, opened read-only); returns the names of the queries added.
    ///
    /// - Throws: what fetching the sample values throws.
    @discardableResult
    public static func add(
        _ type: any PersistentModel.Type, to bench: inout IndexBenchmark,
        sampling container: ModelContainer
    ) throws -> [String] {
        func open<T: PersistentModel>(_ t: T.Type) throws -> [String] { try addShapes(t, &bench, container) }
        return try open(type)
    }

    static func addShapes<T: PersistentModel>(
        _ type: T.Type, _ bench: inout IndexBenchmark,
        _ container: ModelContainer
    ) throws -> [String] {
        guard let entity = container.schema.entity(for: T.self) else { return [] }
        let indexed = Set(
            entity.indices.compactMap(\.first) + entity.uniquenessConstraints.compactMap(\.first)
                + entity.attributes.filter(\.isUnique).map(\.name))
        var names: [String] = []
        for attribute in entity.attributes where indexed.contains(attribute.name) && !attribute.isOptional {
            guard let keyPath = attribute.keypath else { continue }
            let label = "\(entity.name).\(attribute.name)"
            if let k = keyPath as? KeyPath<T, Int> {
                names += try shapes(label, k, &bench, container)
            } else if let k = keyPath as? KeyPath<T, Double> {
                names += try shapes(label, k, &bench, container)
            } else if let k = keyPath as? KeyPath<T, String> {
                names += try shapes(label, k, &bench, container)
            } else if let k = keyPath as? KeyPath<T, Date> {
                names += try shapes(label, k, &bench, container)
            }
        }
        return names
    }

    /// Equality, a 1 % range and a sorted limit on one attribute.
    static func shapes<T: PersistentModel, V: Comparable & Codable & Sendable>(
        _ label: String, _ keyPath: KeyPath<T, V>, _ bench: inout IndexBenchmark, _ container: ModelContainer
    ) throws -> [String] {
        // Key paths to stored properties capture nothing; Predicate and SortDescriptor want that said.
        let path = unsafeBitCast(keyPath, to: (KeyPath<T, V> & Sendable).self)
        let context = ModelContext(container)
        let total = try context.fetchCount(FetchDescriptor<T>())
        guard total > 0 else { return [] }
        func value(at offset: Int) throws -> V? {
            var d = FetchDescriptor<T>(sortBy: [SortDescriptor(path)])
            d.stringSortStyle = .lexical  // the order of Swift's `<` below
            d.fetchLimit = 1
            d.fetchOffset = min(offset, total - 1)
            return try context.fetch(d).first?[keyPath: keyPath]
        }
        guard let mid = try value(at: total / 2) else { return [] }
        var names: [String] = []
        let equality = Predicate<T>({
            PredicateExpressions.build_Equal(
                lhs: PredicateExpressions.build_KeyPath(root: PredicateExpressions.build_Arg($0), keyPath: path),
                rhs: PredicateExpressions.build_Arg(mid))
        })
        names.append("\(label) equality")
        bench.query(names.last!, FetchDescriptor<T>(predicate: equality))
        if let hi = try value(at: total / 2 + max(total / 100, 1)), hi > mid {
            let range = Predicate<T>({
                PredicateExpressions.build_Conjunction(
                    lhs: PredicateExpressions.build_Comparison(
                        lhs: PredicateExpressions.build_KeyPath(
                            root: PredicateExpressions.build_Arg($0), keyPath: path),
                        rhs: PredicateExpressions.build_Arg(mid), op: .greaterThanOrEqual),
                    rhs: PredicateExpressions.build_Comparison(
                        lhs: PredicateExpressions.build_KeyPath(
                            root: PredicateExpressions.build_Arg($0), keyPath: path),
                        rhs: PredicateExpressions.build_Arg(hi), op: .lessThan))
            })
            names.append("\(label) 1 % range")
            bench.query(names.last!, FetchDescriptor<T>(predicate: range))
        }
        var sorted = FetchDescriptor<T>(sortBy: [SortDescriptor(path)])
        sorted.stringSortStyle = .lexical  // what the index holds
        sorted.fetchLimit = 20
        names.append("\(label) sorted, limit 20")
        bench.query(names.last!, sorted, as: [.fetch, .identifiers])
        if V.self == String.self {
            // The default string order: a collation no index holds, so every row is read and sorted.
            sorted.stringSortStyle = nil
            names.append("\(label) sorted naturally, limit 20")
            bench.query(names.last!, sorted, as: [.fetch, .identifiers])
        }
        return names
    }
}

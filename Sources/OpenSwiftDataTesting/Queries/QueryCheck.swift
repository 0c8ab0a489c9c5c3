import Foundation
import OpenSwiftData

/// One of your app's fetch descriptors, checked on generated data: both stores must return
/// exactly what plain Swift does (`Predicate.evaluate`, then `SortDescriptor`s comparing strings
/// as the fetch does, `compare(_:_:stringSortStyle:)`, then offset and limit), and `fetchCount`,
/// `fetchIdentifiers` and paging must agree with the fetch.
///
/// List the descriptors your app uses and run each over several datasets in CI; a predicate
/// the store cannot translate fails here, not in production.
/// ```swift
/// let queries = [
///     QueryCheck(FetchDescriptor<Customer>(predicate: #Predicate { $0.tier == .pro }, sortBy: [SortDescriptor(\.email)])),
///     QueryCheck(FetchDescriptor<Order>(predicate: #Predicate { $0.note == nil }), name: "orders without a note"),
/// ]
/// @Test(arguments: queries) func query(_ q: QueryCheck) throws { try q.verify(fixture: teamData) }
/// ```
///
/// The reference is a third, private in-memory container filled with the same fixture: its
/// models are read without a predicate and filtered and sorted in Swift; rows are compared by
/// entity and primary key (the three containers get the same keys from the same fixture).
/// Ties in the sort are broken by primary key, as the stores do.
public struct QueryCheck: Sendable, CustomStringConvertible {
    /// The name reports use: given, or the model type and the declaration's location.
    public let name: String
    /// Where the check was declared (`File.swift:12`).
    package let location: String
    private let runner: @Sendable (Fixture, StoreKind?, Int) throws -> [Int]

    /// A check of `descriptor` (its predicate, sorts, offset and limit).
    ///
    /// ```swift
    /// QueryCheck(FetchDescriptor<Order>(sortBy: [SortDescriptor(\.number, order: .reverse)]))
    /// ```
    public init<M: PersistentModel>(
        _ descriptor: FetchDescriptor<M>, name: String? = nil,
        fileID: String = #fileID, line: Int = #line
    ) {
        let location = "\(fileID):\(line)"
        let label = name ?? "\(M.self) query at \(location)"
        self.name = label
        self.location = location
        let box = DescriptorBox(descriptor: descriptor)
        runner = { fixture, store, datasets in
            try QueryCheck.run(
                box.descriptor, label: label, location: location, fixture: fixture, only: store, datasets: datasets)
        }
    }

    /// The name, as Swift Testing shows an argument.
    public var description: String { name }

    /// Runs the check on `datasets` datasets: `fixture` with its seed, then seeds + 1, + 2 …
    /// (on both stores, or only `store`).
    ///
    /// ```swift
    /// try QueryCheck(descriptor).verify(fixture: Fixture(schema: schema, seed: 1), datasets: 5)
    /// ```
    /// - Returns: the number of rows the query returned on each dataset (all zero means the
    ///   data never exercised the predicate: raise the counts or change the fixture).
    /// - Throws: the first ``ConformanceFailure`` (suite `queryCheck`): the check that failed,
    ///   the dataset's seed, the store, expected and actual rows, the declaration's location.
    @discardableResult
    public func verify(fixture: Fixture, datasets: Int = 3, store: StoreKind? = nil) throws -> [Int] {
        try runner(fixture, store, datasets)
    }

    /// A fetch descriptor carried across tasks: its predicate and sorts are `Sendable`;
    /// its other properties are values.
    private struct DescriptorBox<M: PersistentModel>: @unchecked Sendable {
        let descriptor: FetchDescriptor<M>
    }

    private static func key(_ id: PersistentIdentifier) -> String { "\(id.entityName)#\(id.primaryKey ?? -1)" }

    private static func run<M: PersistentModel>(
        _ descriptor: FetchDescriptor<M>, label: String, location: String,
        fixture: Fixture, only: StoreKind?, datasets: Int
    ) throws -> [Int] {
        var rowsPerDataset: [Int] = []
        // The whole predicate as source; levels past PredicateDepth.maximumDepth print as a marker.
        let predicateText = descriptor.predicate.map { PredicateSource.text($0) } ?? "none"
        for dataset in 0..<max(1, datasets) {
            let data = fixture.reseeded(fixture.seed &+ UInt64(dataset))
            let schema = data.schemaForChecks
            let pair = try StorePair(schema: schema, seed: data.seed)
            try pair.populate(data)
            let referenceContainer = try ModelContainer(
                for: schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
            try data.populate(referenceContainer, progress: { _ in })
            func failure(_ check: String, _ store: StoreKind?, expected: String, actual: String) -> ConformanceFailure {
                var f = ConformanceFailure(
                    suite: "queryCheck", caseID: label, store: store, seed: data.seed, check: check,
                    expected: expected, actual: actual,
                    details: [
                        "predicate: " + predicateText,
                        "dataset seed \(data.seed): fixture.reseeded(\(data.seed))",
                    ])
                f.location = location
                return f
            }

            // The reference: every model, filtered and sorted in Swift, then paged.
            let all = try ModelContext(referenceContainer).fetch(FetchDescriptor<M>())
            var matching: [M] = []
            do {
                matching =
                    try descriptor.predicate.map { p in
                        // Predicate.evaluate recurses once per level: a tree too deep for the stack is refused first.
                        try PredicateDepth.check(p)
                        return try all.filter { try p.evaluate($0) }
                    } ?? all
            } catch {
                throw failure("the predicate evaluates in Swift", nil, expected: "no error", actual: "\(error)")
            }
            let sorts = descriptor.sortBy
            // Strings compare as the fetch compares them: its style, else the container's.
            let style =
                descriptor.stringSortStyle ?? referenceContainer.configurations.first?.stringSortStyle ?? .natural
            matching.sort { a, b in
                for s in sorts {
                    switch s.compare(a, b, stringSortStyle: style) {
                    case .orderedAscending: return true
                    case .orderedDescending: return false
                    case .orderedSame: continue
                    }
                }
                return (a.persistentModelID.primaryKey ?? 0) < (b.persistentModelID.primaryKey ?? 0)
            }
            let offset = max(0, descriptor.fetchOffset ?? 0)
            var page = Array(matching.dropFirst(offset))
            if let limit = descriptor.fetchLimit, limit > 0 { page = Array(page.prefix(limit)) }
            let expected = page.map { key($0.persistentModelID) }
            rowsPerDataset.append(expected.count)
            let ordered = !sorts.isEmpty
            func same(_ a: [String], _ b: [String]) -> Bool { ordered ? a == b : a.sorted() == b.sorted() }

            for store in StoreKind.allCases where only == nil || only == store {
                let context = ModelContext(pair.container(store))
                let fetched: [String]
                do {
                    fetched = try context.fetch(descriptor).map { key($0.persistentModelID) }
                } catch {
                    throw failure(
                        "the store can run the query (translatable predicate and sorts)", store,
                        expected: "a result", actual: "\(type(of: error)): \(error)")
                }
                if !same(fetched, expected) {
                    throw failure(
                        "fetch equals plain Swift (Predicate.evaluate + SortDescriptor)"
                            + (ordered ? ", in order" : ""),
                        store, expected: "\(expected.count) rows \(expected.prefix(12))",
                        actual: "\(fetched.count) rows \(fetched.prefix(12))")
                }
                let count = try context.fetchCount(descriptor)
                if count != expected.count {
                    throw failure(
                        "fetchCount equals the fetch", store, expected: "\(expected.count)", actual: "\(count)")
                }
                let ids = try context.fetchIdentifiers(descriptor).map(key)
                if !same(ids, fetched) {
                    throw failure(
                        "fetchIdentifiers equals the fetch", store, expected: "\(fetched.prefix(12))",
                        actual: "\(ids.prefix(12))")
                }
                if ordered && !expected.isEmpty {
                    let size = max(1, expected.count / 3)
                    var paged: [String] = []
                    var start = 0
                    while start < expected.count {
                        var d = descriptor
                        d.fetchOffset = offset + start
                        d.fetchLimit = min(size, expected.count - start)
                        paged += try context.fetch(d).map { key($0.persistentModelID) }
                        start += size
                    }
                    if paged != expected {
                        throw failure(
                            "pages of \(size) (fetchOffset/fetchLimit) add up to the fetch", store,
                            expected: "\(expected.prefix(12))", actual: "\(paged.prefix(12))")
                    }
                }
            }
        }
        return rowsPerDataset
    }
}

extension Fixture {
    /// The same fixture with another seed (every stream changes; steps, counts and overrides stay).
    ///
    /// ```swift
    /// let tomorrow = fixture.reseeded(fixture.seed + 1)
    /// ```
    public func reseeded(_ seed: UInt64) -> Fixture {
        var copy = self
        copy.seed = seed
        return copy
    }

    /// The schema a check builds its containers with: the fixture's schema, or its model types.
    var schemaForChecks: Schema { schema ?? Schema(modelTypes) }
}

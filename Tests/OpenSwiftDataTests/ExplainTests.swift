import Foundation
import Testing

@testable import OpenSwiftData

/// `ModelContext.explain(_:as:)` returns the statement the call really runs: checked against
/// the SQL trace of the call itself, for every operation, with and without paging and pending
/// changes, on both stores.
@Suite("Explain")
struct ExplainTests {
    /// Runs `call` with a trace and returns the SELECT statements it ran.
    static func traced(_ container: ModelContainer, _ call: () throws -> Void) throws -> [String] {
        let recorder = TraceRecorder()
        try container.setSQLTrace { recorder.record($0) }
        defer { try? container.setSQLTrace(nil) }
        try call()
        return recorder.statements.filter { $0.hasPrefix("SELECT") }
    }

    static func descriptors() -> [(String, FetchDescriptor<PlanItem>)] {
        var paged = FetchDescriptor<PlanItem>(predicate: #Predicate { $0.code >= 3 }, sortBy: [SortDescriptor(\.name)])
        paged.fetchLimit = 4
        paged.fetchOffset = 2
        var limited = FetchDescriptor<PlanItem>(sortBy: [SortDescriptor(\.code, order: .reverse)])
        limited.fetchLimit = 3
        return [
            ("all", FetchDescriptor<PlanItem>()),
            ("filtered", FetchDescriptor<PlanItem>(predicate: #Predicate { $0.category == "b" && $0.price > 10 })),
            ("paged", paged), ("limited", limited),
        ]
    }

    @Test("the explained SQL is the SQL each call runs", arguments: StoreKind.allCases)
    func explainedSQLIsRun(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "explain")
        let container = try makePlanContainer(kind, rows: 30, in: dir)
        let context = ModelContext(container)
        for (label, d) in Self.descriptors() {
            let fetch = try context.explain(d, as: .fetch)
            #expect(try Self.traced(container) { _ = try context.fetch(d) } == [fetch.sql], "\(label)")
            let count = try context.explain(d, as: .count)
            #expect(try Self.traced(container) { _ = try context.fetchCount(d) } == [count.sql], "\(label)")
            let ids = try context.explain(d, as: .identifiers)
            #expect(try Self.traced(container) { _ = try context.fetchIdentifiers(d) } == [ids.sql], "\(label)")
            for e in [fetch, count, ids] {
                #expect(!e.plan.isEmpty, "\(label) \(e.operation)")
                #expect(!e.mergesPendingChanges)
                #expect(e.sql.components(separatedBy: "?").count - 1 == e.arguments.count, "\(label) \(e.operation)")
            }
            #expect(count.sql.hasPrefix("SELECT count(*)"))
        }
    }

    @Test(
        "with pending changes of the model, every call reads the store in key order and merges",
        arguments: StoreKind.allCases)
    func pendingChangesMerge(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "explain-pending")
        let container = try makePlanContainer(kind, rows: 10, in: dir)
        let context = ModelContext(container)
        context.insert(PlanItem.row(50))
        let d = FetchDescriptor<PlanItem>(predicate: #Predicate { $0.code > 2 })
        for operation in QueryExplanation.Operation.allCases {
            let e = try context.explain(d, as: operation)
            #expect(e.mergesPendingChanges, "\(operation)")
            let ran = try Self.traced(container) {
                switch operation {
                case .fetch: _ = try context.fetch(d)
                case .count: _ = try context.fetchCount(d)
                case .identifiers: _ = try context.fetchIdentifiers(d)
                }
            }
            #expect(ran == [e.sql], "\(operation)")
        }
        var without = d
        without.includePendingChanges = false
        #expect(try !context.explain(without, as: .count).mergesPendingChanges)
        #expect(try context.explain(without, as: .count).sql.hasPrefix("SELECT count(*)"))
    }

    @Test("the description shows SQL and plan, never bound values")
    func descriptionHidesValues() throws {
        let dir = try ScratchDirectory(prefix: "explain-description")
        let container = try makePlanContainer(.memory, rows: 5, in: dir)
        let secret = "user3@example.com"
        let e = try ModelContext(container).explain(
            FetchDescriptor<PlanItem>(predicate: #Predicate { $0.email == secret }))
        #expect(e.arguments.contains(.text(secret)))
        #expect(!e.description.contains(secret))
        #expect(e.description.hasPrefix(e.sql))
    }

    @Test("an untranslatable predicate throws as the fetch would")
    func unsupportedThrows() throws {
        let dir = try ScratchDirectory(prefix: "explain-unsupported")
        let container = try makePlanContainer(.memory, rows: 1, in: dir)
        let zero = 0
        let d = FetchDescriptor<PlanItem>(predicate: #Predicate { $0.code > 10 / zero })
        let error = #expect(throws: SwiftDataError.self) { try ModelContext(container).explain(d) }
        #expect(error?.code == SwiftDataError.unsupportedPredicate.code)
    }
}

import Foundation
import Testing
@testable import OpenSwiftData

protocol Keyed: PersistentModel {
    var name: String { get }
}
extension CtxItem: Keyed {}

/// A generic helper building a predicate over any model with a `name` (PRD-22).
func countNamed<T: Keyed>(_ type: T.Type, _ name: String, in context: ModelContext) throws -> Int {
    try context.fetchCount(FetchDescriptor<T>(predicate: #Predicate<T> { $0.name == name }))
}

/// Behaviour-reference scenarios not covered by the per-area suites.
@Suite("ReferenceScenarios")
struct ReferenceScenarioTests {
    static func seeded(_ kind: StoreKind, _ dir: ScratchDirectory) throws -> (ModelContainer, ModelContext) {
        let container = try kind.makeContainer(for: contextSuiteModels, in: dir)
        let ctx = ModelContext(container)
        for (i, name) in ["Alice", "alice", "Bob", "100% sure", "a_b", "Alba"].enumerated() {
            ctx.insert(CtxItem(name: name, n: i, note: i % 2 == 0 ? "note \(i)" : nil,
                               due: i % 3 == 0 ? nil : Date(timeIntervalSinceReferenceDate: Double(i) * 86_400)))
        }
        try ctx.save()
        return (container, ctx)
    }

    static func names(_ ctx: ModelContext, _ p: Predicate<CtxItem>) throws -> [String] {
        try ctx.fetch(FetchDescriptor(predicate: p)).map(\.name).sorted()
    }

    @Test("PRD-02 PRD-03 PRD-06 contains/starts(with:) are case-sensitive and take % and _ literally", arguments: StoreKind.allCases)
    func strings(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "ref")
        let (_, ctx) = try Self.seeded(kind, dir)
        #expect(try Self.names(ctx, #Predicate { $0.name.contains("li") }) == ["Alice", "alice"])
        #expect(try Self.names(ctx, #Predicate { $0.name.contains("LI") }) == [])
        #expect(try Self.names(ctx, #Predicate { $0.name.starts(with: "Al") }) == ["Alba", "Alice"])
        #expect(try Self.names(ctx, #Predicate { $0.name.contains("%") }) == ["100% sure"])
        #expect(try Self.names(ctx, #Predicate { $0.name.contains("_") }) == ["a_b"])
    }

    @Test("PRD-08 flatMap on an optional date excludes nil", arguments: StoreKind.allCases)
    func optionalOrdering(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "ref")
        let (_, ctx) = try Self.seeded(kind, dir)
        let cutoff = Date(timeIntervalSinceReferenceDate: 86_400 * 1.5)
        let p = #Predicate<CtxItem> { $0.due.flatMap { $0 > cutoff } == true }
        let all = try ctx.fetch(FetchDescriptor<CtxItem>())
        let matched = try Self.names(ctx, p)
        #expect(matched == (try all.filter { try p.evaluate($0) }.map(\.name).sorted()))
        #expect(!matched.isEmpty)
        #expect(matched.allSatisfy { n in all.first { $0.name == n }?.due != nil })
    }

    @Test("PRD-21 PRD-22 final-class key paths and a generic helper's predicate", arguments: StoreKind.allCases)
    func genericHelper(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "ref")
        let (_, ctx) = try Self.seeded(kind, dir)
        #expect(try countNamed(CtxItem.self, "Bob", in: ctx) == 1)
        #expect(try countNamed(CtxItem.self, "nobody", in: ctx) == 0)
    }

    @Test("PRD-23 PRD-24 pending inserts and modifications take part in predicate matching", arguments: StoreKind.allCases)
    func pending(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "ref")
        let (_, ctx) = try Self.seeded(kind, dir)
        ctx.insert(CtxItem(name: "Alfred"))
        let bob = try #require(try ctx.fetch(FetchDescriptor<CtxItem>(predicate: #Predicate { $0.name == "Bob" })).first)
        bob.name = "Alistair"
        #expect(try Self.names(ctx, #Predicate { $0.name.starts(with: "Al") }) == ["Alba", "Alfred", "Alice", "Alistair"])
        var d = FetchDescriptor<CtxItem>(predicate: #Predicate { $0.name.starts(with: "Al") })
        d.includePendingChanges = false
        #expect(try ctx.fetch(d).map(\.name).sorted() == ["Alba", "Alice"])
    }
}

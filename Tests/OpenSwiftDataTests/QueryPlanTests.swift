import Foundation
import Testing

@testable import OpenSwiftData

/// The translator's SQL lets SQLite answer comparisons through a declared index: equality,
/// ranges, `IN`, `starts(with:)` prefixes, composite equality-then-range, sort with a limit, and
/// a count on a range. Each plan comes from ``ModelContext/explain(_:as:)`` (the statement the
/// call runs) and is contrasted with the same query under `IndexStrategy.none`; the rows must
/// still be exactly what Swift computes over the same values.
@Suite("QueryPlans")
struct QueryPlanTests {
    static let rows = 600

    static func usesIndex(_ plan: [String]) -> Bool {
        plan.contains { $0.contains("USING INDEX") || $0.contains("USING COVERING INDEX") }
            && !plan.contains { $0.hasPrefix("SCAN t") && !$0.contains("USING") }
    }

    /// The reference rows: ``PlanItem/row(_:)`` filtered in Swift.
    static func expected(_ keep: (PlanItem) -> Bool) -> Set<Int> {
        Set((0..<rows).map(PlanItem.row).filter(keep).map(\.code))
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let label: String
        let descriptor: @Sendable () -> FetchDescriptor<PlanItem>
        let swift: @Sendable (PlanItem) -> Bool
        /// A fragment the plan line must show (the comparison SQLite searches on).
        let searchShape: String
        var testDescription: String { label }
    }

    static let cases: [Case] = {
        let codes = [3, 77, 501, 9_999]
        let stem = "Alp"
        let accented = "bé"
        let mixed = "ALP"
        return [
            Case(
                label: "equality", descriptor: { FetchDescriptor(predicate: #Predicate { $0.code == 77 }) },
                swift: { $0.code == 77 }, searchShape: "=?"),
            Case(
                label: "range",
                descriptor: { FetchDescriptor(predicate: #Predicate { $0.code >= 100 && $0.code < 110 }) },
                swift: { $0.code >= 100 && $0.code < 110 }, searchShape: ">? AND "),
            Case(
                label: "double range",
                descriptor: { FetchDescriptor(predicate: #Predicate { $0.price > 140 && $0.price <= 142.5 }) },
                swift: { $0.price > 140 && $0.price <= 142.5 }, searchShape: ">? AND "),
            Case(
                label: "IN", descriptor: { FetchDescriptor(predicate: #Predicate { codes.contains($0.code) }) },
                swift: { codes.contains($0.code) }, searchShape: "=?"),
            Case(
                label: "prefix", descriptor: { FetchDescriptor(predicate: #Predicate { $0.name.starts(with: stem) }) },
                swift: { $0.name.starts(with: stem) }, searchShape: ">? AND "),
            Case(
                label: "prefix, other case",
                descriptor: { FetchDescriptor(predicate: #Predicate { $0.name.starts(with: mixed) }) },
                swift: { $0.name.starts(with: mixed) }, searchShape: ">? AND "),
            Case(
                label: "prefix, non-ASCII",
                descriptor: { FetchDescriptor(predicate: #Predicate { $0.name.starts(with: accented) }) },
                swift: { $0.name.starts(with: accented) }, searchShape: ">? AND "),
            Case(
                label: "composite equality then range",
                descriptor: { FetchDescriptor(predicate: #Predicate { $0.category == "b" && $0.code > 500 }) },
                swift: { $0.category == "b" && $0.code > 500 }, searchShape: "=? AND "),
        ]
    }()

    @Test("fetches search the declared index and return Swift's rows", arguments: StoreKind.allCases, cases)
    func fetchUsesIndex(_ kind: StoreKind, _ c: Case) throws {
        let dir = try ScratchDirectory(prefix: "plans")
        let container = try makePlanContainer(kind, rows: Self.rows, in: dir)
        let context = ModelContext(container)
        let d = c.descriptor()
        let plan = try context.explain(d, as: .fetch).plan
        #expect(Self.usesIndex(plan), "\(c.label): \(plan)")
        #expect(plan.contains { $0.contains(c.searchShape) }, "\(c.label): \(plan)")
        #expect(Set(try context.fetch(d).map(\.code)) == Self.expected(c.swift), "\(c.label)")
        #expect(try context.fetchCount(d) == Self.expected(c.swift).count, "\(c.label)")

        try container.applyIndexStrategy(.none)
        let unindexed = try context.explain(d, as: .fetch).plan
        #expect(!Self.usesIndex(unindexed), "\(c.label) under none: \(unindexed)")
        #expect(Set(try context.fetch(d).map(\.code)) == Self.expected(c.swift), "\(c.label) under none")
    }

    @Test("a count on an indexed range reads only the index", arguments: StoreKind.allCases)
    func countOnRangeIsCovering(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "plans-count")
        let container = try makePlanContainer(kind, rows: Self.rows, in: dir)
        let context = ModelContext(container)
        let lo = 100
        let hi = 200
        let d = FetchDescriptor<PlanItem>(predicate: #Predicate { $0.code >= lo && $0.code < hi })
        let e = try context.explain(d, as: .count)
        #expect(e.sql.hasPrefix("SELECT count(*)"))
        #expect(e.plan.contains { $0.contains("USING COVERING INDEX") }, "\(e.plan)")
        #expect(try container.countQueryPlan(for: d) == e.plan)
        #expect(try context.fetchCount(d) == hi - lo)
    }

    @Test("a sort with a limit walks the index instead of sorting", arguments: StoreKind.allCases)
    func sortWithLimitWalksIndex(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "plans-sort")
        let container = try makePlanContainer(kind, rows: Self.rows, in: dir)
        let context = ModelContext(container)
        for order in [SortOrder.forward, .reverse] {
            var d = FetchDescriptor<PlanItem>(sortBy: [SortDescriptor(\.code, order: order)])
            d.fetchLimit = 5
            let plan = try context.explain(d, as: .fetch).plan
            #expect(Self.usesIndex(plan), "\(order): \(plan)")
            // Ascending, the index order is the whole ORDER BY (the key is the index's last
            // column). Descending, ties still break by ascending key (as Swift's stable sort
            // keeps them), so SQLite walks the index backwards and sorts only runs of equal codes.
            if order == .forward {
                #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(order): \(plan)")
            } else {
                #expect(!plan.contains { $0.contains("TEMP B-TREE FOR ORDER BY") }, "\(order): \(plan)")
            }
            let expected = order == .forward ? Array(0..<5) : Array((Self.rows - 5..<Self.rows).reversed())
            #expect(try context.fetch(d).map(\.code) == expected)
            #expect(try context.fetchIdentifiers(d).count == 5)
        }
        try container.applyIndexStrategy(.none)
        var d = FetchDescriptor<PlanItem>(sortBy: [SortDescriptor(\.code)])
        d.fetchLimit = 5
        #expect(try context.explain(d, as: .fetch).plan.contains { $0.contains("TEMP B-TREE") })
    }

    @Test("prefix bounds: the next scalar after the last, skipping surrogates and the top scalar")
    func prefixUpperBounds() {
        #expect(prefixUpperBound("Al") == "Am")
        #expect(prefixUpperBound("a\u{D7FF}") == "a\u{E000}")
        #expect(prefixUpperBound("a\u{10FFFF}") == "b")
        #expect(prefixUpperBound("\u{10FFFF}") == nil)
        #expect(prefixUpperBound("") == nil)
        #expect(prefixUpperBound("bé") == "bê")
    }

    @Test(
        "prefix ranges keep Swift's answer for grapheme clusters, empty and NUL prefixes", arguments: StoreKind.allCases
    )
    func prefixSemantics(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "plans-prefix")
        let container = try kind.makeContainer(for: [PlanItem.self], in: dir)
        let context = ModelContext(container)
        let names = [
            "Z\u{36B}oo", "Zoo", "e\u{301}clair", "éclair", "ecl", "a\u{0}b", "a", "", "🇫🇷x", "🇫", "\u{10FFFF}z",
        ]
        for (i, n) in names.enumerated() {
            context.insert(PlanItem(email: "e\(i)", code: i, name: n, price: 0, category: "a", rating: nil, note: ""))
        }
        try context.save()
        for prefix in ["Z", "Zo", "e", "é", "e\u{301}", "a\u{0}", "a", "", "🇫", "\u{10FFFF}"] {
            let d = FetchDescriptor<PlanItem>(predicate: #Predicate { $0.name.starts(with: prefix) })
            let want = Set(names.enumerated().filter { $0.element.starts(with: prefix) }.map(\.offset))
            #expect(
                Set(try context.fetch(d).map(\.code)) == want,
                "prefix \(prefix.unicodeScalars.map { String($0.value, radix: 16) })")
            let negated = FetchDescriptor<PlanItem>(predicate: #Predicate { !$0.name.starts(with: prefix) })
            #expect(Set(try context.fetch(negated).map(\.code)) == Set(names.indices).subtracting(want))
        }
    }
}

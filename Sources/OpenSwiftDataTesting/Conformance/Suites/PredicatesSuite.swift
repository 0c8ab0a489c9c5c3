import Foundation
import OpenSwiftData

extension ConformanceSuite {
    /// Predicate semantics: `#Predicate` evaluated in SQL gives what `Predicate.evaluate` gives.
    public static var predicates: ConformanceSuite {
        ConformanceSuite(name: "predicates", title: "#Predicate semantics match Swift", cases: [
            ConformanceCase(suite: "predicates", id: "PRD-01", title: "string equality is case-sensitive") { check in
                let context = ModelContext(try check.container(for: ConformanceRecord.self))
                for name in ["Alice", "alice", "ALICE", "Alicia"] { context.insert(ConformanceRecord(name: name, number: 0)) }
                try context.save()
                let rows = try context.fetch(FetchDescriptor(predicate: #Predicate<ConformanceRecord> { $0.name == "Alice" }))
                try check.expectEqual(rows.map(\.name), ["Alice"], "names equal to \"Alice\"")
            },
        ])
    }
}

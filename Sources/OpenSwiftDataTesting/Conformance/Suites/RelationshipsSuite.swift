import Foundation
import OpenSwiftData

extension ConformanceSuite {
    /// Relationships: inserting graphs, inverses kept in sync, persistence of links.
    public static var relationships: ConformanceSuite {
        ConformanceSuite(name: "relationships", title: "graphs, inverses and persisted links", cases: [
            ConformanceCase(suite: "relationships", id: "REL-01", title: "inserting a parent inserts its new children") { check in
                let container = try check.container(for: ConformanceOwner.self)
                let context = ModelContext(container)
                let owner = ConformanceOwner(name: "parent")
                owner.nullified = [ConformanceNullified(label: "a"), ConformanceNullified(label: "b")]
                context.insert(owner)
                try context.save()
                let fresh = ModelContext(try check.reopen(container))
                try check.expectEqual(try fresh.fetchCount(FetchDescriptor<ConformanceNullified>()), 2, "children saved with the parent")
            },
        ])
    }
}

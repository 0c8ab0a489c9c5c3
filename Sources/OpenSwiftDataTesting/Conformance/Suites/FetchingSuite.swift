import Foundation
import OpenSwiftData

extension ConformanceSuite {
    /// Fetching: sort, offset, limit and `fetchCount`.
    public static var fetching: ConformanceSuite {
        ConformanceSuite(name: "fetching", title: "fetch, fetchCount, sort, limit and offset", cases: [
            ConformanceCase(suite: "fetching", id: "FET-01", title: "sort, offset 3, limit 4 returns the 4th to 7th rows") { check in
                let context = ModelContext(try check.container(for: ConformanceRecord.self))
                for n in (1...10).reversed() { context.insert(ConformanceRecord(name: "r\(n)", number: n)) }
                try context.save()
                var descriptor = FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.number)])
                descriptor.fetchOffset = 3
                descriptor.fetchLimit = 4
                try check.expectEqual(try context.fetch(descriptor).map(\.number), [4, 5, 6, 7], "numbers of the page")
            },
        ])
    }
}

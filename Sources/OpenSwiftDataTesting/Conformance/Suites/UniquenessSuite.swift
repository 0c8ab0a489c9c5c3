import Foundation
import OpenSwiftData

extension ConformanceSuite {
    /// Uniqueness upserts: `@Attribute(.unique)` and `#Unique` collisions update the stored row.
    public static var uniqueness: ConformanceSuite {
        ConformanceSuite(name: "uniqueness", title: "unique attributes and #Unique upsert at save", cases: [
            ConformanceCase(suite: "uniqueness", id: "UNQ-10", title: "a duplicate unique value updates the stored row") { check in
                let container = try check.container(for: ConformanceAccount.self)
                let context = ModelContext(container)
                context.insert(ConformanceAccount(handle: "1234", balance: 1000))
                try context.save()
                context.insert(ConformanceAccount(handle: "1234", balance: 0))
                try context.save()
                let fresh = ModelContext(try check.reopen(container))
                let rows = try fresh.fetch(FetchDescriptor<ConformanceAccount>())
                try check.expectEqual(rows.count, 1, "rows with handle 1234 after the second save")
                try check.expectEqual(rows.first?.balance, 0, "balance after the upsert")
            },
        ])
    }
}

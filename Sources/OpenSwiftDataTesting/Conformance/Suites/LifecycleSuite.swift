import Foundation
import OpenSwiftData

extension ConformanceSuite {
    /// Context lifecycle: change tracking, save, rollback, identity.
    public static var lifecycle: ConformanceSuite {
        ConformanceSuite(name: "lifecycle", title: "change tracking, save, rollback and identity", cases: [
            ConformanceCase(suite: "lifecycle", id: "CTX-01", title: "insert marks the context changed and lists the model") { check in
                let context = ModelContext(try check.container(for: ConformanceRecord.self))
                try check.expectEqual(context.hasChanges, false, "hasChanges of a new context")
                let record = ConformanceRecord(name: "a", number: 1)
                context.insert(record)
                try check.expectEqual(context.hasChanges, true, "hasChanges after insert")
                try check.expect(context.insertedModelsArray.contains { $0 === record }, "the model is in insertedModelsArray")
                try context.save()
                try check.expectEqual(context.hasChanges, false, "hasChanges after save")
            },
        ])
    }
}

import Foundation
import OpenSwiftData

extension ConformanceSuite {
    /// Delete rules: cascade, nullify, deny and no-action, applied at save.
    public static var deleteRules: ConformanceSuite {
        ConformanceSuite(name: "deleteRules", title: "cascade, nullify, deny and noAction", cases: [
            ConformanceCase(suite: "deleteRules", id: "DEL-02", title: "cascade deletes the owner's children") { check in
                let container = try check.container(for: ConformanceOwner.self)
                let context = ModelContext(container)
                let owner = ConformanceOwner(name: "house")
                context.insert(owner)
                owner.cascaded = [ConformanceCascaded(label: "kitchen"), ConformanceCascaded(label: "hall")]
                try context.save()
                context.delete(owner)
                try context.save()
                let fresh = ModelContext(try check.reopen(container))
                try check.expectEqual(try fresh.fetchCount(FetchDescriptor<ConformanceCascaded>()), 0, "children left after cascade")
                try check.expectEqual(try fresh.fetchCount(FetchDescriptor<ConformanceOwner>()), 0, "owners left")
            },
        ])
    }
}

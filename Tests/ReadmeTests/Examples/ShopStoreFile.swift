import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

/// A store copied from the app on a simulator (default.store with its -wal and -shm), opened as
/// private copies: the file keeps its bytes, whatever the checks write.
func checkCopiedStore(at url: URL) throws -> Int {
    // Both stores start from the file; a model change since the copy throws incompatibleSchema.
    let pair = try StorePair(loading: url, schema: shop)
    let expected = try ModelContext(pair.memory).fetchCount(FetchDescriptor<Customer>())
    try pair.run("customers with orders", reference: { expected }) { context, _ in
        try context.fetchCount(FetchDescriptor<Customer>(predicate: #Predicate { !$0.orders.isEmpty }))
    }

    // One store kind alone: a scratch copy to delete from.
    let copy = try FixtureDatabase(contentsOf: url, schema: shop, store: .disk)
    let context = ModelContext(copy.container)
    try context.delete(model: Customer.self)
    try context.save()
    return try context.fetchCount(FetchDescriptor<Order>())  // 0: orders cascade with their customer
}

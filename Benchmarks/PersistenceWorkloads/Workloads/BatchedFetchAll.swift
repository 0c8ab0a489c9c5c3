import BenchmarkKit
import Foundation
import OpenSwiftData

/// `fetch(batchSize:) all`: every item through `fetch(_:batchSize:)` in 5,000-row batches,
/// iterated in order, reading one attribute of each (the result is their checksum). Its raw twin
/// streams the same `SELECT` (``RawStore/codeChecksum()``). Ours and its raw-SQLite twin, side by side.
extension PersistenceWorkloads {
    static var batchedFetchAll: Workload {
        Workload(
            name: "fetch(batchSize:) all", group: "fetch", isQuery: false, operations: { $0 },
            oursSetUp: { cache, store, rows, strategy in
                let container = try cache.populated(store, rows: rows, strategy: strategy)
                let context = ModelContext(container)
                return OursRun(container) {
                    var codes = 0
                    for item in try context.fetch(FetchDescriptor<BenchItem>(), batchSize: 5_000) {
                        codes &+= item.code
                    }
                    return codes
                }
            },
            rawSetUp: { cache, store, rows, strategy in
                let db = try cache.populatedRaw(store, rows: rows, strategy: strategy)
                return RawRun(db) { try db.codeChecksum() }
            },
            plan: nil, ratioTarget: streamingRatioTarget)
    }
}

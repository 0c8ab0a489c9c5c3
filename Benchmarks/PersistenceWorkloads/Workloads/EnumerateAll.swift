import BenchmarkKit
import Foundation
import OpenSwiftData

/// `enumerate all`: every item through `enumerate(_:batchSize:)` in 5,000-row batches, reading
/// one attribute of each (the result is their checksum). Its raw twin streams the same `SELECT`
/// row by row (``RawStore/codeChecksum()``). Ours and its raw-SQLite twin, side by side.
extension PersistenceWorkloads {
    static var enumerateAll: Workload {
        Workload(
            name: "enumerate all", group: "fetch", isQuery: false, operations: { $0 },
            oursSetUp: { cache, store, rows, strategy in
                let container = try cache.populated(store, rows: rows, strategy: strategy)
                let context = ModelContext(container)
                return OursRun(container) {
                    var codes = 0
                    try context.enumerate(FetchDescriptor<BenchItem>(), batchSize: 5_000) {
                        codes &+= $0.code
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

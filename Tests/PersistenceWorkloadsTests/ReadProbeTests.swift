import BenchmarkKit
import Foundation
import OpenSwiftData
import Testing

@testable import PersistenceWorkloads

/// The streaming-read memory probes of `harness bench --memory-check` (FET-11): they read every
/// row of the store they are given, through either API, and refuse a store they cannot read in full.
@Suite("ReadProbe")
struct ReadProbeTests {
    @Test("FET-11: both read probes read a stored table of three batches and report a peak RSS")
    func readsEveryRow() throws {
        let cache = FixtureCache()
        defer { cache.removeAll() }
        let file = try PersistenceWorkloads.storeFile(in: cache, rows: 12_001)
        for batched in [false, true] {
            let peak = try PersistenceWorkloads.rssProbe(reading: file, batched: batched)
            #expect(peak > 0, "batched: \(batched)")
        }
    }

    @Test("FET-11: a read probe on a store without the benchmark's rows throws instead of reporting")
    func emptyStoreThrows() throws {
        let cache = FixtureCache()
        defer { cache.removeAll() }
        let file = try PersistenceWorkloads.storeFile(in: cache, rows: 0)
        #expect(throws: BenchmarkError.self) {
            try PersistenceWorkloads.rssProbe(reading: file, batched: false)
        }
    }
}

import CJemalloc
#if canImport(Glibc)
import Glibc
#endif

/// Whether jemalloc's statistics describe this process's allocations, decided once at run time.
///
/// The system jemalloc (5.3, Debian) exports unprefixed `malloc`/`mallctl`, so an executable that
/// links `-ljemalloc` (any target depending on `BenchmarkKit` does, through `CJemalloc`) has its
/// `malloc` replaced by jemalloc's. If some other allocator won (a preload, a static link, a
/// platform without interposition), jemalloc's counters would only see jemalloc-internal work,
/// so the metrics are then reported unsupported.
///
/// ```swift
/// if JemallocStatus.current.isProcessAllocator { … }
/// print(JemallocStatus.current.explanation)
/// ```
public struct JemallocStatus: Sendable, Equatable {
    /// jemalloc's `version` string, or `nil` when `mallctl("version")` fails.
    public let version: String?
    /// Whether jemalloc was built with statistics (`config.stats`); the counters need them.
    public let statsEnabled: Bool
    /// Whether a 4 MiB allocation through the process's `malloc` moved jemalloc's
    /// `thread.allocated` counter, i.e. jemalloc serves this process's `malloc`.
    public let isProcessAllocator: Bool

    /// Whether the malloc-count and allocated-bytes metrics can be measured.
    public var isUsable: Bool { version != nil && statsEnabled && isProcessAllocator }

    /// A one-line reason suitable for a report or a log.
    public var explanation: String {
        guard let version else { return "jemalloc unavailable: mallctl(\"version\") failed" }
        if !statsEnabled { return "jemalloc \(version) built without statistics (config.stats)" }
        if !isProcessAllocator { return "jemalloc \(version) linked but malloc is served by another allocator" }
        return "jemalloc \(version) is the process allocator"
    }

    /// The status of this process, probed on first use.
    public static let current: JemallocStatus = probe()

    private static func probe() -> JemallocStatus {
        var versionPointer: UnsafePointer<CChar>? = nil
        var length = MemoryLayout<UnsafePointer<CChar>?>.size
        guard mallctl("version", &versionPointer, &length, nil, 0) == 0, let versionPointer else {
            return JemallocStatus(version: nil, statsEnabled: false, isProcessAllocator: false)
        }
        let version = String(cString: versionPointer)
        var stats = false
        length = MemoryLayout<Bool>.size
        guard mallctl("config.stats", &stats, &length, nil, 0) == 0, stats else {
            return JemallocStatus(version: version, statsEnabled: false, isProcessAllocator: false)
        }
        let byteCount = 4 << 20
        let before = Jemalloc.threadAllocatedBytes() ?? 0
        // Swift's allocator calls the process's `malloc`, whichever library defines it.
        let block = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 16)
        block.storeBytes(of: 1, as: UInt8.self)
        let after = Jemalloc.threadAllocatedBytes() ?? 0
        block.deallocate()
        return JemallocStatus(version: version, statsEnabled: true,
                              isProcessAllocator: after &- before >= UInt64(byteCount))
    }
}

/// Thin readers of jemalloc's `mallctl` counters.
enum Jemalloc {
    /// `stats.arenas.<MALLCTL_ARENAS_ALL>.small.nrequests` and `.large.nrequests`, as MIBs.
    static let requestMIBs: [[Int]] = ["small", "large"].compactMap { size in
        let name = "stats.arenas.\(MALLCTL_ARENAS_ALL).\(size).nrequests"
        var mib = [Int](repeating: 0, count: 8)
        var count = mib.count
        guard mallctlnametomib(name, &mib, &count) == 0 else { return nil }
        return Array(mib.prefix(count))
    }

    /// Bytes this thread has allocated since it started (`thread.allocated`).
    static func threadAllocatedBytes() -> UInt64? {
        var value: UInt64 = 0
        var length = MemoryLayout<UInt64>.size
        return mallctl("thread.allocated", &value, &length, nil, 0) == 0 ? value : nil
    }

    /// Flushes this thread's cache, refreshes the statistics epoch and returns the total number of
    /// allocation requests served by all arenas (small + large).
    static func totalRequests() -> UInt64? {
        _ = mallctl("thread.tcache.flush", nil, nil, nil, 0)
        var epoch: UInt64 = 1
        var epochLength = MemoryLayout<UInt64>.size
        _ = mallctl("epoch", &epoch, &epochLength, &epoch, epochLength)
        guard requestMIBs.count == 2 else { return nil }
        var total: UInt64 = 0
        for mib in requestMIBs {
            var value: UInt64 = 0
            var length = MemoryLayout<UInt64>.size
            let rc = mib.withUnsafeBufferPointer {
                mallctlbymib($0.baseAddress, $0.count, &value, &length, nil, 0)
            }
            guard rc == 0 else { return nil }
            total &+= value
        }
        return total
    }
}

/// Allocations per run from jemalloc: `mallocCount` (requests served) and `allocatedBytes`.
///
/// `mallocCount` is the change of `stats.arenas.<MALLCTL_ARENAS_ALL>.small.nrequests +
/// .large.nrequests` after `thread.tcache.flush` and an `epoch` write: it covers every arena, so
/// allocations by *other* threads whose caches flush during the run are counted too (none in a
/// single-threaded benchmark executable). The cost of measuring itself, calibrated on empty runs,
/// is subtracted. `allocatedBytes` is the change of this thread's `thread.allocated`.
/// Both are reported as `<name>PerRun` medians; both are unsupported unless
/// ``JemallocStatus/isUsable``.
public final class JemallocProducer: MetricProducer {
    /// Allocation requests (malloc, calloc, realloc, …) per run.
    public static let mallocCount = MetricDescriptor("mallocCount", aggregation: .medianPerRun)
    /// Bytes allocated by the running thread per run.
    public static let allocatedBytes = MetricDescriptor("allocatedBytes", aggregation: .medianPerRun)

    /// `[mallocCount, allocatedBytes]`.
    public let metrics: [MetricDescriptor] = [JemallocProducer.mallocCount, JemallocProducer.allocatedBytes]
    private let status: JemallocStatus
    private let requestsOverhead: UInt64
    private var startRequests: UInt64 = 0
    private var startBytes: UInt64 = 0

    /// Creates the producer; `status` is the probed ``JemallocStatus/current`` unless a test overrides it.
    public init(status: JemallocStatus = .current) {
        self.status = status
        var overhead = UInt64.max
        if status.isUsable {
            for _ in 0..<5 {
                let a = Jemalloc.totalRequests() ?? 0
                let b = Jemalloc.totalRequests() ?? 0
                overhead = min(overhead, b &- a)
            }
        }
        requestsOverhead = overhead == .max ? 0 : overhead
    }

    /// Whether `metric` is one of this producer's and jemalloc is the usable process allocator.
    public func isSupported(_ metric: MetricDescriptor) -> Bool {
        status.isUsable && metrics.contains(metric)
            && (metric != Self.mallocCount || Jemalloc.requestMIBs.count == 2)
    }

    /// Snapshots the request and byte counters.
    public func startRun() {
        guard status.isUsable else { return }
        startBytes = Jemalloc.threadAllocatedBytes() ?? 0
        startRequests = Jemalloc.totalRequests() ?? 0
    }

    /// Returns the run's request and byte deltas; empty when unsupported.
    public func stopRun() -> [String: Double] {
        guard status.isUsable else { return [:] }
        var out: [String: Double] = [:]
        if let end = Jemalloc.totalRequests(), isSupported(Self.mallocCount) {
            let delta = end &- startRequests
            out[Self.mallocCount.name] = Double(delta > requestsOverhead ? delta - requestsOverhead : 0)
        }
        if let end = Jemalloc.threadAllocatedBytes() {
            out[Self.allocatedBytes.name] = Double(end &- startBytes)
        }
        return out
    }
}

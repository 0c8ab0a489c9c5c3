import CJemalloc
import CJemallocConfig

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

    /// jemalloc's `opt.lg_extent_max_active_fit` (`nil` when it cannot be read): 20 as
    /// BenchmarkKit's executables set it (``options``), so that memory a run frees is reused by
    /// the next run instead of fresh pages (as glibc's `malloc` does), unless `MALLOC_CONF`
    /// overrides it.
    public var lgExtentMaxActiveFit: Int? = nil

    /// The options BenchmarkKit's executables give jemalloc (its `malloc_conf`).
    public static var options: String { String(cString: openswiftdata_jemalloc_options()) }

    /// Whether the malloc-count and allocated-bytes metrics can be measured.
    public var isUsable: Bool { version != nil && statsEnabled && isProcessAllocator }

    /// A one-line reason suitable for a report or a log.
    public var explanation: String {
        guard let version else { return "jemalloc unavailable: mallctl(\"version\") failed" }
        if !statsEnabled { return "jemalloc \(version) built without statistics (config.stats)" }
        if !isProcessAllocator { return "jemalloc \(version) linked but malloc is served by another allocator" }
        return "jemalloc \(version) is the process allocator"
            + (lgExtentMaxActiveFit.map { " (lg_extent_max_active_fit \($0))" } ?? "")
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
        var fit = 0
        length = MemoryLayout<Int>.size
        return JemallocStatus(
            version: version, statsEnabled: true,
            isProcessAllocator: after &- before >= UInt64(byteCount),
            lgExtentMaxActiveFit: mallctl("opt.lg_extent_max_active_fit", &fit, &length, nil, 0) == 0 ? fit : nil)
    }
}

/// Thin readers of jemalloc's `mallctl` counters, through MIBs translated once.
///
/// Calls by name would pass Swift strings as C strings, which may itself allocate and pollute
/// the counts; MIB arrays are built once, up front.
enum Jemalloc {
    /// Translates a `mallctl` name to its MIB.
    static func mib(_ name: String) -> [Int]? {
        var mib = [Int](repeating: 0, count: 8)
        var count = mib.count
        guard mallctlnametomib(name, &mib, &count) == 0 else { return nil }
        return Array(mib.prefix(count))
    }

    /// `stats.arenas.<MALLCTL_ARENAS_ALL>.small.nrequests` and `.large.nrequests`.
    static let requestMIBs: [[Int]] = ["small", "large"].compactMap { size in
        mib("stats.arenas.\(MALLCTL_ARENAS_ALL).\(size).nrequests")
    }
    static let flushMIB: [Int]? = mib("thread.tcache.flush")
    static let epochMIB: [Int]? = mib("epoch")
    static let allocatedPointerMIB: [Int]? = mib("thread.allocatedp")

    /// Reads a value by MIB; `nil` on failure.
    static func read<T: BitwiseCopyable>(_ mib: [Int]?, as type: T.Type, default value: T) -> T? {
        guard let mib else { return nil }
        var result = value
        var length = MemoryLayout<T>.size
        let rc = mib.withUnsafeBufferPointer { m in
            withUnsafeMutableBytes(of: &result) {
                mallctlbymib(m.baseAddress, m.count, $0.baseAddress, &length, nil, 0)
            }
        }
        return rc == 0 ? result : nil
    }

    /// The calling thread's `thread.allocatedp`: a pointer to its running count of allocated bytes.
    static func threadAllocatedPointer() -> UnsafeMutablePointer<UInt64>? {
        read(allocatedPointerMIB, as: UnsafeMutablePointer<UInt64>?.self, default: nil) ?? nil
    }

    /// Bytes the calling thread has allocated since it started.
    static func threadAllocatedBytes() -> UInt64? { threadAllocatedPointer()?.pointee }

    /// Flushes this thread's cache, refreshes the statistics epoch and returns the total number of
    /// allocation requests served by all arenas (small + large).
    static func totalRequests() -> UInt64? {
        if let flushMIB {
            _ = flushMIB.withUnsafeBufferPointer { mallctlbymib($0.baseAddress, $0.count, nil, nil, nil, 0) }
        }
        if let epochMIB {
            var epoch: UInt64 = 1
            _ = epochMIB.withUnsafeBufferPointer {
                mallctlbymib($0.baseAddress, $0.count, nil, nil, &epoch, MemoryLayout<UInt64>.size)
            }
        }
        guard requestMIBs.count == 2 else { return nil }
        var total: UInt64 = 0
        for mib in requestMIBs {
            guard let value = read(mib, as: UInt64.self, default: 0) else { return nil }
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
/// is subtracted. `allocatedBytes` is the change of this thread's counter (`thread.allocatedp`).
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
    /// The requests measuring itself takes, subtracted from every run (the least of 25 samples).
    let requestsOverhead: UInt64
    private var startRequests: UInt64 = 0
    private var startBytes: UInt64 = 0
    private var endRequests: UInt64?
    private var endBytes: UInt64?
    private var allocatedPointer: UnsafeMutablePointer<UInt64>?

    /// Creates the producer; `status` is the probed ``JemallocStatus/current`` unless a test overrides it.
    public init(status: JemallocStatus = .current) {
        self.status = status
        // The least of many samples: in a process with other busy threads (a parallel test run),
        // their allocations land in the same counters, and a sample they fall into is too high
        // (then every run would be counted short by the difference).
        var overhead = UInt64.max
        if status.isUsable {
            for _ in 0..<25 {
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
        startRequests = Jemalloc.totalRequests() ?? 0
        allocatedPointer = Jemalloc.threadAllocatedPointer()
        startBytes = allocatedPointer?.pointee ?? 0  // innermost: excludes the request reads
    }

    /// Snapshots the byte and request counters again.
    public func stopRun() {
        guard status.isUsable else { return }
        endBytes = allocatedPointer?.pointee  // same thread as startRun: the runner is synchronous
        endRequests = Jemalloc.totalRequests()
    }

    /// The last run's request and byte deltas; empty when unsupported.
    public func samples() -> [String: Double] {
        guard status.isUsable else { return [:] }
        var out: [String: Double] = [:]
        if let end = endBytes { out[Self.allocatedBytes.name] = Double(end &- startBytes) }
        if let end = endRequests, isSupported(Self.mallocCount) {
            let delta = end &- startRequests
            out[Self.mallocCount.name] = Double(delta > requestsOverhead ? delta - requestsOverhead : 0)
        }
        return out
    }
}

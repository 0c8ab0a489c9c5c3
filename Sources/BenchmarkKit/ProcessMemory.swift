import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The process's resident memory, read after a benchmark's runs (not per run).
///
/// ```swift
/// if let peak = ProcessMemory.peakResidentKiB() { print("peak RSS \(peak) KiB") }
/// ```
public enum ProcessMemory {
    /// Peak resident set size of the whole process so far, in KiB (`getrusage(RUSAGE_SELF).ru_maxrss`,
    /// which Linux reports in KiB); `nil` when unavailable.
    ///
    /// It never decreases, so in a process that runs several benchmarks it is the peak of everything
    /// run so far: run the scale of interest first, or in its own process, to compare peaks.
    public static func peakResidentKiB() -> Int? {
        var usage = rusage()
        #if os(Linux)
            let who = __rusage_who_t(RUSAGE_SELF.rawValue)
        #else
            let who = RUSAGE_SELF
        #endif
        guard getrusage(who, &usage) == 0, usage.ru_maxrss > 0 else { return nil }
        #if os(Linux)
            return Int(usage.ru_maxrss)
        #else
            return Int(usage.ru_maxrss) / 1024  // Darwin reports bytes
        #endif
    }

    /// Current resident set size in KiB, from the second field of `/proc/self/statm` (pages);
    /// `nil` where `/proc` is unavailable.
    public static func currentResidentKiB() -> Int? {
        // try?: an unsupported metric is omitted (nil), never reported as 0 (STYLE 12).
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard pageSize > 0 else { return nil }
        return pages * pageSize / 1024
    }
}

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
    /// Peak resident set size of this process so far, in KiB; `nil` when unavailable.
    ///
    /// On Linux it is `VmHWM` from `/proc/self/status`: the peak of this program's own memory.
    /// `getrusage(RUSAGE_SELF).ru_maxrss` is not: Linux carries it over from the parent across
    /// `fork` and `exec`, so a child started by a process that had grown to 300 MB reports at
    /// least 300 MB, whatever it does (`harness bench --memory-check` compared two children
    /// started by the benchmark process, and read its peak). Elsewhere, `ru_maxrss`.
    ///
    /// It never decreases, so in a process that runs several benchmarks it is the peak of everything
    /// run so far: run the scale of interest first, or in its own process, to compare peaks.
    public static func peakResidentKiB() -> Int? {
        #if os(Linux)
            // try?: without /proc, the rusage figure below is the answer.
            if let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                let peak = peakResidentKiB(status: text)
            {
                return peak
            }
        #endif
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

    /// The `VmHWM` line of a `/proc/<pid>/status` text, in KiB (`VmHWM:\t  13512 kB`); `nil`
    /// when there is none.
    public static func peakResidentKiB(status text: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let fields = line.dropFirst("VmHWM:".count).split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count == 2, fields[1] == "kB", let kib = Int(fields[0]) else { return nil }
            return kib
        }
        return nil
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

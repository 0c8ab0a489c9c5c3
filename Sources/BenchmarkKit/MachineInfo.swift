import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The machine a report was produced on: host, CPU, cores, memory, operating system.
///
/// ```swift
/// let machine = MachineInfo.current()
/// print(machine.cpuModel ?? "unknown CPU", machine.coreCount)
/// ```
public struct MachineInfo: Codable, Equatable, Sendable {
    /// The host name (`gethostname`).
    public var hostname: String
    /// The CPU's `model name` from `/proc/cpuinfo`; `nil` where unavailable.
    public var cpuModel: String?
    /// Active processor cores.
    public var coreCount: Int
    /// Physical memory in bytes.
    public var memoryBytes: UInt64
    /// The operating system's version string.
    public var operatingSystem: String

    /// Creates a description from explicit values (tests, fixtures).
    public init(hostname: String, cpuModel: String?, coreCount: Int, memoryBytes: UInt64, operatingSystem: String) {
        self.hostname = hostname
        self.cpuModel = cpuModel
        self.coreCount = coreCount
        self.memoryBytes = memoryBytes
        self.operatingSystem = operatingSystem
    }

    /// Describes the machine this process runs on.
    public static func current() -> MachineInfo {
        var buffer = [CChar](repeating: 0, count: 256)
        let hostname =
            gethostname(&buffer, buffer.count) == 0
            ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            : ProcessInfo.processInfo.hostName
        let info = ProcessInfo.processInfo
        return MachineInfo(
            hostname: hostname, cpuModel: cpuModel(), coreCount: info.activeProcessorCount,
            memoryBytes: info.physicalMemory, operatingSystem: info.operatingSystemVersionString)
    }

    /// The first `model name` line of `/proc/cpuinfo`.
    static func cpuModel(cpuinfo path: String = "/proc/cpuinfo") -> String? {
        // try?: machine facts are optional report decoration; nil leaves the field out.
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }
}

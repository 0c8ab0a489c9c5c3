import Foundation
import Testing

@testable import BenchmarkKit

/// Peak RSS as `harness bench --memory-check` reads it in each child process: the process's
/// own peak (`VmHWM`), not `ru_maxrss`, which Linux carries over from the parent.
@Suite("ProcessMemory")
struct ProcessMemoryTests {
    @Test("VmHWM is read from a /proc/<pid>/status text; no line or a malformed one gives nil")
    func parsesStatus() {
        let status = "Name:\tharness\nVmPeak:\t  900000 kB\nVmHWM:\t   13512 kB\nVmRSS:\t   13000 kB\n"
        #expect(ProcessMemory.peakResidentKiB(status: status) == 13_512)
        #expect(ProcessMemory.peakResidentKiB(status: "Name:\tx\nVmRSS:\t 10 kB\n") == nil)
        #expect(ProcessMemory.peakResidentKiB(status: "VmHWM:\t twelve kB\n") == nil)
        #expect(ProcessMemory.peakResidentKiB(status: "VmHWM:\t 12 MB\n") == nil)
    }

    #if os(Linux)
        @Test("the peak covers memory just touched, and is never below the current RSS")
        func livePeak() throws {
            let bytes = 64 << 20
            let block = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 4096)
            defer { block.deallocate() }
            for offset in stride(from: 0, to: bytes, by: 4096) {
                block.storeBytes(of: 1, toByteOffset: offset, as: UInt8.self)
            }
            let current = try #require(ProcessMemory.currentResidentKiB())
            let peak = try #require(ProcessMemory.peakResidentKiB())
            #expect(current >= bytes >> 10)
            #expect(peak >= current)
        }
    #endif
}

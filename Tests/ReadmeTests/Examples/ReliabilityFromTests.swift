import Foundation
import OpenSwiftDataTesting

/// Runs the crash-loop probe in its quick configuration against a `harness` executable you
/// built (`swift build --product harness`), as the suite `ReliabilityProbes` does for each probe.
func crashLoopPasses(harness: URL = URL(fileURLWithPath: ".build/debug/harness")) -> Bool {
    let result = ReliabilityProbe.crashLoop.run(.quick, executable: harness)
    print(result.figureSummary)  // kills 20, saves committed 187, …
    return result.passed
}

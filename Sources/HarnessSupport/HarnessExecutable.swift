import Foundation

/// The `harness` executable the tests start as a child process.
package enum HarnessExecutable {
    /// `harness` beside the test bundle (`.build/<triple>/debug/harness`), or named by
    /// `$OPENSWIFTDATA_HARNESS`; searched from the test executable's directory upward.
    package static func locate() -> URL? {
        if let path = ProcessInfo.processInfo.environment["OPENSWIFTDATA_HARNESS"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let starts = [
            Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath(),
        ]
        for start in starts {
            var dir = start.hasDirectoryPath ? start : start.deletingLastPathComponent()
            for _ in 0..<8 {
                for candidate in ["harness", "debug/harness", ".build/debug/harness"] {
                    let url = dir.appendingPathComponent(candidate)
                    var isDirectory: ObjCBool = false
                    if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory),
                        !isDirectory.boolValue, FileManager.default.isExecutableFile(atPath: url.path)
                    {
                        return url.resolvingSymlinksInPath()
                    }
                }
                let parent = dir.deletingLastPathComponent()
                if parent.path == dir.path { break }
                dir = parent
            }
        }
        return nil
    }
}

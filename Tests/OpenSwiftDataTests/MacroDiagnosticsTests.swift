import Foundation
import Testing

/// Misuse of the macros must fail to compile with a diagnostic a user can act on. The test
/// type-checks a file of misuses with the real compiler and the freshly built plugin.
@Suite("MacroDiagnostics")
struct MacroDiagnosticsTests {
    static let misuse = """
        import OpenSwiftData
        @Model struct NotAClass { var x: Int = 0 }
        @ModelActor final class NotAnActor {}
        @Model final class Generic<T> { var x: Int = 0; init() {} }
        @Model final class BadModel {
            #Unique<BadModel>([\\.children])
            @Relationship var children: [BadModel] = []
            @Transient var noDefault: Int
            var description: String = ""
            var a, b: Int
            var inferredCount = 0
            var inferredSights = [BadModel]()
            let stamp = UUID()
            init() {}
        }
        """

    @Test("UNQ-02 and other misuse get clear macro diagnostics")
    func diagnostics() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        // The test binary sits in the build directory beside the plugin and the modules.
        let build = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let plugin = build.appendingPathComponent("OpenSwiftDataMacros-tool")
        try #require(
            FileManager.default.fileExists(atPath: plugin.path),
            "the macro plugin is built by `swift build --build-tests`")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("diag-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("Misuse.swift")
        try Self.misuse.write(to: file, atomically: true, encoding: .utf8)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "swiftc", "-typecheck", "-I", build.appendingPathComponent("Modules").path,
            "-I", root.appendingPathComponent("Sources/CSQLite").path,
            "-load-plugin-executable", plugin.path + "#OpenSwiftDataMacros", file.path,
        ]
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()

        #expect(process.terminationStatus != 0)
        let expected = [
            "@Model can only be applied to a class",
            "@ModelActor can only be applied to an actor",
            "@Model classes cannot be generic",
            "a to-many relationship",
            "@Transient property 'noDefault' needs a default value",
            "cannot be named 'description'",
            "'let stamp' has an initial value, which Swift evaluates again when the model is loaded",
        ]
        for message in expected {
            #expect(output.contains(message), "missing diagnostic: \(message)\n\(output)")
        }
        // Types inferred from the initial value need no annotation (as with Apple's macro).
        let diagnostics = output.split(separator: "\n").filter { $0.contains("error:") || $0.contains("warning:") }
        #expect(!diagnostics.contains { $0.contains("inferred") }, "\(output)")
    }
}

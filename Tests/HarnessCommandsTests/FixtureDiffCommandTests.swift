import ArgumentParsing
import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

@testable import HarnessCommands

/// `harness fixtures diff A B`: exit 0 for identical files, 1 when they differ, 2 when a file
/// cannot be read or the options are wrong (FIX-27), and neither file changes.
@Suite("fixtures diff command")
struct FixtureDiffCommandTests {
    private static func fixture(_ dir: URL, _ name: String, seed: UInt64) throws -> String {
        let url = dir.appendingPathComponent(name)
        _ = try FixtureFile.write(.users, seed: seed, scale: 20, to: url)
        return url.path
    }

    @Test("FIX-27: exit 0 when identical, 1 when different (text or JSON), 2 for a missing file or a stray option")
    func exitCodes() throws {
        let scratch = try ScratchDirectory(prefix: "diff-command")
        let a = try Self.fixture(scratch.url, "a.sqlite", seed: 1)
        let same = try Self.fixture(scratch.url, "same.sqlite", seed: 1)
        let other = try Self.fixture(scratch.url, "other.sqlite", seed: 2)
        let bytes = try [a, other].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        #expect(Harness.main(["fixtures", "diff", a, same]) == 0)
        #expect(Harness.main(["fixtures", "diff", a, other, "--limit", "2"]) == 1)
        #expect(Harness.main(["fixtures", "diff", a, other, "--schema", "users", "--json"]) == 1)
        #expect(Harness.main(["fixtures", "diff", a, scratch.url.appendingPathComponent("none.sqlite").path]) == 2)
        #expect(Harness.main(["fixtures", "diff", a]) == 2)
        #expect(Harness.main(["fixtures", "diff", a, other, "--json", "--limit", "2"]) == 2)
        #expect(Harness.main(["fixtures", "diff", a, other, "--seed", "2"]) == 2)
        #expect(Harness.main(["fixtures", "describe", a, "--limit", "2"]) == 2)
        #expect(try [a, other].map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == bytes, "FIX-26")
    }

    @Test("the request: two files, the schema by name, the limit; --schema of an unknown name is refused")
    func request() throws {
        let args = try Harness.parser.parse([
            "fixtures", "diff", "a.sqlite", "b.sqlite", "--schema", "users", "--limit", "3",
        ])
        let request = try FixtureDiffCommand.request(args, schemas: [:])
        #expect(request.a.lastPathComponent == "a.sqlite" && request.b.lastPathComponent == "b.sqlite")
        #expect(request.schema != nil && request.limit == 3 && !request.json)
        let unknown = try Harness.parser.parse(["fixtures", "diff", "a.sqlite", "b.sqlite", "--schema", "nope"])
        #expect(throws: ArgumentError.self) { try FixtureDiffCommand.request(unknown, schemas: [:]) }
    }
}

import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

@testable import HarnessCommands

/// The command line over a team's own schema, as `Harness.main(schemas:)` registers it: sharded
/// conformance with merged reports equal to one run, and fixtures of the team's models.
@Suite("Team schemas on the command line")
struct TeamSchemaCommandTests {
    /// The sample `users` models standing in for a team's schema, with a query of the app.
    static let team = HarnessSchema(
        SampleSchema.users.schema,
        queries: [QueryCheck(FetchDescriptor<AccountUser>(sortBy: [SortDescriptor(\.username)]), name: "users by name")]
    )

    private static func run(_ arguments: [String]) -> Int32 {
        Harness.main(arguments, schemas: ["team": team])
    }

    @Test("SCH-DECL: conform --schema in two shards merges to the unsharded totals; scripts split evenly")
    func shardedConform() throws {
        let scratch = try ScratchDirectory(prefix: "team-conform")
        let common = ["conform", "--schema", "team", "--differential", "200", "--jobs", "1", "--seed", "3"]
        let whole = scratch.url.appendingPathComponent("whole.json")
        #expect(Self.run(common + ["--json", whole.path]) == 0)
        var parts: [ConformanceReport] = []
        for i in 1...2 {
            let url = scratch.url.appendingPathComponent("shard-\(i).json")
            #expect(Self.run(common + ["--shard", "\(i)/2", "--json", url.path]) == 0)
            parts.append(try ConformanceReport(json: Data(contentsOf: url)))
        }
        let full = try ConformanceReport(json: Data(contentsOf: whole))
        let merged = try ConformanceReport.merged(parts)
        #expect(merged.results.count == full.results.count)
        #expect(merged.results.allSatisfy { $0.passed })
        #expect(Set(full.results.map(\.suite)) == ["schema", "queries"])
        #expect(merged.differential?.cases == 200 && full.differential?.cases == 200)
        #expect(merged.differential?.scripts == full.differential?.scripts)
        let scripts = parts.map { $0.differential?.scripts ?? 0 }
        #expect(scripts.reduce(0, +) == 4 && abs(scripts[0] - scripts[1]) <= 1, "\(scripts)")
    }

    @Test("fixtures --schema writes the team's automatic data, and verify accepts it")
    func fixtures() throws {
        let scratch = try ScratchDirectory(prefix: "team-fixture")
        let out = scratch.url.appendingPathComponent("team.sqlite")
        #expect(Self.run(["fixtures", "--schema", "team", "--seed", "7", "--scale", "5", "--out", out.path]) == 0)
        let manifest = try FixtureManifest.read(for: out)
        #expect(manifest.schema == "team")
        #expect(manifest.rowCounts.values.contains(5))
        #expect(Self.run(["fixtures", "verify", out.path]) == 0)
    }

    @Test("an unknown schema name is a usage error naming the registered ones")
    func unknownSchema() {
        #expect(Self.run(["conform", "--schema", "nope"]) == 2)
        #expect(Harness.main(["conform", "--schema", "team"], schemas: [:]) == 2)
    }
}

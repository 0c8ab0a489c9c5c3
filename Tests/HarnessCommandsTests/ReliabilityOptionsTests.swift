import ArgumentParsing
import Foundation
import HarnessSupport
import OpenSwiftDataTesting
import Testing

@testable import HarnessCommands

/// `harness reliability`'s options reach the configuration the probes run with: each size
/// option sets its own size, and a run without `--seed` draws a seed of its own.
@Suite("ReliabilityOptions")
struct ReliabilityOptionsTests {
    static func configuration(_ arguments: [String]) throws -> ReliabilityConfiguration {
        try ReliabilityCommand.options(Harness.parser.parse(["reliability"] + arguments)).configuration
    }

    @Test("without --seed each run draws its own seed, and the configuration keeps its name; --seed replays one")
    func seeds() throws {
        let seeds = try (0..<4).map { _ in try Self.configuration([]).seed }
        #expect(Set(seeds).count > 1, "four runs drew \(seeds)")
        #expect(try Self.configuration([]).name == "full")
        #expect(try Self.configuration(["--quick"]).name == "quick")
        #expect(try Self.configuration(["--seed", "7"]).seed == 7)
    }

    @Test("every size option sets its own size, and marks the configuration customised")
    func sizes() throws {
        let c = try Self.configuration([
            "--quick", "--store-kills", "11", "--migration-rows", "12", "--migration-kills", "13",
            "--history-kills", "14", "--hostile-files", "15", "--actor-seconds", "3", "--kills", "16",
        ])
        #expect(c.storeKills == 11 && c.migrationRows == 12 && c.migrationKills == 13 && c.historyKills == 14)
        #expect(c.hostileFiles == 15 && c.actorSeconds == 3 && c.kills == 16)
        #expect(c.name == "quick, customised")
    }
}

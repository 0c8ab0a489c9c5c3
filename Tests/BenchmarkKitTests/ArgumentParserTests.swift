import Testing
@testable import BenchmarkKit

@Suite("BenchmarkKit ArgumentParser")
struct ArgumentParserTests {
    let parser = ArgumentParser(program: "harness", abstract: "OpenSwiftData's command-line tool.", subcommands: [
        Subcommand("bench", abstract: "Run the persistence benchmarks.", options: [
            .flag("quick", help: "Run the quick set."),
            .flag("allow-debug", help: "Run even in a debug build."),
            .option("scale", placeholder: "rows", repeatable: true, help: "Scales to run."),
            .option("store", placeholder: "memory|disk|all", help: "Stores to run on."),
            .option("compare", placeholder: "file", help: "Compare against a baseline."),
        ]),
        Subcommand("conform", abstract: "Run conformance suites.", positionalPlaceholder: "suite"),
    ])

    @Test func flagsOptionsAndBothValueSpellings() throws {
        let parsed = try parser.parse(["bench", "--quick", "--scale", "1000", "--scale=10000,100000",
                                       "--store=disk", "--compare", "Reports/baseline.json"])
        #expect(parsed.subcommand == "bench")
        #expect(parsed.flag("quick") && !parsed.flag("allow-debug"))
        #expect(parsed.values("scale") == ["1000", "10000,100000"])
        #expect(parsed.list("scale") == ["1000", "10000", "100000"])
        #expect(parsed.value("store") == "disk")
        #expect(parsed.value("compare") == "Reports/baseline.json")
        #expect(parsed.value("missing") == nil && parsed.values("missing").isEmpty)
        #expect(!parsed.isHelpRequested)
    }

    @Test func valuesMayLookLikeNegativeNumbersOrContainEquals() throws {
        let parsed = try parser.parse(["bench", "--store", "-1", "--compare=a=b.json"])
        #expect(parsed.value("store") == "-1")
        #expect(parsed.value("compare") == "a=b.json")
    }

    @Test func positionalsAndDoubleDash() throws {
        let parsed = try parser.parse(["conform", "predicates", "--", "--not-an-option"])
        #expect(parsed.positionals == ["predicates", "--not-an-option"])
        let error = #expect(throws: ArgumentError.self) { try parser.parse(["bench", "stray"]) }
        #expect(error?.code == .unexpectedArgument)
    }

    @Test func unknownOptionSuggestsTheNearestSpelling() {
        let error = #expect(throws: ArgumentError.self) { try parser.parse(["bench", "--scael", "1000"]) }
        #expect(error?.code == .unknownOption)
        #expect(error?.suggestion == "--scale")
        #expect(error?.description == "unknown option '--scael' for 'bench'; did you mean '--scale'?")
        let far = #expect(throws: ArgumentError.self) { try parser.parse(["bench", "--xyzzyplugh"]) }
        #expect(far?.suggestion == nil)
        let subcommand = #expect(throws: ArgumentError.self) { try parser.parse(["bnech"]) }
        #expect(subcommand?.code == .unknownSubcommand && subcommand?.suggestion == "bench")
    }

    @Test func malformedArgumentsAreErrors() {
        let cases: [([String], ArgumentError.Code)] = [
            ([], .missingSubcommand),
            (["bench", "--scale"], .missingValue),
            (["bench", "--store", "--quick"], .missingValue),
            (["bench", "--quick=yes"], .unexpectedValue),
            (["bench", "--store", "disk", "--store", "memory"], .duplicateOption),
            (["bench", "--quick", "--quick"], .duplicateOption),
            (["bench", "-q"], .unknownOption),
        ]
        for (arguments, code) in cases {
            let error = #expect(throws: ArgumentError.self, "\(arguments)") { try parser.parse(arguments) }
            #expect(error?.code == code, "\(arguments)")
        }
    }

    @Test func helpIsRequestedAndGenerated() throws {
        #expect(try parser.parse(["--help"]).isHelpRequested)
        let parsed = try parser.parse(["bench", "--quick", "-h"])
        #expect(parsed.isHelpRequested && parsed.subcommand == "bench")
        let help = parser.helpText(for: "bench")
        #expect(help.hasPrefix("USAGE: harness bench [options]\n\nRun the persistence benchmarks.\n"))
        #expect(help.contains("  --scale <rows>              Scales to run. (repeatable)\n"))
        #expect(help.contains("  --quick                     Run the quick set.\n"))
        #expect(help.contains("  -h, --help                  Show this help.\n"))
        let top = parser.helpText()
        #expect(top.contains("SUBCOMMANDS:\n  bench     Run the persistence benchmarks.\n  conform   Run conformance suites."))
        #expect(parser.helpText(for: "conform").contains("USAGE: harness conform [options] [<suite> ...]"))
    }

    @Test func editDistance() {
        #expect(ArgumentParser.editDistance("kitten", "sitting") == 3)
        #expect(ArgumentParser.editDistance("", "abc") == 3)
        #expect(ArgumentParser.editDistance("scale", "scale") == 0)
    }
}

import Testing

@testable import ArgumentParsing

@Suite("BenchmarkKit ArgumentParser")
struct ArgumentParserTests {
    let parser = ArgumentParser(
        program: "harness", abstract: "OpenSwiftData's command-line tool.",
        subcommands: [
            Subcommand(
                "bench", abstract: "Run the persistence benchmarks.",
                options: [
                    .flag("quick", help: "Run the quick set."),
                    .flag("allow-debug", help: "Run even in a debug build."),
                    .option("scale", placeholder: "rows", repeatable: true, help: "Scales to run."),
                    .option("store", placeholder: "memory|disk|all", help: "Stores to run on."),
                    .option("compare", placeholder: "file", help: "Compare against a baseline."),
                ]),
            Subcommand("conform", abstract: "Run conformance suites.", positionalPlaceholder: "suite"),
        ])

    @Test func flagsOptionsAndBothValueSpellings() throws {
        let parsed = try parser.parse([
            "bench", "--quick", "--scale", "1000", "--scale=10000,100000",
            "--store=disk", "--compare", "Reports/baseline.json",
        ])
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
        #expect(
            top.contains(
                "SUBCOMMANDS:\n  bench     Run the persistence benchmarks.\n  conform   Run conformance suites."))
        #expect(parser.helpText(for: "conform").contains("USAGE: harness conform [options] [<suite> ...]"))
    }

    @Test func errorsInsideASubcommandNameIt() {
        // The CLI shows that subcommand's help with the error, not the program's.
        let cases: [[String]] = [
            ["bench", "--scael", "1"], ["bench", "--quick=yes"], ["bench", "--scale"],
            ["bench", "--store", "a", "--store", "b"], ["bench", "stray"],
        ]
        for arguments in cases {
            let error = #expect(throws: ArgumentError.self, "\(arguments)") { try parser.parse(arguments) }
            #expect(error?.subcommand == "bench", "\(arguments)")
        }
        let top = #expect(throws: ArgumentError.self) { try parser.parse(["bnech"]) }
        #expect(top?.subcommand == nil)
    }

    @Test func helpSubcommandAndVersion() throws {
        let help = try parser.parse(["help", "bench"])
        #expect(help.isHelpRequested && help.subcommand == "bench")
        let bare = try parser.parse(["help"])
        #expect(bare.isHelpRequested && bare.subcommand == nil)
        let unknown = #expect(throws: ArgumentError.self) { try parser.parse(["help", "bnech"]) }
        #expect(unknown?.code == .unknownSubcommand && unknown?.suggestion == "bench")
        let extra = #expect(throws: ArgumentError.self) { try parser.parse(["help", "bench", "conform"]) }
        #expect(extra?.code == .unexpectedArgument)

        // --version only when the program has one.
        let noVersion = #expect(throws: ArgumentError.self) { try parser.parse(["--version"]) }
        #expect(noVersion?.code == .unknownSubcommand)
        #expect(!parser.helpText().contains("--version"))
        var versioned = parser
        versioned.version = "1.2.3"
        #expect(try versioned.parse(["--version"]).isVersionRequested)
        #expect(!(try versioned.parse(["bench"]).isVersionRequested))
        #expect(
            versioned.helpText().contains(
                "OPTIONS:\n  -h, --help   Show this help.\n  --version    Show the version.\n"))
        #expect(versioned.helpText().contains("See 'harness help <subcommand>'"))
    }

    @Test func editDistance() {
        #expect(ArgumentParser.editDistance("kitten", "sitting") == 3)
        #expect(ArgumentParser.editDistance("", "abc") == 3)
        #expect(ArgumentParser.editDistance("scale", "scale") == 0)
    }
}

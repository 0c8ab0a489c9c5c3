import Testing

@testable import ArgumentParsing

/// Options declared with an ``OptionRange`` or as lists are checked by the parser itself, as each
/// value is read: a number out of range or a list naming no item never reaches a command.
@Suite("OptionRange")
struct OptionRangeTests {
    let parser = ArgumentParser(
        program: "tool", abstract: "A tool.",
        subcommands: [
            Subcommand(
                "run", abstract: "Run.",
                options: [
                    .option("rows", repeatable: true, range: .integers(1...1_000), help: "Rows."),
                    .option("seed", range: .seed, help: "Seed."),
                    .option("timeout", range: .reals(1...60), help: "Seconds."),
                    .option("names", list: true, help: "Names."),
                    .option("tag", help: "A tag."),
                ])
        ])

    /// The error parsing `arguments` throws: `.invalidValue`, for help of `run`.
    func refused(_ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation) -> ArgumentError? {
        let error = #expect(throws: ArgumentError.self, sourceLocation: sourceLocation) {
            try parser.parse(["run"] + arguments)
        }
        #expect(error?.code == .invalidValue, sourceLocation: sourceLocation)
        #expect(error?.subcommand == "run", sourceLocation: sourceLocation)
        return error
    }

    @Test("values within the range parse, both bounds included")
    func withinRange() throws {
        let parsed = try parser.parse([
            "run", "--rows", "1,1_000", "--seed", "18446744073709551615", "--timeout", "0.5e1", "--names", "a, b",
        ])
        #expect(try parsed.integers("rows", in: 1...1_000) == [1, 1_000])
        #expect(try parsed.integer("seed", as: UInt64.self) == .max)
        #expect(try parsed.number("timeout", in: 1...60) == 5)
        #expect(parsed.list("names") == ["a", "b"])
    }

    @Test("a number past a bound is refused while parsing, naming the option, the value and the range")
    func outOfRange() {
        #expect(refused("--rows", "1001")?.message == "--rows takes an integer from 1 to 1000, not '1001'")
        #expect(refused("--rows", "5,0")?.message == "--rows takes an integer from 1 to 1000, not '0'")
        #expect(refused("--rows", "9223372036854775807")?.argument == "9223372036854775807")
        #expect(
            refused("--seed", "18446744073709551616")?.message
                == "--seed takes an integer from 0 to 18446744073709551615, not '18446744073709551616'")
        #expect(refused("--seed", "-1")?.argument == "-1")
        #expect(refused("--timeout", "61")?.message == "--timeout takes a number from 1 to 60, not '61'")
        #expect(refused("--timeout", "nan")?.message == "--timeout takes a number from 1 to 60, not 'nan'")
        #expect(refused("--timeout", "inf") != nil)
    }

    @Test("a list value naming no item is refused; a plain option's empty value is left to its command")
    func emptyLists() throws {
        #expect(refused("--names", "")?.message == "--names needs at least one value, not ''")
        #expect(refused("--names", " , ")?.message == "--names needs at least one value, not ' , '")
        #expect(
            refused("--rows", "5", "--rows", ",")?.message
                == "--rows needs at least one value (1 to 1000), not ','")
        #expect(try parser.parse(["run", "--tag", ""]).value("tag") == "")
    }

    @Test("help states each option's range, and repeatable after it")
    func helpStatesRanges() {
        let help = parser.helpText(for: "run")
        #expect(help.contains("Rows. (1 to 1000, repeatable)"), "\(help)")
        #expect(help.contains("Seed. (0 to 18446744073709551615)"))
        #expect(help.contains("Seconds. (1 to 60)"))
        #expect(help.contains("Names.\n"))
    }
}

import ArgumentParsing
import Foundation
import PersistenceWorkloads
import Testing

@testable import HarnessCommands

/// Every numeric option of every `harness` subcommand has a lower and an upper bound, shown in
/// its `--help` line and checked before any work; every list option refuses a value with no
/// item. A value out of range, malformed or empty is one `ArgumentError.invalidValue` naming the
/// option, the value and the range, and `harness` exits 2 without running anything.
@Suite("OptionBounds")
struct OptionBoundsTests {
    /// One numeric option: its subcommand, name, the bounds its help and errors state, and a
    /// value inside them (with the other arguments the subcommand needs).
    struct Bounded: CustomTestStringConvertible, Sendable {
        let subcommand: String
        let option: String
        let lower: String
        let upper: String
        /// Arguments that make the subcommand valid apart from the option.
        var context: [String] = []
        var testDescription: String { "\(subcommand) --\(option)" }
    }

    static let fixtureOut = FileManager.default.temporaryDirectory.appendingPathComponent("bounds.sqlite").path

    static let bounded: [Bounded] = [
        Bounded(subcommand: "bench", option: "scale", lower: "1", upper: "10000000"),
        Bounded(subcommand: "bench", option: "rss-probe", lower: "1", upper: "10000000"),
        Bounded(
            subcommand: "fixtures", option: "scale", lower: "1", upper: "10000000",
            context: ["--schema", "catalogue", "--out", fixtureOut]),
        Bounded(
            subcommand: "fixtures", option: "seed", lower: "0", upper: "18446744073709551615",
            context: ["--schema", "catalogue", "--out", fixtureOut]),
        Bounded(subcommand: "conform", option: "seed", lower: "0", upper: "18446744073709551615"),
        Bounded(subcommand: "conform", option: "differential", lower: "0", upper: "1000000"),
        Bounded(subcommand: "conform", option: "case", lower: "0", upper: "999999"),
        Bounded(subcommand: "conform", option: "jobs", lower: "1", upper: "256"),
        Bounded(subcommand: "reliability", option: "seed", lower: "0", upper: "18446744073709551615"),
        Bounded(subcommand: "reliability", option: "kills", lower: "1", upper: "100000"),
        Bounded(subcommand: "reliability", option: "saves", lower: "1", upper: "1000000"),
        Bounded(subcommand: "reliability", option: "writers", lower: "1", upper: "64"),
        Bounded(subcommand: "reliability", option: "increments", lower: "1", upper: "1000000"),
        Bounded(subcommand: "reliability", option: "trials", lower: "1", upper: "10000"),
        Bounded(subcommand: "reliability", option: "store-kills", lower: "1", upper: "100000"),
        Bounded(subcommand: "reliability", option: "migration-rows", lower: "1", upper: "10000000"),
        Bounded(subcommand: "reliability", option: "migration-kills", lower: "1", upper: "100000"),
        Bounded(subcommand: "reliability", option: "history-kills", lower: "1", upper: "100000"),
        Bounded(subcommand: "reliability", option: "hostile-files", lower: "1", upper: "100000"),
        Bounded(subcommand: "reliability", option: "actor-seconds", lower: "1", upper: "3600"),
        Bounded(subcommand: "reliability", option: "timeout", lower: "1", upper: "86400"),
    ]

    /// Parses `arguments` and validates them as the subcommand does before it runs; runs nothing.
    static func validate(_ arguments: [String]) throws {
        let args = try Harness.parser.parse(arguments)
        switch args.subcommand {
        case "bench": _ = try BenchCommand.options(args)
        case "fixtures": _ = try FixturesCommand.mode(args)
        case "conform": _ = try ConformCommand.options(args)
        case "reliability": _ = try ReliabilityCommand.options(args)
        default: Issue.record("no validation for \(arguments)")
        }
    }

    /// The error `arguments` must be refused with: `.invalidValue`, naming `--option` and `value`
    /// (and `range` when given); then `harness` itself must exit 2 (run only once refused, so a
    /// missing check cannot start the work).
    static func expectRefused(
        _ arguments: [String], option: String, value: String, range: String?,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let error = #expect(throws: ArgumentError.self, "\(arguments)", sourceLocation: sourceLocation) {
            try validate(arguments)
        }
        guard let error else { return }
        #expect(error.code == .invalidValue, "\(error)", sourceLocation: sourceLocation)
        #expect(error.message.contains("--\(option)"), "\(error)", sourceLocation: sourceLocation)
        #expect(error.message.contains("'\(value)'"), "\(error)", sourceLocation: sourceLocation)
        if let range { #expect(error.message.contains(range), "\(error)", sourceLocation: sourceLocation) }
        #expect(!error.message.contains("\n"), "one line: \(error)", sourceLocation: sourceLocation)
        #expect(Harness.main(arguments) == 2, "\(arguments)", sourceLocation: sourceLocation)
    }

    @Test(
        "a value past either bound, negative, malformed or empty is refused naming the option, value and range",
        arguments: bounded)
    func outOfRange(_ b: Bounded) throws {
        let range = "\(b.lower) to \(b.upper)"
        let over = String(b.upper.dropLast()) + String(Int(String(b.upper.last!))! + 1)
        let tooLarge = [over, "9223372036854775807", "4611686018427387904", "99999999999999999999999"].filter {
            $0.count > b.upper.count || ($0.count == b.upper.count && $0 > b.upper)
        }
        var values = tooLarge + ["-1", "-9223372036854775808", "abc", ""]
        if b.lower != "0" { values.append(String(Int(b.lower)! - 1)) }
        for value in values {
            Self.expectRefused(
                [b.subcommand] + b.context + ["--\(b.option)", value], option: b.option, value: value,
                range: range)
        }
        // The bounds themselves are accepted.
        try Self.validate([b.subcommand] + b.context + ["--\(b.option)", b.lower])
        try Self.validate([b.subcommand] + b.context + ["--\(b.option)", b.upper])
    }

    @Test("each numeric option's help line states its bounds", arguments: bounded)
    func helpStatesBounds(_ b: Bounded) {
        let help = Harness.parser.helpText(for: b.subcommand)
        let line = help.split(separator: "\n").first { $0.hasPrefix("  --\(b.option) ") }
        #expect(line?.contains("\(b.lower) to \(b.upper)") == true, "\(line ?? "no line for --\(b.option)")")
    }

    /// Every list option (repeatable or comma-separated) and a value naming no item.
    static let emptyLists: [(arguments: [String], option: String, value: String)] = [
        (["reliability", "--probe", ""], "probe", ""),
        (["reliability", "--probe", ","], "probe", ","),
        (["reliability", "--probe", " , "], "probe", " , "),
        (["reliability", "--probe", "crash-loop", "--probe", ""], "probe", ""),
        (["bench", "--filter", ""], "filter", ""),
        (["bench", "--filter", ","], "filter", ","),
        (["bench", "--scale", ""], "scale", ""),
        (["bench", "--scale", ","], "scale", ","),
        (["bench", "--strategy", ""], "strategy", ""),
        (["bench", "--strategy", ","], "strategy", ","),
        (["conform", "--suite", ""], "suite", ""),
        (["conform", "--suite", ","], "suite", ","),
        (["conform", "--case", ""], "case", ""),
        (["conform", "--case", ","], "case", ","),
        (["fixtures", "--schema", "catalogue", "--out", fixtureOut, "--traits", ""], "traits", ""),
        (["fixtures", "--schema", "catalogue", "--out", fixtureOut, "--traits", ","], "traits", ","),
    ]

    @Test("reliability --help names every probe, the several-store, migration, history and metadata ones among them")
    func reliabilityHelpListsProbes() {
        let help = Harness.parser.helpText(for: "reliability")
        for name in [
            "several-stores", "migrations", "history", "hostile-metadata", "actors", "crash-loop", "hostile-values",
        ] {
            #expect(help.contains(name), "reliability --help does not name \(name)")
        }
        for option in ["--store-kills", "--migration-kills", "--history-kills", "--hostile-files", "--seed"] {
            #expect(help.contains(option), "reliability --help does not list \(option)")
        }
    }

    @Test("a list option given no item is refused, not read as 'all'")
    func emptyListsAreRefused() {
        for (arguments, option, value) in Self.emptyLists {
            Self.expectRefused(arguments, option: option, value: value, range: nil)
        }
    }

    @Test("--shard states and checks its bound on N")
    func shardBound() throws {
        let line = Harness.parser.helpText(for: "conform").split(separator: "\n").first {
            $0.hasPrefix("  --shard ")
        }
        #expect(line?.contains("N ≤ 1000") == true, "\(line ?? "")")
        try Self.validate(["conform", "--shard", "1000/1000"])
        for value in ["1/1001", "1/9223372036854775807", "0/4", "5/4", "", "/"] {
            Self.expectRefused(["conform", "--shard", value], option: "shard", value: value, range: "1000")
        }
    }
}

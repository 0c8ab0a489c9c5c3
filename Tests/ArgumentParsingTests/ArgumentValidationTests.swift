import Foundation
import OpenSwiftDataTesting
import Testing

@testable import ArgumentParsing

/// The checked accessors of `ParsedArguments`: numbers, names and paths are validated, and a bad
/// value is one `ArgumentError.invalidValue` whose message names the option.
@Suite("BenchmarkKit ArgumentValidation")
struct ArgumentValidationTests {
    let parser = ArgumentParser(
        program: "tool", abstract: "A tool.",
        subcommands: [
            Subcommand(
                "run", abstract: "Run.",
                options: [
                    .option("scale", repeatable: true, help: "Scales."),
                    .option("jobs", help: "Jobs."),
                    .option("percent", help: "Percent."),
                    .option("seed", help: "Seed."),
                    .option("store", help: "Store."),
                    .option("suite", repeatable: true, help: "Suites."),
                    .option("input", help: "A file to read."),
                    .option("out", help: "A directory to write."),
                    .option("report", help: "A file to write."),
                ])
        ])

    func parse(_ arguments: String...) throws -> ParsedArguments {
        try parser.parse(["run"] + arguments)
    }

    /// The error `body` throws, which must be `.invalidValue` with a message naming `--option`.
    func invalid(_ option: String, _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation)
        -> ArgumentError?
    {
        let error = #expect(throws: ArgumentError.self, sourceLocation: sourceLocation) { try body() }
        #expect(error?.code == .invalidValue, sourceLocation: sourceLocation)
        #expect(
            error?.message.hasPrefix("--\(option)") == true, "\(error?.message ?? "")", sourceLocation: sourceLocation)
        return error
    }

    // MARK: Numbers

    @Test("integers parse with digit-grouping underscores; an absent option is nil")
    func integersParse() throws {
        let parsed = try parse("--jobs", "1_000", "--percent=0", "--seed", "18446744073709551615")
        #expect(try parsed.integer("jobs", in: 1...) == 1_000)
        #expect(try parsed.integer("percent", in: 0...100) == 0)
        #expect(try parsed.integer("seed", as: UInt64.self) == .max)
        #expect(try parsed.integer("scale", in: 1...) == nil)
        #expect(try parsed.integers("scale", in: 1...) == [])
    }

    @Test("a number that is malformed or out of range is an error naming the option and the range")
    func integersOutOfRange() throws {
        let jobsZero = invalid("jobs") { _ = try parse("--jobs", "0").integer("jobs", in: 1...) }
        #expect(jobsZero?.message == "--jobs takes an integer ≥ 1, not '0'")
        let negative = invalid("jobs") { _ = try parse("--jobs", "-5").integer("jobs", in: 1...) }
        #expect(negative?.argument == "-5")
        let word = invalid("jobs") { _ = try parse("--jobs", "abc").integer("jobs", in: 1...) }
        #expect(word?.message == "--jobs takes an integer ≥ 1, not 'abc'")
        _ = invalid("jobs") { _ = try parse("--jobs", "").integer("jobs", in: 1...) }
        _ = invalid("jobs") { _ = try parse("--jobs", "1.5").integer("jobs", in: 1...) }
        _ = invalid("jobs") { _ = try parse("--jobs", "99999999999999999999").integer("jobs", in: 1...) }
        let percent = invalid("percent") { _ = try parse("--percent", "101").integer("percent", in: 0...100) }
        #expect(percent?.message == "--percent takes an integer from 0 to 100, not '101'")
        let seed = invalid("seed") { _ = try parse("--seed", "-1").integer("seed", as: UInt64.self) }
        #expect(seed?.message == "--seed takes an integer from 0 to 18446744073709551615, not '-1'")
        _ = invalid("seed") { _ = try parse("--seed", "18446744073709551616").integer("seed", as: UInt64.self) }
    }

    @Test("every item of a repeated, comma-separated list is checked, and an option with no item is an error")
    func integerLists() throws {
        #expect(try parse("--scale", "1000, 10_000", "--scale=5").integers("scale", in: 1...) == [1_000, 10_000, 5])
        let bad = invalid("scale") { _ = try parse("--scale", "1000,-5").integers("scale", in: 1...) }
        #expect(bad?.message == "--scale takes an integer ≥ 1, not '-5'")
        _ = invalid("scale") { _ = try parse("--scale", "1000", "--scale", "abc").integers("scale", in: 1...) }
        _ = invalid("scale") { _ = try parse("--scale", "0").integers("scale", in: 1...) }
        let empty = invalid("scale") { _ = try parse("--scale", ",").integers("scale", in: 1...) }
        #expect(empty?.message == "--scale needs at least one value, not ','")
    }

    // MARK: Names

    @Test("a name must be one of the choices; a near miss suggests the nearest")
    func choices() throws {
        let stores = ["memory", "disk", "all"]
        #expect(try parse("--store", "disk").choice("store", from: stores) == "disk")
        #expect(try parse().choice("store", from: stores) == nil)
        let typo = invalid("store") { _ = try parse("--store", "dsk").choice("store", from: stores) }
        #expect(typo?.suggestion == "disk")
        #expect(typo?.description == "--store takes memory, disk or all, not 'dsk'; did you mean 'disk'?")
        let far = invalid("store") { _ = try parse("--store", "xyzzyplugh").choice("store", from: stores) }
        #expect(far?.suggestion == nil)
        let suites = ["uniqueness", "predicates"]
        #expect(try parse("--suite", "uniqueness,predicates").choices("suite", from: suites) == suites)
        let unknown = invalid("suite") {
            _ = try parse("--suite", "uniqueness,predicats").choices("suite", from: suites)
        }
        #expect(unknown?.argument == "predicats" && unknown?.suggestion == "predicates")
    }

    // MARK: Files to read

    @Test("a file to read must exist, be no directory, and hold what the reader expects")
    func existingFiles() throws {
        let scratch = try ScratchDirectory(prefix: "argval")
        let dir = scratch.url
        let file = dir.appendingPathComponent("numbers.txt")
        try Data("1 2 3".utf8).write(to: file)
        #expect(try parse("--input", file.path).existingFile("input") == file)
        #expect(try parse().existingFile("input") == nil)

        let missing = invalid("input") { _ = try parse("--input", "/nonexistent.json").existingFile("input") }
        #expect(missing?.message == "--input: no such file '/nonexistent.json'")
        let directory = invalid("input") { _ = try parse("--input", dir.path).existingFile("input") }
        #expect(directory?.message.contains("is a directory") == true)
        _ = invalid("input") { _ = try parse("--input", "").existingFile("input") }

        struct Numbers: Decodable { var values: [Int] }
        let wrong = invalid("input") {
            _ = try parse("--input", file.path).existingFile("input", holding: "a numbers document") {
                try JSONDecoder().decode(Numbers.self, from: Data(contentsOf: $0))
            }
        }
        #expect(wrong?.message == "--input: '\(file.path)' is not a numbers document (not valid JSON)")
        try Data(#"{"count": 3}"#.utf8).write(to: file)
        let shape = invalid("input") {
            _ = try parse("--input", file.path).existingFile("input", holding: "a numbers document") {
                try JSONDecoder().decode(Numbers.self, from: Data(contentsOf: $0))
            }
        }
        #expect(shape?.message.hasSuffix("(field 'values' is missing)") == true, "\(shape?.message ?? "")")
    }

    // MARK: Paths to write

    @Test("a directory to write may be new (nothing is created) but never a file or under one")
    func writableDirectories() throws {
        let scratch = try ScratchDirectory(prefix: "argval")
        let dir = scratch.url
        #expect(try parse("--out", dir.path).writableDirectory("out")?.path == dir.path)
        let nested = dir.appendingPathComponent("a/b/c")
        #expect(try parse("--out", nested.path).writableDirectory("out")?.path == nested.path)
        #expect(
            !FileManager.default.fileExists(atPath: dir.appendingPathComponent("a").path),
            "validation created a directory")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "the probe file was left behind")

        let underDevice = invalid("out") { _ = try parse("--out", "/dev/null/x").writableDirectory("out") }
        #expect(underDevice?.message == "--out: '/dev/null/x' is under '/dev/null', which is not a directory")
        let file = dir.appendingPathComponent("plain")
        try Data("x".utf8).write(to: file)
        let isFile = invalid("out") { _ = try parse("--out", file.path).writableDirectory("out") }
        #expect(isFile?.message == "--out: '\(file.path)' is a file, not a directory")
        _ = invalid("out") {
            _ = try parse("--out", file.appendingPathComponent("deeper/still").path).writableDirectory("out")
        }
    }

    @Test("a default directory is checked like a given one, and the error names the option")
    func writableDirectoryDefault() throws {
        let scratch = try ScratchDirectory(prefix: "argval")
        let dir = scratch.url
        #expect(try parse().writableDirectory("out", default: dir.path).path == dir.path)
        let given = dir.appendingPathComponent("given")
        #expect(try parse("--out", given.path).writableDirectory("out", default: "/dev/null/x").path == given.path)
        let error = invalid("out") { _ = try parse().writableDirectory("out", default: "/dev/null/Reports") }
        #expect(error?.message == "--out: '/dev/null/Reports' is under '/dev/null', which is not a directory")
    }

    @Test("a file to write may be new or a regular file, never a directory, a device, or under a file")
    func writableFiles() throws {
        let scratch = try ScratchDirectory(prefix: "argval")
        let dir = scratch.url
        let new = dir.appendingPathComponent("reports/junit.xml")
        #expect(try parse("--report", new.path).writableFile("report") == new)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "validation created something")
        let existing = dir.appendingPathComponent("old.xml")
        try Data("<old/>".utf8).write(to: existing)
        #expect(try parse("--report", existing.path).writableFile("report") == existing)
        #expect(try String(contentsOf: existing, encoding: .utf8) == "<old/>", "validation changed the file")

        let directory = invalid("report") { _ = try parse("--report", dir.path).writableFile("report") }
        #expect(directory?.message == "--report: '\(dir.path)' is a directory; give a file path")
        _ = invalid("report") { _ = try parse("--report", dir.path + "/new/").writableFile("report") }
        let device = invalid("report") { _ = try parse("--report", "/dev/null").writableFile("report") }
        #expect(device?.message == "--report: '/dev/null' is not a regular file")
        let underFile = invalid("report") { _ = try parse("--report", existing.path + "/x.xml").writableFile("report") }
        #expect(underFile?.message.contains("which is not a directory") == true)
    }
}

import ArgumentParsing
import BenchmarkKit
import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import PersistenceWorkloads
import Testing

@testable import HarnessCommands

/// `harness bench` validates every option before it runs anything: a bad value is one
/// `ArgumentError` naming the option, not a crash, a silently dropped value or a failure after the run.
@Suite("BenchCommandOptions")
struct BenchCommandOptionsTests {
    let parser = ArgumentParser(program: "harness", abstract: "", subcommands: [BenchCommand.subcommand])

    func options(_ arguments: [String]) throws -> BenchCommand.Options {
        try BenchCommand.options(parser.parse(["bench"] + arguments))
    }

    @Test("no options give the documented defaults")
    func defaults() throws {
        let o = try options([])
        #expect(o.scales == [1_000, 10_000, 100_000])
        #expect(o.stores == [.disk, .memory])
        #expect(o.strategies == [.none, .declared])
        #expect(o.filters.isEmpty && o.baseline == nil && o.rssProbe == nil && o.readProbe == nil)
        #expect(o.out.path == URL(fileURLWithPath: "Reports").path)
    }

    @Test("valid options are parsed into typed values, the baseline report included")
    func validOptions() throws {
        let scratch = try ScratchDirectory(prefix: "bench-options")
        let dir = scratch.url
        let baseline = dir.appendingPathComponent("baseline.json")
        let encoded = try JSONReportCoder.encode(BenchmarkReport.current(toolchain: "test", results: []))
        try encoded.write(to: baseline)
        let o = try options([
            "--quick", "--scale", "1000,2_000", "--million", "--store", "disk",
            "--strategy", "none,custom:BenchItem(code, price);BenchItem(name)", "--filter", "Fetch",
            "--compare", baseline.path, "--out", dir.appendingPathComponent("new").path,
        ])
        #expect(o.quick)
        #expect(o.scales == [1_000, 2_000, 1_000_000])
        #expect(o.stores == [.disk])
        #expect(o.strategies == [.none, .custom(["BenchItem": [["code", "price"], ["name"]]])])
        #expect(o.filters == ["fetch"])
        #expect(o.baseline == (try JSONReportCoder.decode(encoded)))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("new").path))
    }

    static let invalid: [(arguments: [String], option: String)] = [
        (["--scale", "-5"], "--scale"),
        (["--scale", "abc"], "--scale"),
        (["--scale", "0"], "--scale"),
        (["--scale", "1000,abc"], "--scale"),
        (["--scale", ","], "--scale"),
        (["--store", "dsk"], "--store"),
        (["--strategy", "some"], "--strategy"),
        (["--strategy", "custom:Nope(code)"], "--strategy"),
        (["--strategy", "custom:BenchItem(nope)"], "--strategy"),
        (["--strategy", "custom:BenchItem()"], "--strategy"),
        (["--filter", "no-such-workload"], "--filter"),
        (["--compare", "/nonexistent.json"], "--compare"),
        (["--compare", "/tmp"], "--compare"),
        (["--out", "/dev/null/x"], "--out"),
        (["--out", "/dev/null"], "--out"),
        (["--rss-probe", "0"], "--rss-probe"),
        (["--rss-probe", "many"], "--rss-probe"),
        (["--rss-probe-enumerate", "/nonexistent.sqlite"], "--rss-probe-enumerate"),
        (["--rss-probe-batched", "/nonexistent.sqlite"], "--rss-probe-batched"),
    ]

    @Test("a bad value throws ArgumentError naming the option", arguments: invalid)
    func badValueThrowsNamingTheOption(_ arguments: [String], option: String) {
        let error = #expect(throws: ArgumentError.self) { try options(arguments) }
        #expect(error?.code == .invalidValue)
        #expect(error?.message.contains(option) == true, "\(error?.description ?? "no error")")
    }

    @Test("a --compare file that is no benchmark report is rejected before the run")
    func compareMustBeAReport() throws {
        let scratch = try ScratchDirectory(prefix: "bench-options")
        let dir = scratch.url
        let file = dir.appendingPathComponent("notes.json")
        try Data(#"{"results": "none"}"#.utf8).write(to: file)
        let error = #expect(throws: ArgumentError.self) { try options(["--compare", file.path]) }
        #expect(
            error?.message.hasPrefix("--compare: '\(file.path)' is not a benchmark report (") == true,
            "\(error?.message ?? "")")
    }

    @Test("strategy arguments parse")
    func strategies() throws {
        #expect(try BenchCommand.parseStrategy("none") == .none)
        #expect(
            try BenchCommand.parseStrategy("custom:BenchItem(code,price);BenchItem(name)")
                == .custom(["BenchItem": [["code", "price"], ["name"]]]))
        #expect(throws: ArgumentError.self) { try BenchCommand.parseStrategy("fast") }
    }
}

import ArgumentParsing
import BenchmarkKit
import Foundation
import OpenSwiftDataTesting

/// `harness report merge DIR…`: one conformance report from the reports of N shards.
///
/// ```sh
/// harness conform --shard 1/4 --json Reports/shard-1/conformance.json     # on four machines
/// harness report merge Reports/shard-* --out Reports/merged               # then once
/// ```
/// Each DIR holds the `conformance.json` of one shard (`harness conform --shard I/N --json …`),
/// or is that file. The merged report (`conformance.json`, `conformance-junit.xml`,
/// `conformance.md` in `--out`, default `Reports/merged`) has the totals of one unsharded run;
/// the command prints its table and exits 1 when any case failed, 2 when the shards do not make
/// one run (a seed differs, a shard is missing or repeated).
enum ReportCommand {
    static let subcommand = Subcommand(
        "report",
        abstract:
            "'report merge DIR…': merge the conformance reports of shards (harness conform --shard I/N --json) into one.",
        options: [
            .option(
                "out", placeholder: "DIR",
                help:
                    "Where to write the merged conformance.json, conformance-junit.xml and conformance.md; default Reports/merged."
            )
        ],
        positionalPlaceholder: "merge DIR")

    /// The shard reports to merge (every file read and parsed) and the output directory.
    static func inputs(_ args: ParsedArguments) throws -> (reports: [ConformanceReport], out: URL) {
        guard args.positionals.first == "merge", args.positionals.count >= 2 else {
            throw ArgumentError(
                code: .unexpectedArgument, argument: args.positionals.first ?? "report",
                message: "expected 'report merge DIR…' with one directory (or conformance.json) per shard")
        }
        var reports: [ConformanceReport] = []
        for path in args.positionals.dropFirst() {
            var url = URL(fileURLWithPath: path)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
                url = url.appendingPathComponent("conformance.json")
            }
            do {
                reports.append(try ConformanceReport(json: Data(contentsOf: url)))
            } catch {
                throw ArgumentError(
                    code: .invalidValue, argument: path,
                    message: "\(url.path) is not a readable conformance report (harness conform --json): \(error)")
            }
        }
        let out = URL(fileURLWithPath: args.value("out") ?? "Reports/merged", isDirectory: true)
        return (reports, out)
    }

    static func run(_ args: ParsedArguments) throws -> Int32 {
        let (reports, out) = try inputs(args)
        let merged: ConformanceReport
        do {
            merged = try ConformanceReport.merged(reports)
        } catch let error as ConformanceReport.MergeError {
            FileHandle.standardError.write(Data("harness: report merge: \(error)\n".utf8))
            return 2
        }
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try merged.json().write(to: out.appendingPathComponent("conformance.json"))
        try merged.junitXML().write(
            to: out.appendingPathComponent("conformance-junit.xml"), atomically: true, encoding: .utf8)
        try merged.markdown().write(to: out.appendingPathComponent("conformance.md"), atomically: true, encoding: .utf8)
        print(merged.table())
        for failure in merged.failures { print("\n" + failure.description) }
        print(
            "\nmerged \(reports.count) shard report(s) into \(out.path)/conformance.{json,md} and conformance-junit.xml"
        )
        print(merged.passed ? "PASS" : "FAIL: \(merged.failures.count) failure(s)")
        return merged.passed ? 0 : 1
    }
}

import ArgumentParsing
import BenchmarkKit
import DecodingDiagnostics
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
///
/// `harness report baseline FILE… [--out FILE]`: one benchmark baseline from several runs of
/// `harness bench` (their JSON reports), each result taken from the run with its median ratio
/// to raw SQLite (``BaselineComparison/medianBaseline(of:)``); written to `--out`, default
/// `Reports/baseline.json`, for `harness bench --compare`.
///
/// ```sh
/// for i in 1 2 3; do harness bench --quick --out /tmp/run$i; done
/// harness report baseline /tmp/run1/bench-*.json /tmp/run2/bench-*.json /tmp/run3/bench-*.json
/// ```
enum ReportCommand {
    static let subcommand = Subcommand(
        "report",
        abstract:
            "'report merge DIR…': merge the conformance reports of shards (harness conform --shard I/N --json) into one. 'report baseline FILE…': one benchmark baseline from several harness bench runs (each result from the run with its median ratio to raw SQLite).",
        options: [
            .option(
                "out", placeholder: "PATH",
                help:
                    "merge: the directory for the merged conformance.json, conformance-junit.xml and conformance.md (default Reports/merged); baseline: the file to write (default Reports/baseline.json)."
            )
        ],
        positionalPlaceholder: "merge DIR… | baseline FILE…")

    /// The shard reports to merge (every file read and parsed) and the output directory.
    static func inputs(_ args: ParsedArguments) throws -> (reports: [ConformanceReport], out: URL) {
        guard args.positionals.first == "merge", args.positionals.count >= 2 else {
            throw ArgumentError(
                code: .unexpectedArgument, argument: args.positionals.first ?? "report",
                message:
                    "expected 'report merge DIR…' with one directory (or conformance.json) per shard, or 'report baseline FILE…' with one harness bench JSON report per run"
            )
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
                    message:
                        "\(url.path) is not a readable conformance report (harness conform --json writes one): \(ReadFailure.brief(error))"
                )
            }
        }
        let out = URL(fileURLWithPath: args.value("out") ?? "Reports/merged", isDirectory: true)
        return (reports, out)
    }

    /// `report baseline FILE…`: reads every run's report and writes their median baseline.
    static func baseline(_ args: ParsedArguments) throws -> Int32 {
        var runs: [BenchmarkReport] = []
        for path in args.positionals.dropFirst() {
            do {
                runs.append(try JSONReportCoder.read(from: URL(fileURLWithPath: path)))
            } catch {
                throw ArgumentError(
                    code: .invalidValue, argument: path,
                    message:
                        "\(path) is not a readable benchmark report (harness bench writes bench-*.json): \(ReadFailure.brief(error))"
                )
            }
        }
        // No run, no baseline: said here, not as a silent exit status.
        guard let baseline = BaselineComparison.medianBaseline(of: runs) else {
            throw ArgumentError(
                code: .unexpectedArgument, argument: "baseline",
                message: "expected 'report baseline FILE…' with one harness bench JSON report per run")
        }
        let out = URL(fileURLWithPath: args.value("out") ?? "Reports/baseline.json")
        try FileManager.default.createDirectory(
            at: out.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONReportCoder.encode(baseline).write(to: out)
        let met = TargetCheck.all(in: baseline)
        print(
            "baseline of \(runs.count) run(s), \(baseline.results.count) results, each from the run with its median ratio to raw SQLite: \(out.path)"
        )
        print("ratio targets in the baseline: \(met.filter(\.isMet).count) of \(met.count) met")
        return 0
    }

    static func run(_ args: ParsedArguments) throws -> Int32 {
        if args.positionals.first == "baseline" { return try baseline(args) }
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

// `harness`: the project's command-line tool. With no arguments it runs the main job (conformance,
// differential checks, quick benchmarks, reports); `conform`, `bench`, `fixtures` and
// `reliability` run one part; `report merge` joins the reports of sharded `conform` runs. `reliability-worker` is hidden: the reliability probes start this
// executable with it to run their child processes.
import BenchmarkKit
import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import PersistenceWorkloads

if CommandLine.arguments.dropFirst().first == ReliabilityWorker.subcommand {
    exit(ReliabilityWorker.main(Array(CommandLine.arguments.dropFirst(2))))
}

let parser = ArgumentParser(
    program: "harness",
    abstract: "OpenSwiftData's test-fixture and benchmarking harness. With no arguments: conformance on both stores, 10,000 differential cases, quick benchmarks, reports in Reports/.",
    version: harnessVersion,
    subcommands: [ConformCommand.subcommand, BenchCommand.subcommand, FixturesCommand.subcommand,
                  ReliabilityCommand.subcommand, ReportCommand.subcommand])

/// `swift --version`'s first line, for the report; `nil` when swift is not on PATH.
func toolchainVersion() -> String? {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["swift", "--version"]
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = FileHandle.nullDevice
    // try?: the toolchain version decorates reports; nil when swift is not on PATH.
    guard (try? p.run()) != nil else { return nil }
    let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    return text.split(separator: "\n").first.map(String.init)
}

/// The subcommand being run, for the help shown with an argument error.
nonisolated(unsafe) var currentSubcommand: String? = nil

do {
    if CommandLine.arguments.count == 1 {
        exit(try MainJob.run(parser: parser, toolchain: toolchainVersion()))
    }
    let args = try parser.parse(Array(CommandLine.arguments.dropFirst()))
    currentSubcommand = args.subcommand
    if args.isVersionRequested {
        print("harness \(harnessVersion)")
        exit(0)
    }
    if args.isHelpRequested {
        print(parser.helpText(for: args.subcommand))
        exit(0)
    }
    switch args.subcommand {
    case "bench" where args.value("fixture") != nil: exit(try FixtureBenchCommand.run(args))
    case "bench": exit(try BenchCommand.run(args, toolchain: toolchainVersion()))
    case "fixtures": exit(try FixturesCommand.run(args))
    case "conform": exit(try ConformCommand.run(args))
    case "reliability": exit(try ReliabilityCommand.run(args))
    case "report": exit(try ReportCommand.run(args))
    default:
        print(parser.helpText())
        exit(2)
    }
} catch let error as ArgumentError {
    FileHandle.standardError.write(Data("harness: \(error)\n\n\(parser.helpText(for: error.subcommand ?? currentSubcommand))\n".utf8))
    exit(2)
} catch let error as SwiftDataError {
    // The message says what to do; the cause chain (decoder and SQLite dumps) stays out of the terminal.
    let file = error.url.map(\.relativePath).flatMap { error.message.contains($0) ? nil : " (\($0))" } ?? ""
    FileHandle.standardError.write(Data("harness: \(error.message)\(file)\n".utf8))
    exit(1)
} catch {
    FileHandle.standardError.write(Data("harness: \(error)\n".utf8))
    exit(1)
}

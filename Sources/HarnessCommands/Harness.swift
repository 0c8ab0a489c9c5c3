import ArgumentParsing
import BenchmarkKit
import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import PersistenceWorkloads

/// `harness`: the project's command-line tool. With no arguments it runs the main job (conformance,
/// differential checks, quick benchmarks, reports); `conform`, `bench`, `fixtures` and
/// `reliability` run one part; `report merge` joins the reports of sharded `conform` runs.
///
/// Every subcommand is one file of this folder (`<Name>Command.swift`: its options and its run);
/// adding one adds its file and its line in ``parser`` and ``main(_:)``. The `harness` executable
/// is `Sources/harness/main.swift`, which only calls ``main(_:)``.
package enum Harness {
    /// Every subcommand's options.
    package static let parser = ArgumentParser(
        program: "harness",
        abstract:
            "OpenSwiftData's test-fixture and benchmarking harness. With no arguments: conformance on both stores, 10,000 differential cases, quick benchmarks, reports in Reports/.",
        version: harnessVersion,
        subcommands: [
            ConformCommand.subcommand, BenchCommand.subcommand, FixturesCommand.subcommand,
            ReliabilityCommand.subcommand, ReportCommand.subcommand,
        ])

    /// Runs `harness` with `arguments` (the program name left out); returns the exit code.
    /// Errors are printed to standard error: an argument error with the subcommand's help (exit 2),
    /// a ``SwiftDataError`` as its message (exit 1).
    ///
    /// `schemas` are a team's own schemas (``HarnessSchema``), registered by the executable that
    /// calls this: `conform --schema`, `fixtures --schema` and `bench --fixture` accept their
    /// names. With schemas and no arguments, the help is printed instead of the project's main job.
    package static func main(_ arguments: [String], schemas: [String: HarnessSchema] = [:]) -> Int32 {
        // The subcommand being run, for the help shown with an argument error.
        var currentSubcommand: String? = nil
        do {
            if arguments.isEmpty {
                guard schemas.isEmpty else {
                    print(parser.helpText())
                    let names = schemas.keys.sorted().joined(separator: ", ")
                    print("\nschemas: \(names) (conform --schema NAME, fixtures --schema NAME)")
                    return 0
                }
                return try MainJob.run(parser: parser, toolchain: toolchainVersion())
            }
            let args = try parser.parse(arguments)
            currentSubcommand = args.subcommand
            if args.isVersionRequested {
                print("harness \(harnessVersion)")
                return 0
            }
            if args.isHelpRequested {
                print(parser.helpText(for: args.subcommand))
                return 0
            }
            switch args.subcommand {
            case "bench" where args.value("fixture") != nil: return try FixtureBenchCommand.run(args, schemas: schemas)
            case "bench": return try BenchCommand.run(args, toolchain: toolchainVersion())
            case "fixtures": return try FixturesCommand.run(args, schemas: schemas)
            case "conform": return try ConformCommand.run(args, schemas: schemas)
            case "reliability": return try ReliabilityCommand.run(args)
            case "report": return try ReportCommand.run(args)
            default:
                print(parser.helpText())
                return 2
            }
        } catch let error as ArgumentError {
            FileHandle.standardError.write(
                Data("harness: \(error)\n\n\(parser.helpText(for: error.subcommand ?? currentSubcommand))\n".utf8))
            return 2
        } catch let error as SwiftDataError {
            // The message says what to do; the cause chain (decoder and SQLite dumps) stays out of the terminal.
            let file = error.url.map(\.relativePath).flatMap { error.message.contains($0) ? nil : " (\($0))" } ?? ""
            FileHandle.standardError.write(Data("harness: \(error.message)\(file)\n".utf8))
            return 1
        } catch {
            FileHandle.standardError.write(Data("harness: \(error)\n".utf8))
            return 1
        }
    }

    /// `swift --version`'s first line, for the report; `nil` when swift is not on PATH.
    static func toolchainVersion() -> String? {
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
}

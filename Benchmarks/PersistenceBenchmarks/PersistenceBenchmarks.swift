// The persistence benchmarks as their own executable (package-benchmark's convention):
// `swift run -c release PersistenceBenchmarks [bench options]` is `harness bench [options]`.
import ArgumentParsing
import Foundation
import PersistenceWorkloads

@main
struct PersistenceBenchmarks {
    static func main() {
        let parser = ArgumentParser(
            program: "PersistenceBenchmarks", abstract: "Persistence workloads vs raw SQLite.",
            subcommands: [BenchCommand.subcommand])
        do {
            let args = try parser.parse(["bench"] + CommandLine.arguments.dropFirst())
            if args.isHelpRequested {
                print(parser.helpText(for: "bench"))
                return
            }
            exit(try BenchCommand.run(args, toolchain: nil))
        } catch {
            FileHandle.standardError.write(Data("PersistenceBenchmarks: \(error)\n".utf8))
            exit(2)
        }
    }
}

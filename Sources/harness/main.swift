// `harness`: the project's command-line tool; its subcommands live in Sources/HarnessCommands
// (`Harness.main`). `reliability-worker` and `mutant-worker` are hidden: the reliability probes
// and `conform --mutants` start this executable with them to run their child processes.
import Foundation
import HarnessCommands
import HarnessSupport

if CommandLine.arguments.dropFirst().first == ReliabilityWorker.subcommand {
    exit(ReliabilityWorker.main(Array(CommandLine.arguments.dropFirst(2))))
}
if CommandLine.arguments.dropFirst().first == MutantWorker.subcommand {
    exit(MutantWorker.main(Array(CommandLine.arguments.dropFirst(2))))
}
exit(Harness.main(Array(CommandLine.arguments.dropFirst())))

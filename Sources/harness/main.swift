// `harness`: the project's command-line tool; its subcommands live in Sources/HarnessCommands
// (`Harness.main`). `reliability-worker` is hidden: the reliability probes start this executable
// with it to run their child processes.
import Foundation
import HarnessCommands
import HarnessSupport

if CommandLine.arguments.dropFirst().first == ReliabilityWorker.subcommand {
    exit(ReliabilityWorker.main(Array(CommandLine.arguments.dropFirst(2))))
}
exit(Harness.main(Array(CommandLine.arguments.dropFirst())))

import Foundation
import HarnessCommands
import HarnessSupport
import OpenSwiftData
import OpenSwiftDataTesting

/// The `harness` command line over your own schemas, from a five-line executable target.
///
/// ```swift
/// import OpenSwiftDataHarness
/// import OpenSwiftDataTesting
///
/// Harness.main(schemas: ["invoicing": HarnessSchema(Schema([Client.self, Invoice.self]))])
/// ```
/// Then `swift run invoicing-harness conform --schema invoicing --shard 1/2 --json …`,
/// `fixtures --schema invoicing --seed 7 --scale 500 --out …`, `bench --fixture …`,
/// `fixtures describe|verify FILE` and `report merge DIR…` work as the project's own `harness`
/// does (the article "Testing your own models in CI" of OpenSwiftDataTesting shows a CI matrix).
public enum Harness {
    /// Runs the command line given to the process with `schemas` registered under their names,
    /// and exits with its status: 0 when everything passed, 1 when a check failed, 2 for a
    /// usage error (printed with the help).
    public static func main(schemas: [String: HarnessSchema]) -> Never {
        let arguments = Array(CommandLine.arguments.dropFirst())
        // The reliability probes start this executable again as their worker processes.
        if arguments.first == ReliabilityWorker.subcommand {
            exit(ReliabilityWorker.main(Array(arguments.dropFirst())))
        }
        exit(HarnessCommands.Harness.main(arguments, schemas: schemas))
    }

    /// ``main(schemas:)`` for schemas with the defaults of ``HarnessSchema``: automatic data,
    /// no pinned rules, no queries.
    ///
    /// ```swift
    /// Harness.main(schemas: ["invoicing": Schema([Client.self, Invoice.self])])
    /// ```
    public static func main(schemas: [String: Schema]) -> Never {
        main(schemas: schemas.mapValues { HarnessSchema($0) })
    }
}

import Foundation
import HarnessSupport
import OpenSwiftData
import OpenSwiftDataTesting

/// `harness mutant-worker key=value…` (hidden): the child process `harness conform --mutants`
/// starts once per mutant, with the mutant named in `OPENSWIFTDATA_INJECT_FAULT` (and once
/// without any). It runs the checks in order — the conformance suites, the schema-derived
/// checks of the `[T]?` shapes (``OptionalToManyShapes``) and of the sample schemas, then the differential cases and change scripts — and stops at
/// the first failure.
///
/// It speaks in lines on standard output: `at <check>` before each check (so a crash names
/// the check that was running), then `killed <check>\t<detail>` or `survived`, and last
/// `checks <n>`, the number of checks started.
package enum MutantWorker {
    /// The hidden subcommand's name.
    package static let subcommand = "mutant-worker"

    /// What a worker runs.
    package struct Plan: Equatable, Sendable {
        /// Seed of the generated data and the differential cases.
        package var seed: UInt64 = 1
        /// Differential cases (numbers `0..<differential`) after the suites and schema checks.
        package var differential = 400
        /// Stores the suites and differential cases run on.
        package var stores: [StoreKind] = StoreKind.allCases
        /// The conformance suites to run, by name, and `schema` for the schema-derived checks;
        /// `nil` for all of them.
        package var suites: [String]? = nil

        /// A plan with every field given.
        package init(
            seed: UInt64 = 1, differential: Int = 400, stores: [StoreKind] = StoreKind.allCases,
            suites: [String]? = nil
        ) {
            self.seed = seed
            self.differential = differential
            self.stores = stores
            self.suites = suites
        }

        /// The worker's arguments: `seed=1 differential=400 stores=memory,disk [suites=a,b]`.
        package var arguments: [String] {
            ["seed=\(seed)", "differential=\(differential)", "stores=\(stores.map(\.rawValue).joined(separator: ","))"]
                + (suites.map { ["suites=\($0.joined(separator: ","))"] } ?? [])
        }

        /// Whether the plan runs the suite (or `schema`) called `name`.
        func includes(_ name: String) -> Bool { suites?.contains(name) ?? true }

        /// The plan the worker's `arguments` describe; `nil` for an argument it does not know.
        package init?(arguments: [String]) {
            for argument in arguments {
                let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { return nil }
                switch parts[0] {
                case "seed":
                    guard let v = UInt64(parts[1]) else { return nil }
                    seed = v
                case "differential":
                    guard let v = Int(parts[1]), v >= 0 else { return nil }
                    differential = v
                case "stores":
                    let kinds = parts[1].split(separator: ",").compactMap { StoreKind(rawValue: String($0)) }
                    guard !kinds.isEmpty else { return nil }
                    stores = kinds
                case "suites": suites = parts[1].split(separator: ",").map(String.init)
                default: return nil
                }
            }
        }
    }

    /// Runs the plan the arguments describe; prints its lines; exits 0 whether or not a check
    /// failed (2 for arguments it does not understand).
    package static func main(_ arguments: [String]) -> Int32 {
        guard let plan = Plan(arguments: arguments) else {
            FileHandle.standardError.write(Data("mutant-worker: cannot read \(arguments)\n".utf8))
            return 2
        }
        var checks = 0
        if let (check, detail) = firstFailure(plan, counting: &checks) {
            say("killed \(check)\t\(detail)")
        } else {
            say("survived")
        }
        say("checks \(checks)")
        return 0
    }

    /// The first check of `plan` that fails, with the failure's first lines; `nil` when every
    /// check passes. `checks` counts the checks started.
    static func firstFailure(_ plan: Plan, counting checks: inout Int) -> (check: String, detail: String)? {
        var failure: (String, String)?
        func attempt(_ name: String, _ body: () throws -> Void) -> Bool {
            checks += 1
            say("at \(name)")
            do {
                try body()
                return true
            } catch let f as ConformanceFailure {
                failure = (name, brief(f))
            } catch {
                failure = (name, "\(type(of: error)): \(error)")
            }
            return false
        }
        for suite in ConformanceSuite.all where plan.includes(suite.name) {
            for store in plan.stores {
                for c in suite.cases
                where !attempt("\(suite.name) \(c.id) on \(store)", { try c.verify(store: store, seed: plan.seed) }) {
                    return failure
                }
            }
        }
        let schemas =
            [(OptionalToManyShapes.name, OptionalToManyShapes.schema)] + SampleSchema.all.map { ($0.name, $0.schema) }
        for (name, schema) in schemas where plan.includes("schema") {
            let cases = SchemaConformance(schema: schema).cases
            for store in plan.stores {
                for c in cases
                where !attempt("schema \(name) \(c.id) on \(store)", { try c.verify(store: store, seed: plan.seed) }) {
                    return failure
                }
            }
        }
        guard plan.differential > 0 else { return nil }
        let harness = DifferentialHarness(seed: plan.seed, stores: plan.stores)
        harness.shrinks = false
        for index in 0..<plan.differential
        where !attempt("differential #\(index) \(harness.kind(ofCase: index))", { try harness.verifyCase(index) }) {
            return failure
        }
        return nil
    }

    /// A failure's check, expected and actual values on one line, at most 300 characters.
    static func brief(_ f: ConformanceFailure) -> String {
        let text = "\(f.check): expected \(f.expected), actual \(f.actual)"
            .replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\t", with: " ")
        return text.count > 300 ? String(text.prefix(297)) + "…" : text
    }

    /// Prints `line` and flushes, so a crash right after it loses nothing.
    private static func say(_ line: String) {
        print(line)
        fflush(nil)
    }
}

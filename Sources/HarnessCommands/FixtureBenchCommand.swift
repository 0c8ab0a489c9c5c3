import ArgumentParsing
import BenchmarkKit
import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import PersistenceWorkloads

/// `harness bench --fixture FILE`: the built-in query shapes (``FixtureQueryShapes``) on the
/// entities of a fixture file written by `harness fixtures`, under each `--strategy` and
/// `suggested`, with the index benchmark's reports (Markdown, JSON, HTML, SVG) in `--out`.
///
/// A team's own queries run through the Swift API instead (`IndexBenchmark` in their own
/// benchmark executable); this needs the sample schema the fixture's manifest names.
enum FixtureBenchCommand {
    /// Runs the command; returns the exit code.
    static func run(_ args: ParsedArguments, schemas: [String: HarnessSchema] = [:]) throws -> Int32 {
        let o = try BenchCommand.options(args)
        guard let fixture = o.fixture else { return 2 }
        try BenchCommand.checkRunnable(o)
        let manifest = try FixtureManifest.read(for: fixture)
        guard let schema = schemas[manifest.schema]?.schema ?? SampleSchema.named(manifest.schema)?.schema else {
            throw ArgumentError(
                code: .invalidValue, argument: fixture.path,
                message:
                    "the fixture's manifest names schema '\(manifest.schema)', which is neither a sample schema nor one this executable registers with Harness.main(schemas:)"
            )
        }
        var strategies: [IndexBenchmark.Strategy] = o.strategies.map { strategy in
            switch strategy {
            case .none: .none
            case .declared: .declared
            case .custom(let sets): .custom(strategy.description, sets)
            }
        }
        strategies.append(.suggested)
        var bench = IndexBenchmark(
            fixture.lastPathComponent, schema: schema,
            data: .storeFile(fixture, rows: manifest.scale), strategies: strategies)
        bench.store = o.stores.contains(.disk) ? .disk : .memory
        let source = try ModelContainer(
            for: schema, configurations: ModelConfiguration(url: fixture, allowsSave: false))
        var queries: [String] = []
        for entity in schema.entities {
            queries += try FixtureQueryShapes.add(entity.modelType, to: &bench, sampling: source)
        }
        guard !queries.isEmpty else {
            print("the fixture's entities have no indexed Int, Double, String or Date attribute to query")
            return 1
        }
        let report = try bench.run(configuration: o.configuration, showsProgress: true)
        let written = try report.write(to: o.out)
        print(report.markdown())
        print("reports:")
        for url in written { print("  \(url.path)") }
        return 0
    }
}

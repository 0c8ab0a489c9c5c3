import BenchmarkKit
import Foundation
import OpenSwiftDataTesting

/// `harness fixtures`: writes a seeded fixture database and its manifest, or verifies one.
///
/// ```sh
/// harness fixtures --schema catalogue --seed 1 --scale 200 --out Fixtures/catalogue.sqlite
/// harness fixtures verify Fixtures/catalogue.sqlite
/// ```
enum FixturesCommand {
    /// The subcommand's options, for the harness's argument parser.
    static let subcommand = Subcommand(
        "fixtures",
        abstract: "Write a seeded fixture database and manifest, or 'verify FILE' against its manifest.",
        options: [
            .option("schema", placeholder: "name", help: "Sample schema: "
                + SampleSchema.all.map { "\($0.name) (\($0.summary))" }.joined(separator: "; ") + "."),
            .option("seed", placeholder: "S", help: "The seed (unsigned 64-bit); default 1."),
            .option("scale", placeholder: "N", help: "Rows of the schema's main entity; default 1000."),
            .option("out", placeholder: "FILE", help: "The fixture file to write; FILE.manifest.json goes beside it."),
            .option("traits", placeholder: "a,b", help: "Data traits: " + Traits.named.map(\.name).joined(separator: ", ") + "."),
            .flag("regenerate", help: "With verify: also regenerate from the manifest's seed and compare digests."),
        ],
        positionalPlaceholder: "verify FILE")

    /// Runs the command; returns the process exit code.
    static func run(_ args: ParsedArguments) throws -> Int32 {
        if let first = args.positionals.first {
            guard first == "verify", args.positionals.count == 2 else {
                throw ArgumentError(code: .unexpectedArgument, argument: first,
                                    message: "expected 'fixtures verify FILE' or 'fixtures --schema NAME … --out FILE'")
            }
            return try verify(URL(fileURLWithPath: args.positionals[1]), regenerate: args.flag("regenerate"))
        }
        guard let name = args.value("schema") else {
            throw ArgumentError(code: .missingValue, argument: "--schema",
                                message: "--schema is required; one of: \(SampleSchema.all.map(\.name).joined(separator: ", "))")
        }
        guard let sample = SampleSchema.named(name) else {
            throw ArgumentError(code: .unexpectedValue, argument: name, message: "unknown schema '\(name)'",
                                suggestion: SampleSchema.all.map(\.name).first { $0.hasPrefix(String(name.prefix(2))) })
        }
        guard let out = args.value("out") else {
            throw ArgumentError(code: .missingValue, argument: "--out", message: "--out FILE is required")
        }
        let seedText = args.value("seed") ?? "1"
        guard let seed = UInt64(seedText.replacingOccurrences(of: "_", with: "")) else {
            throw ArgumentError(code: .unexpectedValue, argument: seedText, message: "--seed takes an unsigned 64-bit integer")
        }
        let scaleText = args.value("scale") ?? "1000"
        guard let scale = Int(scaleText.replacingOccurrences(of: "_", with: "")), scale >= 0 else {
            throw ArgumentError(code: .unexpectedValue, argument: scaleText, message: "--scale takes a row count")
        }
        guard let traits = Traits(names: args.list("traits")) else {
            throw ArgumentError(code: .unexpectedValue, argument: args.list("traits").joined(separator: ","),
                                message: "--traits takes: \(Traits.named.map(\.name).joined(separator: ", "))")
        }
        let url = URL(fileURLWithPath: out)
        let manifest = try FixtureFile.write(sample, seed: seed, scale: scale, traits: traits, to: url)
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0
        print("wrote \(url.path) (\(size) bytes, page size \(manifest.pageSize))")
        print("manifest \(FixtureManifest.url(for: url).path)")
        print("schema \(manifest.schema), seed \(manifest.seed), scale \(manifest.scale), traits [\(manifest.traits.joined(separator: ","))]")
        for (table, rows) in manifest.rowCounts.sorted(by: { $0.key < $1.key }) { print("  \(table): \(rows) rows") }
        print("digest \(manifest.digest)")
        return 0
    }

    private static func verify(_ url: URL, regenerate: Bool) throws -> Int32 {
        let result = try FixtureFile.verify(url, regenerate: regenerate)
        if result.isValid {
            print("ok \(url.path): digest \(result.content.digest)\(regenerate ? " (regenerated: same)" : "")")
            return 0
        }
        print("MISMATCH \(url.path):")
        for line in result.mismatches { print("  \(line)") }
        return 1
    }
}

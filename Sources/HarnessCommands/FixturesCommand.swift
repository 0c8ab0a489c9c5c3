import ArgumentParsing
import BenchmarkKit
import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

/// `harness fixtures`: writes a seeded fixture database and its manifest, verifies one, or
/// describes any SwiftData/Core Data store file.
///
/// ```sh
/// harness fixtures --schema catalogue --seed 1 --scale 200 --out Fixtures/catalogue.sqlite
/// harness fixtures verify Fixtures/catalogue.sqlite
/// harness fixtures verify ~/Downloads/default.store       # no manifest: integrity and metadata
/// harness fixtures describe ~/Downloads/default.store --json
/// harness fixtures subset ~/Downloads/default.store --schema catalogue --keep CatalogueProduct:20 --out small.store
/// harness fixtures diff old.sqlite new.sqlite --limit 20   # FixtureDiffCommand; exit 1 when they differ
/// ```
enum FixturesCommand {
    /// The subcommand's options, for the harness's argument parser.
    static let subcommand = Subcommand(
        "fixtures",
        abstract:
            "Write a seeded fixture database and manifest; 'verify FILE' (against its manifest, or integrity and metadata of a store without one); 'describe FILE' (entities, metadata, tables, indexes of any SwiftData/Core Data store); 'subset FILE' (a small, referentially complete, optionally scrubbed copy); 'diff A B' (schema, row counts and changed rows between two stores; exit 0 identical, 1 different, 2 unreadable).",
        options: [
            .option(
                "schema", placeholder: "name",
                help: "Sample schema: "
                    + SampleSchema.all.map { "\($0.name) (\($0.summary))" }.joined(separator: "; ")
                    + "; or a schema your executable registers with Harness.main(schemas:). With diff: names both files' properties."
            ),
            .option("seed", placeholder: "S", range: .seed, help: "The seed; default 1."),
            .option(
                "scale", placeholder: "N", range: .integers(scales),
                help:
                    "Rows of a sample schema's main entity, or of each class of your schema that its counts do not name; default 1000."
            ),
            .option("out", placeholder: "FILE", help: "The fixture file to write; FILE.manifest.json goes beside it."),
            .option(
                "traits", placeholder: "a,b", list: true,
                help: "Data traits: " + Traits.named.map(\.name).joined(separator: ", ") + "."),
            .flag("regenerate", help: "With verify: also regenerate from the manifest's seed and compare digests."),
            .flag("json", help: "With describe or diff: print JSON instead of text."),
            .option(
                "limit", placeholder: "N", range: .integers(FixtureDiffCommand.limits),
                help: "With diff: changed rows printed per entity, then '… and K more'; default all."),
        ] + FixturesSubsetCommand.options,
        positionalPlaceholder: "verify FILE | describe FILE | subset FILE | diff A B")

    /// The row counts `--scale` takes: up to 10,000,000, ten times the largest fixture the project
    /// builds (the 1,000,000-row benchmark fixtures). The generator holds a scale's rows in memory
    /// before it writes them, so a mistyped count beyond this would fail only once memory runs out.
    static let scales = 1...10_000_000

    /// What `fixtures` was asked to do, with every option validated.
    enum Mode {
        /// `fixtures --schema NAME [--seed S] [--scale N] [--traits a,b] --out FILE`.
        case write(name: String, schema: Schema, fixture: Fixture, scale: Int, out: URL)
        /// `fixtures verify FILE [--regenerate]`; the file itself is checked by the library.
        case verify(URL, regenerate: Bool)
        /// `fixtures describe FILE [--json]`: what any store file holds, read-only.
        case describe(URL, json: Bool)
    }

    /// The options of each mode; an option of the other mode is an error, not silently ignored.
    static let writeOptions = ["schema", "seed", "scale", "out", "traits"]

    /// Parses and validates every option and positional; writes nothing.
    ///
    /// - Throws: ``ArgumentError`` naming the option.
    static func mode(_ args: ParsedArguments, schemas: [String: HarnessSchema] = [:]) throws -> Mode {
        if let stray = FixturesSubsetCommand.options.map(\.name).first(where: { args.value($0) != nil }) {
            throw ArgumentError(
                code: .unexpectedArgument, argument: "--\(stray)",
                message: "--\(stray) goes with 'fixtures subset FILE'")
        }
        if args.value("limit") != nil {
            throw ArgumentError(
                code: .unexpectedArgument, argument: "--limit", message: "--limit goes with 'fixtures diff A B'")
        }
        if let first = args.positionals.first {
            guard first == "verify" || first == "describe", args.positionals.count == 2 else {
                throw ArgumentError(
                    code: .unexpectedArgument, argument: first,
                    message:
                        "expected 'fixtures verify FILE', 'fixtures describe FILE', 'fixtures subset FILE …', 'fixtures diff A B' or 'fixtures --schema NAME … --out FILE'"
                )
            }
            if let stray = writeOptions.first(where: { args.value($0) != nil }) {
                throw ArgumentError(
                    code: .unexpectedArgument, argument: "--\(stray)",
                    message:
                        "--\(stray) writes a fixture; 'fixtures \(first) FILE' takes only --\(first == "verify" ? "regenerate" : "json")"
                )
            }
            let url = URL(fileURLWithPath: args.positionals[1])
            if first == "describe" {
                if args.flag("regenerate") {
                    throw ArgumentError(
                        code: .unexpectedArgument, argument: "--regenerate",
                        message: "--regenerate goes with 'fixtures verify FILE'")
                }
                return .describe(url, json: args.flag("json"))
            }
            if args.flag("json") {
                throw ArgumentError(
                    code: .unexpectedArgument, argument: "--json",
                    message: "--json goes with 'fixtures describe FILE'")
            }
            return .verify(url, regenerate: args.flag("regenerate"))
        }
        if args.flag("regenerate") {
            throw ArgumentError(
                code: .unexpectedArgument, argument: "--regenerate",
                message: "--regenerate goes with 'fixtures verify FILE'")
        }
        if args.flag("json") {
            throw ArgumentError(
                code: .unexpectedArgument, argument: "--json",
                message: "--json goes with 'fixtures describe FILE'")
        }
        let names = SampleSchema.all.map(\.name) + schemas.keys.sorted()
        guard let name = try args.choice("schema", from: names) else {
            throw ArgumentError(
                code: .missingValue, argument: "--schema",
                message: "--schema is required; one of: \(names.joined(separator: ", "))")
        }
        let seed = try args.integer("seed", as: UInt64.self) ?? 1
        let scale = try args.integer("scale", in: scales) ?? 1000
        let traitNames = try args.choices("traits", from: Traits.named.map(\.name))
        let traits = Traits.named.filter { traitNames.contains($0.name) }.reduce(into: Traits()) { $0.insert($1.trait) }
        guard let out = try args.writableFile("out") else {
            throw ArgumentError(code: .missingValue, argument: "--out", message: "--out FILE is required")
        }
        if let team = schemas[name] {
            return .write(
                name: name, schema: team.schema, fixture: team.fixture(seed: seed, defaultCount: scale, traits: traits),
                scale: scale, out: out)
        }
        let sample = SampleSchema.named(name)!  // a name of the list above
        return .write(
            name: name, schema: sample.schema, fixture: sample.fixture(seed: seed, scale: scale, traits: traits),
            scale: scale, out: out)
    }

    /// Runs the command; returns the process exit code.
    static func run(_ args: ParsedArguments, schemas: [String: HarnessSchema] = [:]) throws -> Int32 {
        if args.positionals.first == "subset" { return try FixturesSubsetCommand.run(args, schemas: schemas) }
        if FixtureDiffCommand.isRequested(args) { return try FixtureDiffCommand.run(args, schemas: schemas) }
        switch try mode(args, schemas: schemas) {
        case .verify(let url, let regenerate):
            return try verify(url, regenerate: regenerate)
        case .describe(let url, let json):
            return try describe(url, json: json)
        case .write(let name, let schema, let fixture, let scale, let url):
            let manifest = try FixtureFile.write(fixture, schema: schema, name: name, scale: scale, to: url)
            let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber
            print("wrote \(url.path) (\(size.map { "\($0) bytes, " } ?? "")page size \(manifest.pageSize))")
            print("manifest \(FixtureManifest.url(for: url).path)")
            print(
                "schema \(manifest.schema), seed \(manifest.seed), scale \(manifest.scale), traits [\(manifest.traits.joined(separator: ","))]"
            )
            for (table, rows) in manifest.rowCounts.sorted(by: { $0.key < $1.key }) {
                print("  \(table): \(rows) rows")
            }
            print("digest \(manifest.digest)")
            return 0
        }
    }

    private static func verify(_ url: URL, regenerate: Bool) throws -> Int32 {
        guard FixtureFile.hasManifest(url) || !FileManager.default.fileExists(atPath: url.path) else {
            return try verifyStore(url, regenerate: regenerate)
        }
        let result = try FixtureFile.verify(url, regenerate: regenerate)
        if result.isValid {
            print(
                "ok \(url.path): integrity_check ok, digest \(result.content.digest)\(regenerate ? " (regenerated: same)" : "")"
            )
            return 0
        }
        print("MISMATCH \(url.path):")
        for line in result.mismatches { print("  \(line)") }
        return 1
    }

    /// `verify` on a store without a manifest (one copied from a device): integrity and metadata.
    private static func verifyStore(_ url: URL, regenerate: Bool) throws -> Int32 {
        let path = url.relativePath
        if regenerate {
            throw ArgumentError(
                code: .unexpectedArgument, argument: "--regenerate",
                message:
                    "\(path) has no manifest (\(FixtureManifest.url(for: url).lastPathComponent)), so there is no seed to regenerate from"
            )
        }
        let result = try FixtureFile.verifyStore(url)
        let metadata = result.metadata
        let summary =
            "\(result.entityCount) entities, store \(metadata.uuid), framework \(metadata.frameworkVersion.map(String.init) ?? "unknown")"
        if result.isValid {
            print("ok \(path): integrity_check ok, metadata readable (\(summary))")
            print(
                "no manifest (\(FixtureManifest.url(for: url).lastPathComponent)) beside it: content not compared; 'harness fixtures describe \(path)' shows it"
            )
            return 0
        }
        print("DAMAGED \(path): metadata readable (\(summary)), integrity_check reports:")
        for line in result.integrityProblems { print("  \(line)") }
        return 1
    }

    /// `describe`: entities, metadata, tables and indexes of any store file, as text or JSON.
    private static func describe(_ url: URL, json: Bool) throws -> Int32 {
        let description = try StoreFileDescription(contentsOf: url)
        if json {
            print(String(decoding: try description.json(), as: UTF8.self))
        } else {
            print(description.text, terminator: "")
        }
        return 0
    }
}

import ArgumentParsing
import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

/// `harness fixtures diff A B [--schema NAME] [--json] [--limit N]`: what changed between two
/// versions of a fixture or store file (``FixtureDiff``), read-only.
///
/// Exit codes, like diff(1): 0 when the files hold the same schema and rows, 1 when they
/// differ, 2 when a file cannot be read (missing, not SQLite, not a store, damaged) or an option
/// is wrong; the reason is one line on standard error.
///
/// ```sh
/// harness fixtures diff Fixtures/catalogue.sqlite /tmp/catalogue-seed2.sqlite --limit 5
/// harness fixtures diff old/default.store new/default.store --json > diff.json
/// ```
enum FixtureDiffCommand {
    /// The options `fixtures diff` takes besides its two files.
    static let options: Set<String> = ["schema", "json", "limit"]

    /// The largest `--limit`: more rows than any fixture the harness writes.
    static let limits = 0...Int(Int32.max)

    /// Whether `args` ask for `fixtures diff`.
    static func isRequested(_ args: ParsedArguments) -> Bool { args.positionals.first == "diff" }

    /// The validated request: the two files, the schema naming their properties, the output form.
    struct Request {
        var a: URL
        var b: URL
        var schema: Schema?
        var json: Bool
        var limit: Int?
    }

    /// Parses and validates `fixtures diff`'s arguments; reads nothing.
    ///
    /// - Throws: ``ArgumentError`` naming the argument.
    static func request(_ args: ParsedArguments, schemas: [String: HarnessSchema]) throws -> Request {
        guard args.positionals.count == 3 else {
            throw ArgumentError(
                code: .unexpectedArgument, argument: args.positionals.dropFirst(3).first ?? "diff",
                message: "expected 'fixtures diff A B': two store or fixture files")
        }
        for option in ["seed", "scale", "out", "traits"] where args.value(option) != nil {
            throw ArgumentError(
                code: .unexpectedArgument, argument: "--\(option)",
                message: "--\(option) writes a fixture; 'fixtures diff A B' takes --schema, --json and --limit")
        }
        for option in FixturesSubsetCommand.options.map(\.name) where args.value(option) != nil {
            throw ArgumentError(
                code: .unexpectedArgument, argument: "--\(option)",
                message: "--\(option) goes with 'fixtures subset FILE'")
        }
        if args.flag("regenerate") {
            throw ArgumentError(
                code: .unexpectedArgument, argument: "--regenerate",
                message: "--regenerate goes with 'fixtures verify FILE'")
        }
        if args.flag("json"), args.value("limit") != nil {
            throw ArgumentError(
                code: .unexpectedArgument, argument: "--limit",
                message: "--limit shortens the text; --json prints every changed row")
        }
        var schema: Schema? = nil
        if args.value("schema") != nil {
            let names = SampleSchema.all.map(\.name) + schemas.keys.sorted()
            let name = try args.choice("schema", from: names)
            schema = name.flatMap { schemas[$0]?.schema ?? SampleSchema.named($0)?.schema }
        }
        return Request(
            a: URL(fileURLWithPath: args.positionals[1]), b: URL(fileURLWithPath: args.positionals[2]),
            schema: schema, json: args.flag("json"), limit: try args.integer("limit", in: limits))
    }

    /// Runs `fixtures diff`; returns 0 (identical), 1 (different) or 2 (a file cannot be read,
    /// its message printed to standard error).
    static func run(_ args: ParsedArguments, schemas: [String: HarnessSchema]) throws -> Int32 {
        let request = try request(args, schemas: schemas)
        let diff: FixtureDiff
        do {
            diff = try FixtureDiff(request.a, request.b, schema: request.schema)
        } catch let error as SwiftDataError {
            FileHandle.standardError.write(Data("harness: \(error.message)\n".utf8))
            return 2
        }
        if request.json {
            print(String(decoding: try diff.json(), as: UTF8.self))
        } else {
            print(diff.text(limit: request.limit), terminator: "")
        }
        return diff.isIdentical ? 0 : 1
    }
}

import ArgumentParsing
import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

/// `harness fixtures subset FILE --schema NAME --keep Entity:N … [--seed S] [--scrub Entity.attribute[=kind] …] --out FILE`:
/// a small, referentially complete, optionally scrubbed copy of any store file (``FixtureSubset``).
///
/// ```sh
/// harness fixtures subset ~/Downloads/default.store --schema shop --keep Order:50 --scrub Customer.email --out Fixtures/orders-50.store
/// ```
enum FixturesSubsetCommand {
    /// The options only `subset` takes; they are declared on `fixtures`.
    static let options: [CommandOption] = [
        .option(
            "keep", placeholder: "Entity:N", repeatable: true,
            help:
                "With subset: keep N rows of Entity ('all' for every row), picked by --seed; what they require comes along."
        ),
        .option(
            "scrub", placeholder: "Entity.attribute[=kind]", repeatable: true,
            help:
                "With subset: replace a String attribute's values deterministically; kinds: email, name, text, digits (phone); inferred when omitted."
        ),
    ]

    /// The options of `fixtures` that `subset` does not take.
    static let foreignOptions = ["scale", "traits", "limit"]
    /// The flags of `fixtures` that `subset` does not take.
    static let foreignFlags = ["regenerate", "json"]

    /// A checked `subset` request.
    struct Request {
        var input: URL
        var schemaName: String
        var schema: Schema
        var keep: [String: Int]
        var seed: UInt64
        var scrub: [FixtureScrub.Rule]
        var output: URL
    }

    /// Parses and validates the arguments of `fixtures subset FILE …`; reads no file.
    ///
    /// - Throws: ``ArgumentError`` naming the option.
    static func request(_ args: ParsedArguments, schemas: [String: HarnessSchema]) throws -> Request {
        guard args.positionals.count == 2 else {
            throw ArgumentError(
                code: .unexpectedArgument, argument: args.positionals.dropFirst(2).first ?? "subset",
                message: "expected 'fixtures subset FILE --schema NAME --keep Entity:N … --out FILE'")
        }
        if let stray = foreignOptions.first(where: { args.value($0) != nil }) ?? foreignFlags.first(where: args.flag) {
            throw ArgumentError(
                code: .unexpectedArgument, argument: "--\(stray)",
                message: "--\(stray) does not go with 'fixtures subset'")
        }
        let names = SampleSchema.all.map(\.name) + schemas.keys.sorted()
        guard let name = try args.choice("schema", from: names) else {
            throw ArgumentError(
                code: .missingValue, argument: "--schema",
                message:
                    "--schema is required: the schema the store was written with; one of: \(names.joined(separator: ", "))"
            )
        }
        let schema = schemas[name]?.schema ?? SampleSchema.named(name)!.schema  // a name of the list above
        var keep: [String: Int] = [:]
        for item in args.list("keep") {
            let parts = item.split(separator: ":", omittingEmptySubsequences: false)
            let count = parts.count == 2 ? (parts[1] == "all" ? FixtureSubset.all : Int(parts[1])) : nil
            guard let count, count >= 0, !parts[0].isEmpty else {
                throw ArgumentError(
                    code: .invalidValue, argument: item,
                    message: "--keep takes Entity:N (N a count of 0 or more, or 'all'), not '\(item)'")
            }
            guard keep.updateValue(count, forKey: String(parts[0])) == nil else {
                throw ArgumentError(code: .invalidValue, argument: item, message: "--keep names \(parts[0]) twice")
            }
        }
        if keep.isEmpty {
            throw ArgumentError(
                code: .missingValue, argument: "--keep",
                message: "--keep Entity:N is required (repeat it for more entities)")
        }
        let scrub = try args.list("scrub").map { text in
            do { return try FixtureScrub.Rule(parsing: text) } catch let error as FixtureSubsetError {
                throw ArgumentError(code: .invalidValue, argument: text, message: "--scrub: \(error)")
            }
        }
        do {
            try FixtureSubset.validate(schema: schema, keep: keep, scrub: scrub)
        } catch let error as FixtureSubsetError {
            let option: String
            switch error {
            case .unknownEntity(let entity, _): option = keep[entity] != nil ? "keep" : "scrub"
            case .negativeCount: option = "keep"
            default: option = "scrub"
            }
            throw ArgumentError(code: .invalidValue, argument: "--\(option)", message: "--\(option): \(error)")
        }
        guard let output = try args.writableFile("out") else {
            throw ArgumentError(code: .missingValue, argument: "--out", message: "--out FILE is required")
        }
        return Request(
            input: URL(fileURLWithPath: args.positionals[1]), schemaName: name, schema: schema, keep: keep,
            seed: try args.integer("seed", as: UInt64.self) ?? 1, scrub: scrub, output: output)
    }

    /// Runs `fixtures subset`; returns 0 when the result passed its checks, 1 otherwise.
    static func run(_ args: ParsedArguments, schemas: [String: HarnessSchema]) throws -> Int32 {
        let request = try request(args, schemas: schemas)
        let summary = try FixtureSubset.write(
            from: request.input, schema: request.schema, keep: request.keep, seed: request.seed,
            scrub: request.scrub, to: request.output)
        print(summary.text, terminator: "")
        return summary.isValid ? 0 : 1
    }
}

import ArgumentParsing
import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

@testable import HarnessCommands

/// `harness fixtures subset`: the summary it prints, the file it writes, and its usage errors.
@Suite("fixtures subset on the command line")
struct FixturesSubsetCommandTests {
    /// A catalogue fixture of 60 products in a fresh directory.
    private static func catalogue(in dir: URL) throws -> URL {
        let url = dir.appendingPathComponent("catalogue.sqlite")
        try FixtureFile.write(.catalogue, seed: 1, scale: 60, to: url)
        return url
    }

    @Test("FIX-10 FIX-12 FIX-13 FIX-14: subset --keep --scrub writes a checked copy; the input keeps its bytes")
    func subset() throws {
        let scratch = try ScratchDirectory(prefix: "fixtures-subset")
        let input = try Self.catalogue(in: scratch.url)
        let before = try Data(contentsOf: input)
        let out = scratch.url.appendingPathComponent("small.sqlite")
        let arguments = [
            "fixtures", "subset", input.path, "--schema", "catalogue", "--keep", "CatalogueProduct:8",
            "--keep", "CatalogueTag:2", "--seed", "4", "--scrub", "CatalogueProduct.name,CatalogueProduct.sku=digits",
            "--out", out.path,
        ]
        #expect(Harness.main(arguments) == 0)
        #expect(try Data(contentsOf: input) == before)
        let first = try Data(contentsOf: out)
        #expect(Harness.main(arguments) == 0)
        #expect(try Data(contentsOf: out) == first, "same seed, same file")
        #expect(try FixtureSubset.referentialProblems(of: out, schema: SampleSchema.catalogue.schema).isEmpty)
        let fixture = try FixtureDatabase(contentsOf: out, sample: .catalogue, store: .memory)
        let context = ModelContext(fixture.container)
        #expect(try context.fetchCount(FetchDescriptor<CatalogueProduct>()) == 8)
        #expect(try context.fetchCount(FetchDescriptor<CatalogueTag>()) == 2)
        #expect(try context.fetchCount(FetchDescriptor<CatalogueCategory>()) == 0)
    }

    @Test("FIX-15: unknown entities and attributes, malformed --keep, options of other modes are usage errors")
    func usageErrors() throws {
        let scratch = try ScratchDirectory(prefix: "fixtures-subset")
        let input = try Self.catalogue(in: scratch.url)
        let out = scratch.url.appendingPathComponent("x.sqlite").path
        let base = ["fixtures", "subset", input.path, "--schema", "catalogue", "--out", out]
        let parser = Harness.parser
        func error(_ extra: [String]) throws -> ArgumentError? {
            do {
                _ = try FixturesSubsetCommand.request(try parser.parse(base + extra), schemas: [:])
                return nil
            } catch let error as ArgumentError {
                return error
            }
        }
        let unknown = try error(["--keep", "Product:3"])
        #expect(
            unknown?.message
                == "--keep: no entity 'Product' in the schema; entities: CatalogueCategory, CatalogueProduct, CatalogueTag"
        )
        let attribute = try error(["--keep", "CatalogueProduct:3", "--scrub", "CatalogueProduct.title"])
        #expect(
            attribute?.message.hasPrefix("--scrub: CatalogueProduct has no attribute 'title'; its attributes: ") == true
        )
        let type = try error(["--keep", "CatalogueProduct:3", "--scrub", "CatalogueProduct.price"])
        #expect(type?.message.contains("CatalogueProduct.price is a Double; only String attributes") == true)
        #expect(try error(["--keep", "CatalogueProduct"])?.code == .invalidValue)
        #expect(try error(["--keep", "CatalogueProduct:-2"])?.code == .invalidValue)
        #expect(
            try error(["--keep", "CatalogueProduct:1", "--scrub", "CatalogueProduct.name=mail"])?.code == .invalidValue)
        #expect(try error([])?.argument == "--keep")
        #expect(try error(["--keep", "CatalogueProduct:1", "--scale", "3"])?.argument == "--scale")
        #expect(Harness.main(base + ["--keep", "Product:3"]) == 2)
        #expect(Harness.main(["fixtures", "verify", input.path, "--keep", "CatalogueProduct:3"]) == 2)
        #expect(!FileManager.default.fileExists(atPath: out))
        // The output may not be the input: refused before anything is written.
        let before = try Data(contentsOf: input)
        #expect(
            Harness.main([
                "fixtures", "subset", input.path, "--schema", "catalogue", "--keep", "CatalogueTag:1", "--out",
                input.path,
            ])
                == 1)
        #expect(try Data(contentsOf: input) == before)
    }

    @Test("FIX-10: subset --schema takes a schema an executable registers with Harness.main(schemas:)")
    func teamSchema() throws {
        let scratch = try ScratchDirectory(prefix: "fixtures-subset")
        let input = scratch.url.appendingPathComponent("users.sqlite")
        try FixtureFile.write(.users, seed: 2, scale: 40, to: input)
        let out = scratch.url.appendingPathComponent("team.sqlite")
        let team = ["team": HarnessSchema(SampleSchema.users.schema)]
        let arguments = [
            "fixtures", "subset", input.path, "--schema", "team", "--keep", "AccountUser:7", "--scrub",
            "AccountUser.email=email", "--out", out.path,
        ]
        #expect(Harness.main(arguments, schemas: team) == 0)
        let fixture = try FixtureDatabase(contentsOf: out, sample: .users, store: .memory)
        let context = ModelContext(fixture.container)
        #expect(try context.fetchCount(FetchDescriptor<AccountUser>()) == 7)
    }

}

import DecodingDiagnostics
import Foundation
import OpenSwiftData

/// The JSON manifest written beside a fixture file as `<file>.manifest.json`.
///
/// ```swift
/// let manifest = try FixtureManifest.read(for: URL(fileURLWithPath: "Fixtures/catalogue.sqlite"))
/// manifest.digest   // SHA-256 of the canonical dump (see ``CanonicalDump``)
/// ```
public struct FixtureManifest: Codable, Sendable, Equatable {
    /// The version of the generators and word lists; any change to generated data bumps it.
    package static let currentGeneratorVersion = 1

    /// `currentGeneratorVersion` when the fixture was written.
    package var generatorVersion: Int
    /// The sample schema's name (or the name given for a custom fixture).
    public var schema: String
    /// The fixture seed.
    public var seed: UInt64
    /// The scale (the main entity's row count).
    package var scale: Int
    /// The traits' command-line names.
    package var traits: [String]
    /// The file's SQLite page size.
    package var pageSize: Int
    /// SHA-256 of `Z_METADATA`'s `schema` text.
    package var schemaHash: String
    /// Rows per table.
    public var rowCounts: [String: Int]
    /// SHA-256 of the canonical dump.
    public var digest: String

    /// Creates a manifest.
    ///
    /// ```swift
    /// let m = FixtureManifest(schema: "users", seed: 1, scale: 10, traits: [], pageSize: 4096, content: content)
    /// ```
    package init(
        generatorVersion: Int = FixtureManifest.currentGeneratorVersion, schema: String, seed: UInt64,
        scale: Int, traits: [String], pageSize: Int, content: CanonicalDump.Content
    ) {
        self.generatorVersion = generatorVersion
        self.schema = schema
        self.seed = seed
        self.scale = scale
        self.traits = traits
        self.pageSize = pageSize
        self.schemaHash = content.schemaHash
        self.rowCounts = content.rowCounts
        self.digest = content.digest
    }

    /// `<fixture>.manifest.json`.
    ///
    /// ```swift
    /// FixtureManifest.url(for: URL(fileURLWithPath: "a.sqlite")).lastPathComponent   // "a.sqlite.manifest.json"
    /// ```
    package static func url(for fixture: URL) -> URL {
        fixture.deletingLastPathComponent().appendingPathComponent(fixture.lastPathComponent + ".manifest.json")
    }

    /// Reads the manifest beside `fixture`.
    ///
    /// - Throws: `SwiftDataError` `.loadIssueModelContainer` whose one-line message names the
    ///   manifest file, when it is missing, unreadable, not JSON, or lacks or mistypes a field.
    /// ```swift
    /// let m = try FixtureManifest.read(for: fixtureURL)
    /// ```
    public static func read(for fixture: URL) throws -> FixtureManifest {
        let manifestURL = url(for: fixture)
        let path = manifestURL.relativePath
        let rewrite = "write the fixture again with 'harness fixtures --schema NAME --out \(fixture.relativePath)'"
        func failure(_ problem: String, _ underlying: (any Error)? = nil) -> SwiftDataError {
            SwiftDataError(
                SwiftDataError.loadIssueModelContainer.code, "\(path): \(problem); \(rewrite)",
                url: manifestURL, underlying: underlying)
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: manifestURL.path, isDirectory: &isDirectory) else {
            throw failure("no such manifest (a fixture's manifest is written beside it)")
        }
        if isDirectory.boolValue { throw failure("a directory, not a fixture manifest") }
        let data: Data
        do {
            data = try Data(contentsOf: manifestURL)
        } catch {
            throw failure("cannot be read (\((error as NSError).localizedDescription))", error)
        }
        do {
            return try JSONDecoder().decode(FixtureManifest.self, from: data)
        } catch let error as DecodingError {
            throw failure("not a fixture manifest: \(error.briefDescription)", error)
        }
    }

    /// Writes the manifest beside `fixture`: pretty-printed JSON with sorted keys and a final
    /// line feed, so the same content always gives the same bytes.
    ///
    /// ```swift
    /// try manifest.write(for: fixtureURL)
    /// ```
    package func write(for fixture: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(0x0A)
        try data.write(to: FixtureManifest.url(for: fixture), options: .atomic)
    }
}

import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

/// `harness fixtures verify FILE` and `harness fixtures describe FILE [--json]` on a store copied
/// from a running app (no manifest, rows only in `-wal`), run as the user runs them: the
/// `harness` executable built beside the test bundle.
@Suite("Fixtures store-file commands", .serialized)
struct StoreFileCommandTests {
    /// Runs `harness` with `arguments`; returns its exit status, standard output and error.
    private static func harness(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let executable = try #require(
            ReliabilityProbes.harness(), "the harness executable was not found beside the test bundle")
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let error = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output, error)
    }

    /// A library store copied (file, `-wal`, `-shm`) while its app still has it open.
    private static func copiedStore(in dir: URL) throws -> URL {
        let app = dir.appendingPathComponent("app.store")
        let container = try ModelContainer(for: librarySchema, configurations: ModelConfiguration(url: app))
        let context = ModelContext(container)
        let shelf = Shelf(name: "Fiction")
        context.insert(shelf)
        for (n, book) in [
            Book(title: "A", pages: 10), Book(title: "B", pages: 20), Book(title: "C", pages: 30),
            Comic(title: "D", pages: 40, artist: "E"),
        ].enumerated() {
            context.insert(book)
            book.shelf = n < 2 ? shelf : nil
        }
        try context.save()
        let copy = dir.appendingPathComponent("copied").appendingPathComponent("default.store")
        try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: app.path + suffix, toPath: copy.path + suffix)
        }
        return copy
    }

    private static func bytes(_ url: URL) throws -> [Data] {
        [try Data(contentsOf: url), try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal"))]
    }

    @Test("verify and describe a copied store without a manifest; the file and its -wal keep their bytes")
    func verifyAndDescribeCopiedStore() throws {
        let scratch = try ScratchDirectory(prefix: "osdt")
        let dir = scratch.url
        let url = try Self.copiedStore(in: dir)
        let before = try Self.bytes(url)
        #expect(before[1].count > 0, "the rows are in the -wal file")

        let verify = try Self.harness(["fixtures", "verify", url.path])
        #expect(verify.status == 0, "\(verify.output)\(verify.error)")
        #expect(
            verify.output.hasPrefix("ok ") && verify.output.contains("integrity_check ok, metadata readable"),
            "\(verify.output)")
        #expect(verify.output.contains("no manifest"), "\(verify.output)")

        let text = try Self.harness(["fixtures", "describe", url.path])
        #expect(text.status == 0, "\(text.error)")
        for part in ["entities (Z_PRIMARYKEY)", "version hashes", "tables", "indexes", "Comic", "ZBOOK"] {
            #expect(text.output.contains(part), "\(part) in \(text.output)")
        }

        let json = try Self.harness(["fixtures", "describe", url.path, "--json"])
        #expect(json.status == 0, "\(json.error)")
        let description = try JSONDecoder().decode(StoreFileDescription.self, from: Data(json.output.utf8))
        let entities = Dictionary(uniqueKeysWithValues: description.entities.map { ($0.name, $0) })
        #expect(entities["Comic"]?.parent == "Book" && entities["Comic"]?.table == "ZBOOK")
        #expect(entities["Book"]?.rows == 3 && entities["Comic"]?.rows == 1 && entities["Shelf"]?.rows == 1)
        #expect(description.tables.first { $0.name == "ZBOOK" }?.rows == 4)
        #expect(description.metadata.versionHashes.keys.sorted() == ["Book", "Comic", "Label", "Shelf"])
        #expect(description.indexes.contains { $0.unique && $0.table == "ZSHELF" && $0.columns == ["ZNAME"] })
        #expect(try Self.bytes(url) == before)

        // A fixture with its manifest is still verified against it.
        let fixture = try Self.harness([
            "fixtures", "verify", committedFixtures.appendingPathComponent("users.sqlite").path,
        ])
        #expect(fixture.status == 0 && fixture.output.contains("digest"), "\(fixture.output)\(fixture.error)")
        // --regenerate needs a manifest's seed.
        #expect(try Self.harness(["fixtures", "verify", url.path, "--regenerate"]).status == 2)
    }

    @Test("describe and verify give one line and exit 1 for a file that is no Core Data store")
    func notAStore() throws {
        let scratch = try ScratchDirectory(prefix: "osdt")
        let dir = scratch.url
        let text = dir.appendingPathComponent("notes.store")
        try Data("not a database, only some text that is long enough to be read\n".utf8).write(to: text)
        let plain = dir.appendingPathComponent("plain.sqlite")
        let db = try SQLiteConnection(path: plain.path)
        try db.execute("CREATE TABLE t (x)")
        db.close()
        for (file, phrase) in [(text, "not an SQLite database"), (plain, "not a SwiftData or Core Data store")] {
            for command in ["describe", "verify"] {
                let result = try Self.harness(["fixtures", command, file.path])
                #expect(result.status == 1, "\(command) \(file.lastPathComponent)")
                #expect(result.output.isEmpty)
                let lines = result.error.split(separator: "\n")
                #expect(
                    lines.count == 1 && lines[0].hasPrefix("harness: ") && lines[0].contains(phrase)
                        && lines[0].contains(file.lastPathComponent), "\(command): \(result.error)")
            }
        }
    }
}

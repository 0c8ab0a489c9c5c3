import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

/// `FixtureFile.verify` on damaged fixtures and on inputs that are not fixtures at all.
@Suite("Fixtures verify")
struct FixtureVerifyTests {
    /// A copy of the committed `users` fixture and its manifest in a fresh directory.
    static func copyOfUsersFixture(in dir: URL) throws -> URL {
        let source = committedFixtures.appendingPathComponent("users.sqlite")
        let copy = dir.appendingPathComponent("users.sqlite")
        try FileManager.default.copyItem(at: source, to: copy)
        try FileManager.default.copyItem(at: FixtureManifest.url(for: source), to: FixtureManifest.url(for: copy))
        return copy
    }

    @Test("an index that disagrees with its table fails verification, naming the index")
    func corruptIndexFailsVerification() throws {
        let scratch = try ScratchDirectory(prefix: "osdt")
        let dir = scratch.url
        let url = try Self.copyOfUsersFixture(in: dir)
        #expect(try FixtureFile.verify(url).isValid)

        // Re-declare the username index as an index on Z_PK without rebuilding it: the index
        // b-tree still holds usernames, so every row is "missing" from it, while the table
        // rows (and so the canonical dump) are untouched.
        let db = try SQLiteConnection(path: url.path, mode: .readWrite)
        try db.execute("PRAGMA writable_schema = ON")
        try db.run(
            "UPDATE sqlite_master SET sql = ? WHERE name = ?",
            [
                .text("CREATE UNIQUE INDEX Z_AccountUser_UNIQUE_username ON ZACCOUNTUSER (Z_PK)"),
                .text("Z_AccountUser_UNIQUE_username"),
            ])
        db.close()

        let verification = try FixtureFile.verify(url)
        #expect(!verification.isValid)
        #expect(verification.content.digest == verification.manifest.digest, "the table rows are intact")
        #expect(!verification.integrityProblems.isEmpty)
        #expect(
            verification.integrityProblems.allSatisfy { $0.contains("Z_AccountUser_UNIQUE_username") },
            "\(verification.integrityProblems.prefix(3))")
        #expect(
            verification.mismatches.contains { $0.hasPrefix("integrity_check: ") && $0.contains("missing from index") },
            "\(verification.mismatches.prefix(3))")
    }

    /// One kind of input that is not a usable fixture, and the error code it must give.
    struct BadInput: CustomTestStringConvertible, Sendable {
        var name: String
        var code: SwiftDataError.Code
        /// Makes the bad input under `dir`; returns the path passed to `verify`.
        var make: @Sendable (URL) throws -> URL
        var testDescription: String { name }
    }

    static let badInputs: [BadInput] = [
        BadInput(name: "missing file", code: SwiftDataError.loadIssueModelContainer.code) { dir in
            dir.appendingPathComponent("absent.sqlite")
        },
        BadInput(name: "missing manifest", code: SwiftDataError.loadIssueModelContainer.code) { dir in
            let url = try copyOfUsersFixture(in: dir)
            try FileManager.default.removeItem(at: FixtureManifest.url(for: url))
            return url
        },
        BadInput(name: "manifest that is not JSON", code: SwiftDataError.loadIssueModelContainer.code) { dir in
            let url = try copyOfUsersFixture(in: dir)
            try Data("{ not json".utf8).write(to: FixtureManifest.url(for: url))
            return url
        },
        BadInput(name: "manifest with a missing field", code: SwiftDataError.loadIssueModelContainer.code) { dir in
            let url = try copyOfUsersFixture(in: dir)
            try Data(#"{"schema": "users", "seed": 1}"#.utf8).write(to: FixtureManifest.url(for: url))
            return url
        },
        BadInput(name: "manifest with a field of the wrong type", code: SwiftDataError.loadIssueModelContainer.code) {
            dir in
            let url = try copyOfUsersFixture(in: dir)
            let manifestURL = FixtureManifest.url(for: url)
            let text = try String(contentsOf: manifestURL, encoding: .utf8)
                .replacingOccurrences(of: #""seed" : 1"#, with: #""seed" : "one""#)
            try Data(text.utf8).write(to: manifestURL)
            return url
        },
        BadInput(name: "text file", code: SwiftDataError.notADatabase.code) { dir in
            let url = try copyOfUsersFixture(in: dir)
            try Data(String(repeating: "this is a text file, not a database\n", count: 200).utf8).write(to: url)
            return url
        },
        BadInput(name: "random bytes", code: SwiftDataError.notADatabase.code) { dir in
            let url = try copyOfUsersFixture(in: dir)
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            let bytes = (0..<8192).map { _ -> UInt8 in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 56)
            }
            try Data(bytes).write(to: url)
            return url
        },
        BadInput(name: "empty file", code: SwiftDataError.notADatabase.code) { dir in
            let url = try copyOfUsersFixture(in: dir)
            try Data().write(to: url)
            return url
        },
        BadInput(name: "directory", code: SwiftDataError.notADatabase.code) { dir in
            let url = dir.appendingPathComponent("folder.sqlite")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
            return url
        },
        BadInput(name: "SQLite header over garbage pages", code: SwiftDataError.corruptStore.code) { dir in
            let url = try copyOfUsersFixture(in: dir)
            var data = try Data(contentsOf: url)
            for i in 100..<data.count { data[i] = UInt8(truncatingIfNeeded: i &* 31) }
            try data.write(to: url)
            return url
        },
    ]

    @Test(
        "input that is no usable fixture throws one SwiftDataError whose one-line message names the file",
        arguments: badInputs)
    func badInputGivesSwiftDataErrorNamingTheFile(_ input: BadInput) throws {
        let scratch = try ScratchDirectory(prefix: "osdt")
        let dir = scratch.url
        let url = try input.make(dir)
        let error = #expect(throws: SwiftDataError.self) { try FixtureFile.verify(url) }
        #expect(error?.code == input.code, "\(error.map { "\($0)" } ?? "no error")")
        let message = error?.message ?? ""
        #expect(message.contains(url.path), "message: \(message)")
        #expect(!message.contains("\n"), "message: \(message)")
        for raw in ["CocoaError", "DecodingError", "SQLite error", "Error Domain"] {
            #expect(!message.contains(raw), "message: \(message)")
        }
    }
}

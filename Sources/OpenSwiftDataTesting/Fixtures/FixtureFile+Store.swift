import Foundation
import OpenSwiftData

/// Checking a store file that has no manifest — one copied from a simulator or device — as far
/// as a file alone allows: SQLite's integrity check and a readable `Z_METADATA`.
extension FixtureFile {
    /// The result of ``verifyStore(_:)``: the file's health without a manifest to compare with.
    ///
    /// ```swift
    /// let check = try FixtureFile.verifyStore(URL(fileURLWithPath: "default.store"))
    /// if !check.isValid { print(check.integrityProblems.joined(separator: "\n")) }
    /// ```
    package struct StoreVerification: Sendable {
        /// The store's metadata (its UUID, framework version and entity version hashes).
        package var metadata: StoreMetadata
        /// What SQLite's `PRAGMA integrity_check` reports, one line per problem; empty for `ok`.
        package var integrityProblems: [String]
        /// The entities `Z_PRIMARYKEY` lists (history entities included).
        package var entityCount: Int
        /// `true` when SQLite finds nothing wrong.
        package var isValid: Bool { integrityProblems.isEmpty }
    }

    /// `true` when `url` has a manifest beside it (`<file>.manifest.json`), so ``verify(_:regenerate:)``
    /// applies; otherwise ``verifyStore(_:)`` checks what a file alone can show.
    ///
    /// ```swift
    /// let result = FixtureFile.hasManifest(url) ? "fixture" : "store"
    /// ```
    package static func hasManifest(_ url: URL) -> Bool {
        FileManager.default.fileExists(atPath: FixtureManifest.url(for: url).path)
    }

    /// Checks a SwiftData or Core Data store file without a manifest, read-only: SQLite's
    /// integrity check (committed content in a `-wal` beside it included) and the metadata.
    ///
    /// The file, its `-wal` and its `-shm` keep their bytes; nothing is checkpointed.
    /// ```sql
    /// PRAGMA integrity_check
    /// SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1
    /// SELECT count(*) FROM Z_PRIMARYKEY
    /// ```
    /// - Throws: `SwiftDataError` with a one-line message naming the file, as
    ///   ``StoreFileDescription/init(contentsOf:)`` does: `.loadIssueModelContainer` (missing, or
    ///   not a Core Data store), `.notADatabase`, `.corruptStore` (malformed, or unreadable metadata).
    package static func verifyStore(_ url: URL) throws -> StoreVerification {
        let description = try StoreFileDescription(contentsOf: url)
        let db = try openReadOnly(url, purpose: .store)
        defer { db.close() }
        let problems = try integrityProblems(of: db, url: url, purpose: .store)
        let metadata = try StoreMetadata.read(contentsOf: url)
        return StoreVerification(
            metadata: metadata, integrityProblems: problems, entityCount: description.entities.count)
    }
}

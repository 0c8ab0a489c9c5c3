import Foundation
import OpenSwiftDataTesting
import SwiftData

/// A version-2 test on a fixture a version-1 build wrote: the plan migrates a private copy,
/// the fixture file stays as it is.
func noteSummaries(fromV1Fixture fixture: URL) throws -> [String] {
    let db = try FixtureDatabase(
        contentsOf: fixture, schema: Schema(versionedSchema: NotesV2.self),
        migrationPlan: NotesMigrationPlan.self, store: .memory)
    let notes = try ModelContext(db.container).fetch(FetchDescriptor<NotesV2.Note>(sortBy: [SortDescriptor(\.title)]))
    return notes.map { "\($0.title): \($0.words ?? 0) words, pinned \($0.pinned)" }
}

import Foundation
import SwiftData

enum NotesV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self] }

    @Model final class Note {
        var title: String
        var created_at: Date
        init(title: String, createdAt: Date) {
            self.title = title
            self.created_at = createdAt
        }
    }
}

enum NotesV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self] }

    @Model final class Note {
        @Attribute(.unique) var title: String  // unique from V2 on
        @Attribute(originalName: "created_at") var createdAt: Date  // renamed, values kept
        var pinned: Bool = false  // added with a default
        var words: Int?  // added, filled below
        init(title: String, createdAt: Date) {
            self.title = title
            self.createdAt = createdAt
        }
    }
}

enum NotesMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self] }
    static var stages: [MigrationStage] { [v1ToV2] }

    /// Titles become unique: drop duplicates with V1's models, then count words with V2's.
    static let v1ToV2 = MigrationStage.custom(
        fromVersion: NotesV1.self, toVersion: NotesV2.self,
        willMigrate: { context in
            var seen = Set<String>()
            let notes = try context.fetch(FetchDescriptor<NotesV1.Note>(sortBy: [SortDescriptor(\.created_at)]))
            for note in notes where !seen.insert(note.title).inserted { context.delete(note) }
            try context.save()
        },
        didMigrate: { context in
            for note in try context.fetch(FetchDescriptor<NotesV2.Note>()) {
                note.words = note.title.split(separator: " ").count
            }
            try context.save()
        })
}

/// Opens the notes store at `url`; a file an older version wrote is migrated first.
func openNotes(at url: URL) throws -> ModelContainer {
    try ModelContainer(
        for: Schema(versionedSchema: NotesV2.self), migrationPlan: NotesMigrationPlan.self,
        configurations: ModelConfiguration(url: url))
}

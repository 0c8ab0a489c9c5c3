// Ordinary SwiftData model code, written exactly as for Apple platforms: `import SwiftData`
// resolves to OpenSwiftData's re-export module on Linux.
import SwiftData
import Testing

@Model
final class Note {
    var title: String
    var body: String
    var created: Date
    var pinned: Bool = false
    @Relationship(deleteRule: .cascade) var attachments: [Attachment] = []

    init(title: String, body: String, created: Date = .now) {
        self.title = title
        self.body = body
        self.created = created
    }
}

@Model
final class Attachment {
    var fileName: String
    var size: Int
    var note: Note?

    init(fileName: String, size: Int) {
        self.fileName = fileName
        self.size = size
    }
}

@Suite("Compatibility")
struct CompileUnchangedTests {
    @Test("SwiftData model code compiles unchanged and round-trips", arguments: [true, false])
    func roundTrip(inMemory: Bool) throws {
        let url = URL.temporaryDirectory.appending(path: "compat-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        let config = inMemory ? ModelConfiguration(isStoredInMemoryOnly: true) : ModelConfiguration(url: url)
        let container = try ModelContainer(for: Note.self, configurations: config)
        let context = ModelContext(container)
        let note = Note(title: "Groceries", body: "milk, eggs")
        note.attachments.append(Attachment(fileName: "list.txt", size: 120))
        context.insert(note)
        try context.save()

        let reader = ModelContext(container)
        let pinnedFirst = FetchDescriptor<Note>(
            predicate: #Predicate { !$0.pinned && $0.title == "Groceries" },
            sortBy: [SortDescriptor(\.created, order: .reverse)])
        let notes = try reader.fetch(pinnedFirst)
        #expect(notes.map(\.title) == ["Groceries"])
        #expect(notes.first?.attachments.map(\.fileName) == ["list.txt"])
        #expect(notes.first?.attachments.first?.note === notes.first)
        #expect(try reader.fetchCount(FetchDescriptor<Attachment>()) == 1)
    }
}

import Foundation
import OpenSwiftData
import Testing

@Model final class EraseItem {
    var name: String
    init(name: String) { self.name = name }
}

@Suite("Container erase")
struct ContainerEraseTests {
    @Test("erase() closes the store and deletes the main, -wal and -shm files")
    func eraseDeletesFiles() throws {
        let dir = try ScratchDirectory(prefix: "erase")
        let url = dir.file("erase.store")
        let container = try ModelContainer(for: EraseItem.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        context.insert(EraseItem(name: "gone"))
        try context.save()
        #expect(FileManager.default.fileExists(atPath: url.path))
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal"))

        try container.erase()
        for suffix in ["", "-wal", "-shm"] {
            #expect(!FileManager.default.fileExists(atPath: url.path + suffix), "\(suffix) still exists")
        }
        // Existing contexts now fail with a typed error instead of touching a deleted file.
        #expect(throws: SwiftDataError.self) { try context.fetchCount(FetchDescriptor<EraseItem>()) }
        context.insert(EraseItem(name: "too late"))
        #expect(throws: SwiftDataError.self) { try context.save() }
        try container.erase()  // a second erase is a no-op

        // A new container on the same path starts empty.
        let fresh = try ModelContainer(for: EraseItem.self, configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(fresh).fetchCount(FetchDescriptor<EraseItem>()) == 0)
    }

    @Test("erase() empties an in-memory store, which stays usable")
    func eraseInMemory() throws {
        let container = try ModelContainer(
            for: EraseItem.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(EraseItem(name: "a"))
        try context.save()
        try container.erase()
        #expect(try context.fetchCount(FetchDescriptor<EraseItem>()) == 0)
        context.insert(EraseItem(name: "b"))
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<EraseItem>()).map(\.name) == ["b"])
    }
}

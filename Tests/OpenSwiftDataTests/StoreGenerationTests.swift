import Foundation
import OpenSwiftData
import Testing

/// A fetch that meets an already registered, unchanged model reloads its values only when the
/// store changed since they were read (the store's generation: this connection's saves and
/// the pager's data version, which counts every other connection's commits).
@Suite("StoreGeneration")
struct StoreGenerationTests {
    @Test(
        "a registered model is refreshed by a fetch after another connection saves, and kept as it is when nothing changed"
    )
    func otherConnectionsCommitsRefresh() throws {
        let dir = try ScratchDirectory(prefix: "generation")
        let url = dir.file("generation.store")
        let mine = try ModelContainer(for: CtxItem.self, configurations: ModelConfiguration(url: url))
        let theirs = try ModelContainer(for: CtxItem.self, configurations: ModelConfiguration(url: url))
        let seed = ModelContext(mine)
        seed.insert(CtxItem(name: "counter", n: 1))
        try seed.save()

        let reader = ModelContext(mine)
        let item = try #require(try reader.fetch(FetchDescriptor<CtxItem>()).first)
        #expect(item.n == 1)

        // Nothing changed: the same instance comes back with the values it has.
        #expect(try reader.fetch(FetchDescriptor<CtxItem>()).first === item)
        #expect(item.n == 1)

        // Another connection (a second container on the file, as another process) commits.
        let writer = ModelContext(theirs)
        let theirItem = try #require(try writer.fetch(FetchDescriptor<CtxItem>()).first)
        theirItem.n = 2
        try writer.save()

        let again = try #require(try reader.fetch(FetchDescriptor<CtxItem>(predicate: #Predicate { $0.n >= 1 })).first)
        #expect(again === item, "one object per row")
        #expect(item.n == 2, "the other connection's commit is read")

        // And again, after this process's own container saves through another context.
        let local = ModelContext(mine)
        try #require(try local.fetch(FetchDescriptor<CtxItem>()).first).n = 3
        try local.save()
        _ = try reader.fetch(FetchDescriptor<CtxItem>())
        #expect(item.n == 3)
    }
}

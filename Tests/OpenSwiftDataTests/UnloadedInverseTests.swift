import Foundation
import Testing
@testable import OpenSwiftData

/// Linking models to a stored parent whose to-many side is not loaded keeps it unloaded, and
/// reading it before the save still shows the pending links (REL-02, REL-03).
@Suite("UnloadedInverse")
struct UnloadedInverseTests {
    @Test("REL-02/03 pending links show in an unloaded stored to-many", arguments: StoreKind.allCases)
    func pendingLinks(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("unloaded")
        let container = try makeContainer(kind, [Category.self, Word.self], in: dir)
        let setup = ModelContext(container)
        let animals = Category(name: "animals"), plants = Category(name: "plants")
        animals.words = [Word(text: "cat"), Word(text: "dog")]
        setup.insert(animals)
        setup.insert(plants)
        try setup.save()

        let ctx = ModelContext(container)
        let cats = try ctx.fetch(FetchDescriptor<Category>(sortBy: [SortDescriptor(\.name)]))
        let (a, p) = (cats[0], cats[1])
        let dog = try #require(try ctx.fetch(FetchDescriptor<Word>(predicate: #Predicate { $0.text == "dog" })).first)
        let cow = Word(text: "cow")
        cow.category = a                      // a.words is not loaded yet
        dog.category = p                      // moves a stored word away from a
        #expect(a.words.map(\.text).sorted() == ["cat", "cow"])
        #expect(p.words.map(\.text) == ["dog"])
        try ctx.save()
        let reader = ModelContext(container)
        let again = try reader.fetch(FetchDescriptor<Category>(sortBy: [SortDescriptor(\.name)]))
        #expect(again[0].words.map(\.text).sorted() == ["cat", "cow"])
        #expect(again[1].words.map(\.text) == ["dog"])
        #expect(try reader.fetchCount(FetchDescriptor<Word>()) == 3)
    }
}

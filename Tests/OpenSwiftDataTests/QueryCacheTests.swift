import Foundation
import Testing
@testable import OpenSwiftData

/// The statement cache keyed by query shape: the same predicate shape with new captured values
/// reuses one translation and still returns the right rows.
@Suite("QueryCache")
struct QueryCacheTests {
    @Test("same shape, new values: one cached translation, correct rows", arguments: StoreKind.allCases)
    func reuse(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "qcache")
        let container = try kind.makeContainer(for: [Word.self, Category.self], in: dir)
        let ctx = ModelContext(container)
        for text in ["a", "bb", "ccc", "dddd"] { ctx.insert(Word(text: text)) }
        try ctx.save()
        for n in 1...4 {
            let d = FetchDescriptor<Word>(predicate: #Predicate { $0.length == n })
            #expect(try ctx.fetch(d).map(\.text) == [String(repeating: Character(UnicodeScalar(96 + n)!), count: n)])
        }
        #expect(container.queryCache.count == 1)
        // Same expression type, different key path: a second entry, not a wrong reuse.
        let byText = FetchDescriptor<Word>(predicate: #Predicate { $0.text == "bb" })
        #expect(try ctx.fetch(byText).count == 1)
        let byLength = FetchDescriptor<Word>(predicate: #Predicate { $0.length == 3 })
        #expect(try ctx.fetch(byLength).map(\.text) == ["ccc"])
        #expect(try ctx.fetchCount(FetchDescriptor<Word>(predicate: #Predicate { $0.length > 1 })) == 3)
        #expect(try ctx.fetchCount(FetchDescriptor<Word>(predicate: #Predicate { $0.length > 3 })) == 1)
        // `<` and `<=` share an expression type; the operator is a stored value and must not be reused.
        #expect(try ctx.fetchCount(FetchDescriptor<Word>(predicate: #Predicate { $0.length < 2 })) == 1)
        #expect(try ctx.fetchCount(FetchDescriptor<Word>(predicate: #Predicate { $0.length <= 2 })) == 2)
    }
}

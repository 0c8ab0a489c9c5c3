import Foundation
import Testing

@testable import OpenSwiftData

/// Sub-expressions that do not read the row are evaluated once in Swift (e.g. `min()`/`max()`
/// of a captured array) and bound as values.
@Suite("ConstantSubexpressions")
struct ConstantSubexpressionTests {
    @Test("PRD min()/max() over captured arrays match Predicate.evaluate", arguments: StoreKind.allCases)
    func minMax(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "const")
        let container = try kind.makeContainer(for: [Word.self, Category.self], in: dir)
        let ctx = ModelContext(container)
        let words = (1...9).map { Word(text: String(repeating: "y", count: $0)) }
        for w in words { ctx.insert(w) }
        try ctx.save()
        let limits = [3, 7, 5]
        let p = #Predicate<Word> { $0.length >= limits.min()! && $0.length < (limits.max() ?? 0) }
        let expected = try words.filter { try p.evaluate($0) }.map(\.length).sorted()
        #expect(expected == [3, 4, 5, 6])
        #expect(try ctx.fetch(FetchDescriptor(predicate: p)).map(\.length).sorted() == expected)
        let none: [Int] = []
        let q = #Predicate<Word> { $0.length > (none.max() ?? 100) }
        #expect(try ctx.fetchCount(FetchDescriptor(predicate: q)) == 0)
    }
}

/// Sorting through a to-one relationship (`\Word.category?.name`) orders as `sorted(using:)`:
/// rows without a category first ascending, last descending (FET sort semantics).
@Suite("ToOneSort")
struct ToOneSortTests {
    @Test("FET sort through a to-one key path matches sorted(using:)", arguments: StoreKind.allCases)
    func toOneSort(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "toonesort")
        let container = try kind.makeContainer(for: [Word.self, Category.self], in: dir)
        let ctx = ModelContext(container)
        let b = Category(name: "b")
        let a = Category(name: "a")
        let words = [("w1", b), ("w2", a), ("w3", nil), ("w4", b), ("w5", a)].map { (text, cat) -> Word in
            let w = Word(text: text)
            w.category = cat
            ctx.insert(w)
            return w
        }
        try ctx.save()
        for order in [SortOrder.forward, .reverse] {
            let sort = [SortDescriptor(\Word.category?.name, order: order), SortDescriptor(\Word.text)]
            let expected = words.sorted(using: sort).map(\.text)
            #expect(try ModelContext(container).fetch(FetchDescriptor(sortBy: sort)).map(\.text) == expected)
            #expect(try ctx.fetch(FetchDescriptor(sortBy: sort)).map(\.text) == expected)
        }
        #expect(throws: SwiftDataError.self) {
            try ctx.fetch(FetchDescriptor<Category>(sortBy: [SortDescriptor(\Category.words.count)]))
        }
    }
}

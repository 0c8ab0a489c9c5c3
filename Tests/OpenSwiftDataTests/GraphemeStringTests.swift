import Foundation
import OpenSwiftData
import Testing

/// `contains` and `starts(with:)` compare `Character`s, as Swift does, even where a grapheme
/// cluster is more than one scalar after NFC (combining marks without a precomposed form, flag
/// pairs, ZWJ emoji, CR LF). Found by the differential checks (`Regressions/differential.txt`).
@Suite("Grapheme-exact string matching")
struct GraphemeStringTests {
    static let texts = [
        "Z\u{36B}\u{343}algo", "plain Zalgo", "🇺🇸🇫🇷", "👩‍👩‍👧 family", "cr\r\nlf", "cr\rlf", "a\u{310}b", "ab", "é",
        "e\u{301}x", "",
    ]
    static let needles = ["Z", "Z\u{36B}\u{343}", "🇸🇫", "🇺🇸", "👩", "👩‍👩‍👧", "\r", "\r\n", "\n", "a", "ab", "b", "e", "é", ""]

    @Test(
        "contains and starts(with:) agree with Swift on grapheme clusters (strings in general: predicates suite, PRD-05, PRD-06)",
        arguments: StoreKind.allCases)
    func graphemes(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let context = ModelContext(try kind.makeContainer(for: [Category.self, Word.self], in: dir))
        for t in Self.texts { context.insert(Word(text: t)) }
        try context.save()
        let all = try context.fetch(FetchDescriptor<Word>())
        for needle in Self.needles {
            let contains = #Predicate<Word> { $0.text.contains(needle) }
            let starts = #Predicate<Word> { $0.text.starts(with: needle) }
            for (name, p) in [("contains", contains), ("starts(with:)", starts)] {
                let sql = Set(try context.fetch(FetchDescriptor(predicate: p)).map(\.text))
                let swift = Set(try all.filter { try p.evaluate($0) }.map(\.text))
                #expect(sql == swift, "\(name) \(needle.debugDescription) on \(kind)")
            }
        }
        // The cases that byte search gets wrong, spelled out.
        let z = "Z"
        #expect(
            try context.fetch(FetchDescriptor(predicate: #Predicate<Word> { $0.text.starts(with: z) })).map(\.text)
                == [])
        let flag = "🇸🇫"
        #expect(try context.fetchCount(FetchDescriptor(predicate: #Predicate<Word> { $0.text.contains(flag) })) == 0)
        let cr = "\r"
        #expect(
            try context.fetch(FetchDescriptor(predicate: #Predicate<Word> { $0.text.contains(cr) })).map(\.text) == [
                "cr\rlf"
            ])
    }
}

/// `localizedStandardContains` inside nested to-many closures prepares and agrees with Swift.
/// Found by the differential checks (seed 1, case 4564): the folding used to be written as common
/// table expressions, which SQLite could not prepare two correlated subqueries deep.
@Suite("Folding in nested closures")
struct NestedFoldingTests {
    @Test(
        "localizedStandardContains two to-many levels deep (on an attribute: predicates suite, PRD-04)",
        arguments: StoreKind.allCases)
    func nested(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let context = ModelContext(try kind.makeContainer(for: [Product.self, Tag.self], in: dir))
        let tags = ["Élan", "plants", "ÉLAN vital", "nts"].map { Tag(label: $0) }
        for t in tags { context.insert(t) }
        for (i, name) in ["a", "b", "c"].enumerated() {
            let p = Product(name: name, price: Double(i))
            context.insert(p)
            p.tags = Array(tags[i...(i + 1)])
        }
        try context.save()
        let all = try context.fetch(FetchDescriptor<Tag>())
        for needle in ["elan", "NTS", "é", "x"] {
            let p = #Predicate<Tag> {
                $0.products.allSatisfy { $0.tags.contains { $0.label.localizedStandardContains(needle) } }
            }
            let sql = Set(try context.fetch(FetchDescriptor(predicate: p)).map(\.label))
            let swift = Set(try all.filter { try p.evaluate($0) }.map(\.label))
            #expect(sql == swift, "\(needle) on \(kind)")
        }
    }
}

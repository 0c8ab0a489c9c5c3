import Foundation
import OpenSwiftDataTesting
import Testing

@testable import OpenSwiftData

/// A node type the printer does not know, as a newer Foundation could add one.
struct MysteryExpression<Inner: StandardPredicateExpression<Bool>>: StandardPredicateExpression {
    let inner: Inner
    let note: String
    func evaluate(_ bindings: PredicateBindings) throws -> Bool { try inner.evaluate(bindings) }
}

/// A payload enum and a self-describing enum, as captured values.
enum SourcePayment: Equatable {
    case card(last4: String, amount: Double)
    case cash(Int)
    case none
}

/// An enum that describes itself (its description is not its case name).
enum SourceTier: String, CustomStringConvertible {
    case gold
    var description: String { "Gold tier" }
}

/// PRD-25: `PredicateSource` prints a predicate as the Swift its author wrote, whole, with key
/// paths by name and captured values as literals; one test per expression family.
@Suite("Predicate source")
struct PredicateSourceTests {
    typealias Book = ConformanceBook

    /// The body of `p`'s text, after checking its `#Predicate<T> { … }` frame.
    func body<T>(_ p: Predicate<T>) -> String {
        let text = PredicateSource.text(p)
        let open = "#Predicate<\(T.self)> { "
        #expect(text.hasPrefix(open) && text.hasSuffix(" }"), "\(text)")
        return String(text.dropFirst(open.count).dropLast(2))
    }

    @Test("PRD-25: the whole predicate, framed as #Predicate<Model> { … }")
    func frame() {
        let published = ConformanceStatus.published
        #expect(
            PredicateSource.text(
                #Predicate<Book> { $0.status == published && ($0.subtitle == nil || $0.price > 100.0) })
                == "#Predicate<ConformanceBook> { $0.status == .published && ($0.subtitle == nil || $0.price > 100.0) }"
        )
        #expect(
            PredicateSource.text(#Predicate<Book, Int> { $0.pages == $1 })
                == "#Predicate<ConformanceBook, Int> { $0.pages == $1 }")
    }

    @Test("PRD-25: comparisons")
    func comparisons() {
        #expect(
            body(#Predicate<Book> { $0.pages > 10 && $0.pages <= 20 || $0.title == "A" && $0.price != 1.5 })
                == #"$0.pages > 10 && $0.pages <= 20 || $0.title == "A" && $0.price != 1.5"#)
        #expect(body(#Predicate<Book> { $0.pages >= 3 && 9 < $0.pages }) == "$0.pages >= 3 && 9 < $0.pages")
        #expect(body(#Predicate<Book> { ($0.pages > 3) == $0.isFeatured }) == "($0.pages > 3) == $0.isFeatured")
    }

    @Test("PRD-25: logic keeps the grouping of the tree")
    func logic() {
        #expect(
            body(#Predicate<Book> { !$0.isFeatured && ($0.pages > 1 || !($0.title == "x")) })
                == #"!$0.isFeatured && ($0.pages > 1 || !($0.title == "x"))"#)
        #expect(
            body(#Predicate<Book> { $0.isFeatured && ($0.pages > 1 && $0.pages < 5) })
                == "$0.isFeatured && ($0.pages > 1 && $0.pages < 5)")
        #expect(body(#Predicate<Book> { $0.isFeatured || true }) == "$0.isFeatured || true")
        #expect(body(DeepPredicate.negations(3)) == "!(!(!$0.flag))")
    }

    @Test("PRD-25: arithmetic, with Swift's precedence")
    func arithmetic() {
        #expect(
            body(#Predicate<Book> { $0.pages * 2 + 1 > 10 - $0.pages % 3 })
                == "$0.pages * 2 + 1 > 10 - $0.pages % 3")
        #expect(body(#Predicate<Book> { ($0.pages + 1) * 2 == 8 }) == "($0.pages + 1) * 2 == 8")
        #expect(body(#Predicate<Book> { $0.pages - (3 - $0.pages) > 0 }) == "$0.pages - (3 - $0.pages) > 0")
        #expect(body(#Predicate<Book> { $0.price / 2.0 > -$0.price }) == "$0.price / 2.0 > -$0.price")
        #expect(body(#Predicate<Book> { $0.pages / 4 == -2 }) == "$0.pages / 4 == -2")
    }

    @Test("PRD-25: optionals: nil comparisons, ??, optional chaining, flatMap, force unwrap")
    func optionals() {
        #expect(
            body(#Predicate<Book> { $0.subtitle == nil || $0.subtitle != nil })
                == "$0.subtitle == nil || $0.subtitle != nil")
        #expect(body(#Predicate<Book> { ($0.stock ?? 0) > 3 }) == "($0.stock ?? 0) > 3")
        #expect(body(#Predicate<Book> { $0.author?.name == "Ann" }) == #"$0.author?.name == "Ann""#)
        #expect(body(#Predicate<Book> { ($0.author?.born ?? 0) > 1980 }) == "($0.author?.born ?? 0) > 1980")
        #expect(
            body(#Predicate<Book> { $0.subtitle?.starts(with: "s") == true })
                == #"$0.subtitle?.starts(with: "s") == true"#)
        #expect(
            body(#Predicate<Book> { ($0.rating.flatMap { $0 * 2.0 } ?? 0.0) > 1.0 })
                == "($0.rating.flatMap { $0 * 2.0 } ?? 0.0) > 1.0")
        #expect(
            body(#Predicate<Book> { book in book.author.flatMap { a in a.name == book.title } ?? false })
                == "$0.author.flatMap { conformanceAuthor in conformanceAuthor.name == $0.title } ?? false")
        #expect(body(#Predicate<Book> { $0.subtitle!.count > 2 }) == "$0.subtitle!.count > 2")
        #expect(
            body(#Predicate<Book> { $0.subtitle.flatMap { $0 } == "s" }) == #"$0.subtitle.flatMap { $0 } == "s""#)
        #expect(
            body(#Predicate<Book> { $0.subtitle.flatMap { $0.count + $0.count } == 4 })
                == "$0.subtitle.flatMap { $0.count + $0.count } == 4")
        #expect(
            body(#Predicate<Book> { if let s = $0.subtitle { s.isEmpty } else { false } })
                == "$0.subtitle?.isEmpty ?? false")
    }

    @Test("PRD-25: string functions")
    func strings() {
        // `#Predicate` takes no implicit member (`.orderedSame`): captured, they print as one.
        let same = ComparisonResult.orderedSame
        let ascending = ComparisonResult.orderedAscending
        #expect(body(#Predicate<Book> { $0.title.contains("a") }) == #"$0.title.contains("a")"#)
        #expect(body(#Predicate<Book> { $0.title.starts(with: "A") }) == #"$0.title.starts(with: "A")"#)
        #expect(
            body(#Predicate<Book> { $0.title.localizedStandardContains("x") })
                == #"$0.title.localizedStandardContains("x")"#)
        #expect(
            body(#Predicate<Book> { $0.title.caseInsensitiveCompare("abc") == same })
                == #"$0.title.caseInsensitiveCompare("abc") == .orderedSame"#)
        #expect(
            body(#Predicate<Book> { $0.title.localizedCompare("b") != ascending })
                == #"$0.title.localizedCompare("b") != .orderedAscending"#)
        #expect(
            body(#Predicate<Book> { $0.title.isEmpty || $0.title.count > 3 })
                == "$0.title.isEmpty || $0.title.count > 3")
    }

    @Test("PRD-25: strings are quoted, escaped and cut visibly")
    func stringLiterals() {
        #expect(
            body(#Predicate<Book> { $0.title == "a\"b\\c\n\t\r\u{0}\u{7}\u{202E}é👨‍👩‍👧" })
                == #"$0.title == "a\"b\\c\n\t\r\0\u{7}\u{202E}é👨‍👩‍👧""#)
        let long = String(repeating: "x", count: 150)
        #expect(
            body(#Predicate<Book> { $0.title == long })
                == "$0.title == \"\(String(repeating: "x", count: 100))\"… (150 characters)")
    }

    @Test("PRD-25: collections: contains(where:), allSatisfy, count, isEmpty, filter, captured arrays")
    func collections() {
        #expect(
            body(#Predicate<Book> { $0.labels.contains { $0.name.localizedStandardContains("x") } })
                == #"$0.labels.contains { $0.name.localizedStandardContains("x") }"#)
        #expect(
            body(#Predicate<Book> { $0.labels.allSatisfy { $0.isPublic } }) == "$0.labels.allSatisfy { $0.isPublic }")
        #expect(
            body(#Predicate<Book> { $0.labels.count > 1 && !$0.chapters.isEmpty })
                == "$0.labels.count > 1 && !$0.chapters.isEmpty")
        #expect(
            body(#Predicate<Book> { $0.chapters.filter { $0.pages > 10 }.count > 2 })
                == "$0.chapters.filter { $0.pages > 10 }.count > 2")
        #expect(
            body(#Predicate<Book> { $0.labels.contains { $0.books.contains { $0.pages > 3 } } })
                == "$0.labels.contains { $0.books.contains { $0.pages > 3 } }")
        #expect(
            body(#Predicate<Book> { book in book.labels.contains { label in label.name == book.title } })
                == "$0.labels.contains { conformanceLabel in conformanceLabel.name == $0.title }")
        let titles = ["a", "b"]
        let limits = [3, 9]
        let weights = ["x": 2]
        #expect(
            body(#Predicate<Book> { titles.contains($0.title) && limits.max()! > $0.pages })
                == #"["a", "b"].contains($0.title) && [3, 9].max()! > $0.pages"#)
        #expect(
            body(#Predicate<Book> { titles[0] == $0.title || weights[$0.title, default: 0] > 1 })
                == #"["a", "b"][0] == $0.title || ["x": 2][$0.title, default: 0] > 1"#)
        #expect(body(#Predicate<Book> { weights[$0.title] == 2 }) == #"["x": 2][$0.title] == 2"#)
    }

    @Test("PRD-25: ranges, literal and captured")
    func ranges() {
        #expect(body(#Predicate<Book> { (1...5).contains($0.pages) }) == "(1...5).contains($0.pages)")
        #expect(body(#Predicate<Book> { (1..<5).contains($0.pages) }) == "(1..<5).contains($0.pages)")
        let r = 2..<8
        #expect(body(#Predicate<Book> { r.contains($0.pages) }) == "(2..<8).contains($0.pages)")
        #expect(body(#Predicate<Book> { ($0.pages...100).contains(50) }) == "($0.pages...100).contains(50)")
    }

    @Test("PRD-25: conditionals (ternary)")
    func conditionals() {
        #expect(
            body(#Predicate<Book> { $0.isFeatured ? $0.pages > 10 : $0.price < 2.0 })
                == "$0.isFeatured ? $0.pages > 10 : $0.price < 2.0")
        #expect(
            body(#Predicate<Book> { ($0.isFeatured ? $0.pages : 0) > 3 }) == "($0.isFeatured ? $0.pages : 0) > 3")
    }

    @Test("PRD-25: type checks and casts")
    func casts() {
        #expect(body(#Predicate<ConformanceVehicle> { $0 is ConformanceCar }) == "$0 is ConformanceCar")
        #expect(
            body(#Predicate<ConformanceVehicle> { ($0 as? ConformanceCar)?.seats == 4 })
                == "($0 as? ConformanceCar)?.seats == 4")
        #expect(
            body(#Predicate<ConformanceVehicle> { !($0 is ConformanceTruck) && $0.wheels > 2 })
                == "!($0 is ConformanceTruck) && $0.wheels > 2")
    }

    @Test("PRD-25: enums print as .case, captured or literal, with payloads")
    func enums() {
        let statuses: [ConformanceStatus] = [.draft, .retired]
        let published = ConformanceStatus.published
        #expect(
            body(#Predicate<Book> { $0.status == published || statuses.contains($0.status) })
                == "$0.status == .published || [.draft, .retired].contains($0.status)")
        #expect(
            PredicateValueText.text(SourcePayment.card(last4: "1234", amount: 2))
                == #".card(last4: "1234", amount: 2.0)"#)
        #expect(PredicateValueText.text(SourcePayment.cash(3)) == ".cash(3)")
        #expect(PredicateValueText.text(SourcePayment.none) == ".none")
        #expect(PredicateValueText.text(SourceTier.gold) == #"SourceTier(rawValue: "gold")"#)
    }

    @Test("PRD-25: dates print ISO-8601 in UTC")
    func dates() {
        let past = Date.distantPast
        let cutoff = Date(timeIntervalSince1970: 1_767_225_600)
        #expect(
            body(#Predicate<Book> { ($0.published ?? past) < cutoff })
                == "($0.published ?? .distantPast) < 2026-01-01T00:00:00Z")
        #expect(
            PredicateValueText.text(Date(timeIntervalSince1970: 1_767_225_600.25)) == "2026-01-01T00:00:00.25Z")
        #expect(PredicateValueText.text(Date.distantFuture) == ".distantFuture")
    }

    @Test("PRD-25: captured constants of every kind")
    func capturedConstants() throws {
        let code = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let none: String? = nil
        let price = 0.1
        #expect(
            body(#Predicate<Book> { $0.code == code && $0.subtitle == none && $0.price > price })
                == #"$0.code == UUID("E621E1F8-C36C-495A-93FC-0C247A3E6E5F") && $0.subtitle == nil && $0.price > 0.1"#)
        #expect(PredicateValueText.text(try #require(Decimal(string: "12.50"))) == "12.5")
        #expect(PredicateValueText.text(try #require(Decimal(string: "0.1"))) == "0.1")
        #expect(PredicateValueText.text(1e-7) == "1e-07")
        #expect(PredicateValueText.text(Double.nan) == ".nan")
        #expect(PredicateValueText.text(-Double.infinity) == "-.infinity")
        #expect(PredicateValueText.text(Float(0.1)) == "0.1")
        #expect(PredicateValueText.text(Int64.min) == "-9223372036854775808")
        #expect(PredicateValueText.text(Data([1, 2, 3])) == "Data(3 bytes)")
        #expect(PredicateValueText.text(try #require(URL(string: "https://e.x/a?b=1"))) == #"URL("https://e.x/a?b=1")"#)
        #expect(PredicateValueText.text(Set(["b", "a"])) == #"["a", "b"]"#)
        #expect(PredicateValueText.text(Array(0..<25)).hasSuffix("19, … (25 elements)]"))
        #expect(PredicateValueText.text(Optional<Int?>.some(nil) as Any) == "nil")
        let book = Book(code: code, title: "t", pages: 1, price: 1)
        #expect(PredicateValueText.text(book) == "<ConformanceBook unsaved>")
    }

    @Test("PRD-25: key paths print as property names, never addresses")
    func keyPathNames() {
        let text = body(#Predicate<Book> { $0.shoutedTitle == "A" && $0.code.uuidString == "x" && $0.scratch > 0 })
        #expect(!text.contains("0x"), "\(text)")
        #expect(
            text == #"$0.<computed property of type String> == "A" && $0.code.uuidString == "x" && $0.scratch > 0"#)
        #expect(
            body(#Predicate<Book> { $0.persistentModelID == $0.persistentModelID })
                == "$0.persistentModelID == $0.persistentModelID")
        // An inherited attribute is named through the subclass's layout too.
        #expect(
            body(#Predicate<ConformanceElectricCar> { $0.wheels > 2 && $0.seats > 1 && $0.batteryKWh > 50.0 })
                == "$0.wheels > 2 && $0.seats > 1 && $0.batteryKWh > 50.0")
    }

    @Test("PRD-25: a node type the printer does not know prints its name and operands")
    func unknownNode() {
        let p = Predicate<Book> { v in
            MysteryExpression(inner: PredicateExpressions.build_KeyPath(root: v, keyPath: \.isFeatured), note: "n")
        }
        #expect(body(p) == #"<unknown node MysteryExpression>(inner: $0.isFeatured, note: "n")"#)
    }

    @Test("PRD-25: a tree deeper than the depth limit prints a marker, not a crash")
    func deepTree() {
        let limit = PredicateDepth.maximumDepth
        let open = String(repeating: "!(", count: limit - 1)
        let close = String(repeating: ")", count: limit - 1)
        #expect(body(DeepPredicate.negations(10_000)) == open + "!" + PredicateSource.deepMarker + close)
        #expect(PredicateSource.deepMarker.contains("not printed"))
        let sum = body(DeepPredicate.additions(10_000))
        // The additions at levels 2…256 print whole; the key path below them is the marker.
        #expect(sum == PredicateSource.deepMarker + String(repeating: " + 1", count: limit - 1) + " > 0")
    }

    @Test("PRD-25: a captured expression evaluated in the predicate prints as its own source")
    func evaluatedExpression() {
        // Linux's `#Predicate` has no `evaluate`: the node is built as the macro builds it on Darwin.
        let big = #Expression<Int, Bool> { $0 > 100 }
        // (and the node is no `StandardPredicateExpression` there, so no `Predicate` holds it).
        let v = PredicateExpressions.Variable<Book>()
        let e = PredicateExpressions.build_evaluate(
            PredicateExpressions.build_Arg(big), PredicateExpressions.build_KeyPath(root: v, keyPath: \.pages))
        #expect(
            PredicateSource.text(of: e, inputs: [v.key]) == "#Expression<Int, Bool> { $0 > 100 }.evaluate($0.pages)")
    }
}

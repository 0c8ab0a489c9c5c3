import Foundation
import OpenSwiftData

extension ConformanceSuite {
    /// Predicate semantics: `#Predicate` evaluated in SQL gives what `Predicate.evaluate` gives.
    public static var predicates: ConformanceSuite {
        ConformanceSuite(
            name: "predicates", title: "#Predicate semantics match Swift",
            cases: [
                ConformanceCase(suite: "predicates", id: "PRD-01", title: "string equality is case-sensitive") {
                    check in
                    let context = ModelContext(try check.container(for: ConformanceRecord.self))
                    for name in ["Alice", "alice", "ALICE", "Alicia"] {
                        context.insert(ConformanceRecord(name: name, number: 0))
                    }
                    try context.save()
                    let rows = try context.fetch(
                        FetchDescriptor(predicate: #Predicate<ConformanceRecord> { $0.name == "Alice" }))
                    try check.expectEqual(rows.map(\.name), ["Alice"], "names equal to \"Alice\"")
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-01",
                    title: "==, != and < on strings match Swift on a stored library, case- and accent-sensitive"
                ) { check in
                    let context = try library(check)
                    for other in ["Alice", "alice", "Álice", "", "plain", "zzz"] {
                        try check.within("other=\(other.debugDescription)") {
                            let equal = try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { $0.title == other }, in: context, key: \.title, "==")
                            try check.expectEqual(equal, libraryTitles.contains(other) ? [other] : [], "titles equal")
                            try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { $0.title != other }, in: context, key: \.title, "!=")
                            try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { $0.title < other }, in: context, key: \.title, "<")
                            try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { $0.title >= other }, in: context, key: \.title, ">=")
                        }
                    }
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-02", title: "contains(_:) is a case-sensitive substring test"
                ) { check in
                    let context = try library(check)
                    let li = try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.title.contains("li") }, in: context, key: \.title,
                        "contains li")
                    try check.expectEqual(li, ["Alice", "alice", "Álice"], "titles containing \"li\"")
                    let upper = try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.title.contains("LI") }, in: context, key: \.title,
                        "contains LI")
                    try check.expectEqual(upper, ["ALICE"], "titles containing \"LI\"")
                    for needle in ["e", "Ω", "ice", "", "🇫🇷"] {
                        try check.within("needle=\(needle.debugDescription)") {
                            try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { $0.title.contains(needle) }, in: context, key: \.title,
                                "contains")
                            try check.expectPartition(
                                #Predicate<ConformanceBook> { $0.title.contains(needle) }, in: context, key: \.title,
                                "contains")
                        }
                    }
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-03", title: "starts(with:) is a case-sensitive prefix test"
                ) { check in
                    let context = try library(check)
                    let al = try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.title.starts(with: "Al") }, in: context, key: \.title,
                        "starts Al")
                    try check.expectEqual(al, ["Alice"], "titles starting with \"Al\"")
                    for needle in ["a", "A", "Á", "10", "", "plain!"] {
                        _ = try check.within("needle=\(needle.debugDescription)") {
                            try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { $0.title.starts(with: needle) }, in: context,
                                key: \.title, "starts(with:)")
                        }
                    }
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-04",
                    title: "localizedStandardContains ignores case and diacritics (Linux shim, Swift 6.3)"
                ) { check in
                    let context = try library(check)
                    let ali = try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.title.localizedStandardContains("ALI") }, in: context,
                        key: \.title, "ALI")
                    try check.expectEqual(
                        ali, ["ALICE", "Alice", "alice", "Álice"].sorted(),
                        "titles containing ali in any case or accent")
                    for needle in ["ECOLE", "é", "ω", "%", "li"] {
                        _ = try check.within("needle=\(needle.debugDescription)") {
                            try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { $0.title.localizedStandardContains(needle) }, in: context,
                                key: \.title,
                                "localizedStandardContains")
                        }
                    }
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-05", title: "canonically equivalent strings are equal (NFC and NFD)"
                ) { check in
                    let context = try library(check)
                    let composed = try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.title == "\u{e9}cole" }, in: context, key: \.title,
                        "== composed")
                    try check.expectEqual(composed.count, 1, "rows equal to the composed spelling")
                    let decomposed = try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.title == "e\u{301}cole" }, in: context, key: \.title,
                        "== decomposed")
                    try check.expectEqual(decomposed.count, 1, "rows equal to the decomposed spelling")
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.title.contains("\u{e9}") }, in: context, key: \.title,
                        "contains é")
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.title.starts(with: "e\u{301}") }, in: context, key: \.title,
                        "starts e+◌́")
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-06",
                    title: "% _ ' and \\ in contains/starts(with:) are literal characters"
                ) { check in
                    let context = try library(check)
                    let expected: [(String, [String])] = [
                        ("%", ["100% pure"]), ("_", ["under_score"]), ("'", ["it's"]),
                        ("\\", ["back\\slash"]), ("0%", ["100% pure"]), ("r_s", ["under_score"]),
                    ]
                    for (needle, titles) in expected {
                        try check.within("needle=\(needle.debugDescription)") {
                            let got = try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { $0.title.contains(needle) }, in: context, key: \.title,
                                "contains")
                            try check.expectEqual(got, titles, "titles containing the needle")
                            let starts = try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { $0.title.starts(with: needle) }, in: context,
                                key: \.title, "starts")
                            try check.expectEqual(starts, [], "titles starting with the needle")
                        }
                    }
                    let subtitles = try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { ($0.subtitle ?? "").contains("%") }, in: context, key: \.title,
                        "subtitle % ")
                    try check.expect(!subtitles.isEmpty, "some subtitles contain a literal %", actual: "none")
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-07",
                    title: "== nil, != nil and == value on optionals follow Swift (nil never equals a value)"
                ) { check in
                    let context = try library(check)
                    let none = try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.subtitle == nil }, in: context, key: \.title, "subtitle == nil"
                    )
                    let some = try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.subtitle != nil }, in: context, key: \.title, "subtitle != nil"
                    )
                    try check.expectEqual(
                        (none + some).sorted(), libraryTitles.sorted(), "nil and non-nil cover every row")
                    try check.expectEqual(none.count, 4, "rows with a nil subtitle")
                    for value in ["sub1_", "sub2%", "nope"] {
                        try check.within("value=\(value)") {
                            try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { $0.subtitle == value }, in: context, key: \.title,
                                "== value")
                            try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { $0.subtitle != value }, in: context, key: \.title,
                                "!= value")
                            try check.expectPartition(
                                #Predicate<ConformanceBook> { $0.subtitle == value }, in: context, key: \.title,
                                "== value")
                        }
                    }
                    for stock in [0, -4, 5] {
                        try check.within("stock=\(stock)") {
                            try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { $0.stock == stock }, in: context, key: \.title,
                                "stock == value")
                            try check.expectPartition(
                                #Predicate<ConformanceBook> { $0.stock != stock }, in: context, key: \.title,
                                "stock != value")
                        }
                    }
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceAuthor> { $0.born == nil }, in: context, key: \.name, "born == nil")
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-08", title: "ordering through flatMap and ?? treats nil as Swift does"
                ) { check in
                    let context = try library(check)
                    for days in [0.0, 4.0, 9.5] {
                        let cutoff = Date(timeIntervalSinceReferenceDate: days * 86_400)
                        try check.within("cutoff=\(days)d") {
                            let after = try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { $0.published.flatMap { $0 > cutoff } == true },
                                in: context, key: \.title, "flatMap > cutoff == true")
                            let rows = try context.fetch(FetchDescriptor<ConformanceBook>())
                            try check.expect(
                                after.allSatisfy { t in rows.first { $0.title == t }?.published != nil },
                                "no nil date matches",
                                actual: "a nil date matched")
                            try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { $0.published.flatMap { $0 > cutoff } == false },
                                in: context, key: \.title, "flatMap > cutoff == false")
                        }
                    }
                    for v in [-1, 0, 3] {
                        try check.within("v=\(v)") {
                            try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { ($0.stock ?? 0) > v }, in: context, key: \.title,
                                "(stock ?? 0) > v")
                            try check.expectPartition(
                                #Predicate<ConformanceBook> { ($0.stock ?? 0) > v }, in: context, key: \.title,
                                "(stock ?? 0) > v")
                        }
                    }
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { ($0.subtitle ?? "none").starts(with: "no") }, in: context,
                        key: \.title, "?? on a string")
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.subtitle?.contains("_") == true }, in: context, key: \.title,
                        "optional chain contains")
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-09",
                    title: "an optional to-one chain: books without an author never match =="
                ) { check in
                    let context = try library(check)
                    let ann = try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.author?.name == "Ann" }, in: context, key: \.title,
                        "author?.name == Ann")
                    try check.expectEqual(
                        ann, [libraryTitles[0], libraryTitles[4], libraryTitles[8]].sorted(), "Ann's books")
                    for name in ["Bob", "Zed"] {
                        try check.within("name=\(name)") {
                            try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { $0.author?.name == name }, in: context, key: \.title,
                                "author?.name ==")
                            try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { $0.author?.name != name }, in: context, key: \.title,
                                "author?.name !=")
                        }
                    }
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.author == nil }, in: context, key: \.title, "author == nil")
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { ($0.author?.born ?? 0) > 1980 }, in: context, key: \.title,
                        "author?.born ?? 0")
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.author.flatMap { $0.born.flatMap { $0 < 1980 } } == true },
                        in: context, key: \.title, "nested flatMap")
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.author?.name.starts(with: "C") == true }, in: context,
                        key: \.title, "chain starts(with:)")
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-10", title: "to-many contains(where:) is an existence test"
                ) { check in
                    let context = try library(check)
                    for label in ["x", "y", "z%", "none"] {
                        try check.within("label=\(label)") {
                            try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { $0.labels.contains { $0.name == label } }, in: context,
                                key: \.title, "labels contains")
                            try check.expectPartition(
                                #Predicate<ConformanceBook> { $0.labels.contains { $0.name == label } }, in: context,
                                key: \.title, "labels contains")
                        }
                    }
                    let none = try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.labels.contains { $0.name == "none" } }, in: context,
                        key: \.title, "no such label")
                    try check.expectEqual(none, [], "books with a label named none")
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceAuthor> { $0.books.contains { $0.labels.contains { $0.name == "z%" } } },
                        in: context, key: \.name, "nested contains(where:)")
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceLabel> { $0.books.contains { $0.pages > 30 } }, in: context, key: \.name,
                        "inverse many-to-many")
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-11", title: "allSatisfy is vacuously true for an empty to-many"
                ) { check in
                    let context = try library(check)
                    let all = try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.labels.allSatisfy { $0.isPublic } }, in: context, key: \.title,
                        "allSatisfy isPublic")
                    let empty = try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.labels.isEmpty }, in: context, key: \.title, "isEmpty")
                    try check.expect(
                        !empty.isEmpty && Set(empty).isSubset(of: Set(all)),
                        "every book without labels satisfies allSatisfy",
                        actual: "empty=\(empty) all=\(all)")
                    try check.expectPartition(
                        #Predicate<ConformanceBook> { $0.labels.allSatisfy { $0.isPublic } }, in: context, key: \.title,
                        "allSatisfy")
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceAuthor> { $0.books.allSatisfy { $0.pages > 10 } }, in: context,
                        key: \.name, "authors allSatisfy")
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-12", title: "to-many count, isEmpty, !isEmpty and isEmpty == false"
                ) { check in
                    let context = try library(check)
                    let empty = try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.labels.isEmpty }, in: context, key: \.title, "isEmpty")
                    let notEmpty = try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { !$0.labels.isEmpty }, in: context, key: \.title, "!isEmpty")
                    let equalsFalse = try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.labels.isEmpty == false }, in: context, key: \.title,
                        "isEmpty == false")
                    try check.expectEqual(equalsFalse, notEmpty, "isEmpty == false vs !isEmpty")
                    try check.expectEqual(
                        (empty + notEmpty).sorted(), libraryTitles.sorted(), "isEmpty and !isEmpty cover every row")
                    for n in 0...3 {
                        try check.within("n=\(n)") {
                            try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { $0.labels.count >= n }, in: context, key: \.title,
                                "labels.count >= n")
                            try check.expectSwiftAgrees(
                                #Predicate<ConformanceAuthor> { $0.books.count == n }, in: context, key: \.name,
                                "books.count == n")
                        }
                    }
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.labels.filter { $0.isPublic }.count == 1 }, in: context,
                        key: \.title, "filter count")
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-13",
                    title: "a captured array's contains is IN; an empty array matches nothing"
                ) { check in
                    let context = try library(check)
                    let codes = libraryCodes
                    for (label, ids) in [
                        ("empty", [UUID]()), ("one", [codes[0]]), ("three", [codes[1], codes[5], codes[9]]),
                        ("unknown", [UUID(uuidString: "FFFFFFFF-0000-0000-0000-000000000000")!]),
                    ] {
                        try check.within("ids=\(label)") {
                            let got = try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { ids.contains($0.code) }, in: context, key: \.title,
                                "ids.contains")
                            try check.expectEqual(got.count, ids.filter { codes.contains($0) }.count, "matches")
                        }
                    }
                    let titles = ["Alice", "Ωmega", "missing"]
                    try check.expectEqual(
                        try check.expectSwiftAgrees(
                            #Predicate<ConformanceBook> { titles.contains($0.title) }, in: context, key: \.title,
                            "titles"),
                        ["Alice", "Ωmega"], "titles in the list")
                    for stocks in [[Int?](), [nil], [nil, 2], [0, -4]] {
                        _ = try check.within("stocks=\(stocks)") {
                            try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { stocks.contains($0.stock) }, in: context, key: \.title,
                                "optional contains")
                        }
                    }
                    let limits = [12, 30, 21]
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.pages > (limits.max() ?? 0) }, in: context, key: \.title,
                        "captured max()")
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.pages < (limits.min() ?? 0) }, in: context, key: \.title,
                        "captured min()")
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-14",
                    title: "closed ranges include the upper bound, half-open ranges exclude it"
                ) { check in
                    let context = try library(check)
                    let closed = 11...20
                    let inclusive = try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { closed.contains($0.pages) }, in: context, key: \.pages, "11...20")
                    try check.expectEqual(inclusive, [11, 14, 17, 20], "pages in 11...20")
                    let open = 11..<20
                    let exclusive = try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { open.contains($0.pages) }, in: context, key: \.pages, "11..<20")
                    try check.expectEqual(exclusive, [11, 14, 17], "pages in 11..<20")
                    for (lo, hi) in [(5, 5), (0, 4), (30, 100)] {
                        try check.within("bounds=\(lo),\(hi)") {
                            try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { (lo...hi).contains($0.pages) }, in: context, key: \.pages,
                                "closed literal")
                            try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { (lo..<hi).contains($0.pages) }, in: context, key: \.pages,
                                "half-open literal")
                        }
                    }
                    let from = 29...
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { from.contains($0.pages) }, in: context, key: \.pages, "29...")
                    let d0 = Date(timeIntervalSinceReferenceDate: 2 * 86_400)
                    let d1 = Date(timeIntervalSinceReferenceDate: 7 * 86_400)
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.published.flatMap { (d0...d1).contains($0) } ?? false },
                        in: context, key: \.title, "date range")
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-15", title: "Bool and Date comparisons combine with && and ||"
                ) { check in
                    let context = try library(check)
                    let now = Date(timeIntervalSinceReferenceDate: 6 * 86_400)
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> {
                            $0.isFeatured == false && ($0.published.flatMap { $0 < now } ?? false)
                        },
                        in: context, key: \.title, "not featured and published before now")
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.isFeatured || $0.pages > 30 }, in: context, key: \.title,
                        "featured or long")
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { !$0.isFeatured }, in: context, key: \.title, "!isFeatured")
                    let records = ModelContext(try check.container(for: ConformanceRecord.self))
                    for i in 0..<6 {
                        records.insert(
                            ConformanceRecord(
                                name: "r\(i)", number: i, flag: i % 2 == 0,
                                date: Date(timeIntervalSince1970: Double(i) * 1_000.25)))
                    }
                    try records.save()
                    let cutoff = Date(timeIntervalSince1970: 3_000.75)
                    let got = try check.expectSwiftAgrees(
                        #Predicate<ConformanceRecord> { $0.flag == false && $0.date < cutoff }, in: records,
                        key: \.name, "records")
                    try check.expectEqual(got, ["r1"], "odd records before the cutoff")
                    let late = Date(timeIntervalSince1970: 4_001)
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceRecord> { $0.date == cutoff || $0.date >= late },
                        in: records, key: \.name, "date equality and >=")
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-16", title: "ternary and if/else pick the comparison per row"
                ) { check in
                    let context = try library(check)
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.isFeatured ? $0.pages > 10 : $0.pages > 25 }, in: context,
                        key: \.title, "ternary")
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { ($0.isFeatured ? $0.pages : $0.pages * 2) > 30 }, in: context,
                        key: \.title, "ternary value")
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> {
                            if $0.subtitle == nil { $0.price > 0 } else { $0.isFeatured }
                        }, in: context, key: \.title, "if/else")
                    try check.expectPartition(
                        #Predicate<ConformanceBook> { $0.isFeatured ? $0.stock == nil : ($0.stock ?? 0) > 2 },
                        in: context, key: \.title, "ternary with nil")
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-17",
                    title: "a force unwrap throws an unsupported-predicate error, never traps"
                ) { check in
                    let context = try library(check)
                    try check.expectError(oneOf: [.unsupportedPredicate, .unsupportedKeyPath], "fetch with $0.stock!") {
                        try context.fetch(FetchDescriptor(predicate: #Predicate<ConformanceBook> { $0.stock! == 1 }))
                    }
                    try check.expectError(
                        oneOf: [.unsupportedPredicate, .unsupportedKeyPath], "fetchCount with $0.author!.name"
                    ) {
                        try context.fetchCount(
                            FetchDescriptor(predicate: #Predicate<ConformanceBook> { $0.author!.name == "Ann" }))
                    }
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-18",
                    title: "transient, computed, value-type sub-key-paths and to-many first throw, never trap"
                ) { check in
                    let context = try library(check)
                    try check.expectError(oneOf: [.unsupportedPredicate, .unsupportedKeyPath], "@Transient property") {
                        try context.fetch(FetchDescriptor(predicate: #Predicate<ConformanceBook> { $0.scratch == 1 }))
                    }
                    try check.expectError(oneOf: [.unsupportedPredicate, .unsupportedKeyPath], "computed property") {
                        try context.fetch(
                            FetchDescriptor(predicate: #Predicate<ConformanceBook> { $0.shoutedTitle == "ALICE" }))
                    }
                    try check.expectError(oneOf: [.unsupportedPredicate, .unsupportedKeyPath], "code.uuidString") {
                        try context.fetch(
                            FetchDescriptor(predicate: #Predicate<ConformanceBook> { $0.code.uuidString == "A" }))
                    }
                    try check.expectError(oneOf: [.unsupportedPredicate, .unsupportedKeyPath], "labels.first") {
                        try context.fetch(
                            FetchDescriptor(predicate: #Predicate<ConformanceBook> { $0.labels.first?.name == "x" }))
                    }
                    try check.expectError(oneOf: [.unsupportedPredicate, .unsupportedKeyPath], "String.count") {
                        try context.fetch(
                            FetchDescriptor(predicate: #Predicate<ConformanceBook> { $0.title.count == 5 }))
                    }
                    try check.expectEqual(
                        try context.fetchCount(FetchDescriptor<ConformanceBook>()), libraryTitles.count,
                        "the context still works")
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-19",
                    title: "[REC] raw-value enums compare by raw value, alone and in captured arrays"
                ) { check in
                    let context = try library(check)
                    for status in ConformanceStatus.allCases {
                        try check.within("status=\(status)") {
                            let got = try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { $0.status == status }, in: context, key: \.title,
                                "status ==")
                            try check.expectEqual(got.count, 4, "books with the status")
                        }
                    }
                    let statuses = [ConformanceStatus.draft, .retired]
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { statuses.contains($0.status) }, in: context, key: \.title,
                        "statuses.contains")
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-20",
                    title: "arithmetic: + - * / on Double and Int, unary minus, Int %"
                ) { check in
                    let context = try library(check)
                    for k in [2.0, 0.5] {
                        try check.within("k=\(k)") {
                            try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { $0.price * k > 5 }, in: context, key: \.title, "price * k"
                            )
                            try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { $0.price / k > 3 }, in: context, key: \.title, "price / k"
                            )
                        }
                    }
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.price * $0.price - $0.price > 100 }, in: context, key: \.title,
                        "price * price - price")
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { $0.pages + $0.pages - 10 > 30 }, in: context, key: \.title,
                        "Int + -")
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { -$0.price < -3 }, in: context, key: \.title, "unary minus")
                    for d in [2, 3, 7] {
                        try check.within("d=\(d)") {
                            try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { $0.pages % d == 1 }, in: context, key: \.title,
                                "pages % d")
                            try check.expectSwiftAgrees(
                                #Predicate<ConformanceBook> { $0.pages / d == 5 }, in: context, key: \.title,
                                "pages / d")
                        }
                    }
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceBook> { ($0.stock ?? 0) % 2 == -1 }, in: context, key: \.title,
                        "negative remainder")
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-20",
                    title: "Double arithmetic giving NaN (inf - inf) compares false, and its negation true"
                ) { check in
                    let container = try check.container(for: ConformanceRecord.self)
                    let writer = ModelContext(container)
                    for (i, amount) in [Double.infinity, -Double.infinity, 1.5, 0].enumerated() {
                        writer.insert(ConformanceRecord(name: "r\(i)", number: i, amount: amount))
                    }
                    try writer.save()
                    let context = ModelContext(try check.reopen(container))
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceRecord> { $0.amount - $0.amount > -1 }, in: context, key: \.name,
                        "amount - amount > -1")
                    try check.expectPartition(
                        #Predicate<ConformanceRecord> { $0.amount - $0.amount > -1 }, in: context, key: \.name,
                        "amount - amount > -1")
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-15",
                    title: "Decimal values compare by value: signs, fractions, trailing zeros"
                ) { check in
                    let container = try check.container(for: SampleSchema.trips.schema)
                    let writer = ModelContext(container)
                    let start = Date(timeIntervalSinceReferenceDate: 0)
                    for (i, text) in ["10", "9.5", "-2", "-1.5", "100", "1.00", "0.25"].enumerated() {
                        let amount = Decimal(string: text) ?? 0
                        writer.insert(TravelMeal(venue: "v\(i)", cost: 0, eatenAt: start, amount: amount))
                    }
                    try writer.save()
                    let context = ModelContext(try check.reopen(container))
                    for text in ["9.6", "-1.6", "1", "2"] {
                        let limit = Decimal(string: text) ?? 0
                        try check.within("limit=\(text)") {
                            try check.expectSwiftAgrees(
                                #Predicate<TravelMeal> { $0.amount > limit }, in: context, key: \.venue,
                                "amount > limit")
                            try check.expectSwiftAgrees(
                                #Predicate<TravelMeal> { $0.amount <= limit }, in: context, key: \.venue,
                                "amount <= limit")
                        }
                    }
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-22",
                    title: "PRD-21/22: a generic helper's predicate on a final-class model works"
                ) { check in
                    let container = try check.container(for: ConformanceRecord.self)
                    let writer = ModelContext(container)
                    for name in ["Bob", "bob", "Ann"] { writer.insert(ConformanceRecord(name: name, number: 1)) }
                    try writer.save()
                    let context = ModelContext(try check.reopen(container))
                    try check.expectEqual(
                        try countNamed(ConformanceRecord.self, "Bob", in: context), 1, "count named Bob")
                    try check.expectEqual(
                        try countNamed(ConformanceRecord.self, "nobody", in: context), 0, "count named nobody")
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-23",
                    title: "a matching pending insert is fetched in sort order; includePendingChanges = false hides it"
                ) { check in
                    let container = try check.container(for: ConformanceRecord.self)
                    let writer = ModelContext(container)
                    for (i, name) in ["Alba", "Bob", "Alice"].enumerated() {
                        writer.insert(ConformanceRecord(name: name, number: i))
                    }
                    try writer.save()
                    let context = ModelContext(try check.reopen(container))
                    context.insert(ConformanceRecord(name: "Alfred", number: 9))
                    context.insert(ConformanceRecord(name: "Zed", number: 10))
                    var descriptor = FetchDescriptor<ConformanceRecord>(
                        predicate: #Predicate { $0.name.starts(with: "Al") }, sortBy: [SortDescriptor(\.name)])
                    try check.expectEqual(
                        try context.fetch(descriptor).map(\.name), ["Alba", "Alfred", "Alice"],
                        "fetch with pending changes")
                    try check.expectEqual(try context.fetchCount(descriptor), 3, "fetchCount with pending changes")
                    descriptor.includePendingChanges = false
                    try check.expectEqual(
                        try context.fetch(descriptor).map(\.name), ["Alba", "Alice"], "fetch without pending changes")
                },
                ConformanceCase(
                    suite: "predicates", id: "PRD-24",
                    title: "a pending modification moves a saved row in or out of the predicate's result"
                ) { check in
                    let container = try check.container(for: ConformanceRecord.self)
                    let writer = ModelContext(container)
                    for (i, name) in ["Alba", "Bob", "Alice"].enumerated() {
                        writer.insert(ConformanceRecord(name: name, number: i))
                    }
                    try writer.save()
                    let context = ModelContext(try check.reopen(container))
                    let all = try context.fetch(FetchDescriptor<ConformanceRecord>(sortBy: [SortDescriptor(\.number)]))
                    all[1].name = "Alistair"  // Bob now matches
                    all[0].name = "Zelda"  // Alba no longer does
                    let descriptor = FetchDescriptor<ConformanceRecord>(
                        predicate: #Predicate { $0.name.starts(with: "Al") }, sortBy: [SortDescriptor(\.name)])
                    try check.expectEqual(
                        try context.fetch(descriptor).map(\.name), ["Alice", "Alistair"],
                        "fetch with pending modifications")
                    try check.expectEqual(
                        try context.fetchCount(descriptor), 2, "fetchCount with pending modifications")
                    try check.expectEqual(
                        try ModelContext(try check.reopen(container)).fetch(descriptor).map(\.name), ["Alba", "Alice"],
                        "another context sees the store")
                },
                ConformanceCase(
                    suite: "predicates", id: "INH-05",
                    title: "is and as? predicates over a hierarchy agree with Predicate.evaluate; as! throws"
                ) { check in
                    let container = try check.container(
                        for: ConformanceVehicle.self, ConformanceCar.self, ConformanceElectricCar.self,
                        ConformanceTruck.self)
                    let writer = ModelContext(container)
                    writer.insert(ConformanceVehicle(name: "cart", wheels: 2))
                    writer.insert(ConformanceCar(name: "sedan", seats: 5))
                    writer.insert(ConformanceCar(name: "coupe", seats: 2))
                    writer.insert(ConformanceElectricCar(name: "ev", seats: 4, batteryKWh: 75))
                    writer.insert(ConformanceTruck(name: "lorry", wheels: 6, payload: 12))
                    try writer.save()
                    let context = ModelContext(try check.reopen(container))
                    let cars = try check.expectSwiftAgrees(
                        #Predicate<ConformanceVehicle> { $0 is ConformanceCar }, in: context, key: \.name, "is Car")
                    try check.expectEqual(cars, ["coupe", "ev", "sedan"], "cars, electric included")
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceVehicle> { $0 is ConformanceTruck || $0.wheels == 2 }, in: context,
                        key: \.name, "is Truck or 2 wheels")
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceVehicle> { ($0 as? ConformanceCar)?.seats == 4 }, in: context,
                        key: \.name, "as? Car seats")
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceVehicle> {
                            ($0 as? ConformanceElectricCar).flatMap { $0.batteryKWh > 50 } ?? false
                        },
                        in: context, key: \.name, "as? ElectricCar battery")
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceVehicle> { ($0 as? ConformanceElectricCar)?.batteryKWh == 75 },
                        in: context, key: \.name,
                        "as? ElectricCar battery ==")
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceVehicle> { $0 is ConformanceTruck }, in: context, key: \.name, "is Truck")
                    try check.expectSwiftAgrees(
                        #Predicate<ConformanceVehicle> { ($0 as? ConformanceCar) != nil && $0.wheels > 2 }, in: context,
                        key: \.name,
                        "as? Car != nil and wheels")
                    try check.expectPartition(
                        #Predicate<ConformanceVehicle> { $0 is ConformanceCar }, in: context, key: \.name, "is Car")
                    try check.expectPartition(
                        #Predicate<ConformanceVehicle> { $0 is ConformanceTruck }, in: context, key: \.name, "is Truck")
                    try check.expectPartition(
                        #Predicate<ConformanceVehicle> { ($0 as? ConformanceCar)?.seats == 4 }, in: context,
                        key: \.name, "as? Car seats")
                    try check.expectPartition(
                        #Predicate<ConformanceVehicle> { ($0 as? ConformanceCar) != nil && $0.wheels > 2 }, in: context,
                        key: \.name,
                        "as? Car != nil and wheels")
                    try check.expectPartition(
                        #Predicate<ConformanceVehicle> { ($0 as? ConformanceElectricCar)?.batteryKWh == 75 },
                        in: context, key: \.name,
                        "as? ElectricCar battery ==")
                    try check.expectError(oneOf: [.unsupportedPredicate, .unsupportedKeyPath], "as! Car") {
                        try context.fetch(
                            FetchDescriptor(
                                predicate: #Predicate<ConformanceVehicle> { ($0 as! ConformanceCar).seats == 1 }))
                    }
                },
            ])
    }
}

/// A model with a `name`, for a predicate written against a generic parameter (PRD-22).
private protocol ConformanceNamed: PersistentModel {
    var name: String { get }
}

extension ConformanceRecord: ConformanceNamed {}

/// Counts the `T`s called `name` through a predicate built on the generic parameter.
private func countNamed<T: ConformanceNamed>(_ type: T.Type, _ name: String, in context: ModelContext) throws -> Int {
    try context.fetchCount(FetchDescriptor<T>(predicate: #Predicate<T> { $0.name == name }))
}

/// The titles of the predicate library, one book each; chosen for case, accents, LIKE metacharacters and quotes.
private let libraryTitles = [
    "Alice", "alice", "ALICE", "Álice", "100% pure", "under_score", "it's", "back\\slash",
    "e\u{301}cole", "", "Ωmega", "plain 🇫🇷",
]

/// The books' UUIDs, derived from their index (no `UUID()` in fixtures).
private let libraryCodes: [UUID] = (0..<libraryTitles.count).map {
    UUID(uuidString: "00000000-0000-0000-0000-" + String(repeating: "0", count: 10) + ($0 < 10 ? "0\($0)" : "\($0)"))!
}

/// Stores the predicate library (books, authors, labels) and returns a fresh context on the reopened store.
///
/// Book `i`: subtitle nil when `i % 3 == 0`; pages `5 + 3i`; stock nil when `i % 3 == 2`; published nil when
/// `i % 5 == 3`; featured when `i` is even; status cycles; author Ann/Bob/nil/Cyd by `i % 4`; labels by `i % 4`.
private func library(_ check: ConformanceCheck) throws -> ModelContext {
    let container = try check.container(for: ConformanceBook.self, ConformanceAuthor.self, ConformanceLabel.self)
    let writer = ModelContext(container)
    let ann = ConformanceAuthor(name: "Ann", born: 1970)
    let bob = ConformanceAuthor(name: "Bob")
    let cyd = ConformanceAuthor(name: "Cyd", born: 1990)
    let x = ConformanceLabel(name: "x", isPublic: true)
    let y = ConformanceLabel(name: "y", isPublic: false)
    let z = ConformanceLabel(name: "z%", isPublic: true)
    for author in [ann, bob, cyd] { writer.insert(author) }
    for label in [x, y, z] { writer.insert(label) }
    for (i, title) in libraryTitles.enumerated() {
        let book = ConformanceBook(
            code: libraryCodes[i], title: title,
            subtitle: i % 3 == 0 ? nil : "sub\(i)\(i % 2 == 0 ? "%" : "_")",
            pages: 5 + i * 3, price: Double(i) * 1.5 - 2,
            stock: i % 3 == 2 ? nil : i - 4,
            published: i % 5 == 3 ? nil : Date(timeIntervalSinceReferenceDate: Double(i) * 86_400),
            isFeatured: i % 2 == 0, status: ConformanceStatus.allCases[i % 3])
        writer.insert(book)
        book.author = [ann, bob, nil, cyd][i % 4]
        book.labels = [[x, y], [x], [], [z, y, x]][i % 4]
    }
    try writer.save()
    return ModelContext(try check.reopen(container))
}

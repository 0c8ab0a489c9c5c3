import Foundation
import OpenSwiftDataTesting
import Testing

@testable import OpenSwiftData

/// A captured filter value with properties, as a view model would hold.
private struct PredicateFilter: Codable, Sendable {
    var text: String
    var minimum: Int
    var range: ClosedRange<Int>
    var ids: [Int]
    var authorName: String?
}

/// Sub-expressions that read no row (a key path or method on a captured value, arithmetic on
/// captured numbers) are evaluated in Swift for each fetch (ConstantFolding.swift).
@Suite("CapturedValuePredicates")
struct CapturedValuePredicateTests {
    @Test("search-box ternary and if/else on a captured string's isEmpty", arguments: StoreKind.allCases)
    func searchBox(_ kind: StoreKind) throws {
        let f = try PredicateFixture(kind)
        for searchText in ["", "ali", "ALI", "zzz", "ω"] {
            let ternary = #Predicate<ConformanceBook> {
                searchText.isEmpty ? true : $0.title.localizedStandardContains(searchText)
            }
            let got = try f.books(ternary, "ternary \(searchText)")
            if searchText.isEmpty { #expect(got.count == PredicateFixture.names.count) }
            let ifElse = #Predicate<ConformanceBook> {
                if searchText.isEmpty { true } else { $0.title.localizedStandardContains(searchText) }
            }
            #expect(try f.books(ifElse, "if \(searchText)") == got)
        }
    }

    @Test("key paths, methods and arithmetic on captured values", arguments: StoreKind.allCases)
    func capturedMembers(_ kind: StoreKind) throws {
        let f = try PredicateFixture(kind)
        let filter = PredicateFilter(text: "Alice", minimum: 20, range: 10...30, ids: [8, 11, 14], authorName: "Ann")
        try f.books(#Predicate { $0.pages > filter.minimum }, "key path")
        try f.books(#Predicate { $0.title.starts(with: filter.text.isEmpty ? "x" : filter.text) }, "conditional value")
        try f.books(#Predicate { $0.pages >= filter.text.count * 4 }, "count and arithmetic")
        try f.books(#Predicate { $0.pages < filter.minimum + 5 && $0.pages > -filter.minimum / 4 }, "arithmetic")
        try f.books(#Predicate { filter.range.contains($0.pages) }, "captured range by key path")
        try f.books(#Predicate { filter.ids.contains($0.pages) }, "captured array by key path")
        try f.books(#Predicate { $0.author?.name == filter.authorName }, "optional key path")
        try f.books(#Predicate<ConformanceBook> { _ in filter.text.isEmpty }, "whole predicate folds")
    }

    @Test("a changed captured value gives fresh rows through the cached statement", arguments: StoreKind.allCases)
    func cacheRebinds(_ kind: StoreKind) throws {
        let f = try PredicateFixture(kind)
        func fetch(_ searchText: String) throws -> Set<String> {
            let p = #Predicate<ConformanceBook> { searchText.isEmpty ? true : $0.title.contains(searchText) }
            return try f.books(p, "search \(searchText)")
        }
        let all = try fetch("")
        let cached = f.container.queryCache.count
        let alice = try fetch("ali")
        let omega = try fetch("mega")
        #expect(all.count == PredicateFixture.names.count)
        #expect(alice == ["alice"])
        #expect(omega == ["Ωmega"])
        #expect(try fetch("") == all)
        #expect(f.container.queryCache.count == cached, "one shape, one cached translation")
    }

    @Test("folds that would trap in Swift throw instead", arguments: StoreKind.allCases)
    func trappingFolds(_ kind: StoreKind) throws {
        let f = try PredicateFixture(kind)
        let big = Int.max
        let zero = 0
        let empty: [Int] = []
        let overflow = #expect(throws: SwiftDataError.self) {
            try f.context.fetch(FetchDescriptor(predicate: #Predicate<ConformanceBook> { $0.pages > big + 1 }))
        }
        #expect(overflow?.code == SwiftDataError.arithmeticOverflow.code)
        let division = #expect(throws: SwiftDataError.self) {
            try f.context.fetch(FetchDescriptor(predicate: #Predicate<ConformanceBook> { $0.pages > 10 / zero }))
        }
        #expect(division?.code == SwiftDataError.unsupportedPredicate.code)
        let unwrap = #expect(throws: SwiftDataError.self) {
            try f.context.fetch(FetchDescriptor(predicate: #Predicate<ConformanceBook> { $0.pages > empty.max()! }))
        }
        #expect(unwrap?.code == SwiftDataError.unsupportedPredicate.code)
    }
}

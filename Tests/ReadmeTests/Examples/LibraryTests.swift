import OpenSwiftData
import OpenSwiftDataTesting
import Testing

// The conformance suites, on both stores, one test case each:
@Test(arguments: ConformanceSuite.allCases, StoreKind.allCases)
func conformance(_ c: ConformanceCase, store: StoreKind) throws { try c.verify(store: store) }

// Random predicates and change scripts; the stores must agree with plain Swift:
@Test func differential() {
    let report = DifferentialHarness.run(seed: 1, cases: Array(0..<500), jobs: 2)
    #expect(report.mismatches.isEmpty, "\(report.mismatches.map(\.description))")
}

// Your own models on both stores, against plain Swift as the reference:
@Test func shortBooks() throws {
    let pair = try StorePair(schema: Schema([Shelf.self, Book.self]), seed: 42)
    try pair.populate(fixture)  // the typed builder's Fixture (Examples/Library.swift)
    let short = #Predicate<Book> { $0.pages < 100 }
    let everyBook = try ModelContext(pair.memory).fetch(FetchDescriptor<Book>())
    let expected = try everyBook.filter { try short.evaluate($0) }.map(\.title).sorted()
    try pair.run("short books", reference: { expected }) { context, _ in
        try context.fetch(FetchDescriptor(predicate: short, sortBy: [SortDescriptor(\.title)])).map(\.title)
    }
    try pair.expectSameContents("after the import")  // canonical dumps of both stores
}

import OpenSwiftData
import OpenSwiftDataTesting
import Testing

extension ConformanceCase: CustomTestStringConvertible {
    public var testDescription: String { "\(suite) \(id) \(title)" }
}

/// Every conformance case of every suite, on both stores: the same verifiers `harness conform` runs.
@Suite("Conformance")
struct ConformanceTests {
    @Test("conformance case", arguments: ConformanceSuite.allCases, StoreKind.allCases)
    func conformance(_ c: ConformanceCase, store: StoreKind) throws {
        try c.verify(store: store, seed: 1)
    }

    @Test("every suite has cases, and every case names a behaviour-reference ID")
    func catalogue() throws {
        #expect(
            ConformanceSuite.all.map(\.name) == [
                "uniqueness", "deleteRules", "predicates", "inheritance",
                "fetching", "relationships", "lifecycle", "history", "migrations",
            ])
        for suite in ConformanceSuite.all {
            #expect(!suite.cases.isEmpty, "\(suite.name) has no cases")
            for c in suite.cases {
                #expect(c.suite == suite.name)
                #expect(c.id.wholeMatch(of: /[A-Z]{3}-[0-9]{2}/) != nil, "\(c.id) is not a reference ID")
            }
        }
    }

    @Test("a failing check throws a ConformanceFailure naming suite, case, store and seed")
    func failureCarriesContext() throws {
        let c = ConformanceCase(suite: "demo", id: "PRD-01", title: "a check that must fail") { check in
            try check.within("row=3") { try check.expectEqual(1 + 1, 3, "arithmetic") }
        }
        let error = #expect(throws: ConformanceFailure.self) { try c.verify(store: .disk, seed: 42) }
        #expect(error?.suite == "demo")
        #expect(error?.caseID == "PRD-01")
        #expect(error?.store == .disk)
        #expect(error?.seed == 42)
        #expect(error?.expected == "3")
        #expect(error?.actual == "2")
        #expect(error?.trace == ["row=3"])
        #expect(error?.description.contains("[demo PRD-01, disk, seed 42] arithmetic") == true)
    }
}

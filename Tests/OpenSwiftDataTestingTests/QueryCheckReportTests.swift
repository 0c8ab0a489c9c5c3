import Foundation
import OpenSwiftData
import Testing

@testable import OpenSwiftDataTesting

/// A QueryCheck failure names the predicate it checked as the Swift its author wrote, whole
/// (PRD-25), not Foundation's description, which on Linux loses every model key path.
@Suite("QueryCheck report")
struct QueryCheckReportTests {
    static let fixture = Fixture(schema: Schema([AccountUser.self]), seed: 1, defaultCount: 20)

    @Test("PRD-25: a QueryCheck failure prints the whole predicate", arguments: StoreKind.allCases)
    func failurePrintsWholePredicate(_ store: StoreKind) throws {
        let since = Date(timeIntervalSince1970: 1_767_225_600)
        // `uuidString` of a stored UUID has no SQL: the store refuses the query, Swift runs it.
        let check = QueryCheck(
            FetchDescriptor<AccountUser>(
                predicate: #Predicate {
                    $0.id.uuidString.starts(with: "A")
                        || ($0.bio ?? "").count > 3 && $0.score * 2 > 10 && $0.joined < since
                            && $0.name.localizedStandardContains("é\n")
                }))
        let failure = #expect(throws: ConformanceFailure.self) {
            try check.verify(fixture: Self.fixture, datasets: 1, store: store)
        }
        let expected =
            #"#Predicate<AccountUser> { $0.id.uuidString.starts(with: "A") || ($0.bio ?? "").count > 3 && $0.score * 2 > 10 && $0.joined < 2026-01-01T00:00:00Z && $0.name.localizedStandardContains("é\n") }"#
        #expect(failure?.check.contains("translatable") == true)
        #expect(failure?.details.first == "predicate: " + expected)
        #expect(failure?.description.contains(expected) == true, "\(failure?.description ?? "")")
        #expect(failure?.description.contains("input1") == false)
    }
}

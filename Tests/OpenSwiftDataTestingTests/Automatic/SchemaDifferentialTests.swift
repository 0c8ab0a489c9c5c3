import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

@Suite("SchemaDifferential")
struct SchemaDifferentialTests {
    @Test(
        "profiles derived from a schema with inheritance, Decimals, optionals and to-many relationships agree with plain Swift"
    )
    func trips() {
        let harness = DifferentialHarness(
            schema: SampleSchema.trips.schema, seed: 4, counts: ["TravelTrip": 20, "TravelMeal": 80])
        let report = harness.run(cases: 0..<150)
        #expect(report.cases == 150 && report.scripts == 3 && report.checks > 500)
        #expect(report.mismatches.isEmpty, "\(report.mismatches.map(\.description).joined(separator: "\n"))")
    }

    @Test(
        "a schema of owners, gadgets and clubs: self references, many-to-many, unique groups, change scripts with upserts"
    )
    func gadgets() {
        let harness = DifferentialHarness(schema: AutomaticFixtureTests.schema, seed: 9)
        #expect(harness.kind(ofCase: 48).hasPrefix("script") == false && harness.kind(ofCase: 49) == "script schema")
        let report = harness.run(cases: 0..<150)
        #expect(report.mismatches.isEmpty, "\(report.mismatches.map(\.description).joined(separator: "\n"))")
    }
}

import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

@Suite("SchemaDifferential")
struct SchemaDifferentialTests {
    @Test("profiles derived from a schema with inheritance, Decimals, optionals and to-many relationships agree with plain Swift")
    func trips() {
        let harness = DifferentialHarness(schema: SampleSchema.trips.schema, seed: 4, counts: ["TravelTrip": 20, "TravelMeal": 80])
        let report = harness.run(cases: 0..<300)
        #expect(report.cases == 300 && report.scripts == 0 && report.checks > 1_000)
        #expect(report.mismatches.isEmpty, "\(report.mismatches.map(\.description).joined(separator: "\n"))")
    }

    @Test("a schema of owners, gadgets and clubs: self references, many-to-many, unique groups")
    func gadgets() {
        let harness = DifferentialHarness(schema: AutomaticFixtureTests.schema, seed: 9)
        #expect(harness.kind(ofCase: 19).hasPrefix("script") == false)
        let report = harness.run(cases: 0..<300)
        #expect(report.mismatches.isEmpty, "\(report.mismatches.map(\.description).joined(separator: "\n"))")
    }
}

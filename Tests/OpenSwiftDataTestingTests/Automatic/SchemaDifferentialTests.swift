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

    @Test(
        "UNQ-14: a club's link made in the save to an owner's row that an upsert takes over follows the new owner's list (the oracle checks the store's many-to-many pairs)"
    )
    func upsertReplacesManyToManyWhole() throws {
        let harness = DifferentialHarness(schema: AutomaticFixtureTests.schema, seed: 10)
        // A stored club links the stored owner; a new club links it (each then upserted, no clubs).
        for index in [4099, 4399] { _ = try harness.verifyCase(index) }
    }

    @Test(
        "UNQ-14: gadgets linked in the save to an owner whose row a new owner takes over leave it with the stored ones"
    )
    func upsertReplacesOneToManyWhole() throws {
        // A stored owner's gadget list is set again with one more gadget; a new owner upserts
        // its row with no gadgets: both gadgets end up with no owner, in the oracle and the store.
        _ = try DifferentialHarness(schema: AutomaticFixtureTests.schema, seed: 12).verifyCase(1649)
    }

    @Test("REL-04: a club's member list set to the empty list it had fails the save's minimumModelCount check")
    func settingAnEmptyListIsChecked() throws {
        // An upsert leaves a club with no members (UNQ-14); clearing the list again is a change
        // the save checks, and refuses.
        _ = try DifferentialHarness(schema: AutomaticFixtureTests.schema, seed: 12).verifyCase(3599)
    }

    @Test("REL-04: an owner leaving a club from its own side is checked against the club's minimum, on both stores")
    func leavingAClubIsChecked() throws {
        // Seed 16: the club's list was loaded in one store's context and not in the other's,
        // and only the loaded one was checked. Seed 18: neither was.
        _ = try DifferentialHarness(schema: AutomaticFixtureTests.schema, seed: 16).verifyCase(1499)
        _ = try DifferentialHarness(schema: AutomaticFixtureTests.schema, seed: 18).verifyCase(4199)
    }

    @Test("DEL-14: a new owner made a mentor and deleted before the save is not written, and the mentor reads nil")
    func deletedNewMentorIsNotWritten() throws {
        _ = try DifferentialHarness(schema: AutomaticFixtureTests.schema, seed: 24).verifyCase(4749)
    }

    @Test("UNQ-30, UNQ-14: a gadget linked to a new owner that collapses into a later upserting one stays with the row")
    func collapsedOwnersGadgetStays() throws {
        _ = try DifferentialHarness(schema: AutomaticFixtureTests.schema, seed: 30).verifyCase(3449)
    }
}

import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

/// The conformance suites' own models: every delete rule, compound and optional unique groups,
/// three-level inheritance, one-to-one, required relationships, many attribute types.
let derivedSchema = Schema([
    ConformanceAccount.self, ConformancePair.self, ConformanceOwner.self, ConformanceVehicle.self, ConformanceCar.self,
    ConformanceElectricCar.self, ConformanceTruck.self, ConformanceRecord.self, ConformanceContact.self,
    ConformanceTour.self,
    ConformanceCityTour.self, ConformanceBoatTour.self, ConformancePassport.self, ConformanceCitizen.self,
    ConformanceTeam.self, ConformanceTeamMember.self, ConformanceMachine.self, ConformancePart.self,
    ConformanceHouse.self, ConformanceFloor.self, ConformanceRoom.self, ConformanceFurniture.self,
])

@Suite("SchemaConformance")
struct SchemaConformanceTests {
    @Test("cases derived from the conformance models pass on both stores", arguments: StoreKind.allCases)
    func derivedCases(store: StoreKind) throws {
        let conformance = SchemaConformance(schema: derivedSchema)
        let ids = Set(conformance.cases.map(\.id))
        #expect(ids == ["SCH-UNQ", "SCH-DEL", "SCH-INH", "SCH-VAL"])
        #expect(conformance.declarations.contains("delete ConformanceOwner.denied deny"))
        #expect(conformance.declarations.contains { $0.hasPrefix("hierarchy ConformanceVehicle: ") })
        let failures = conformance.suite.run(on: store).compactMap(\.failure)
        #expect(failures.isEmpty, "\(failures.map(\.description).joined(separator: "\n"))")
    }

    @Test("automatic data fills the conformance models identically on both stores")
    func automaticData() throws {
        let pair = try StorePair(schema: derivedSchema, seed: 8)
        let counts = try pair.populate(Fixture(schema: derivedSchema, seed: 8, defaultCount: 12))
        #expect(counts["ConformanceVehicle"] == 48)
        try pair.expectSameContents("automatic data")
    }
}

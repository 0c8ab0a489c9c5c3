import Foundation
import OpenSwiftData

extension ConformanceSuite {
    /// Inheritance queries: a base-class fetch returns subclasses with their dynamic types.
    public static var inheritance: ConformanceSuite {
        ConformanceSuite(name: "inheritance", title: "class hierarchies: fetch, count, type checks", cases: [
            ConformanceCase(suite: "inheritance", id: "INH-01", title: "a base fetch returns every subclass row with its dynamic type") { check in
                let container = try check.container(for: ConformanceVehicle.self, ConformanceCar.self,
                                                    ConformanceElectricCar.self, ConformanceTruck.self)
                let context = ModelContext(container)
                context.insert(ConformanceVehicle(name: "cart", wheels: 2))
                context.insert(ConformanceCar(name: "sedan", seats: 5))
                context.insert(ConformanceElectricCar(name: "ev", seats: 4, batteryKWh: 75))
                context.insert(ConformanceTruck(name: "lorry", wheels: 6, payload: 12))
                try context.save()
                let fresh = ModelContext(try check.reopen(container))
                let all = try fresh.fetch(FetchDescriptor<ConformanceVehicle>(sortBy: [SortDescriptor(\.name)]))
                try check.expectEqual(all.map { String(describing: type(of: $0)) },
                                      ["ConformanceVehicle", "ConformanceElectricCar", "ConformanceTruck", "ConformanceCar"],
                                      "dynamic types of the base fetch, by name")
            },
        ])
    }
}

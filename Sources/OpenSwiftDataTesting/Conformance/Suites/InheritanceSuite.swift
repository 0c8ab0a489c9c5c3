import Foundation
import OpenSwiftData

extension ConformanceSuite {
    /// Inheritance queries: a base-class fetch returns subclasses with their dynamic types.
    public static var inheritance: ConformanceSuite {
        ConformanceSuite(
            name: "inheritance", title: "class hierarchies: fetch, count, type checks",
            cases: [
                ConformanceCase(
                    suite: "inheritance", id: "INH-01",
                    title: "a base fetch returns every subclass row with its dynamic type"
                ) { check in
                    let container = try check.container(
                        for: ConformanceVehicle.self, ConformanceCar.self,
                        ConformanceElectricCar.self, ConformanceTruck.self)
                    let context = ModelContext(container)
                    context.insert(ConformanceVehicle(name: "cart", wheels: 2))
                    context.insert(ConformanceCar(name: "sedan", seats: 5))
                    context.insert(ConformanceElectricCar(name: "ev", seats: 4, batteryKWh: 75))
                    context.insert(ConformanceTruck(name: "lorry", wheels: 6, payload: 12))
                    try context.save()
                    let fresh = ModelContext(try check.reopen(container))
                    let all = try fresh.fetch(FetchDescriptor<ConformanceVehicle>(sortBy: [SortDescriptor(\.name)]))
                    try check.expectEqual(
                        all.map { String(describing: type(of: $0)) },
                        ["ConformanceVehicle", "ConformanceElectricCar", "ConformanceTruck", "ConformanceCar"],
                        "dynamic types of the base fetch, by name")
                },
                ConformanceCase(
                    suite: "inheritance", id: "INH-01", title: "subclass attributes round-trip through a base fetch"
                ) { check in
                    let context = try fleet(check)
                    let all = try context.fetch(FetchDescriptor<ConformanceVehicle>(sortBy: [SortDescriptor(\.name)]))
                    try check.expectEqual(all.count, 7, "vehicles")
                    let described = all.map { v -> String in
                        switch v {
                        case let e as ConformanceElectricCar:
                            return "\(e.name) ev seats=\(e.seats) kWh=\(e.batteryKWh) wheels=\(e.wheels)"
                        case let c as ConformanceCar: return "\(c.name) car seats=\(c.seats) wheels=\(c.wheels)"
                        case let t as ConformanceTruck: return "\(t.name) truck payload=\(t.payload) wheels=\(t.wheels)"
                        default: return "\(v.name) vehicle wheels=\(v.wheels)"
                        }
                    }
                    try check.expectEqual(
                        described,
                        [
                            "bike vehicle wheels=2", "cart vehicle wheels=3", "coupe car seats=2 wheels=4",
                            "ev ev seats=4 kWh=75.0 wheels=4",
                            "lorry truck payload=12.0 wheels=6", "sedan car seats=5 wheels=4",
                            "van truck payload=1.5 wheels=4",
                        ], "every vehicle with its own attributes")
                },
                ConformanceCase(
                    suite: "inheritance", id: "INH-02",
                    title: "a subclass fetch returns that subclass and its descendants only"
                ) { check in
                    let context = try fleet(check)
                    let cars = try context.fetch(FetchDescriptor<ConformanceCar>(sortBy: [SortDescriptor(\.name)]))
                    try check.expectEqual(cars.map(\.name), ["coupe", "ev", "sedan"], "cars")
                    let trucks = try context.fetch(FetchDescriptor<ConformanceTruck>(sortBy: [SortDescriptor(\.name)]))
                    try check.expectEqual(trucks.map(\.name), ["lorry", "van"], "trucks")
                    let roomy = try context.fetch(
                        FetchDescriptor<ConformanceCar>(
                            predicate: #Predicate { $0.seats >= 4 }, sortBy: [SortDescriptor(\.name)]))
                    try check.expectEqual(roomy.map(\.name), ["ev", "sedan"], "cars with at least 4 seats")
                    let fourWheels = try context.fetch(
                        FetchDescriptor<ConformanceTruck>(predicate: #Predicate { $0.wheels == 4 }))
                    try check.expectEqual(fourWheels.map(\.name), ["van"], "trucks filtered on an inherited attribute")
                },
                ConformanceCase(suite: "inheritance", id: "INH-03", title: "fetchCount counts each level's subtree") {
                    check in
                    let context = try fleet(check)
                    try check.expectEqual(try context.fetchCount(FetchDescriptor<ConformanceVehicle>()), 7, "vehicles")
                    try check.expectEqual(try context.fetchCount(FetchDescriptor<ConformanceCar>()), 3, "cars")
                    try check.expectEqual(
                        try context.fetchCount(FetchDescriptor<ConformanceElectricCar>()), 1, "electric cars")
                    try check.expectEqual(try context.fetchCount(FetchDescriptor<ConformanceTruck>()), 2, "trucks")
                    try check.expectEqual(
                        try context.fetchCount(
                            FetchDescriptor<ConformanceVehicle>(predicate: #Predicate { $0.wheels == 4 })), 4,
                        "four-wheeled vehicles")
                },
                ConformanceCase(
                    suite: "inheritance", id: "INH-04", title: "`is` in a predicate over the base selects subclasses"
                ) { check in
                    let context = try fleet(check)
                    let found = try context.fetch(
                        FetchDescriptor<ConformanceVehicle>(
                            predicate: #Predicate { $0 is ConformanceCar || $0 is ConformanceTruck },
                            sortBy: [SortDescriptor(\.name)]))
                    try check.expectEqual(
                        found.map(\.name), ["coupe", "ev", "lorry", "sedan", "van"], "cars and trucks")
                    let plain = try context.fetch(
                        FetchDescriptor<ConformanceVehicle>(
                            predicate: #Predicate { !($0 is ConformanceCar) && !($0 is ConformanceTruck) },
                            sortBy: [SortDescriptor(\.name)]))
                    try check.expectEqual(plain.map(\.name), ["bike", "cart"], "neither car nor truck")
                    try check.expectEqual(
                        try context.fetchCount(
                            FetchDescriptor<ConformanceCar>(predicate: #Predicate { $0 is ConformanceElectricCar })), 1,
                        "electric cars among cars")
                },
                ConformanceCase(
                    suite: "inheritance", id: "INH-05",
                    title: "a cast in a predicate reads a subclass attribute; others fall to else"
                ) { check in
                    let context = try fleet(check)
                    let p = #Predicate<ConformanceVehicle> { vehicle in
                        if let car = vehicle as? ConformanceCar { car.seats > 3 } else { false }
                    }
                    let found = try context.fetch(FetchDescriptor(predicate: p, sortBy: [SortDescriptor(\.name)]))
                    try check.expectEqual(found.map(\.name), ["ev", "sedan"], "cars with more than 3 seats")
                    let heavy = try context.fetch(
                        FetchDescriptor<ConformanceVehicle>(
                            predicate: #Predicate { ($0 as? ConformanceTruck)?.payload ?? 0 > 5 }))
                    try check.expectEqual(heavy.map(\.name), ["lorry"], "trucks with payload > 5")
                },
                ConformanceCase(
                    suite: "inheritance", id: "INH-06",
                    title: "sorting by a base attribute interleaves subclasses; offset and limit apply across them"
                ) { check in
                    let context = try fleet(check)
                    let sort = [
                        SortDescriptor(\ConformanceVehicle.wheels, order: .reverse),
                        SortDescriptor(\ConformanceVehicle.name),
                    ]
                    let all = try context.fetch(FetchDescriptor<ConformanceVehicle>(sortBy: sort))
                    try check.expectEqual(
                        all.map(\.name), ["lorry", "coupe", "ev", "sedan", "van", "cart", "bike"],
                        "vehicles by wheels desc, name")
                    var page = FetchDescriptor<ConformanceVehicle>(sortBy: sort)
                    page.fetchOffset = 2
                    page.fetchLimit = 3
                    let types = try context.fetch(page).map { String(describing: type(of: $0)) }
                    try check.expectEqual(
                        types, ["ConformanceElectricCar", "ConformanceCar", "ConformanceTruck"],
                        "dynamic types of the page")
                },
                ConformanceCase(
                    suite: "inheritance", id: "INH-07",
                    title: "a to-many typed as the base holds mixed subclasses after a reopen; cascade deletes them"
                ) { check in
                    let container = try check.container(
                        for: ConformanceGarage.self, ConformanceVehicle.self, ConformanceCar.self,
                        ConformanceElectricCar.self, ConformanceTruck.self)
                    let context = ModelContext(container)
                    let garage = ConformanceGarage(name: "g")
                    garage.vehicles = [
                        ConformanceCar(name: "car", seats: 5),
                        ConformanceElectricCar(name: "ev", seats: 4, batteryKWh: 60),
                        ConformanceTruck(name: "truck", wheels: 6, payload: 3),
                        ConformanceVehicle(name: "cart", wheels: 2),
                    ]
                    context.insert(garage)
                    context.insert(ConformanceCar(name: "outside", seats: 2))
                    try context.save()
                    let fresh = ModelContext(try check.reopen(container))
                    let stored = try fresh.fetch(FetchDescriptor<ConformanceGarage>())
                    try check.expectEqual(stored.count, 1, "garages")
                    let kinds = stored[0].vehicles.map { "\($0.name):\(String(describing: type(of: $0)))" }.sorted()
                    try check.expectEqual(
                        kinds,
                        [
                            "car:ConformanceCar", "cart:ConformanceVehicle", "ev:ConformanceElectricCar",
                            "truck:ConformanceTruck",
                        ],
                        "vehicles of the stored garage")
                    fresh.delete(stored[0])
                    try fresh.save()
                    try check.expectEqual(
                        try check.stored(ConformanceVehicle.self, in: container, key: \.name), ["outside"],
                        "vehicles after the cascade")
                },
                ConformanceCase(
                    suite: "inheritance", id: "INH-08",
                    title: "a grandchild class appears in fetches of its ancestors only"
                ) { check in
                    let context = try fleet(check)
                    try check.expect(
                        try context.fetch(FetchDescriptor<ConformanceVehicle>()).contains {
                            $0 is ConformanceElectricCar
                        },
                        "the electric car is among vehicles", actual: "missing")
                    try check.expect(
                        try context.fetch(FetchDescriptor<ConformanceCar>()).contains { $0 is ConformanceElectricCar },
                        "the electric car is among cars", actual: "missing")
                    try check.expect(
                        !(try context.fetch(FetchDescriptor<ConformanceTruck>()).contains { $0.name == "ev" }),
                        "the electric car is not among trucks", actual: "present")
                    let ev = try context.fetch(FetchDescriptor<ConformanceElectricCar>())
                    try check.expectEqual(ev.map(\.name), ["ev"], "electric cars")
                    // One instance per row: the grandchild fetched through each ancestor is the same object.
                    let viaBase = try context.fetch(FetchDescriptor<ConformanceVehicle>()).first { $0.name == "ev" }
                    let viaCar = try context.fetch(FetchDescriptor<ConformanceCar>()).first { $0.name == "ev" }
                    try check.expect(
                        viaBase != nil && viaBase === viaCar && viaCar === ev.first,
                        "one instance for the row through Vehicle, Car and ElectricCar",
                        actual: "different instances")
                    // An edit through the grandchild updates base and middle attributes alike.
                    ev[0].name = "ev2"
                    ev[0].seats = 2
                    ev[0].batteryKWh = 80
                    try context.save()
                    let again = try ModelContext(try check.reopen(context.container)).fetch(
                        FetchDescriptor<ConformanceCar>(predicate: #Predicate { $0.name == "ev2" }))
                    try check.expectEqual(
                        again.map { "\($0.seats) \(($0 as? ConformanceElectricCar)?.batteryKWh ?? -1)" }, ["2 80.0"],
                        "edited electric car")
                },
                ConformanceCase(
                    suite: "inheritance", id: "INH-20",
                    title: "[REC] a subclass missing from the schema fails with an error naming it"
                ) { check in
                    do {
                        let container = try check.container(for: ConformanceVehicle.self, ConformanceCar.self)
                        let context = ModelContext(container)
                        context.insert(ConformanceTruck(name: "lorry", wheels: 6, payload: 1))
                        let error = try check.expectError(
                            oneOf: [
                                .modelValidationFailure, .configurationSchemaNotFoundInContainerSchema,
                                .storeError, .invalidValue, .unknownSchema, .incompatibleSchema,
                            ],
                            "save of a subclass missing from the schema"
                        ) { try context.save() }
                        try check.expect(
                            error.description.contains("ConformanceTruck"), "the error names the subclass",
                            actual: error.description)
                        try check.expectEqual(
                            try check.storedCount(ConformanceVehicle.self, in: container), 0, "vehicles stored")
                    } catch let error as SwiftDataError {
                        try check.expect(
                            error.description.contains("ConformanceTruck"), "the container error names the subclass",
                            actual: error.description)
                    }
                },
                ConformanceCase(
                    suite: "inheritance", id: "INH-30",
                    title: "batch delete with includeSubclasses: false deletes the exact class only"
                ) { check in
                    let context = try fleet(check)
                    try context.delete(model: ConformanceVehicle.self, includeSubclasses: false)
                    try context.save()
                    try check.expectEqual(
                        try check.stored(ConformanceVehicle.self, in: context.container, key: \.name),
                        ["coupe", "ev", "lorry", "sedan", "van"], "vehicles after deleting plain vehicles")
                    try context.delete(model: ConformanceCar.self, includeSubclasses: false)
                    try context.save()
                    try check.expectEqual(
                        try check.stored(ConformanceVehicle.self, in: context.container, key: \.name),
                        ["ev", "lorry", "van"], "vehicles after deleting plain cars")
                },
                ConformanceCase(
                    suite: "inheritance", id: "INH-31", title: "batch delete of the base includes subclasses by default"
                ) { check in
                    let context = try fleet(check)
                    try context.delete(model: ConformanceVehicle.self)
                    try context.save()
                    try check.expectEqual(
                        try check.storedCount(ConformanceVehicle.self, in: context.container), 0, "vehicles left")
                    try check.expectEqual(
                        try check.storedCount(ConformanceElectricCar.self, in: context.container), 0,
                        "electric cars left")
                },
                ConformanceCase(
                    suite: "inheritance", id: "INH-32",
                    title: "a subclass batch delete with a predicate on a subclass attribute"
                ) { check in
                    let context = try fleet(check)
                    try context.delete(model: ConformanceCar.self, where: #Predicate { $0.seats <= 4 })
                    try context.save()
                    try check.expectEqual(
                        try check.stored(ConformanceVehicle.self, in: context.container, key: \.name),
                        ["bike", "cart", "lorry", "sedan", "van"], "vehicles after deleting small cars")
                    try context.delete(model: ConformanceTruck.self, where: #Predicate { $0.payload > 5 })
                    try context.save()
                    try check.expectEqual(
                        try check.stored(ConformanceTruck.self, in: context.container, key: \.name), ["van"],
                        "trucks left")
                },
            ])
    }
}

/// Stores a fleet — bike, cart (vehicles); coupe, sedan (cars); ev (electric car); lorry, van (trucks) —
/// and returns a fresh context on the reopened store.
private func fleet(_ check: ConformanceCheck) throws -> ModelContext {
    let container = try check.container(
        for: ConformanceVehicle.self, ConformanceCar.self, ConformanceElectricCar.self, ConformanceTruck.self)
    let writer = ModelContext(container)
    writer.insert(ConformanceVehicle(name: "cart", wheels: 3))
    writer.insert(ConformanceCar(name: "sedan", seats: 5))
    writer.insert(ConformanceTruck(name: "lorry", wheels: 6, payload: 12))
    writer.insert(ConformanceElectricCar(name: "ev", seats: 4, batteryKWh: 75))
    writer.insert(ConformanceVehicle(name: "bike", wheels: 2))
    writer.insert(ConformanceCar(name: "coupe", seats: 2))
    writer.insert(ConformanceTruck(name: "van", wheels: 4, payload: 1.5))
    try writer.save()
    return ModelContext(try check.reopen(container))
}

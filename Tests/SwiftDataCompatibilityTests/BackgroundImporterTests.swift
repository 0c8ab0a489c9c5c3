// A background importer in the shape of Apple's SwiftData samples, compiled unchanged:
// `@ModelActor`, batched saves, identifiers handed back to the main context.
import SwiftData
import Testing

@Model
final class Quake {
    @Attribute(.unique) var code: String
    var magnitude: Double
    var place: String
    var time: Date

    init(code: String, magnitude: Double, place: String, time: Date) {
        self.code = code
        self.magnitude = magnitude
        self.place = place
        self.time = time
    }
}

struct QuakeRecord: Sendable {
    let code: String
    let magnitude: Double
    let place: String
    let time: Date
}

@ModelActor
actor QuakeImporter {
    func importQuakes(_ records: [QuakeRecord], batchSize: Int = 500) throws -> [PersistentIdentifier] {
        var identifiers: [PersistentIdentifier] = []
        var pending: [Quake] = []
        for record in records {
            let quake = Quake(code: record.code, magnitude: record.magnitude, place: record.place, time: record.time)
            modelContext.insert(quake)
            pending.append(quake)
            if pending.count == batchSize {
                try modelContext.save()
                identifiers += pending.map(\.persistentModelID)
                pending.removeAll()
            }
        }
        try modelContext.save()
        identifiers += pending.map(\.persistentModelID)
        return identifiers
    }

    func deleteQuakes(strongerThan magnitude: Double) throws {
        try modelContext.delete(model: Quake.self, where: #Predicate { $0.magnitude > magnitude })
        try modelContext.save()
    }
}

@Suite("Compatibility: background importer")
struct BackgroundImporterTests {
    @Test("a @ModelActor importer's rows reach the main context", arguments: [true, false])
    func importsOffTheMainContext(inMemory: Bool) async throws {
        let url = URL.temporaryDirectory.appending(path: "quakes-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        let config = inMemory ? ModelConfiguration(isStoredInMemoryOnly: true) : ModelConfiguration(url: url)
        let container = try ModelContainer(for: Quake.self, configurations: config)
        let records = (0..<1_200).map {
            QuakeRecord(
                code: "q\($0)", magnitude: Double($0 % 70) / 10, place: "place \($0)",
                time: Date(timeIntervalSince1970: Double($0)))
        }
        let importer = QuakeImporter(modelContainer: container)
        let identifiers = try await importer.importQuakes(records)
        #expect(identifiers.count == 1_200)

        let context = ModelContext(container)
        let first = context.model(for: identifiers[0]) as? Quake
        #expect(first?.code == "q0")
        try await importer.deleteQuakes(strongerThan: 5)
        let strong = FetchDescriptor<Quake>(predicate: #Predicate { $0.magnitude > 5 })
        #expect(try context.fetchCount(strong) == 0)
        // magnitudes 5.1…6.9 in each of 17 full cycles of 70
        #expect(try context.fetchCount(FetchDescriptor<Quake>()) == 1_200 - 17 * 19)
    }
}

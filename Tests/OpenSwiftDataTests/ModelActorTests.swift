import Foundation
import OpenSwiftData
import Testing

/// A row the background importers write.
@Model final class ImportedRow {
    var serial: Int
    var label: String
    var batch: Int

    init(serial: Int, label: String, batch: Int) {
        self.serial = serial
        self.label = label
        self.batch = batch
    }
}

/// A background importer written the usual way: inserts rows, saves every `batchSize`, and hands
/// back identifiers (models never leave the actor).
@ModelActor
actor RowImporter {
    func importRows(
        _ count: Int, startingAt first: Int = 0, batchSize: Int = 1_000,
        label: String = "row"
    ) throws -> [PersistentIdentifier] {
        var rows: [ImportedRow] = []
        rows.reserveCapacity(count)
        for offset in 0..<count {
            let row = ImportedRow(serial: first + offset, label: label, batch: offset / batchSize)
            modelContext.insert(row)
            rows.append(row)
            if (offset + 1) % batchSize == 0 { try modelContext.save() }
        }
        try modelContext.save()
        return rows.map(\.persistentModelID)
    }

    func relabel(serial: Int, to label: String) throws {
        let rows = try modelContext.fetch(FetchDescriptor<ImportedRow>(predicate: #Predicate { $0.serial == serial }))
        for row in rows { row.label = label }
        try modelContext.save()
    }

    func count() throws -> Int {
        try modelContext.fetchCount(FetchDescriptor<ImportedRow>())
    }

    func label(of id: PersistentIdentifier) -> String? {
        self[id, as: ImportedRow.self]?.label
    }

    func contextIdentity() -> ObjectIdentifier { ObjectIdentifier(modelContext) }

    /// Traps unless the actor's jobs run on its `DefaultSerialModelExecutor`'s queue.
    func runsOnModelExecutor() -> Bool {
        guard let executor = modelExecutor as? DefaultSerialModelExecutor else { return false }
        executor.checkIsolated()
        return true
    }
}

/// A public actor: the generated members must be public to satisfy the conformance.
@ModelActor
public actor PublicCounter {
    public func total() throws -> Int { try modelContext.fetchCount(FetchDescriptor<ImportedRow>()) }
}

/// `isolated (any ModelActor)` parameters compile and run on the actor's context.
func insertRow(serial: Int, on actor: isolated any ModelActor) throws {
    actor.modelContext.insert(ImportedRow(serial: serial, label: "isolated", batch: -1))
    try actor.modelContext.save()
}

@Suite("ModelActor")
struct ModelActorTests {
    @Test("a background importer's rows are re-fetched on another context by identifier", arguments: StoreKind.allCases)
    func importAndRefetch(_ kind: StoreKind) async throws {
        let dir = try ScratchDirectory(prefix: "actor")
        let container = try kind.makeContainer(for: [ImportedRow.self], in: dir)
        let importer = RowImporter(modelContainer: container)
        let ids = try await importer.importRows(20_000, batchSize: 2_500)
        #expect(ids.count == 20_000)
        #expect(ids.allSatisfy { !$0.isTemporary })

        let main = container.mainContext
        #expect(try main.fetchCount(FetchDescriptor<ImportedRow>()) == 20_000)
        let sample = [ids[0], ids[9_999], ids[19_999]]
        let serials = sample.compactMap { (main.model(for: $0) as? ImportedRow)?.serial }
        #expect(serials == [0, 9_999, 19_999])
        let fetched = try main.fetch(FetchDescriptor<ImportedRow>(predicate: #Predicate { $0.batch == 7 }))
        #expect(fetched.count == 2_500)
        #expect(Set(fetched.map(\.persistentModelID)).isSubset(of: Set(ids)))
    }

    @Test(
        "changes saved on the actor's context are visible to other contexts' next fetch", arguments: StoreKind.allCases)
    func savedChangesVisible(_ kind: StoreKind) async throws {
        let dir = try ScratchDirectory(prefix: "actor")
        let container = try kind.makeContainer(for: [ImportedRow.self], in: dir)
        let reader = ModelContext(container)
        let importer = RowImporter(modelContainer: container)
        #expect(try reader.fetchCount(FetchDescriptor<ImportedRow>()) == 0)

        let ids = try await importer.importRows(10)
        let before = try reader.fetch(FetchDescriptor<ImportedRow>(predicate: #Predicate { $0.serial == 3 }))
        #expect(before.map(\.label) == ["row"])

        try await importer.relabel(serial: 3, to: "renamed")
        let after = try reader.fetch(FetchDescriptor<ImportedRow>(predicate: #Predicate { $0.serial == 3 }))
        #expect(after.map(\.label) == ["renamed"])
        #expect(await importer.label(of: ids[3]) == "renamed")

        // The other way round: the reader's save is seen by the actor.
        reader.insert(ImportedRow(serial: 100, label: "from reader", batch: 0))
        try reader.save()
        #expect(try await importer.count() == 11)
    }

    @Test("two actors import concurrently into one disk container")
    func twoActorsConcurrently() async throws {
        let dir = try ScratchDirectory(prefix: "actor")
        let container = try StoreKind.disk.makeContainer(for: [ImportedRow.self], in: dir)
        let first = RowImporter(modelContainer: container)
        let second = RowImporter(modelContainer: container)
        #expect(await first.contextIdentity() != second.contextIdentity())
        async let a = first.importRows(5_000, startingAt: 0, batchSize: 500, label: "a")
        async let b = second.importRows(5_000, startingAt: 5_000, batchSize: 500, label: "b")
        let (idsA, idsB) = try await (a, b)
        #expect(Set(idsA).isDisjoint(with: Set(idsB)))

        let reader = ModelContext(container)
        #expect(try reader.fetchCount(FetchDescriptor<ImportedRow>()) == 10_000)
        #expect(try reader.fetchCount(FetchDescriptor<ImportedRow>(predicate: #Predicate { $0.label == "b" })) == 5_000)
        let serials = try reader.fetch(FetchDescriptor<ImportedRow>()).map(\.serial)
        #expect(Set(serials) == Set(0..<10_000))
    }

    @Test("the subscript finds a model by identifier and gives nil for a deleted row", arguments: StoreKind.allCases)
    func subscriptByIdentifier(_ kind: StoreKind) async throws {
        let dir = try ScratchDirectory(prefix: "actor")
        let container = try kind.makeContainer(for: [ImportedRow.self], in: dir)
        let importer = RowImporter(modelContainer: container)
        let ids = try await importer.importRows(3)
        #expect(await importer.label(of: ids[1]) == "row")

        let other = ModelContext(container)
        if let row = other.model(for: ids[2]) as? ImportedRow { other.delete(row) }
        try other.save()
        // A fresh actor has nothing registered: the deleted row reads as absent.
        let fresh = RowImporter(modelContainer: container)
        #expect(await fresh.label(of: ids[2]) == nil)
        #expect(await fresh.label(of: ids[0]) == "row")
    }

    @Test("isolated (any ModelActor) parameters and public actors work", arguments: StoreKind.allCases)
    func isolatedParameterAndPublicActor(_ kind: StoreKind) async throws {
        let dir = try ScratchDirectory(prefix: "actor")
        let container = try kind.makeContainer(for: [ImportedRow.self], in: dir)
        let importer = RowImporter(modelContainer: container)
        try await insertRow(serial: 1, on: importer)
        let counter = PublicCounter(modelContainer: container)
        #expect(try await counter.total() == 1)
        #expect(counter.modelContainer === container)
        #expect(counter.modelExecutor is DefaultSerialModelExecutor)
        #expect(await importer.runsOnModelExecutor())
    }

    @Test("the default executor runs jobs one at a time in order")
    func executorIsSerial() async throws {
        let container = try StoreKind.memory.makeContainer(
            for: [ImportedRow.self], in: try ScratchDirectory(prefix: "actor"))
        let importer = RowImporter(modelContainer: container)
        // Many concurrent callers: every save goes through the one context without a data race.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for serial in 0..<50 {
                group.addTask { try await insertRow(serial: serial, on: importer) }
            }
            try await group.waitForAll()
        }
        #expect(try await importer.count() == 50)
    }
}

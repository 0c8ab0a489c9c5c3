import Foundation
import Testing
import OpenSwiftData

@Suite("Identifier")
struct IdentifierTests {
    @Test("PID-01 a saved identifier survives JSON encode and decode", arguments: StoreKind.allCases)
    func codableRoundTrip(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let container = try kind.makeContainer(for: contextSuiteModels, in: dir)
        let ctx = ModelContext(container)
        let item = CtxItem(name: "coded", n: 5)
        ctx.insert(item)
        try ctx.save()
        let id = item.persistentModelID

        let data = try JSONEncoder().encode(id)
        let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: data)
        #expect(decoded == id)
        #expect(decoded.hashValue == id.hashValue)
        #expect(decoded.entityName == "CtxItem")
        #expect(decoded.storeIdentifier == id.storeIdentifier)
        #expect(decoded.isTemporary == false)
        // Arrays and dictionaries keyed by identifiers round-trip too.
        let map = [id: "coded"]
        let back = try JSONDecoder().decode([PersistentIdentifier: String].self, from: JSONEncoder().encode(map))
        #expect(back == map)

        let reader = ModelContext(container)
        let found = try #require(reader.model(for: decoded) as? CtxItem)
        #expect(found.name == "coded")
        #expect(found.n == 5)
        #expect(found.persistentModelID == id)
        #expect((reader.registeredModel(for: decoded) as CtxItem?) === found)
    }

    @Test("PID-01 an identifier survives closing and reopening the on-disk store")
    func survivesReopen() throws {
        let dir = try ScratchDirectory()
        let encoded: Data
        let storeID: String?
        do {
            let container = try StoreKind.disk.makeContainer(for: contextSuiteModels, in: dir)
            let ctx = ModelContext(container)
            ctx.insert(CtxItem(name: "first", n: 1))
            let item = CtxItem(name: "reopened", n: 2, note: "still here")
            ctx.insert(item)
            try ctx.save()
            encoded = try JSONEncoder().encode(item.persistentModelID)
            storeID = item.persistentModelID.storeIdentifier
        }
        let id = try JSONDecoder().decode(PersistentIdentifier.self, from: encoded)
        let container = try StoreKind.disk.makeContainer(for: contextSuiteModels, in: dir)
        let ctx = ModelContext(container)
        let found = try #require(ctx.model(for: id) as? CtxItem)
        #expect(found.name == "reopened")
        #expect(found.note == "still here")
        #expect(found.isDeleted == false)
        // The reopened store keeps its identity: a fetch gives the same identifier.
        let fetched = try ctx.fetch(FetchDescriptor<CtxItem>(predicate: #Predicate { $0.n == 2 }))
        #expect(fetched.map(\.persistentModelID) == [id])
        #expect(fetched.first === found)
        #expect(fetched.first?.persistentModelID.storeIdentifier == storeID)
    }

    @Test("PID-01 a temporary identifier is Codable and differs from the permanent one", arguments: StoreKind.allCases)
    func temporaryIdentifier(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let container = try kind.makeContainer(for: contextSuiteModels, in: dir)
        let ctx = ModelContext(container)
        let item = CtxItem(name: "t")
        ctx.insert(item)
        let temporary = item.persistentModelID
        #expect(temporary.isTemporary)
        #expect(item.persistentModelID == temporary)   // stable until saved
        let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: JSONEncoder().encode(temporary))
        #expect(decoded == temporary)
        #expect(decoded.isTemporary)
        #expect(ctx.model(for: temporary) as? CtxItem === item)
        try ctx.save()
        #expect(item.persistentModelID != temporary)
        #expect(item.persistentModelID.isTemporary == false)
    }

    @Test("PID-02 two models never share an identifier", arguments: StoreKind.allCases)
    func distinctIdentifiers(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let container = try kind.makeContainer(for: contextSuiteModels, in: dir)
        let ctx = ModelContext(container)
        let items = (0..<20).map { CtxItem(name: "d\($0)", n: $0) }
        let people = (0..<5).map { CtxPerson(first: "p\($0)", last: "x", age: $0) }
        for i in items { ctx.insert(i) }
        for p in people { ctx.insert(p) }
        let temporary = items.map(\.persistentModelID) + people.map(\.persistentModelID)
        #expect(Set(temporary).count == 25)
        try ctx.save()
        let permanent = items.map(\.persistentModelID) + people.map(\.persistentModelID)
        #expect(Set(permanent).count == 25)
        #expect(Set(permanent).isDisjoint(with: Set(temporary)))
        // Identifiers of two entities differ even where their primary keys coincide.
        #expect(items[0].persistentModelID != people[0].persistentModelID)
        #expect(people[0].persistentModelID.entityName == "CtxPerson")
        // A second context sees the same identifiers for the same rows.
        let other = try ModelContext(container).fetch(FetchDescriptor<CtxItem>(sortBy: [SortDescriptor(\.n)]))
        #expect(other.map(\.persistentModelID) == items.map(\.persistentModelID))
    }

    @Test("PID-02 identifiers from different stores differ in storeIdentifier", arguments: StoreKind.allCases)
    func differentStores(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let one = try kind.makeContainer(for: contextSuiteModels, in: dir, name: "one")
        let two = try kind.makeContainer(for: contextSuiteModels, in: dir, name: "two")
        let a = CtxItem(name: "same", n: 1)
        let b = CtxItem(name: "same", n: 1)
        let ca = ModelContext(one), cb = ModelContext(two)
        ca.insert(a)
        cb.insert(b)
        try ca.save()
        try cb.save()
        let ia = a.persistentModelID, ib = b.persistentModelID
        #expect(ia.storeIdentifier != nil)
        #expect(ib.storeIdentifier != nil)
        #expect(ia.storeIdentifier != ib.storeIdentifier)
        #expect(ia.entityName == ib.entityName)
        #expect(ia != ib)
        #expect(Set([ia, ib]).count == 2)
        // An identifier from another store does not resolve to a registered model here.
        #expect((ca.registeredModel(for: ib) as CtxItem?) == nil)
    }

    @Test("PID Hashable: identifiers work as dictionary keys and in sets", arguments: StoreKind.allCases)
    func hashable(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let container = try kind.makeContainer(for: contextSuiteModels, in: dir)
        let ctx = ModelContext(container)
        let items = (1...4).map { CtxItem(name: "h\($0)", n: $0) }
        for i in items { ctx.insert(i) }
        try ctx.save()
        var byID: [PersistentIdentifier: Int] = [:]
        for i in items { byID[i.persistentModelID] = i.n }
        let fresh = try ModelContext(container).fetch(FetchDescriptor<CtxItem>())
        for f in fresh { #expect(byID[f.persistentModelID] == f.n) }
        #expect(Set(fresh.map(\.persistentModelID)) == Set(byID.keys))
        // Models are Identifiable through their identifier.
        #expect(items.map(\.id) == items.map(\.persistentModelID))
    }
}

import Foundation
import OpenSwiftData
import Testing

@Suite("Identifier")
struct IdentifierTests {
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

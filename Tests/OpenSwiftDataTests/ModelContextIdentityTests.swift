import Foundation
import OpenSwiftData
import Testing

@Suite("ModelContext identity")
struct ModelContextIdentityTests {
    @Test("contexts are Equatable and Hashable by identity; optional comparisons compile")
    func equatableHashable() throws {
        let container = try ModelContainer(
            for: EraseItem.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let one = ModelContext(container)
        let two = ModelContext(container)
        #expect(one == one)
        #expect(one != two)
        #expect(Set([one, two, one]).count == 2)

        let item = EraseItem(name: "x")
        // Unmanaged: no context; `== .none` is the Optional comparison, true here.
        #expect(item.modelContext == .none)
        one.insert(item)
        #expect(item.modelContext == one)
        #expect(item.modelContext != two)
        #expect(item.modelContext != .none)
        let optional: ModelContext? = nil
        #expect(optional == .none)
        #expect(container.mainContext == container.mainContext)
    }
}

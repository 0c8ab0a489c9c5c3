import Foundation
import Observation
import Testing

@testable import OpenSwiftData

@Model final class ObNote {
    var title: String
    var words: Int
    init(title: String, words: Int) {
        self.title = title
        self.words = words
    }
}

/// A change flag an `onChange` handler (which is `@Sendable`) can set.
private final class Flag: @unchecked Sendable {
    var count = 0
}

/// Models are `Observable`: a read inside `withObservationTracking` registers, a later write of
/// that property calls `onChange` once. A write to a model nothing has read makes no registrar
/// (`BackingData._setValue`); these check that observation still sees every write that follows
/// a tracked read, managed or not.
@Suite("Observation")
struct ObservationTests {
    @Test("a tracked property's write is seen, also after writes made before anyone observed")
    func writesAfterUnobservedWrites() {
        let note = ObNote(title: "a", words: 1)
        note.title = "b"  // nothing observes yet: no registrar is made
        note.words = 2
        #expect(note.persistentBackingData.registrarStorage == nil)
        let flag = Flag()
        let seen = withObservationTracking {
            note.title
        } onChange: {
            flag.count += 1
        }
        #expect(seen == "b")
        note.words = 3  // not tracked
        #expect(flag.count == 0)
        note.title = "c"
        #expect(flag.count == 1)
        note.title = "d"  // onChange fires once per tracking
        #expect(flag.count == 1)
        #expect(note.title == "d" && note.words == 3)
    }

    @Test("a managed model's tracked write is seen, before and after a save", arguments: StoreKind.allCases)
    func managedModel(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "observation")
        let container = try kind.makeContainer(for: [ObNote.self], in: dir, name: "store")
        let context = ModelContext(container)
        let note = ObNote(title: "draft", words: 10)
        context.insert(note)
        note.words = 11  // unobserved write of an inserted model
        let flag = Flag()
        _ = withObservationTracking {
            note.words
        } onChange: {
            flag.count += 1
        }
        note.words = 12
        #expect(flag.count == 1)
        try context.save()
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<ObNote>()).first)
        #expect(fetched.words == 12)
        let again = Flag()
        _ = withObservationTracking {
            fetched.title
        } onChange: {
            again.count += 1
        }
        fetched.title = "final"
        #expect(again.count == 1)
    }
}

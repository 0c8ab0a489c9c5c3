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
/// (`BackingData._setValue`), and neither does a read outside every tracking scope
/// (`ObservationProbe`); these check that observation still sees every write that follows a
/// tracked read, managed or not.
///
/// Serialized, and the only suite that opens tracking scopes: a scope open on another thread
/// makes every read make a registrar (correct, only slower), which would fail the checks that
/// an untracked read makes none.
@Suite("Observation", .serialized)
struct ObservationTests {
    @Test("the probe sees a tracking scope on this thread, and only until its tracking ends")
    func probe() throws {
        let probe = try #require(ObservationProbe(), "the self-check passes on this toolchain")
        #expect(!probe.mayBeTracking())
        var inside = false
        var nested = false
        withObservationTracking {
            inside = probe.mayBeTracking()
            withObservationTracking {
                nested = probe.mayBeTracking()
            } onChange: {
            }
        } onChange: {
        }
        #expect(inside && nested)
        #expect(probe.mayBeTracking(), "the installed tracking still holds the probe's state")
        let shared = try #require(ObservationProbe.shared)
        #expect(!shared.mayBeTracking(), "no scope or tracking holds the shared probe")
    }

    @Test("a read outside every scope makes no registrar; a later tracked read does, and observes")
    func untrackedReadsMakeNoRegistrar() throws {
        let container = try ModelContainer(
            for: Schema([ObNote.self]), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let writer = ModelContext(container)
        writer.insert(ObNote(title: "a", words: 1))
        try writer.save()
        let note = try #require(try ModelContext(container).fetch(FetchDescriptor<ObNote>()).first)
        #expect(note.title == "a" && note.words == 1)
        #expect(note.persistentBackingData.registrarStorage == nil)
        let flag = Flag()
        let seen = withObservationTracking {
            withObservationTracking {
                note.words
            } onChange: {
                flag.count += 10
            }
        } onChange: {
            flag.count += 1
        }
        #expect(seen == 1)
        #expect(note.persistentBackingData.registrarStorage != nil)
        note.title = "b"  // not tracked
        #expect(flag.count == 0)
        note.words = 2
        #expect(flag.count == 11, "the inner and the outer scope both saw the read")
        #expect(!(try #require(ObservationProbe.shared)).mayBeTracking(), "both trackings ended")
    }

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

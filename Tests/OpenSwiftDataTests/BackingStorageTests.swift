import Foundation
import Testing

@testable import OpenSwiftData

/// `BackingData`'s one-allocation storage (Unsafe/BackingStorage.swift): fields and slots in
/// the buffer's tail, an overflow buffer once the slots outgrow it, the observation registrar
/// in a cell of the fields; and that everything a slot holds is released.
@Suite("BackingData storage", .serialized)
struct BackingStorageTests {
    /// Counts its instances alive.
    final class Token {
        nonisolated(unsafe) static var alive = 0  // the suite's tests run one at a time (.serialized)
        let n: Int
        init(_ n: Int) {
            self.n = n
            Token.alive += 1
        }
        deinit { Token.alive -= 1 }
    }

    struct Failure: Error {}

    /// Whether `address` lies inside `data`'s object (its fields and tail slots).
    private func isInside(_ address: UnsafeRawPointer, _ data: BackingData, slots: Int) -> Bool {
        let start = UnsafeRawPointer(Unmanaged.passUnretained(data).toOpaque())
        let end = start + 16 + MemoryLayout<BackingData.Fields>.stride + slots * MemoryLayout<Any>.stride
        return address >= start && address < end
    }

    @Test("slots start in the object's tail and move to an overflow buffer past its room, values kept")
    func slotsOverflowPastTheTail() {
        let before = Token.alive
        do {
            let data = BackingData.make(capacity: 2)
            data.values.set(Token(0), at: 0)
            data.values.set(1, at: 1)
            #expect(data.values.withSlots { slots, _ in isInside(slots, data, slots: 2) })
            // Past the room the storage was made with: slot 4 is written, 2 and 3 are unloaded.
            data.values.set(Token(4), at: 4)
            #expect(data.values.withSlots { slots, _ in !isInside(slots, data, slots: 2) })
            #expect(data.values.count == 5)
            #expect((data.values[0] as? Token)?.n == 0)
            #expect(data.values[1] as? Int == 1)
            #expect(data.values[2] == nil && data.values[3] == nil)
            #expect((data.values[4] as? Token)?.n == 4)
            data.values.extend(to: 40)
            data.values[39] = Token(39)
            #expect((data.values[4] as? Token)?.n == 4 && (data.values[39] as? Token)?.n == 39)
            // An unloaded write releases what the slot held.
            data.values[0] = nil
            #expect(Token.alive == before + 2)
            let snapshot = data.values.snapshot()
            #expect(snapshot.count == 40 && (snapshot[39] as? Token)?.n == 39)
        }
        #expect(Token.alive == before, "every value a slot held is released with its storage")
    }

    @Test("a row's slots are written straight into the storage; a failed row releases what it wrote")
    func rowFillReleasesOnThrow() throws {
        let layout = try #require(ModelLayout.known(CtxItem.self))
        let before = Token.alive
        do {
            let data = BackingData.make(
                stored: layout, slotCount: 3, pk: 7, storeIdentity: StoreIdentity("s"), contextHandle: nil
            ) { slots, initialized in
                for i in 0..<3 {
                    (slots + i).initialize(to: Token(i))
                    initialized = i + 1
                }
            }
            #expect(data.pk == 7 && data.status == .persisted && data.layout === layout)
            #expect(data.values.withSlots { slots, _ in isInside(slots, data, slots: 3) })
            #expect((data.values[2] as? Token)?.n == 2)
        }
        #expect(Token.alive == before)
        #expect(throws: Failure.self) {
            _ = try BackingData.make(
                stored: layout, slotCount: 3, pk: 1, storeIdentity: StoreIdentity("s"), contextHandle: nil
            ) { slots, initialized in
                (slots + 0).initialize(to: Token(0))
                initialized = 1
                throw Failure()
            }
        }
        #expect(Token.alive == before, "the slot written before the throw is released")
    }

    /// That the registrar observes is ObservationTests' (the one suite that opens tracking
    /// scopes).
    @Test("the observation registrar is made once, in the object's fields")
    func registrarInTheHeader() {
        let note = CtxItem(name: "a", n: 1)
        let data = note.persistentBackingData
        #expect(data.registrarStorage == nil)
        let address = data._makeRegistrar()
        #expect(isInside(address, data, slots: data.values.count))
        #expect(data._fields.pointee.registrar == address, "kept where the accessors read it, so made once")
        #expect(data.registrarStorage != nil)
    }
}

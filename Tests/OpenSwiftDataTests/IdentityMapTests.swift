import Foundation
import Testing

@testable import OpenSwiftData

/// The identity map's hash table against a plain Dictionary under random inserts and removals.
@Suite("IdentityMap")
struct IdentityMapTests {
    @Test("primary-key table agrees with Dictionary through growth and backward-shift deletes")
    func randomOperations() throws {
        let table = PrimaryKeyTable(capacity: 4)
        var reference: [Int64: ObjectIdentifier] = [:]
        var models: [Int64: Word] = [:]
        var state: UInt64 = 0x1234_5678
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        for step in 0..<20_000 {
            let pk = Int64(next() % 3_000) - 5  // includes keys ≤ 0
            if step % 1_001 == 0 {
                // Room made ahead, tombstones or not, moves what the table holds.
                table.reserve(additional: Int(next() % 2_000))
            }
            if next() % 3 == 0 {
                table.remove(pk)
                reference[pk] = nil
            } else {
                let w = models[pk] ?? Word(text: "w\(pk)")
                models[pk] = w
                table.insert(pk, w)
                reference[pk] = ObjectIdentifier(w)
            }
            if step % 997 == 0 {
                for probe in Int64(-5)..<3_000 {
                    #expect(table.find(probe).map { ObjectIdentifier($0) } == reference[probe])
                }
            }
        }
        #expect(table.count == reference.count)
        var visited: [ObjectIdentifier] = []
        func visit(_ model: any PersistentModel) { visited.append(ObjectIdentifier(model)) }
        table.forEach(visit)
        #expect(Set(visited) == Set(reference.values))
        #expect(visited.count == reference.count)
    }

    @Test("reserve(additional:) makes room once: that many inserts leave the capacity as it is")
    func reserveMakesRoom() throws {
        let table = PrimaryKeyTable(capacity: 64)
        let words = (1...1_500).map { Word(text: "w\($0)") }
        for pk in Int64(1)...10 { table.insert(pk, words[Int(pk) - 1]) }
        table.reserve(additional: 1_490)
        let reserved = table.capacity
        #expect(reserved >= 3_000)
        #expect(reserved < 6_000, "no more than the next power of two")
        for pk in Int64(11)...1_500 { table.insert(pk, words[Int(pk) - 1]) }
        #expect(table.capacity == reserved)
        #expect(table.count == 1_500)
        for pk in Int64(1)...1_500 {
            #expect(table.find(pk).map(ObjectIdentifier.init) == ObjectIdentifier(words[Int(pk) - 1]))
        }
        table.reserve(additional: 10)
        #expect(table.capacity == reserved, "room that is there already is not made again")
        table.reserve(additional: 0)
        table.reserve(additional: -3)
        #expect(table.capacity == reserved)
    }

    @Test("the table holds its models strongly until removed, rebuilt or released")
    func ownership() throws {
        weak var removed: Word?
        weak var kept: Word?
        var table: PrimaryKeyTable? = PrimaryKeyTable(capacity: 4)
        do {
            let a = Word(text: "removed")
            let b = Word(text: "kept")
            removed = a
            kept = b
            table!.insert(1, a)
            table!.insert(2, b)
            // Growth moves the entries into new buffers (several rebuilds from 4 slots).
            for pk in Int64(3)..<200 { table!.insert(pk, Word(text: "w\(pk)")) }
        }
        #expect(removed != nil && kept != nil)
        #expect(table!.find(2).map(ObjectIdentifier.init) == kept.map(ObjectIdentifier.init))
        table!.remove(1)
        #expect(removed == nil)
        #expect(kept != nil)
        table = nil
        #expect(kept == nil)
    }
}

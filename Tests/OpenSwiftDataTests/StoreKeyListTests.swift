import OpenSwiftDataTesting
import Testing

@testable import OpenSwiftData

/// The keys a batched read holds (FET-11): runs of consecutive keys while they come in runs, a
/// plain array otherwise, and the same keys either way.
@Suite("StoreKeyList")
struct StoreKeyListTests {
    @Test("FET-11: a table read in key order is held as its runs, and reads back every key")
    func runsOfATable() {
        // 1 ... 1,000,000 with every 1,000th row deleted: 1,000 runs.
        let keys = (1...1_000_000).lazy.map(Int64.init).filter { $0 % 1_000 != 0 }
        let list = StoreKeyList(keys)
        #expect(list.isRunLength)
        #expect(list.count == 999_000)
        #expect(list[0] == 1 && list[998] == 999 && list[999] == 1_001 && list[998_999] == 999_999)
        #expect(Array(list.keys(995..<1_005)) == [996, 997, 998, 999, 1_001, 1_002, 1_003, 1_004, 1_005, 1_006])
        #expect(list.keys(0..<0).isEmpty)
    }

    @Test("FET-11: keys in another order switch to a plain array and keep their order")
    func scatteredKeysArePlain() {
        var generator = SeededGenerator(seed: 7)
        let keys = (0..<5_000).map { _ in Int64(generator.next() % 1_000_000) }
        let list = StoreKeyList(keys)
        #expect(!list.isRunLength)
        #expect(Array(list) == keys)
        #expect(Array(list.keys(1_234..<2_345)) == Array(keys[1_234..<2_345]))
    }

    @Test("FET-11: every slice of mixed runs equals the same slice of the array", arguments: [1, 2, 3, 11])
    func slicesMatchTheArray(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        var keys: [Int64] = []
        var next: Int64 = Int64(generator.next() % 100)
        // Runs of 1 to 40 keys with gaps, then negative keys, and a run ending at Int64.max that
        // the next key (Int64.min) does not continue.
        while keys.count < 3_000 {
            let length = Int(generator.next() % 40) + 1
            for _ in 0..<length {
                keys.append(next)
                next += 1
            }
            next += Int64(generator.next() % 5) + 1
        }
        keys += [-5, -4, -3, Int64.max - 1, Int64.max, Int64.min, Int64.min + 1]
        let list = StoreKeyList(keys)
        #expect(list.isRunLength)
        #expect(Array(list) == keys)
        for _ in 0..<200 {
            let a = Int(generator.next() % UInt64(keys.count + 1))
            let b = Int(generator.next() % UInt64(keys.count + 1))
            let range = min(a, b)..<max(a, b)
            #expect(Array(list.keys(range)) == Array(keys[range]))
        }
    }

    @Test("FET-11: an empty list has no keys")
    func empty() {
        let list = StoreKeyList()
        #expect(list.isEmpty && list.keys(0..<0).isEmpty)
    }
}

import Foundation
import OpenSwiftDataTesting
import Testing

@Suite("Random")
struct RandomTests {
    @Test("SplitMix64 matches the reference outputs")
    func splitMixGolden() {
        // Reference values: Vigna's splitmix64.c (as used by rand_xoshiro's tests).
        var a = SplitMix64(seed: 1_477_776_061_723_855_037)
        let expected: [UInt64] = [
            1_985_237_415_132_408_290, 2_979_275_885_539_914_483, 13_511_426_838_097_143_398,
            8_488_337_342_461_049_707, 15_141_737_807_933_549_159, 17_093_170_987_380_407_015,
        ]
        #expect((0..<6).map { _ in a.next() } == expected)
        var zero = SplitMix64(seed: 0)
        #expect(zero.next() == 0xE220_A839_7B1D_CDAF)
    }

    @Test("xoshiro256** matches the reference outputs")
    func xoshiroGolden() {
        // Reference values: xoshiro256starstar.c from state {1, 2, 3, 4}.
        var rng = SeededGenerator(state: (1, 2, 3, 4))
        let expected: [UInt64] = [
            11520, 0, 1_509_978_240, 1_215_971_899_390_074_240, 1_216_172_134_540_287_360,
            607_988_272_756_665_600, 16_172_922_978_634_559_625, 8_476_171_486_693_032_832,
            10_595_114_339_597_558_777, 2_904_607_092_377_533_576,
        ]
        #expect((0..<10).map { _ in rng.next() } == expected)
    }

    @Test("seeding is SplitMix64 filling xoshiro's state")
    func seededGolden() {
        var rng = SeededGenerator(seed: 42)
        #expect(
            (0..<3).map { _ in rng.next() } == [
                1_546_998_764_402_558_742, 6_990_951_692_964_543_102, 12_544_586_762_248_559_009,
            ])
    }

    @Test("FNV-1a 64 labels")
    func labelHash() {
        #expect(StreamLabel.hash("") == 0xCBF2_9CE4_8422_2325)
        #expect(StreamLabel.hash("a") == 0xAF63_DC4C_8601_EC8C)
        #expect(StreamLabel.hash("foobar") == 0x8594_4171_F739_67E8)
    }

    @Test("bounded integers stay in range and are roughly uniform")
    func boundedUniform() {
        var rng = SeededGenerator(seed: 7)
        var counts = [Int](repeating: 0, count: 10)
        for _ in 0..<100_000 {
            let v = rng.uniform(in: 0...9)
            counts[v] += 1
        }
        // χ² with 9 degrees of freedom: 27.9 is the 0.1% critical value.
        let chi = counts.reduce(0.0) { $0 + pow(Double($1) - 10_000, 2) / 10_000 }
        #expect(chi < 27.9, "χ² = \(chi), counts \(counts)")
        for _ in 0..<10_000 {
            let v = rng.uniform(in: -3...(-1))
            #expect((-3)...(-1) ~= v)
        }
        #expect(rng.uniform(in: 5...5) == 5)
        _ = rng.uniform(in: Int.min...Int.max)  // full width does not trap
        // An awkward bound (just over 2^63) is still unbiased between halves.
        let bound = UInt64(1) << 63 + 1
        var low = 0
        for _ in 0..<10_000 where rng.uniform(below: bound) < bound / 2 { low += 1 }
        #expect(abs(low - 5_000) < 300)
    }

    @Test("doubles are in [0, 1) with 53-bit resolution")
    func doubles() {
        var rng = SeededGenerator(seed: 3)
        var sum = 0.0
        for _ in 0..<100_000 {
            let d = rng.double()
            #expect(d >= 0 && d < 1)
            #expect(d * 0x1p53 == (d * 0x1p53).rounded())
            sum += d
        }
        #expect(abs(sum / 100_000 - 0.5) < 0.01)
    }

    @Test("shuffles are permutations, fixed by the seed, and every position is reached")
    func shuffles() {
        var a = SeededGenerator(seed: 11)
        var b = SeededGenerator(seed: 11)
        let x = a.shuffled(Array(0..<50))
        let y = b.shuffled(Array(0..<50))
        #expect(x == y)
        #expect(x.sorted() == Array(0..<50))
        #expect(x != Array(0..<50))
        var firstCounts = [Int](repeating: 0, count: 4)
        for _ in 0..<8_000 { firstCounts[a.shuffled([0, 1, 2, 3])[0]] += 1 }
        #expect(firstCounts.allSatisfy { abs($0 - 2_000) < 200 }, "\(firstCounts)")
    }

    @Test("choices, weighted indices and distinct samples")
    func choices() {
        var rng = SeededGenerator(seed: 5)
        var w = [0, 0]
        for _ in 0..<20_000 { w[rng.weightedIndex([3, 1])] += 1 }
        #expect(abs(Double(w[0]) / 20_000 - 0.75) < 0.02)
        for _ in 0..<1_000 {
            let d = rng.distinct(5, from: 12)
            #expect(d.count == 5 && Set(d).count == 5 && d == d.sorted() && d.allSatisfy { (0..<12) ~= $0 })
        }
        #expect(rng.distinct(20, from: 3) == [0, 1, 2])
        #expect(["a", "b"].contains(rng.choice(["a", "b"])))
    }

    @Test("sub-streams depend on the labels only, not on use of the parent")
    func subStreams() {
        let root = SeededGenerator(seed: 99)
        var used = root
        for _ in 0..<10 { _ = used.next() }
        var s1 = root.stream("Word", "text")
        var s2 = used.stream("Word", "text")
        #expect(s1.next() == s2.next())
        var other = root.stream("Word", "length")
        var s3 = root.stream("Word", "text")
        #expect(other.next() != s3.next())
        #expect(
            SeededGenerator.derive(1, labels: ["a"], index: 0) != SeededGenerator.derive(1, labels: ["a"], index: 1))
        #expect(SeededGenerator.derive(1, labels: ["ab"]) != SeededGenerator.derive(1, labels: ["a", "b"]))
    }

    @Test("deterministic log, exp and pow agree with libm closely")
    func deterministicMath() {
        for x in [1e-300, 0.001, 0.5, 1, 2, 3, 10, 12345.678, 1e300] {
            #expect(abs(DeterministicMath.log(x) - Foundation.log(x)) <= 4 * Foundation.log(x).ulp.magnitude + 1e-15)
        }
        for y in [-700.0, -10, -1, -0.5, 0, 0.5, 1, 10, 700] {
            let want = Foundation.exp(y)
            #expect(abs(DeterministicMath.exp(y) - want) <= want * 1e-14)
        }
        #expect(abs(DeterministicMath.pow(2, 10) - 1024) < 1e-10)
        // Golden bits: these must never change, whatever the platform's libm does.
        #expect(
            DeterministicMath.pow(7, -0.99).bitPattern
                == DeterministicMath.exp(-0.99 * DeterministicMath.log(7)).bitPattern)
    }
}

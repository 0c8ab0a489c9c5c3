import Foundation
import OpenSwiftDataTesting
import Testing

@Suite("Random distributions")
struct RandomDistributionTests {
    private func sample(_ d: Distribution, _ n: Int, seed: UInt64 = 1) -> [Int] {
        var rng = SeededGenerator(seed: seed)
        var s = d.sampler()
        return (0..<n).map { _ in s.next(using: &rng) }
    }

    @Test("uniform covers the range evenly")
    func uniform() {
        let xs = sample(.uniform(1...6), 60_000)
        #expect(xs.allSatisfy { (1...6) ~= $0 })
        for v in 1...6 { #expect(abs(xs.filter { $0 == v }.count - 10_000) < 400) }
    }

    @Test("normal has the asked mean and standard deviation and respects its bounds")
    func normal() {
        let xs = sample(.normal(mean: 100, standardDeviation: 15, in: 0...200), 50_000).map(Double.init)
        let mean = xs.reduce(0, +) / Double(xs.count)
        let sd = (xs.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(xs.count)).squareRoot()
        #expect(abs(mean - 100) < 0.5)
        #expect(abs(sd - 15) < 0.5)
        let within1 = xs.filter { abs($0 - 100) <= 15 }.count
        #expect(abs(Double(within1) / 50_000 - 0.683) < 0.02)
        let clamped = sample(.normal(mean: 0, standardDeviation: 10, in: 0...5), 1_000)
        #expect(clamped.allSatisfy { (0...5) ~= $0 })
    }

    @Test("Zipf(θ) frequencies follow k^-θ")
    func zipf() {
        let n = 100_000
        let xs = sample(.zipf(0.99, in: 1...50), n)
        var counts = [Int](repeating: 0, count: 51)
        for x in xs { counts[x] += 1 }
        let h = (1...50).reduce(0.0) { $0 + pow(Double($1), -0.99) }
        for k in [1, 2, 5, 10] {
            let expected = Double(n) * pow(Double(k), -0.99) / h
            #expect(abs(Double(counts[k]) - expected) < 0.05 * expected, "rank \(k): \(counts[k]) vs \(expected)")
        }
        #expect(counts[1] > counts[2] && counts[2] > counts[10] && counts[10] > counts[50])
        let flat = sample(.zipf(0, in: 0...3), 40_000)
        for v in 0...3 { #expect(abs(flat.filter { $0 == v }.count - 10_000) < 400) }
    }

    @Test("constant, and the same seed gives the same sample")
    func constantAndRepeatable() {
        #expect(sample(.constant(4), 10) == [Int](repeating: 4, count: 10))
        #expect(sample(.zipf(1.2, in: 0...999), 500, seed: 9) == sample(.zipf(1.2, in: 0...999), 500, seed: 9))
        #expect(sample(.uniform(0...999), 100, seed: 9) != sample(.uniform(0...999), 100, seed: 10))
    }

    @Test("null ratio and duplicate-key ratio hold over many rows")
    func nullAndDuplicateRatios() {
        var nulls = 0
        var duplicates = 0
        var seen = Set<String>()
        for i in 0..<20_000 {
            let row = Row(index: i, entity: "T", seed: 3)
            if row.nullable("x", ratio: 0.25, { 1 }) == nil { nulls += 1 }
            let key = row.key("k", duplicateRatio: 0.1) { "K\($0.index)" }
            if !seen.insert(key).inserted { duplicates += 1 }
        }
        #expect(abs(Double(nulls) / 20_000 - 0.25) < 0.015)
        #expect(abs(Double(duplicates) / 20_000 - 0.1) < 0.01)
    }
}

/// A seeded xoshiro256** generator: the only source of randomness in fixture generation.
///
/// The state is filled from a `SplitMix64` seeded with the seed (the authors' recommended
/// seeding), and the algorithm is Blackman and Vigna's reference
/// (<https://prng.di.unimi.it/xoshiro256starstar.c>). Draw values with the sampling methods
/// (`uniform(below:)`, `double()`, `shuffle(_:)` …), never with the standard library's
/// `random(in:using:)`, whose algorithm may change between releases.
/// ```swift
/// var rng = SeededGenerator(seed: 42)
/// let die = rng.uniform(in: 1...6)
/// let name = rng.stream("Product.name")   // an independent sub-stream
/// ```
package struct SeededGenerator: RandomNumberGenerator, Sendable, Hashable {
    /// The four state words (never all zero).
    package private(set) var state: (UInt64, UInt64, UInt64, UInt64)
    /// The seed this generator (or the root of its stream) was created with.
    package let seed: UInt64

    /// A generator seeded through SplitMix64, as the xoshiro authors recommend.
    ///
    /// ```swift
    /// var rng = SeededGenerator(seed: 42)
    /// rng.next()   // 1546998764402558742
    /// ```
    package init(seed: UInt64) {
        var mixer = SplitMix64(seed: seed)
        self.seed = seed
        state = (mixer.next(), mixer.next(), mixer.next(), mixer.next())
    }

    /// A generator with the given raw state, for checking against the reference outputs.
    ///
    /// ```swift
    /// var rng = SeededGenerator(state: (1, 2, 3, 4))
    /// rng.next()   // 11520
    /// ```
    package init(state: (UInt64, UInt64, UInt64, UInt64)) {
        precondition(state != (0, 0, 0, 0), "xoshiro256** needs a non-zero state")
        self.state = state
        seed = 0
    }

    /// The next 64 random bits.
    ///
    /// ```swift
    /// let bits = rng.next()
    /// ```
    package mutating func next() -> UInt64 {
        let result = rotl(state.1 &* 5, 7) &* 9
        let t = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= t
        state.3 = rotl(state.3, 45)
        return result
    }

    @inline(__always) private func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    /// An independent generator for a labelled sub-stream of this generator's seed.
    ///
    /// The sub-stream depends only on the seed and the labels, not on how much of this
    /// generator was used, so adding a field or an entity never shifts another one's values.
    /// ```swift
    /// var prices = root.stream("Product", "price")
    /// var row7 = root.stream("Product", "price", index: 7)
    /// ```
    package func stream(_ labels: String..., index: UInt64? = nil) -> SeededGenerator {
        SeededGenerator(seed: SeededGenerator.derive(seed, labels: labels, index: index))
    }

    /// The seed of the sub-stream named by `labels` (and optionally a row index) under `seed`.
    ///
    /// Each label is hashed with FNV-1a 64 (``StreamLabel``), xored into the running key and
    /// mixed through ``SplitMix64/mix(_:)``; the index is added last and mixed again.
    /// ```swift
    /// let key = SeededGenerator.derive(42, labels: ["Word", "text"], index: 3)
    /// ```
    package static func derive(_ seed: UInt64, labels: [String], index: UInt64? = nil) -> UInt64 {
        var key = SplitMix64.mix(seed)
        for label in labels { key = SplitMix64.mix(key ^ StreamLabel.hash(label)) }
        if let index { key = SplitMix64.mix(key &+ (index &+ 1) &* 0x9E37_79B9_7F4A_7C15) }
        return key
    }

    /// Generators compare by state.
    package static func == (a: SeededGenerator, b: SeededGenerator) -> Bool {
        a.state == b.state && a.seed == b.seed
    }

    /// Hashes the state.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(state.0)
        hasher.combine(state.1)
        hasher.combine(state.2)
        hasher.combine(state.3)
        hasher.combine(seed)
    }
}

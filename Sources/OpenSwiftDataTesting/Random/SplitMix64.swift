/// SplitMix64: the 64-bit generator that seeds ``SeededGenerator`` and mixes stream labels.
///
/// It is Vigna's reference algorithm (<https://prng.di.unimi.it/splitmix64.c>); its outputs are
/// fixed forever, so anything derived from it is reproducible on every platform.
/// ```swift
/// var mixer = SplitMix64(seed: 0)
/// mixer.next()   // 0xE220A8397B1DCDAF
/// ```
package struct SplitMix64: Sendable, Hashable {
    /// The generator's whole state: a counter advanced by the golden-ratio increment.
    package var state: UInt64

    /// A generator whose first output is `mix(seed &+ 0x9E3779B97F4A7C15)`.
    ///
    /// ```swift
    /// var mixer = SplitMix64(seed: 42)
    /// ```
    package init(seed: UInt64) { state = seed }

    /// The next 64-bit output.
    ///
    /// ```swift
    /// let word = mixer.next()
    /// ```
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SplitMix64.mix(state)
    }

    /// SplitMix64's output function (a bijective finaliser), applied to one word.
    ///
    /// ```swift
    /// SplitMix64.mix(0x9E3779B97F4A7C15)   // 0xE220A8397B1DCDAF
    /// ```
    @inlinable
    package static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// FNV-1a, 64-bit, over the UTF-8 bytes of a label: the stable hash that names sub-streams.
///
/// Unlike `Hasher` it is not seeded per process, so a label hashes the same everywhere, forever.
/// ```swift
/// StreamLabel.hash("")   // 0xCBF29CE484222325 (the FNV offset basis)
/// StreamLabel.hash("a")  // 0xAF63DC4C8601EC8C
/// ```
package enum StreamLabel {
    /// The FNV-1a 64-bit hash of `label`'s UTF-8 bytes.
    ///
    /// ```swift
    /// let h = StreamLabel.hash("Product.name")
    /// ```
    package static func hash(_ label: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in label.utf8 {
            h ^= UInt64(byte)
            h = h &* 0x0000_0100_0000_01B3
        }
        return h
    }
}

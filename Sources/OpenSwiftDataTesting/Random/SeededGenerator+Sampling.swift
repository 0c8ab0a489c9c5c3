/// Our own sampling algorithms over ``SeededGenerator``: fixed forever, unlike the standard
/// library's `random(in:using:)` and `shuffled(using:)`, whose algorithms may change.
extension SeededGenerator {
    /// An unbiased integer in `0..<bound` by Lemire's multiply-and-reject method.
    ///
    /// (Lemire, "Fast Random Integer Generation in an Interval", 2019.)
    /// ```swift
    /// let card = rng.uniform(below: 52)
    /// ```
    package mutating func uniform(below bound: UInt64) -> UInt64 {
        precondition(bound > 0, "uniform(below:) needs a positive bound")
        var m = next().multipliedFullWidth(by: bound)
        if m.low < bound {
            let threshold = (0 &- bound) % bound
            while m.low < threshold { m = next().multipliedFullWidth(by: bound) }
        }
        return m.high
    }

    /// An unbiased integer in the closed range.
    ///
    /// ```swift
    /// let die = rng.uniform(in: 1...6)
    /// ```
    package mutating func uniform(in range: ClosedRange<Int>) -> Int {
        let width = UInt64(bitPattern: Int64(range.upperBound) &- Int64(range.lowerBound)) &+ 1
        if width == 0 { return Int(Int64(bitPattern: next())) }
        return Int(Int64(range.lowerBound) &+ Int64(bitPattern: uniform(below: width)))
    }

    /// An unbiased integer in the half-open range (which must not be empty).
    ///
    /// ```swift
    /// let index = rng.uniform(in: 0..<array.count)
    /// ```
    package mutating func uniform(in range: Range<Int>) -> Int {
        precondition(!range.isEmpty, "uniform(in:) needs a non-empty range")
        return uniform(in: range.lowerBound...(range.upperBound - 1))
    }

    /// A double in `[0, 1)` with 53 random bits: `Double(next() >> 11) * 2⁻⁵³`.
    ///
    /// ```swift
    /// let u = rng.double()
    /// ```
    package mutating func double() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// `true` with the given probability (0 never, 1 always).
    ///
    /// ```swift
    /// if rng.bool(probability: 0.2) { value = nil }
    /// ```
    package mutating func bool(probability: Double = 0.5) -> Bool {
        if probability <= 0 { return false }
        if probability >= 1 { return true }
        return double() < probability
    }

    /// Shuffles in place by Fisher–Yates (Durstenfeld), drawing indices with ``uniform(below:)``.
    ///
    /// ```swift
    /// var deck = Array(0..<52)
    /// rng.shuffle(&deck)
    /// ```
    package mutating func shuffle<T>(_ array: inout [T]) {
        guard array.count > 1 else { return }
        var i = array.count - 1
        while i > 0 {
            let j = Int(uniform(below: UInt64(i + 1)))
            if i != j { array.swapAt(i, j) }
            i -= 1
        }
    }

    /// A shuffled copy, by ``shuffle(_:)``.
    ///
    /// ```swift
    /// let order = rng.shuffled(["a", "b", "c"])
    /// ```
    package mutating func shuffled<T>(_ array: [T]) -> [T] {
        var copy = array
        shuffle(&copy)
        return copy
    }

    /// One element chosen uniformly (the collection must not be empty).
    ///
    /// ```swift
    /// let colour = rng.choice(["red", "green", "blue"])
    /// ```
    package mutating func choice<C: Collection>(_ collection: C) -> C.Element {
        precondition(!collection.isEmpty, "choice(_:) needs a non-empty collection")
        let offset = Int(uniform(below: UInt64(collection.count)))
        return collection[collection.index(collection.startIndex, offsetBy: offset)]
    }

    /// An index chosen with probability proportional to its (non-negative) weight.
    ///
    /// ```swift
    /// let kind = rng.weightedIndex([3, 1])   // 0 three times as often as 1
    /// ```
    package mutating func weightedIndex(_ weights: [Int]) -> Int {
        let total = weights.reduce(0) { $0 + max(0, $1) }
        precondition(total > 0, "weightedIndex(_:) needs a positive total weight")
        var target = Int(uniform(below: UInt64(total)))
        for (i, w) in weights.enumerated() where w > 0 {
            if target < w { return i }
            target -= w
        }
        return weights.count - 1
    }

    /// `count` distinct integers from `0..<population`, ascending, by Floyd's algorithm.
    ///
    /// ```swift
    /// let picks = rng.distinct(3, from: 10)   // e.g. [1, 4, 7]
    /// ```
    package mutating func distinct(_ count: Int, from population: Int) -> [Int] {
        let k = min(max(0, count), population)
        var chosen: [Int] = []
        chosen.reserveCapacity(k)
        var j = population - k
        while j < population {
            let t = Int(uniform(below: UInt64(j + 1)))
            chosen.append(chosen.contains(t) ? j : t)
            j += 1
        }
        return chosen.sorted()
    }
}

/// How an integer is distributed: the count of links per row, a numeric field, a rank.
///
/// Every case samples with the fixtures' seeded generator and deterministic arithmetic only, so a seed
/// gives the same integers on every platform.
/// ```swift
/// let rank = row.int("rank", .zipf(0.99, in: 1...1_000))
/// let stock = row.int("stock", .normal(mean: 50, standardDeviation: 15, in: 0...100))
/// ```
public enum Distribution: Sendable, Hashable {
    /// Always the same value.
    case constant(Int)
    /// Every value of the range equally likely.
    case uniform(ClosedRange<Int>)
    /// A normal distribution rounded to integers and clamped to the range. It is sampled as the
    /// sum of twelve uniform doubles minus six (Irwin–Hall), which needs no libm and is exact
    /// to within ±6 standard deviations.
    case normal(mean: Double, standardDeviation: Double, in: ClosedRange<Int>)
    /// Zipf with exponent θ over the range: the k-th value (from the lower bound) has weight
    /// `k^-θ`, so the lower bound is the most frequent.
    case zipf(Double, in: ClosedRange<Int>)

    /// A sampler that precomputes what the distribution needs (Zipf's cumulative weights).
    ///
    /// ```swift
    /// var sampler = Distribution.uniform(0...3).sampler()
    /// ```
    package func sampler() -> IntSampler { IntSampler(self) }

    /// One value (for Zipf, prefer a reusable `sampler()`: each call rebuilds its table).
    ///
    /// ```swift
    /// let n = Distribution.uniform(1...6).sample(using: &rng)
    /// ```
    package func sample(using rng: inout SeededGenerator) -> Int {
        var s = sampler()
        return s.next(using: &rng)
    }
}

/// A prepared ``Distribution``: draws integers from a ``SeededGenerator``.
///
/// ```swift
/// var sampler = Distribution.zipf(1.1, in: 0...99).sampler()
/// let parent = sampler.next(using: &rng)
/// ```
package struct IntSampler: Sendable {
    /// The distribution sampled.
    package let distribution: Distribution
    private var cumulative: [Double] = []

    /// Prepares `distribution`.
    ///
    /// ```swift
    /// let sampler = IntSampler(.uniform(1...10))
    /// ```
    package init(_ distribution: Distribution) {
        self.distribution = distribution
        if case .zipf(let theta, let range) = distribution {
            cumulative = IntSampler.zipfCumulative(theta: theta, count: range.count)
        }
    }

    /// Cumulative Zipf weights `Σ_{i≤k} i^-θ` for `k = 1…count`, by ``DeterministicMath``.
    static func zipfCumulative(theta: Double, count: Int) -> [Double] {
        var table = [Double](repeating: 0, count: count)
        var total = 0.0
        for k in 0..<count {
            total += theta == 0 ? 1 : DeterministicMath.exp(-theta * DeterministicMath.log(Double(k + 1)))
            table[k] = total
        }
        return table
    }

    /// The next value.
    ///
    /// ```swift
    /// let v = sampler.next(using: &rng)
    /// ```
    package mutating func next(using rng: inout SeededGenerator) -> Int {
        switch distribution {
        case .constant(let c):
            return c
        case .uniform(let range):
            return rng.uniform(in: range)
        case .normal(let mean, let sd, let range):
            var sum = 0.0
            for _ in 0..<12 { sum += rng.double() }
            let value = (mean + sd * (sum - 6)).rounded()
            if value <= Double(range.lowerBound) { return range.lowerBound }
            if value >= Double(range.upperBound) { return range.upperBound }
            return Int(value)
        case .zipf(_, let range):
            let u = rng.double() * cumulative[cumulative.count - 1]
            var lo = 0
            var hi = cumulative.count - 1
            while lo < hi {  // the first k with cumulative[k] > u
                let mid = (lo + hi) / 2
                if cumulative[mid] > u { hi = mid } else { lo = mid + 1 }
            }
            return range.lowerBound + lo
        }
    }
}

/// How the children of a graph step spread over their parents.
///
/// ```swift
/// Generate(Word.self, count: 10_000, parent: \.category, fanOut: .zipf(0.99)) { row in … }
/// ```
public enum FanOut: Sendable, Hashable {
    /// Each child picks a parent uniformly at random.
    case uniform
    /// Child `i` goes to parent `i mod parents`: counts differ by at most one.
    case even
    /// Parent `k` (in generation order, from 1) is picked with weight `k^-θ`: a few parents get
    /// most children, as with word frequencies.
    case zipf(Double)
    /// Each child picks a parent by a normal distribution over parent positions (mean in the
    /// middle, standard deviation as a fraction of the parent count).
    case normal(spread: Double)

    /// The distribution of a parent index in `0..<parents`.
    func distribution(parents: Int) -> Distribution {
        switch self {
        case .uniform, .even: return .uniform(0...(parents - 1))
        case .zipf(let theta): return .zipf(theta, in: 0...(parents - 1))
        case .normal(let spread):
            return .normal(
                mean: Double(parents - 1) / 2, standardDeviation: spread * Double(parents),
                in: 0...(parents - 1))
        }
    }
}

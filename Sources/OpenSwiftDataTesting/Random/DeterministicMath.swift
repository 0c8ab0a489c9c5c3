/// `log`, `exp` and `pow` from IEEE-754 additions, multiplications and divisions only.
///
/// The platform's libm may differ in the last bit between systems; these functions give the same
/// bits everywhere, which is what seeded generation needs (Zipf weights). They are accurate to a
/// few units in the last place for the finite positive arguments generation uses.
/// ```swift
/// DeterministicMath.pow(2, 10)   // 1024.0000000000002 or 1024 — the same on every machine
/// ```
package enum DeterministicMath {
    /// ln 2 as the nearest double.
    static let ln2 = 0.693_147_180_559_945_3
    /// ln 2 split in two (Cody–Waite, as fdlibm): `ln2Hi` has 32 trailing zero bits, so
    /// `k · ln2Hi` is exact for the exponents met here.
    static let ln2Hi = 6.931_471_803_691_238_164_90e-01
    static let ln2Lo = 1.908_214_929_270_587_700_02e-10

    /// The natural logarithm of a finite positive `x` (by the atanh series on `[√½, √2)`).
    ///
    /// ```swift
    /// DeterministicMath.log(1)   // 0
    /// ```
    package static func log(_ x: Double) -> Double {
        precondition(x > 0 && x.isFinite, "log needs a finite positive argument")
        var e = Int(x.exponent)
        var m = x.significand  // [1, 2), exact
        if m > 1.414_213_562_373_095_1 {
            m /= 2
            e += 1
        }
        let s = (m - 1) / (m + 1)
        let s2 = s * s
        var term = s
        var sum = 0.0
        for k in 0..<16 {
            sum += term / Double(2 * k + 1)
            term *= s2
        }
        return Double(e) * ln2Hi + (Double(e) * ln2Lo + 2 * sum)
    }

    /// e raised to `y` (by range reduction to `|r| ≤ ½ ln 2` and a Taylor series).
    ///
    /// ```swift
    /// DeterministicMath.exp(0)   // 1
    /// ```
    package static func exp(_ y: Double) -> Double {
        if y < -745 { return 0 }
        if y > 709 { return .infinity }
        let k = (y / ln2).rounded()
        let r = (y - k * ln2Hi) - k * ln2Lo
        var term = 1.0
        var sum = 1.0
        for i in 1...24 {
            term *= r / Double(i)
            sum += term
        }
        return Double(sign: .plus, exponent: Int(k), significand: sum)
    }

    /// `x` raised to `y` for finite positive `x`, as `exp(y · log x)`.
    ///
    /// ```swift
    /// let weight = DeterministicMath.pow(Double(rank), -0.99)
    /// ```
    package static func pow(_ x: Double, _ y: Double) -> Double {
        exp(y * log(x))
    }
}

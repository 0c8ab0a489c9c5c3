/// SHA-256 (FIPS 180-4), incremental: the digest of fixture dumps and schema texts.
///
/// Foundation on Linux has no CryptoKit, so this is ours; it is checked against the NIST
/// test vectors.
/// ```swift
/// var hash = SHA256()
/// hash.update("abc")
/// hash.finalize()   // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
/// SHA256.hex(of: "abc")   // the same
/// ```
public struct SHA256: Sendable {
    private var h: [UInt32] = [
        0x6A09_E667, 0xBB67_AE85, 0x3C6E_F372, 0xA54F_F53A, 0x510E_527F, 0x9B05_688C, 0x1F83_D9AB, 0x5BE0_CD19,
    ]
    private var buffer: [UInt8] = []
    private var length: UInt64 = 0
    private var w = [UInt32](repeating: 0, count: 64)

    private static let k: [UInt32] = [
        0x428A_2F98, 0x7137_4491, 0xB5C0_FBCF, 0xE9B5_DBA5, 0x3956_C25B, 0x59F1_11F1, 0x923F_82A4, 0xAB1C_5ED5,
        0xD807_AA98, 0x1283_5B01, 0x2431_85BE, 0x550C_7DC3, 0x72BE_5D74, 0x80DE_B1FE, 0x9BDC_06A7, 0xC19B_F174,
        0xE49B_69C1, 0xEFBE_4786, 0x0FC1_9DC6, 0x240C_A1CC, 0x2DE9_2C6F, 0x4A74_84AA, 0x5CB0_A9DC, 0x76F9_88DA,
        0x983E_5152, 0xA831_C66D, 0xB003_27C8, 0xBF59_7FC7, 0xC6E0_0BF3, 0xD5A7_9147, 0x06CA_6351, 0x1429_2967,
        0x27B7_0A85, 0x2E1B_2138, 0x4D2C_6DFC, 0x5338_0D13, 0x650A_7354, 0x766A_0ABB, 0x81C2_C92E, 0x9272_2C85,
        0xA2BF_E8A1, 0xA81A_664B, 0xC24B_8B70, 0xC76C_51A3, 0xD192_E819, 0xD699_0624, 0xF40E_3585, 0x106A_A070,
        0x19A4_C116, 0x1E37_6C08, 0x2748_774C, 0x34B0_BCB5, 0x391C_0CB3, 0x4ED8_AA4A, 0x5B9C_CA4F, 0x682E_6FF3,
        0x748F_82EE, 0x78A5_636F, 0x84C8_7814, 0x8CC7_0208, 0x90BE_FFFA, 0xA450_6CEB, 0xBEF9_A3F7, 0xC671_78F2,
    ]

    /// An empty hash.
    ///
    /// ```swift
    /// var hash = SHA256()
    /// ```
    public init() { buffer.reserveCapacity(64) }

    /// Adds bytes.
    ///
    /// ```swift
    /// hash.update([0x61, 0x62, 0x63])
    /// ```
    public mutating func update<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        for byte in bytes {
            buffer.append(byte)
            if buffer.count == 64 {
                compress()
                buffer.removeAll(keepingCapacity: true)
            }
            length &+= 1
        }
    }

    /// Adds a string's UTF-8 bytes.
    ///
    /// ```swift
    /// hash.update("table Word\n")
    /// ```
    public mutating func update(_ text: String) { update(text.utf8) }

    /// Pads, finishes and returns the digest as 64 lowercase hex digits.
    ///
    /// ```swift
    /// let hex = hash.finalize()
    /// ```
    public mutating func finalize() -> String {
        let bits = length &* 8
        update([0x80])
        while buffer.count != 56 { update([0]) }
        for i in (0..<8).reversed() { buffer.append(UInt8(truncatingIfNeeded: bits >> (UInt64(i) * 8))) }
        compress()
        buffer.removeAll()
        let digits = Array("0123456789abcdef")
        var out = ""
        for word in h {
            for shift in stride(from: 28, through: 0, by: -4) { out.append(digits[Int((word >> UInt32(shift)) & 0xF)]) }
        }
        return out
    }

    /// The hex digest of a string's UTF-8 bytes.
    ///
    /// ```swift
    /// SHA256.hex(of: "")   // "e3b0c442…b855"
    /// ```
    public static func hex(of text: String) -> String {
        var hash = SHA256()
        hash.update(text)
        return hash.finalize()
    }

    @inline(__always) private func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }

    private mutating func compress() {
        for t in 0..<16 {
            w[t] = UInt32(buffer[4 * t]) << 24 | UInt32(buffer[4 * t + 1]) << 16 | UInt32(buffer[4 * t + 2]) << 8 | UInt32(buffer[4 * t + 3])
        }
        for t in 16..<64 {
            let s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
            let s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
            w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
        }
        var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7]
        for t in 0..<64 {
            let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
            let ch = (e & f) ^ (~e & g)
            let t1 = hh &+ s1 &+ ch &+ SHA256.k[t] &+ w[t]
            let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
            let maj = (a & b) ^ (a & c) ^ (b & c)
            let t2 = s0 &+ maj
            hh = g; g = f; f = e; e = d &+ t1; d = c; c = b; b = a; a = t1 &+ t2
        }
        h[0] &+= a; h[1] &+= b; h[2] &+= c; h[3] &+= d; h[4] &+= e; h[5] &+= f; h[6] &+= g; h[7] &+= hh
    }
}

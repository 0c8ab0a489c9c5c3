/// SHA-256 and SHA-512 (FIPS 180-4), incremental: the digests of Core Data's version hashes
/// (README §5 of the store-format reference) and of the harness's fixture dumps.
///
/// Foundation on Linux has no CryptoKit, so these are ours; both are checked against the NIST
/// test vectors. They are `package` so that the harness library shares them without adding a
/// `SHA256` to the names `import SwiftData` brings into a user's files.
/// ```swift
/// var hash = SHA256()
/// hash.update("abc")
/// hash.finalize()   // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
/// SHA256.hex(of: "abc")   // the same
/// SHA512.digest(of: Array("abc".utf8)).count   // 64
/// ```
package struct SHA256: Sendable {
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
    package init() { buffer.reserveCapacity(64) }

    /// Adds bytes.
    ///
    /// ```swift
    /// hash.update([0x61, 0x62, 0x63])
    /// ```
    package mutating func update<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
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
    package mutating func update(_ text: String) { update(text.utf8) }

    /// Pads, finishes and returns the 32-byte digest.
    ///
    /// ```swift
    /// let bytes = hash.finalizeDigest()   // 32 bytes
    /// ```
    package mutating func finalizeDigest() -> [UInt8] {
        let bits = length &* 8
        update([0x80])
        while buffer.count != 56 { update([0]) }
        for i in (0..<8).reversed() { buffer.append(UInt8(truncatingIfNeeded: bits >> (UInt64(i) * 8))) }
        compress()
        buffer.removeAll()
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for word in h {
            for shift in stride(from: 24, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: word >> UInt32(shift)))
            }
        }
        return out
    }

    /// Pads, finishes and returns the digest as 64 lowercase hex digits.
    ///
    /// ```swift
    /// let hex = hash.finalize()
    /// ```
    package mutating func finalize() -> String { hexString(finalizeDigest()) }

    /// The digest of `bytes`.
    ///
    /// ```swift
    /// SHA256.digest(of: [])   // e3 b0 c4 42 …
    /// ```
    package static func digest<S: Sequence>(of bytes: S) -> [UInt8] where S.Element == UInt8 {
        var hash = SHA256()
        hash.update(bytes)
        return hash.finalizeDigest()
    }

    /// The hex digest of a string's UTF-8 bytes.
    ///
    /// ```swift
    /// SHA256.hex(of: "")   // "e3b0c442…b855"
    /// ```
    package static func hex(of text: String) -> String {
        var hash = SHA256()
        hash.update(text)
        return hash.finalize()
    }

    @inline(__always) private func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }

    private mutating func compress() {
        for t in 0..<16 {
            w[t] =
                UInt32(buffer[4 * t]) << 24 | UInt32(buffer[4 * t + 1]) << 16 | UInt32(buffer[4 * t + 2]) << 8
                | UInt32(buffer[4 * t + 3])
        }
        for t in 16..<64 {
            let s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
            let s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
            w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
        }
        var a = h[0]
        var b = h[1]
        var c = h[2]
        var d = h[3]
        var e = h[4]
        var f = h[5]
        var g = h[6]
        var hh = h[7]
        for t in 0..<64 {
            let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
            let ch = (e & f) ^ (~e & g)
            let t1 = hh &+ s1 &+ ch &+ SHA256.k[t] &+ w[t]
            let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
            let maj = (a & b) ^ (a & c) ^ (b & c)
            let t2 = s0 &+ maj
            hh = g
            g = f
            f = e
            e = d &+ t1
            d = c
            c = b
            b = a
            a = t1 &+ t2
        }
        h[0] &+= a
        h[1] &+= b
        h[2] &+= c
        h[3] &+= d
        h[4] &+= e
        h[5] &+= f
        h[6] &+= g
        h[7] &+= hh
    }
}

/// SHA-512 (FIPS 180-4), incremental: the `NSStoreModelVersionHashesDigest` of a store's metadata.
///
/// ```swift
/// var hash = SHA512()
/// hash.update("abc")
/// hash.finalize()   // "ddaf35a193617aba…a54ca49f"
/// ```
package struct SHA512: Sendable {
    private var h: [UInt64] = [
        0x6A09_E667_F3BC_C908, 0xBB67_AE85_84CA_A73B, 0x3C6E_F372_FE94_F82B, 0xA54F_F53A_5F1D_36F1,
        0x510E_527F_ADE6_82D1, 0x9B05_688C_2B3E_6C1F, 0x1F83_D9AB_FB41_BD6B, 0x5BE0_CD19_137E_2179,
    ]
    private var buffer: [UInt8] = []
    private var length: UInt64 = 0
    private var w = [UInt64](repeating: 0, count: 80)

    private static let k: [UInt64] = [
        0x428A_2F98_D728_AE22, 0x7137_4491_23EF_65CD, 0xB5C0_FBCF_EC4D_3B2F, 0xE9B5_DBA5_8189_DBBC,
        0x3956_C25B_F348_B538, 0x59F1_11F1_B605_D019, 0x923F_82A4_AF19_4F9B, 0xAB1C_5ED5_DA6D_8118,
        0xD807_AA98_A303_0242, 0x1283_5B01_4570_6FBE, 0x2431_85BE_4EE4_B28C, 0x550C_7DC3_D5FF_B4E2,
        0x72BE_5D74_F27B_896F, 0x80DE_B1FE_3B16_96B1, 0x9BDC_06A7_25C7_1235, 0xC19B_F174_CF69_2694,
        0xE49B_69C1_9EF1_4AD2, 0xEFBE_4786_384F_25E3, 0x0FC1_9DC6_8B8C_D5B5, 0x240C_A1CC_77AC_9C65,
        0x2DE9_2C6F_592B_0275, 0x4A74_84AA_6EA6_E483, 0x5CB0_A9DC_BD41_FBD4, 0x76F9_88DA_8311_53B5,
        0x983E_5152_EE66_DFAB, 0xA831_C66D_2DB4_3210, 0xB003_27C8_98FB_213F, 0xBF59_7FC7_BEEF_0EE4,
        0xC6E0_0BF3_3DA8_8FC2, 0xD5A7_9147_930A_A725, 0x06CA_6351_E003_826F, 0x1429_2967_0A0E_6E70,
        0x27B7_0A85_46D2_2FFC, 0x2E1B_2138_5C26_C926, 0x4D2C_6DFC_5AC4_2AED, 0x5338_0D13_9D95_B3DF,
        0x650A_7354_8BAF_63DE, 0x766A_0ABB_3C77_B2A8, 0x81C2_C92E_47ED_AEE6, 0x9272_2C85_1482_353B,
        0xA2BF_E8A1_4CF1_0364, 0xA81A_664B_BC42_3001, 0xC24B_8B70_D0F8_9791, 0xC76C_51A3_0654_BE30,
        0xD192_E819_D6EF_5218, 0xD699_0624_5565_A910, 0xF40E_3585_5771_202A, 0x106A_A070_32BB_D1B8,
        0x19A4_C116_B8D2_D0C8, 0x1E37_6C08_5141_AB53, 0x2748_774C_DF8E_EB99, 0x34B0_BCB5_E19B_48A8,
        0x391C_0CB3_C5C9_5A63, 0x4ED8_AA4A_E341_8ACB, 0x5B9C_CA4F_7763_E373, 0x682E_6FF3_D6B2_B8A3,
        0x748F_82EE_5DEF_B2FC, 0x78A5_636F_4317_2F60, 0x84C8_7814_A1F0_AB72, 0x8CC7_0208_1A64_39EC,
        0x90BE_FFFA_2363_1E28, 0xA450_6CEB_DE82_BDE9, 0xBEF9_A3F7_B2C6_7915, 0xC671_78F2_E372_532B,
        0xCA27_3ECE_EA26_619C, 0xD186_B8C7_21C0_C207, 0xEADA_7DD6_CDE0_EB1E, 0xF57D_4F7F_EE6E_D178,
        0x06F0_67AA_7217_6FBA, 0x0A63_7DC5_A2C8_98A6, 0x113F_9804_BEF9_0DAE, 0x1B71_0B35_131C_471B,
        0x28DB_77F5_2304_7D84, 0x32CA_AB7B_40C7_2493, 0x3C9E_BE0A_15C9_BEBC, 0x431D_67C4_9C10_0D4C,
        0x4CC5_D4BE_CB3E_42B6, 0x597F_299C_FC65_7E2A, 0x5FCB_6FAB_3AD6_FAEC, 0x6C44_198C_4A47_5817,
    ]

    /// An empty hash.
    ///
    /// ```swift
    /// var hash = SHA512()
    /// ```
    package init() { buffer.reserveCapacity(128) }

    /// Adds bytes.
    ///
    /// ```swift
    /// hash.update([0x61, 0x62, 0x63])
    /// ```
    package mutating func update<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        for byte in bytes {
            buffer.append(byte)
            if buffer.count == 128 {
                compress()
                buffer.removeAll(keepingCapacity: true)
            }
            length &+= 1
        }
    }

    /// Adds a string's UTF-8 bytes.
    ///
    /// ```swift
    /// hash.update("Item")
    /// ```
    package mutating func update(_ text: String) { update(text.utf8) }

    /// Pads, finishes and returns the 64-byte digest. Messages are limited to 2^64 − 1 bits
    /// (the high half of the 128-bit length field is always zero).
    ///
    /// ```swift
    /// let bytes = hash.finalizeDigest()   // 64 bytes
    /// ```
    package mutating func finalizeDigest() -> [UInt8] {
        let bits = length &* 8
        update([0x80])
        while buffer.count != 112 { update([0]) }
        buffer.append(contentsOf: [UInt8](repeating: 0, count: 8))
        for i in (0..<8).reversed() { buffer.append(UInt8(truncatingIfNeeded: bits >> (UInt64(i) * 8))) }
        compress()
        buffer.removeAll()
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for word in h {
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return out
    }

    /// Pads, finishes and returns the digest as 128 lowercase hex digits.
    ///
    /// ```swift
    /// let hex = hash.finalize()
    /// ```
    package mutating func finalize() -> String { hexString(finalizeDigest()) }

    /// The digest of `bytes`.
    ///
    /// ```swift
    /// SHA512.digest(of: Array("abc".utf8))   // dd af 35 a1 …
    /// ```
    package static func digest<S: Sequence>(of bytes: S) -> [UInt8] where S.Element == UInt8 {
        var hash = SHA512()
        hash.update(bytes)
        return hash.finalizeDigest()
    }

    /// The hex digest of a string's UTF-8 bytes.
    ///
    /// ```swift
    /// SHA512.hex(of: "")   // "cf83e135…f927da3e"
    /// ```
    package static func hex(of text: String) -> String {
        var hash = SHA512()
        hash.update(text)
        return hash.finalize()
    }

    @inline(__always) private func rotr(_ x: UInt64, _ n: UInt64) -> UInt64 { (x >> n) | (x << (64 - n)) }

    private mutating func compress() {
        for t in 0..<16 {
            var word: UInt64 = 0
            for i in 0..<8 { word = word << 8 | UInt64(buffer[8 * t + i]) }
            w[t] = word
        }
        for t in 16..<80 {
            let s0 = rotr(w[t - 15], 1) ^ rotr(w[t - 15], 8) ^ (w[t - 15] >> 7)
            let s1 = rotr(w[t - 2], 19) ^ rotr(w[t - 2], 61) ^ (w[t - 2] >> 6)
            w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
        }
        var a = h[0]
        var b = h[1]
        var c = h[2]
        var d = h[3]
        var e = h[4]
        var f = h[5]
        var g = h[6]
        var hh = h[7]
        for t in 0..<80 {
            let s1 = rotr(e, 14) ^ rotr(e, 18) ^ rotr(e, 41)
            let ch = (e & f) ^ (~e & g)
            let t1 = hh &+ s1 &+ ch &+ SHA512.k[t] &+ w[t]
            let s0 = rotr(a, 28) ^ rotr(a, 34) ^ rotr(a, 39)
            let maj = (a & b) ^ (a & c) ^ (b & c)
            let t2 = s0 &+ maj
            hh = g
            g = f
            f = e
            e = d &+ t1
            d = c
            c = b
            b = a
            a = t1 &+ t2
        }
        h[0] &+= a
        h[1] &+= b
        h[2] &+= c
        h[3] &+= d
        h[4] &+= e
        h[5] &+= f
        h[6] &+= g
        h[7] &+= hh
    }
}

/// Lowercase hex digits of `bytes`.
///
/// ```swift
/// hexString([0x0a, 0xff])   // "0aff"
/// ```
package func hexString<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    let digits = Array("0123456789abcdef")
    var out = ""
    out.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0xF)])
    }
    return out
}

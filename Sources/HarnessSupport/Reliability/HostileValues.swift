import Foundation
import OpenSwiftDataTesting

/// The strings and numbers the hostile-values probe stores and searches for.
///
/// ```swift
/// HostileValues.strings.count   // ≥ 50
/// ```
package enum HostileValues {
    /// Strings that break naive SQL, `LIKE` patterns, byte-wise comparison or Unicode handling:
    /// quotes, `%`, `_`, backslashes, NUL and control characters, SQL fragments, NFC and NFD
    /// forms of the same text, lone combining marks, ZWJ emoji sequences, flags, RTL marks,
    /// scripts with marks, private-use and the last code point, and long strings (up to 10 KB,
    /// so they spill onto overflow pages).
    package static let strings: [String] = [
        "", " ", "  padded  ", "'", "''", "\"", "`", "O'Brien", "it''s",
        "Robert'); DROP TABLE ZRELIABILITYVALUE;--", "' OR '1'='1", "1; SELECT * FROM sqlite_master", "?", "?1",
        ":name", "@p", "$1",
        "%", "%%", "_", "a_c", "100%", "50% off_sale", "%_%", "[abc]", "[!a]", "*", "^$", ".*",
        "\\", "\\\\", "C:\\path\\to\\file", "\\%", "\\_", "\\'",
        "a\u{0}b", "\u{0}", "\u{0}\u{0}tail", "tab\there", "line\nbreak", "cr\r\nlf", "\u{7}bell", "\u{7F}del",
        "\u{1B}[31mred",
        "café", "cafe\u{301}", "Å", "A\u{30A}", "\u{212B}", "\u{301}", "\u{301}\u{301}\u{301}",
        "e\u{301}\u{302}\u{303}",
        "ﬁ", "ß", "SS", "İstanbul", "i\u{307}", "ǅ", "Zoë", "Zoe\u{308}", "ZOË", "zoe",
        "😀", "👨‍👩‍👧‍👦", "👨", "👩🏽‍💻", "🏳️‍🌈", "🇫🇷", "🇫", "\u{200D}", "\u{FE0F}", "\u{FEFF}bom",
        "\u{202E}override\u{202C}", "\u{200F}rtl mark", "שלום", "עִבְרִית", "مرحبا", "한국어", "\u{1100}\u{1161}\u{11A8}",
        "각",
        "日本語", "\u{FFFD}", "\u{E000}", "\u{10FFFF}", "null", "NULL", "nil",
        String(repeating: "a", count: 10_000), String(repeating: "é", count: 3_000), String(repeating: "👨‍👩‍👧‍👦", count: 400),
        "x" + String(repeating: "\u{301}", count: 300),
    ]

    /// Extra needles: fragments of the strings above (a letter, a mark, a wildcard alone …).
    package static let fragments: [String] = [
        "a", "e", "E", "o", "é", "e\u{301}", "\u{308}", "%", "_", "\\", "'", "\u{0}", "\u{200D}", "👩", "🏽", "ss", "🇷",
    ]

    /// Extreme integers.
    package static let integers: [Int] = [
        .min, .min + 1, -(1 << 53) - 1, -1, 0, 1, 1 << 53, (1 << 53) + 1, Int(Int32.max) + 1, .max - 1, .max,
    ]

    /// Extreme doubles (NaN is rejected at save; it is tested separately).
    package static let doubles: [Double] = [
        -.infinity, -.greatestFiniteMagnitude, -1e300, -1, -.leastNormalMagnitude, -.leastNonzeroMagnitude, -0.0,
        0.0, .leastNonzeroMagnitude, Double(bitPattern: 1_000), Double(bitPattern: 0x000F_FFFF_FFFF_FFFF),
        .leastNormalMagnitude, .pi,
        9_007_199_254_740_992, 9_007_199_254_740_994,
        1e300, .greatestFiniteMagnitude, .infinity,
    ]
}

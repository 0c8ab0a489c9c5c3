/// Data traits that stress a store: non-Latin text, very long strings, hostile strings.
///
/// Traits change what the text generators of ``Row`` return (and nothing else); each
/// decision is drawn from the field's own stream, so other fields keep their values.
/// ```swift
/// let traits: Traits = [.unicodeHeavy, .hostile]
/// Traits(names: ["hostile", "long-strings"])   // parses the CLI's --traits
/// ```
public struct Traits: OptionSet, Sendable, Hashable {
    /// The option bits.
    public let rawValue: Int
    /// Creates traits from their bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Names, words and text mostly in Cyrillic, CJK, Greek and Latin with diacritics.
    public static let unicodeHeavy = Traits(rawValue: 1 << 0)
    /// Text fields 2,000 to 20,000 characters long.
    public static let longStrings = Traits(rawValue: 1 << 1)
    /// One text value in five replaced by a hostile string (quotes, `%`, `_`, backslashes, SQL
    /// fragments, combining marks, right-to-left text, emoji; never NUL).
    public static let hostile = Traits(rawValue: 1 << 2)

    /// Every trait with its command-line name, in a fixed order.
    ///
    /// ```swift
    /// Traits.named.map(\.name)   // ["unicode-heavy", "long-strings", "hostile"]
    /// ```
    package static let named: [(name: String, trait: Traits)] = [
        ("unicode-heavy", .unicodeHeavy), ("long-strings", .longStrings), ("hostile", .hostile),
    ]

    /// The traits with these command-line names; `nil` if one is unknown.
    ///
    /// ```swift
    /// Traits(names: ["hostile"])   // [.hostile]
    /// ```
    package init?(names: [String]) {
        var traits: Traits = []
        for name in names {
            guard let t = Traits.named.first(where: { $0.name == name }) else { return nil }
            traits.insert(t.trait)
        }
        self = traits
    }

    /// The command-line names of these traits, in `named` order.
    ///
    /// ```swift
    /// ([.hostile, .unicodeHeavy] as Traits).names   // ["unicode-heavy", "hostile"]
    /// ```
    public var names: [String] { Traits.named.filter { contains($0.trait) }.map(\.name) }
}

/// Strings that break naive SQL, LIKE patterns, escaping and Unicode handling.
///
/// Used by the ``Traits/hostile`` trait; none contains NUL.
/// ```swift
/// let s = rng.choice(HostileStrings.all)
/// ```
package enum HostileStrings {
    /// The list, in a fixed order.
    package static let all: [String] = [
        "'", "''", "\"", "\"\"", "O'Brien", "Robert'); DROP TABLE Students;--",
        "' OR '1'='1", "\" OR \"\"=\"", "1; SELECT * FROM sqlite_master", "/* comment */", "-- comment",
        "%", "_", "100%", "a_b", "%_%", "\\", "\\\\", "C:\\path\\to\\file", "%_\\", "\\%\\_",
        "LIKE '%a%' ESCAPE '\\'", "GLOB *?[]", "x'00'", "NULL", "null", "nil", "  padded  ", "",
        "\t\n\r", "line\nbreak", "e\u{301}", "a\u{308}\u{301}\u{323}",
        "Z\u{36B}\u{343}\u{36A}a\u{352}l\u{35B}g\u{310}o",
        "مرحبا بالعالم", "שלום עולם", "\u{202E}txt.exe", "abc\u{200F}def", "\u{200B}zero\u{200B}width",
        "\u{FEFF}bom", "👩‍👩‍👧‍👦", "🇯🇵🇫🇷", "🙂'%_\\", "ǅungla", "ﬁnance", "İstanbul", "straße",
        "Ωmega ϑ", "\u{1F600}\u{1F600}\u{1F600}", "\u{7F}del", "\u{1B}[31mred\u{1B}[0m",
    ]
}

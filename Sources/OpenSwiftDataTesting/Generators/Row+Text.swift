/// The writing system of a generated person name.
///
/// ```swift
/// row.personName("name", script: .cyrillic)   // e.g. "Мария Соколов"
/// ```
public enum NameScript: String, CaseIterable, Sendable, Hashable {
    /// Latin letters, many with diacritics ("Łukasz Núñez").
    case latin
    /// Cyrillic ("Ольга Петрова").
    case cyrillic
    /// Chinese or Japanese, family name first, no space ("佐藤陽菜").
    case cjk
}

/// Text generators: names, emails, words, sentences and paragraphs, shaped by the fixture's
/// ``Traits``.
extension Row {
    /// Whether the hostile trait replaces this field's value (one value in five).
    private func hostileOverride(_ field: String) -> String? {
        guard traits.contains(.hostile) else { return nil }
        var r = rng(field + "#hostile")
        guard r.bool(probability: 0.2) else { return nil }
        return r.choice(HostileStrings.all)
    }

    /// A person's name in the given script, or in a mix of scripts when `script` is `nil`
    /// (60% Latin, 20% Cyrillic, 20% CJK; 20/40/40 with the unicode-heavy trait).
    ///
    /// ```swift
    /// let name = row.personName("name")
    /// ```
    public func personName(_ field: String, script: NameScript? = nil) -> String {
        if let hostile = hostileOverride(field) { return hostile }
        var r = rng(field)
        let chosen =
            script
            ?? {
                let weights = traits.contains(.unicodeHeavy) ? [20, 40, 40] : [60, 20, 20]
                return NameScript.allCases[r.weightedIndex(weights)]
            }()
        switch chosen {
        case .latin: return r.choice(WordLists.latinGiven) + " " + r.choice(WordLists.latinFamily)
        case .cyrillic: return r.choice(WordLists.cyrillicGiven) + " " + r.choice(WordLists.cyrillicFamily)
        case .cjk: return r.choice(WordLists.cjkFamily) + r.choice(WordLists.cjkGiven)
        }
    }

    /// An email address at a reserved example domain, `word.word<n>@domain`.
    ///
    /// With the hostile trait one in five local parts is `o'brien+%_\`.
    /// ```swift
    /// let email = row.email("email")   // e.g. "amber.kettle417@example.org"
    /// ```
    public func email(_ field: String) -> String {
        var r = rng(field)
        let domain = r.choice(WordLists.domains)
        if traits.contains(.hostile) {
            var h = rng(field + "#hostile")
            if h.bool(probability: 0.2) { return "o'brien+%_\\@" + domain }
        }
        return "\(r.choice(WordLists.english)).\(r.choice(WordLists.english))\(r.uniform(in: 1...999))@\(domain)"
    }

    /// One word: English, or with the unicode-heavy trait mostly another script.
    ///
    /// ```swift
    /// let tag = row.word("label")
    /// ```
    public func word(_ field: String) -> String {
        if let hostile = hostileOverride(field) { return hostile }
        var r = rng(field)
        return Row.word(&r, traits)
    }

    /// Words joined by spaces, how many drawn from `count`.
    ///
    /// ```swift
    /// let title = row.words("title", count: .uniform(2...4))
    /// ```
    public func words(_ field: String, count: Distribution) -> String {
        if let hostile = hostileOverride(field) { return hostile }
        var r = rng(field)
        var sampler = count.sampler()
        let n = max(1, sampler.next(using: &r))
        return (0..<n).map { _ in Row.word(&r, traits) }.joined(separator: " ")
    }

    /// A sentence of 4 to 12 words, first letter capitalised (ASCII only), ending in a full stop.
    ///
    /// ```swift
    /// let summary = row.sentence("summary")
    /// ```
    public func sentence(_ field: String) -> String {
        if let hostile = hostileOverride(field) { return hostile }
        var r = rng(field)
        return Row.sentence(&r, traits)
    }

    /// Paragraph text of 1 to 5 sentences; with the long-strings trait, 2,000 to 20,000
    /// characters.
    ///
    /// ```swift
    /// let body = row.text("body")
    /// ```
    public func text(_ field: String) -> String {
        if let hostile = hostileOverride(field) { return hostile }
        var r = rng(field)
        if traits.contains(.longStrings) {
            let target = r.uniform(in: 2_000...20_000)
            var out = ""
            while out.count < target { out += (out.isEmpty ? "" : " ") + Row.sentence(&r, traits) }
            return out
        }
        return (0..<r.uniform(in: 1...5)).map { _ in Row.sentence(&r, traits) }.joined(separator: " ")
    }

    static func word(_ r: inout SeededGenerator, _ traits: Traits) -> String {
        if traits.contains(.unicodeHeavy), r.bool(probability: 0.7) { return r.choice(WordLists.unicodeWords) }
        return r.choice(WordLists.english)
    }

    static func sentence(_ r: inout SeededGenerator, _ traits: Traits) -> String {
        var words = (0..<r.uniform(in: 4...12)).map { _ in word(&r, traits) }
        if let first = words.first?.unicodeScalars.first, first.value >= 0x61 && first.value <= 0x7A {
            words[0] =
                String(UnicodeScalar(first.value - 32)!) + words[0].unicodeScalars.dropFirst().map(String.init).joined()
        }
        return words.joined(separator: " ") + "."
    }
}

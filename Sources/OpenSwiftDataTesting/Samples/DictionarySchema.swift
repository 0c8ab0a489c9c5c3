import OpenSwiftData

/// A category of the dictionary sample schema: unique names, cascading to its words.
///
/// ```swift
/// let nouns = DictionaryCategory(name: "nouns")
/// ```
@Model package final class DictionaryCategory {
    /// The category's name, unique.
    @Attribute(.unique) package var name: String
    /// The category's words; deleted with it.
    @Relationship(deleteRule: .cascade, inverse: \DictionaryWord.category) package var words: [DictionaryWord] = []
    /// A category.
    package init(name: String) { self.name = name }
}

/// A word of the dictionary sample schema.
///
/// ```swift
/// let w = DictionaryWord(text: "apple")   // length 5 (Unicode scalars)
/// ```
@Model package final class DictionaryWord {
    /// The word.
    package var text: String
    /// Its length in Unicode scalars (stable across Unicode versions, unlike `count`).
    package var length: Int
    /// Its category.
    package var category: DictionaryCategory?
    /// A word.
    package init(text: String) {
        self.text = text
        self.length = text.unicodeScalars.count
    }
}

extension SampleSchema {
    /// Categories with unique names and words spread over them by Zipf(0.99).
    ///
    /// Scale N: N words, max(1, N/100) categories.
    /// ```swift
    /// let fixture = SampleSchema.dictionary.fixture(seed: 1, scale: 1_000_000)
    /// ```
    package static var dictionary: SampleSchema {
        SampleSchema(
            name: "dictionary",
            summary: "categories with unique names, words cascading (Zipf fan-out)",
            modelTypes: [DictionaryCategory.self, DictionaryWord.self]
        ) { seed, scale, traits in
            Fixture(seed: seed, traits: traits) {
                Generate(DictionaryCategory.self, count: max(1, scale / 100)) { row in
                    DictionaryCategory(name: "\(row.word("name")) \(row.index)")
                }
                Generate(DictionaryWord.self, count: scale, parent: \.category, children: \.words, fanOut: .zipf(0.99))
                { row in
                    DictionaryWord(text: row.word("text"))
                }
            }
        }
    }
}

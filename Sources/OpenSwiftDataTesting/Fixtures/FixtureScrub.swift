import Foundation
import OpenSwiftData

/// Deterministic replacement of `String` attribute values, for sharing fixtures made from real
/// stores (``FixtureSubset``, `harness fixtures subset --scrub`).
///
/// The same value, kind and seed always give the same replacement, so values that repeat keep
/// repeating and the distribution's shape (how often each value occurs) is kept exactly. The
/// replacement of an attribute's distinct values is injective — a collision is resolved by
/// trying the next candidate, in the values' sorted order — so unique attributes stay unique.
/// Each character keeps its class: a letter becomes a letter (an ASCII one, upper case for upper
/// case), a digit a digit, and spaces and punctuation stay, so the length in characters and the
/// value's shape are kept (FIX-13).
/// ```swift
/// FixtureScrub.replacement(for: "ada@lovelace.org", kind: .email, seed: 1)   // like "vomi@rekafitu.org"
/// FixtureScrub.replacement(for: "+44 20 7946 0958", kind: .digits, seed: 1) // like "+71 53 2084 6617"
/// ```
public enum FixtureScrub {
    /// What a value looks like, which decides how it is replaced.
    public enum Kind: String, CaseIterable, Codable, Sendable {
        /// `local@domain.tld`: the local part and the domain's labels are replaced letter for
        /// letter and digit for digit; dots, `+`, `_`, `-` and the top-level domain stay.
        case email
        /// A person's or a thing's name: pronounceable words of the same lengths, each capitalized.
        case name
        /// Any text: letters become pronounceable letters (case kept), digits digits, the rest stays.
        case text
        /// Phone numbers, codes, account numbers: digits become digits (a leading non-zero digit
        /// stays non-zero), the separators stay. `phone` is another name for it.
        case digits

        /// The kind called `name` (`phone` is ``digits``).
        ///
        /// - Throws: ``FixtureSubsetError/unknownKind(_:valid:)`` listing the kinds.
        package init(named name: String) throws {
            if name == "phone" {
                self = .digits
                return
            }
            guard let kind = Kind(rawValue: name) else {
                throw FixtureSubsetError.unknownKind(name, valid: Kind.allCases.map(\.rawValue) + ["phone"])
            }
            self = kind
        }
    }

    /// One attribute to scrub: `Entity.attribute`, with a kind or the kind inferred from its values.
    ///
    /// ```swift
    /// let email = FixtureScrub.Rule(entity: "AccountUser", attribute: "email", kind: .email)
    /// let inferred = FixtureScrub.Rule(entity: "AccountUser", attribute: "name")
    /// ```
    public struct Rule: Hashable, Codable, Sendable, CustomStringConvertible {
        /// The entity's name.
        public var entity: String
        /// The attribute's name.
        public var attribute: String
        /// The kind; `nil` infers it from the values: ``Kind/email`` when most are
        /// `local@domain.tld`, ``Kind/digits`` when most are digits and separators, ``Kind/name``
        /// when most are one to four capitalized words of letters, ``Kind/text`` otherwise.
        public var kind: Kind?

        /// A rule for `entity.attribute`.
        public init(entity: String, attribute: String, kind: Kind? = nil) {
            self.entity = entity
            self.attribute = attribute
            self.kind = kind
        }

        /// Parses `Entity.attribute` or `Entity.attribute=kind`.
        ///
        /// - Throws: ``FixtureSubsetError/malformed(_:expected:)`` for another shape,
        ///   ``FixtureSubsetError/unknownKind(_:valid:)`` for a kind that does not exist.
        package init(parsing text: String) throws {
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let path = parts[0].split(separator: ".", omittingEmptySubsequences: false)
            guard path.count == 2, !path[0].isEmpty, !path[1].isEmpty, parts.count == 1 || !parts[1].isEmpty else {
                throw FixtureSubsetError.malformed(text, expected: "Entity.attribute or Entity.attribute=kind")
            }
            self.init(
                entity: String(path[0]), attribute: String(path[1]),
                kind: parts.count == 2 ? try Kind(named: String(parts[1])) : nil)
        }

        /// `Entity.attribute` or `Entity.attribute=kind`.
        public var description: String { "\(entity).\(attribute)" + (kind.map { "=\($0.rawValue)" } ?? "") }
    }

    /// What scrubbing one attribute did.
    package struct Report: Codable, Sendable, Equatable {
        /// The entity.
        package var entity: String
        /// The attribute.
        package var attribute: String
        /// The kind used.
        package var kind: Kind
        /// Whether the kind was inferred from the values (the rule named none).
        package var inferred: Bool
        /// Rows whose value was replaced (`NULL`s stay `NULL`).
        package var rows: Int
        /// Distinct values replaced (as many distinct replacements).
        package var distinctValues: Int
        /// Distinct values whose first candidate was taken by another value's replacement.
        package var collisionsResolved: Int
    }

    /// The replacement of `value` as `kind` for `seed`; `attempt` picks the next candidate when an
    /// earlier one is taken. Depends on nothing else.
    ///
    /// ```swift
    /// let name = FixtureScrub.replacement(for: "Zoë Müller", kind: .name, seed: 7)   // like "Buka Tirome"
    /// ```
    public static func replacement(for value: String, kind: Kind, seed: UInt64, attempt: Int = 0) -> String {
        var rng = SeededGenerator(
            seed: SeededGenerator.derive(seed, labels: ["scrub", kind.rawValue, value], index: UInt64(attempt)))
        var out: String
        switch kind {
        case .email:
            if let at = value.lastIndex(of: "@"), at != value.startIndex, value.index(after: at) != value.endIndex {
                let domain = value[value.index(after: at)...].split(separator: ".", omittingEmptySubsequences: false)
                let labels = domain.enumerated().map { index, label in
                    index == domain.count - 1 && domain.count > 1
                        ? String(label) : shaped(label, capitalizeWords: false, rng: &rng)
                }
                out = shaped(value[..<at], capitalizeWords: false, rng: &rng) + "@" + labels.joined(separator: ".")
            } else {
                out = shaped(Substring(value), capitalizeWords: false, rng: &rng)
            }
        case .name: out = shaped(Substring(value), capitalizeWords: true, rng: &rng)
        case .text, .digits: out = shaped(Substring(value), capitalizeWords: false, rng: &rng)
        }
        // Past the first candidates (a short value has few), a suffix makes room.
        if attempt >= 16 { out += String(attempt) }
        return out
    }

    /// The kind `values` look like: ``Kind/email`` when most are `local@domain.tld`,
    /// ``Kind/digits`` when most are digits and separators, ``Kind/name`` when most are one to
    /// four capitalized words of letters, ``Kind/text`` otherwise (and for no values).
    ///
    /// ```swift
    /// FixtureScrub.inferKind(["ada@example.com", "bob@example.org"])   // .email
    /// ```
    package static func inferKind(_ values: [String]) -> Kind {
        let sample = values.filter { !$0.isEmpty }.prefix(1000)
        guard !sample.isEmpty else { return .text }
        func most(_ test: (String) -> Bool) -> Bool { sample.filter(test).count * 5 >= sample.count * 4 }
        if most(looksLikeEmail) { return .email }
        if most(looksLikeDigits) { return .digits }
        if most(looksLikeName) { return .name }
        return .text
    }

    /// The replacements of `values`' distinct values, injective, in sorted order of the values;
    /// and how many needed more than one attempt.
    ///
    /// ```swift
    /// let (map, _) = FixtureScrub.mapping(["a@x.org", "b@x.org"], kind: .email, seed: 1)
    /// ```
    package static func mapping(_ values: [String], kind: Kind, seed: UInt64) -> (
        map: [String: String], collisions: Int
    ) {
        var map: [String: String] = [:]
        var used: Set<String> = []
        var collisions = 0
        for value in Set(values).sorted() {
            var attempt = 0
            var candidate = replacement(for: value, kind: kind, seed: seed)
            while used.contains(candidate) {
                attempt += 1
                candidate = replacement(for: value, kind: kind, seed: seed, attempt: attempt)
            }
            if attempt > 0 { collisions += 1 }
            used.insert(candidate)
            map[value] = candidate
        }
        return (map, collisions)
    }

    private static let consonants = Array("bcdfghjklmnprstvz")
    private static let vowels = Array("aeiou")

    /// `text` with every letter and digit replaced and everything else kept; letters alternate
    /// consonant and vowel within a word, from a random start.
    private static func shaped(_ text: Substring, capitalizeWords: Bool, rng: inout SeededGenerator) -> String {
        var out = ""
        var inWord = false
        var parity = 0
        var wordStart = true
        for character in text {
            if character.isLetter {
                if !inWord {
                    parity = Int(rng.uniform(below: 2))
                    inWord = true
                }
                let pool = parity % 2 == 0 ? consonants : vowels
                parity += 1
                let letter = pool[Int(rng.uniform(below: UInt64(pool.count)))]
                let upper = capitalizeWords ? wordStart : character.isUppercase
                out.append(upper ? Character(letter.uppercased()) : letter)
                wordStart = false
            } else if character.isASCII, character.isNumber {
                let nonZero = wordStart && character != "0"
                let digit = nonZero ? 1 + rng.uniform(below: 9) : rng.uniform(below: 10)
                out.append(Character(String(digit)))
                inWord = false
                wordStart = false
            } else {
                out.append(character)
                inWord = false
                wordStart = true
            }
        }
        return out
    }

    private static func looksLikeEmail(_ value: String) -> Bool {
        let parts = value.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !value.contains(" ") else { return false }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { !$0.isEmpty }
    }

    private static func looksLikeDigits(_ value: String) -> Bool {
        value.contains { $0.isASCII && $0.isNumber }
            && value.allSatisfy { ($0.isASCII && $0.isNumber) || " +-().#/".contains($0) }
    }

    private static func looksLikeName(_ value: String) -> Bool {
        let words = value.split(separator: " ")
        return value.count <= 40 && (1...4).contains(words.count)
            && words.allSatisfy { word in
                word.first?.isUppercase == true && word.allSatisfy { $0.isLetter || "-'.".contains($0) }
            }
    }
}

extension FixtureScrub {
    /// A rule checked against a schema: the entity, the attribute's column.
    struct Resolved {
        var rule: Rule
        var entity: StoreGraph.Entity
        var column: String
    }

    /// Checks `rules` against `graph`: the entity and the attribute exist, the attribute is a
    /// `String` with a column, no attribute is named twice.
    ///
    /// - Throws: ``FixtureSubsetError`` naming the rule and listing the valid names.
    static func resolve(_ rules: [Rule], in graph: StoreGraph) throws -> [Resolved] {
        var seen: Set<String> = []
        return try rules.map { rule in
            guard let entity = graph.entity(named: rule.entity) else {
                throw FixtureSubsetError.unknownEntity(rule.entity, valid: graph.entities.map(\.name).sorted())
            }
            guard let attribute = entity.attributes.first(where: { $0.name == rule.attribute }) else {
                throw FixtureSubsetError.unknownAttribute(
                    entity: entity.name, attribute: rule.attribute, valid: entity.attributes.map(\.name))
            }
            guard attribute.isString, let column = attribute.column else {
                throw FixtureSubsetError.unsupportedAttribute(
                    entity: entity.name, attribute: attribute.name, type: "a \(attribute.typeName)",
                    scrubbable: entity.attributes.filter { $0.isString && $0.column != nil }.map(\.name))
            }
            guard seen.insert("\(entity.name).\(attribute.name)").inserted else {
                throw FixtureSubsetError.duplicate("\(entity.name).\(attribute.name)")
            }
            return Resolved(rule: rule, entity: entity, column: column)
        }
    }

    /// Replaces the values of each resolved rule's column in `db`, for rows of the entity and its
    /// sub-entities. Values are first set to `NULL`, then to their replacements, so a unique
    /// index never sees two rows with one value in between.
    static func apply(_ rules: [Resolved], to db: SQLiteConnection, seed: UInt64) throws -> [Report] {
        try db.execute("CREATE TEMP TABLE IF NOT EXISTS osd_scrub (pk INTEGER PRIMARY KEY, value TEXT)")
        defer { try? db.execute("DROP TABLE IF EXISTS temp.osd_scrub") }  // try?: a temporary table of a scratch copy
        return try rules.map { resolved in
            let table = FixtureSubset.quoted(resolved.entity.table)
            let column = FixtureSubset.quoted(resolved.column)
            let kinds = resolved.entity.kindNumbers.map(String.init).joined(separator: ",")
            let rows = try db.rows(
                "SELECT Z_PK, \(column) FROM \(table) WHERE Z_ENT IN (\(kinds)) AND typeof(\(column)) = 'text'")
            let pairs = rows.compactMap { row -> (Int64, String)? in
                guard case .integer(let pk) = row[0], case .text(let value) = row[1] else { return nil }
                return (pk, value)
            }
            let values = pairs.map(\.1)
            let kind = resolved.rule.kind ?? inferKind(Array(Set(values)).sorted())
            let (map, collisions) = mapping(values, kind: kind, seed: seed)
            try db.execute("DELETE FROM temp.osd_scrub")
            for (pk, value) in pairs {
                try db.run(
                    "INSERT INTO temp.osd_scrub (pk, value) VALUES (?, ?)",
                    [.integer(pk), .text(map[value, default: ""])])
            }
            try db.execute("UPDATE \(table) SET \(column) = NULL WHERE Z_PK IN (SELECT pk FROM temp.osd_scrub)")
            try db.execute(
                "UPDATE \(table) SET \(column) = (SELECT value FROM temp.osd_scrub s WHERE s.pk = \(table).Z_PK) WHERE Z_PK IN (SELECT pk FROM temp.osd_scrub)"
            )
            return Report(
                entity: resolved.entity.name, attribute: resolved.rule.attribute, kind: kind,
                inferred: resolved.rule.kind == nil, rows: pairs.count, distinctValues: map.count,
                collisionsResolved: collisions)
        }
    }
}

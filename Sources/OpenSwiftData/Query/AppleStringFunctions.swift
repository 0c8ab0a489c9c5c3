import Foundation

// Apple-only string functions of `#Predicate`, provided so Darwin-style predicates compile on
// Linux with Swift 6.0–6.3 (the macro expands them to `PredicateExpressions.build_<name>`,
// which FoundationEssentials only defines on Darwin). Each is evaluated in Swift and translated
// to SQL with the *same* documented semantics, so a fetch and `Predicate.evaluate` agree; they
// approximate Apple's locale-aware behaviour as stated on each. Swift 6.4 rejects these calls on
// Linux in the macro itself, so this shim cannot help there.

/// The folding `localizedStandardContains` uses, on NFC text, one Unicode scalar at a time:
/// ASCII letters are lowercased; letters of Latin-1 Supplement and Latin Extended-A
/// (U+00C0…U+017F) are lowercased with their diacritics removed ("Á" → "a", "ş" → "s",
/// "Ø" → "ø", "ß" stays); every other scalar is unchanged (Greek, Cyrillic, CJK compare exactly).
enum StandardFolding {
    /// Scalars of U+00C0…U+017F whose folding differs from themselves.
    static let table: [(Character, String)] = {
        var out: [(Character, String)] = []
        for v in 0xC0...0x17F {
            guard let u = Unicode.Scalar(v), u.properties.isAlphabetic else { continue }
            let decomposed = String(Character(u)).decomposedStringWithCanonicalMapping
            var base = String.UnicodeScalarView()
            for s in decomposed.unicodeScalars where s.properties.generalCategory != .nonspacingMark { base.append(s) }
            let folded = String(base).lowercased()
            if folded != String(Character(u)) { out.append((Character(u), folded)) }
        }
        return out
    }()
    static let map: [Unicode.Scalar: String] = Dictionary(
        uniqueKeysWithValues: table.map { ($0.0.unicodeScalars.first!, $0.1) })

    /// Swift's side of the folding.
    static func fold(_ s: String) -> String {
        var out = ""
        for u in nfcNormalized(s).unicodeScalars {
            if u.isASCII, (65...90).contains(u.value) {
                out.unicodeScalars.append(Unicode.Scalar(u.value + 32)!)
            } else if let m = map[u] {
                out += m
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// SQL's side: `osd_fold(x)`, an SQL function that runs ``fold(_:)`` itself (registered on
    /// every connection by ``SwiftStringFunctions``), so both sides fold identically. (An earlier
    /// pure-SQL form, `lower` and `replace` calls in common table expressions, failed to prepare
    /// inside nested to-many closures; the differential checks found it.)
    static func sql(_ x: String) -> String {
        "osd_fold(\(x))"
    }

    /// UTF-8 substring test (what `instr` does).
    static func contains(_ a: String, _ b: String) -> Bool {
        let h = Array(a.utf8)
        let n = Array(b.utf8)
        if n.isEmpty { return true }
        guard h.count >= n.count else { return false }
        for i in 0...(h.count - n.count) where h[i] == n[0] && Array(h[i..<(i + n.count)]) == n { return true }
        return false
    }

    /// Byte-wise three-way comparison (what SQLite's BINARY collation does).
    static func compare(_ a: String, _ b: String) -> ComparisonResult {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        if x == y { return .orderedSame }
        return x.lexicographicallyPrecedes(y) ? .orderedAscending : .orderedDescending
    }

    /// ASCII-only lowercasing (what SQLite's `lower` does without ICU).
    static func asciiLower(_ s: String) -> String {
        String(
            String.UnicodeScalarView(
                nfcNormalized(s).unicodeScalars.map {
                    $0.isASCII && (65...90).contains($0.value) ? Unicode.Scalar($0.value + 32)! : $0
                }))
    }
}

extension PredicateExpressions {
    /// `s.localizedStandardContains(t)`: a substring test after `StandardFolding` (case- and
    /// diacritic-insensitive for ASCII and Latin letters; exact elsewhere; not locale-aware).
    /// ```sql
    /// coalesce(instr(osd_fold(t."name"), osd_fold(?)) > 0, 0)
    /// ```
    public struct StringLocalizedStandardContains<Root: PredicateExpression, Other: PredicateExpression>:
        PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        /// The expression's result type.
        public typealias Output = Bool
        /// The string the function is called on.
        public let root: Root
        /// The argument string.
        public let other: Other
        /// Creates the expression (the `#Predicate` macro calls the `build_` function).
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }
        /// Evaluates in Swift with the same meaning as the SQL translation.
        public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
            StandardFolding.contains(
                StandardFolding.fold(String(try root.evaluate(bindings))),
                StandardFolding.fold(String(try other.evaluate(bindings))))
        }
    }

    /// `s.caseInsensitiveCompare(t)`: compares the NFC UTF-8 bytes after lowercasing ASCII
    /// letters only ("É" and "é" differ; Darwin folds them).
    /// ```sql
    /// CASE WHEN lower(a) = lower(b) THEN 0 WHEN lower(a) < lower(b) THEN -1 ELSE 1 END
    /// ```
    public struct StringCaseInsensitiveCompare<Root: PredicateExpression, Other: PredicateExpression>:
        PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        /// The expression's result type.
        public typealias Output = ComparisonResult
        /// The string the function is called on.
        public let root: Root
        /// The argument string.
        public let other: Other
        /// Creates the expression (the `#Predicate` macro calls the `build_` function).
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }
        /// Evaluates in Swift with the same meaning as the SQL translation.
        public func evaluate(_ bindings: PredicateBindings) throws -> ComparisonResult {
            StandardFolding.compare(
                StandardFolding.asciiLower(String(try root.evaluate(bindings))),
                StandardFolding.asciiLower(String(try other.evaluate(bindings))))
        }
    }

    /// `s.localizedCompare(t)`: Swift's `<` order on String (NFC scalar order), not the
    /// locale's collation.
    /// ```sql
    /// CASE WHEN a = b THEN 0 WHEN a < b THEN -1 ELSE 1 END
    /// ```
    public struct StringLocalizedCompare<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        /// The expression's result type.
        public typealias Output = ComparisonResult
        /// The string the function is called on.
        public let root: Root
        /// The argument string.
        public let other: Other
        /// Creates the expression (the `#Predicate` macro calls the `build_` function).
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }
        /// Evaluates in Swift with the same meaning as the SQL translation.
        public func evaluate(_ bindings: PredicateBindings) throws -> ComparisonResult {
            StandardFolding.compare(
                nfcNormalized(String(try root.evaluate(bindings))),
                nfcNormalized(String(try other.evaluate(bindings))))
        }
    }

    /// What `#Predicate` expands `s.localizedStandardContains(t)` to.
    public static func build_localizedStandardContains<Root, Other>(_ root: Root, _ other: Other)
        -> StringLocalizedStandardContains<Root, Other>
    { StringLocalizedStandardContains(root: root, other: other) }
    /// What `#Predicate` expands `s.caseInsensitiveCompare(t)` to.
    public static func build_caseInsensitiveCompare<Root, Other>(_ root: Root, _ other: Other)
        -> StringCaseInsensitiveCompare<Root, Other>
    { StringCaseInsensitiveCompare(root: root, other: other) }
    /// What `#Predicate` expands `s.localizedCompare(t)` to.
    public static func build_localizedCompare<Root, Other>(_ root: Root, _ other: Other)
        -> StringLocalizedCompare<Root, Other>
    { StringLocalizedCompare(root: root, other: other) }
}

extension PredicateExpressions.StringLocalizedStandardContains: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}
extension PredicateExpressions.StringLocalizedStandardContains: Codable where Root: Codable, Other: Codable {}
extension PredicateExpressions.StringLocalizedStandardContains: Sendable where Root: Sendable, Other: Sendable {}
extension PredicateExpressions.StringCaseInsensitiveCompare: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}
extension PredicateExpressions.StringCaseInsensitiveCompare: Codable where Root: Codable, Other: Codable {}
extension PredicateExpressions.StringCaseInsensitiveCompare: Sendable where Root: Sendable, Other: Sendable {}
extension PredicateExpressions.StringLocalizedCompare: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}
extension PredicateExpressions.StringLocalizedCompare: Codable where Root: Codable, Other: Codable {}
extension PredicateExpressions.StringLocalizedCompare: Sendable where Root: Sendable, Other: Sendable {}

/// SQL for `localizedStandardContains` (see the type for the folding).
extension PredicateExpressions.StringLocalizedStandardContains: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        let a = try translate(root, t)
        let b = try translate(other, t)
        return SQLFragment(
            sql: "coalesce(instr(\(StandardFolding.sql(a.sql)), \(StandardFolding.sql(b.sql))) > 0, 0)",
            arguments: a.arguments + b.arguments, isCondition: true)
    }
    func collect(_ leaves: inout PredicateLeaves) {
        collectNode(root, &leaves)
        collectNode(other, &leaves)
    }
}

/// Three-way comparison SQL shared by the compare functions; each operand appears twice.
func threeWay(_ a: SQLFragment, _ b: SQLFragment, _ f: (String) -> String) -> SQLFragment {
    let x = f(a.sql)
    let y = f(b.sql)
    let args = a.arguments + b.arguments
    return SQLFragment(sql: "CASE WHEN \(x) = \(y) THEN 0 WHEN \(x) < \(y) THEN -1 ELSE 1 END", arguments: args + args)
}

/// SQL for `caseInsensitiveCompare` → `-1`, `0`, `1` (ComparisonResult's raw values).
extension PredicateExpressions.StringCaseInsensitiveCompare: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        threeWay(try translate(root, t), try translate(other, t)) { "lower(\($0))" }
    }
    func collect(_ leaves: inout PredicateLeaves) {
        collectRepeated(root, times: 2, &leaves)
        collectRepeated(other, times: 2, &leaves)
    }
}

/// SQL for `localizedCompare` → `-1`, `0`, `1`.
extension PredicateExpressions.StringLocalizedCompare: SQLPredicateExpression {
    func sql(_ t: SQLTranslation) throws -> SQLFragment {
        threeWay(try translate(root, t), try translate(other, t)) { $0 }
    }
    func collect(_ leaves: inout PredicateLeaves) {
        collectRepeated(root, times: 2, &leaves)
        collectRepeated(other, times: 2, &leaves)
    }
}

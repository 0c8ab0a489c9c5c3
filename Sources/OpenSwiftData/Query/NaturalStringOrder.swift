import Foundation

/// How a fetch orders `String` sort keys: a natural, Finder-like order (the default), or Swift's `<`.
///
/// On Apple platforms `SortDescriptor(\.name)` compares strings with
/// `String.StandardComparator.localizedStandard` ("item 1" < "Item 2" < "Item 10"). Foundation on
/// Linux has no such comparator, so a fetch orders a `String` key of a descriptor made without
/// one by ``natural``, this library's approximation of it (``NaturalStringComparator``). A
/// descriptor made with `comparator: .lexical` orders by `<` ("Item 10" < "Item 2" < "item 1"),
/// as on Apple platforms; so does a fetch or container that asks for ``lexical``:
/// ```swift
/// var d = FetchDescriptor<User>(sortBy: [SortDescriptor(\.name, comparator: .lexical)])  // this key
/// d.stringSortStyle = .lexical                 // every String key of this fetch
/// var config = ModelConfiguration(isStoredInMemoryOnly: true)
/// config.stringSortStyle = .lexical            // every fetch of the container
/// ```
/// The store runs the natural order as an SQLite collation (`ORDER BY (t."name") COLLATE
/// osd_natural`), which no ordinary index on the column can serve (nor can one serve
/// `localizedStandard` on Apple platforms): a sorted fetch reads every matching row and sorts
/// them. A `.lexical` sort can walk an index. Swift code sorts the same way with
/// ``NaturalStringComparator`` or `sorted(using:stringSortStyle:)`.
public enum StringSortStyle: String, Hashable, Sendable, Codable, CaseIterable {
    /// Swift's `String` `<`: Unicode scalar order of the NFC text ("User 10" < "User 2" < "user 1"),
    /// as `comparator: .lexical` orders.
    case lexical
    /// Numbers by value, then case and Latin diacritics ignored ("User 2" < "user 10" < "Zoë"),
    /// as Apple's default `localizedStandard` comparator orders; see ``NaturalStringComparator``
    /// for the exact rules. The default.
    case natural
}

/// The natural, Finder-like string order that ``StringSortStyle/natural`` sorts by.
///
/// Two strings compare by a key built from each, then, when the keys are equal, by Swift's `<`:
/// - runs of ASCII digits compare by numeric value, of any length ("2" < "10" < "0100"; leading
///   zeros are ignored, so "07" and "7" tie on the key and `<` puts "07" first);
/// - other characters compare after the folding `localizedStandardContains` uses: ASCII and
///   Latin letters (U+00C0…U+017F) lowercased with their diacritics removed ("É" → "e"); other
///   scripts compare by Unicode scalar value;
/// - a number sorts where the digit "0" would, so after space and most punctuation and before letters.
///
/// The final `<` makes it a total order (only equal strings compare `.orderedSame`), so paging
/// through a sorted fetch is stable. It approximates Apple's ICU-based `localizedStandardCompare`
/// (same answers for ASCII names with numbers and accented Latin letters; other scripts,
/// punctuation weights and locale rules differ).
/// ```swift
/// ["User 10", "user 2", "Émile", "emile"].sorted(using: NaturalStringComparator())
/// // ["emile", "Émile", "user 2", "User 10"]
/// ```
public struct NaturalStringComparator: SortComparator, Codable, Hashable, Sendable {
    /// Forward or reverse.
    public var order: SortOrder

    /// A natural comparator in the given order.
    public init(order: SortOrder = .forward) {
        self.order = order
    }

    /// Compares two strings in the natural order, reversed when ``order`` is `.reverse`.
    public func compare(_ lhs: String, _ rhs: String) -> ComparisonResult {
        let r = NaturalStringComparator.compareForward(lhs, rhs)
        guard order == .reverse else { return r }
        switch r {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    /// The forward natural comparison; the `osd_natural` collation runs exactly this.
    static func compareForward(_ a: String, _ b: String) -> ComparisonResult {
        if a == b { return .orderedSame }
        let ka = key(a)
        let kb = key(b)
        if ka != kb { return ka.lexicographicallyPrecedes(kb) ? .orderedAscending : .orderedDescending }
        return a < b ? .orderedAscending : .orderedDescending
    }

    /// The comparison key: folded scalar values, with each digit run written as `0x30`, its
    /// number of significant digits, then those digits. Text scalars never equal `0x30…0x39`
    /// (every ASCII digit belongs to a run), so two keys that agree up to a run agree on its start.
    static func key(_ s: String) -> [UInt32] {
        var out: [UInt32] = []
        var digits: [UInt32] = []
        func flush() {
            guard !digits.isEmpty else { return }
            var significant = digits.drop { $0 == 0x30 }
            if significant.isEmpty { significant = [0x30] }
            out.append(0x30)
            out.append(UInt32(significant.count))
            out.append(contentsOf: significant)
            digits.removeAll(keepingCapacity: true)
        }
        for u in StandardFolding.fold(s).unicodeScalars {
            if (0x30...0x39).contains(u.value) {
                digits.append(u.value)
            } else {
                flush()
                out.append(u.value)
            }
        }
        flush()
        return out
    }
}

extension SortDescriptor {
    /// Compares two values as this descriptor does, with `String` (and optional `String`) keys
    /// ordered by `style`: what a fetch with that ``StringSortStyle`` orders by, for sorting in Swift.
    ///
    /// A descriptor made with a comparator (`SortDescriptor(\.name, comparator: .lexical)`)
    /// compares with it whatever `style` says, as a fetch does. `nil` sorts first in forward
    /// order, as Foundation orders optionals.
    /// ```swift
    /// let order = SortDescriptor(\User.name)
    /// users.sorted { order.compare($0, $1, stringSortStyle: .natural) == .orderedAscending }
    /// ```
    public func compare(_ lhs: Compared, _ rhs: Compared, stringSortStyle style: StringSortStyle) -> ComparisonResult {
        guard style == .natural, stringComparator == nil, let keyPath else { return compare(lhs, rhs) }
        let a = _flattenOptional(lhs[keyPath: keyPath])
        let b = _flattenOptional(rhs[keyPath: keyPath])
        guard a == nil || a is String, b == nil || b is String, a != nil || b != nil else { return compare(lhs, rhs) }
        let forward: ComparisonResult
        switch (a as? String, b as? String) {
        case (let x?, let y?): forward = NaturalStringComparator.compareForward(x, y)
        case (nil, _?): forward = .orderedAscending
        case (_?, nil): forward = .orderedDescending
        case (nil, nil): forward = .orderedSame
        }
        guard order == .reverse else { return forward }
        switch forward {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }
}

extension Sequence {
    /// The elements sorted by `descriptors`, strings ordered by `style` (see ``StringSortStyle``)
    /// unless a descriptor names its own comparator: the order a fetch with that style returns.
    ///
    /// ```swift
    /// let names = users.sorted(using: [SortDescriptor(\.name)], stringSortStyle: .natural)
    /// ```
    public func sorted(using descriptors: [SortDescriptor<Element>], stringSortStyle style: StringSortStyle)
        -> [Element]
    {
        guard style == .natural else { return sorted(using: descriptors) }
        return sorted { a, b in
            for d in descriptors {
                switch d.compare(a, b, stringSortStyle: style) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            return false
        }
    }
}

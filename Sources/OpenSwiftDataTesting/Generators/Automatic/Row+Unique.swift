import Foundation

extension Row {
    /// Values no other row of the step can produce, for attributes under a unique constraint.
    ///
    /// Each value is built from the row index (plus the step's `#n` tag when one type has several
    /// steps), so a fixture never collapses rows through an upsert it did not ask for.
    /// ```swift
    /// Generate(Customer.self, count: 5_000) { row in
    ///     Customer(email: row.unique.email("email"), name: row.personName("name"))
    /// }
    /// ```
    public var unique: UniqueValues { UniqueValues(row: self) }
}

/// Unique-per-row value helpers: see ``Row/unique``.
///
/// ```swift
/// row.unique.email("email")      // "amber.kettle.17@example.org"
/// row.unique.string("sku", prefix: "SKU")   // "SKU-17"
/// row.unique.int("number", from: 1_000)     // 1017
/// ```
public struct UniqueValues: Sendable {
    /// The row the values belong to.
    public let row: Row

    /// An email address at a reserved example domain whose local part ends with the row index.
    ///
    /// ```swift
    /// row.unique.email("email")   // "amber.kettle.17@example.org"
    /// ```
    public func email(_ field: String) -> String {
        var r = row.rng(field)
        let first = r.choice(WordLists.english)
        let second = r.choice(WordLists.english)
        return "\(first).\(second).\(row.index)\(ValueSynthesizer.stepTag(row))@\(r.choice(WordLists.domains))"
    }

    /// A string `prefix-<index>`; without a prefix, a generated word (shaped by the traits) then `-<index>`.
    ///
    /// ```swift
    /// row.unique.string("code", prefix: "C")   // "C-17"
    /// ```
    public func string(_ field: String, prefix: String? = nil) -> String {
        (prefix ?? row.word(field)) + "-\(row.index)" + ValueSynthesizer.stepTag(row)
    }

    /// `start + index` (add a step offset yourself when two steps share a constraint).
    ///
    /// ```swift
    /// row.unique.int("number", from: 1_000)   // 1017 for row 17
    /// ```
    public func int(_ field: String, from start: Int = 0) -> Int { start + row.index }

    /// A UUID whose first eight bytes are the row index and the rest from the field's stream.
    ///
    /// ```swift
    /// row.unique.uuid("id")
    /// ```
    public func uuid(_ field: String) -> UUID {
        var bytes = withUnsafeBytes(of: UInt64(row.index).bigEndian, Array.init)
        var r = row.rng(field)
        let tail = r.next()
        bytes += withUnsafeBytes(of: tail, Array.init)
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    /// A date `index × spacing` seconds after `FixtureEpoch.reference`.
    ///
    /// ```swift
    /// row.unique.date("createdAt", spacing: 60)
    /// ```
    public func date(_ field: String, spacing: Int = 61) -> Date { FixtureEpoch.date(offset: row.index * spacing) }

    /// A value of the attribute's type chosen as automatic data would for a unique attribute.
    ///
    /// ```swift
    /// let code: Decimal = try row.unique.value("code")
    /// ```
    public func value<T>(_ field: String, as type: T.Type = T.self) throws -> T {
        guard let v = try ValueSynthesizer.value(of: type, row: row, field: field, unique: true, nullRatio: 0) as? T
        else {
            throw ValueSynthesizer.Unsupported(type: type)
        }
        return v
    }
}

/// Counts the duplicates a step drew on purpose (``Row/key(_:duplicateRatio:_:)``).
final class CollisionLedger: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func noteRequestedDuplicate() { lock.withLock { count += 1 } }
    var requestedDuplicates: Int { lock.withLock { count } }
}

import CSQLite

/// SQL functions with Swift's `String` semantics, registered on every connection, for the
/// predicate translations that SQLite's byte-wise functions cannot get exactly right.
///
/// Swift compares `Character`s (grapheme clusters): `"Zͫ".contains("Z")` is false, as is
/// `"a\r\nb".contains("\r")`, while `instr` finds the bytes. The translations keep `instr` as
/// a fast filter and call these only for rows whose bytes match:
/// ```sql
/// CASE WHEN instr(t."name", ?) > 0 THEN osd_contains(t."name", ?) ELSE 0 END
/// CASE WHEN instr(t."name", ?) = 1 THEN osd_starts_with(t."name", ?) ELSE 0 END
/// ```
/// Both return NULL for a NULL argument, 1 or 0 otherwise. `osd_fold(text)` is the folding of
/// `localizedStandardContains` (``StandardFolding``), NULL for NULL. `osd_equal(a, b)` is
/// Swift's `==` on two texts (canonical equivalence: `"e\u{301}" == "é"`), for values stored
/// without normalisation (history author names), NULL for a NULL argument.
enum SwiftStringFunctions {
    /// Registers `osd_contains(haystack, needle)`, `osd_starts_with(text, prefix)`, `osd_fold(text)`
    /// and `osd_equal(a, b)`.
    static func register(on db: OpaquePointer) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        sqlite3_create_function_v2(
            db, "osd_contains", 2, flags, nil,
            { context, _, argv in
                SwiftStringFunctions.evaluate(context, argv) { collectionContains($0, $1) }
            }, nil, nil, nil)
        sqlite3_create_function_v2(
            db, "osd_starts_with", 2, flags, nil,
            { context, _, argv in
                SwiftStringFunctions.evaluate(context, argv) { sequenceStarts($0, with: $1) }
            }, nil, nil, nil)
        sqlite3_create_function_v2(
            db, "osd_equal", 2, flags, nil,
            { context, _, argv in
                SwiftStringFunctions.evaluate(context, argv, sameBytesDecide: true) { $0 == $1 }
            }, nil, nil, nil)
        sqlite3_create_function_v2(
            db, "osd_fold", 1, flags, nil,
            { context, _, argv in
                guard let argv, let a = argv[0], sqlite3_value_type(a) != SQLITE_NULL else {
                    sqlite3_result_null(context)
                    return
                }
                let (t, n) = (sqlite3_value_text(a), Int(sqlite3_value_bytes(a)))
                let folded = StandardFolding.fold(
                    String(decoding: UnsafeBufferPointer(start: t, count: t == nil ? 0 : n), as: UTF8.self))
                var bytes = Array(folded.utf8)
                let count = Int32(bytes.count)
                bytes.withUnsafeMutableBufferPointer { buffer in
                    // SQLITE_TRANSIENT: SQLite copies the bytes before this returns.
                    sqlite3_result_text(
                        context,
                        buffer.baseAddress.map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: CChar.self) }
                            ?? nil,
                        count, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
                }
            }, nil, nil, nil)
    }

    /// Reads both text arguments and sets the result to `test(a, b)`. With `sameBytesDecide`
    /// (an equality), equal bytes are 1 and different ASCII bytes 0 without calling `test`.
    static func evaluate(
        _ context: OpaquePointer?, _ argv: UnsafeMutablePointer<OpaquePointer?>?,
        sameBytesDecide: Bool = false, _ test: (String, String) -> Bool
    ) {
        guard let argv, let a = argv[0], let b = argv[1],
            sqlite3_value_type(a) != SQLITE_NULL, sqlite3_value_type(b) != SQLITE_NULL
        else {
            sqlite3_result_null(context)
            return
        }
        let (ta, na) = (sqlite3_value_text(a), Int(sqlite3_value_bytes(a)))
        let (tb, nb) = (sqlite3_value_text(b), Int(sqlite3_value_bytes(b)))
        let bytesA = UnsafeBufferPointer(start: ta, count: ta == nil ? 0 : na)
        let bytesB = UnsafeBufferPointer(start: tb, count: tb == nil ? 0 : nb)
        if sameBytesDecide {
            if bytesA.elementsEqual(bytesB) {
                sqlite3_result_int(context, 1)
                return
            }
            // ASCII text is its own canonical form: different bytes are different strings.
            if bytesA.allSatisfy({ $0 < 0x80 }) && bytesB.allSatisfy({ $0 < 0x80 }) {
                sqlite3_result_int(context, 0)
                return
            }
        } else if isSimpleASCII(bytesA) && isSimpleASCII(bytesB) {
            // ASCII without CR: every byte is its own Character, so the byte match `instr`
            // already found is the Swift answer.
            sqlite3_result_int(context, 1)
            return
        }
        let result = test(String(decoding: bytesA, as: UTF8.self), String(decoding: bytesB, as: UTF8.self))
        sqlite3_result_int(context, result ? 1 : 0)
    }

    static func isSimpleASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for b in bytes where b >= 0x80 || b == 0x0D { return false }
        return true
    }
}

/// `base.contains(other)` resolved as `PredicateExpressions.CollectionContainsCollection`
/// resolves it: the generic `Collection` algorithm, comparing `Character`s.
func collectionContains<A: Collection, B: Collection>(_ base: A, _ other: B) -> Bool
where A.Element: Equatable, A.Element == B.Element {
    base.contains(other)
}

/// `base.starts(with: prefix)` resolved as `PredicateExpressions.SequenceStartsWith` resolves it.
func sequenceStarts<A: Sequence, B: Sequence>(_ base: A, with prefix: B) -> Bool
where A.Element: Equatable, A.Element == B.Element {
    base.starts(with: prefix)
}

import Foundation
import Testing

@testable import OpenSwiftData
@testable import OpenSwiftDataTesting

/// How `FixtureDiff` prints one value (FIX-28).
@Suite("Fixture diff values")
struct FixtureDiffValueTests {
    @Test("FIX-28: dates print as ISO-8601 UTC with milliseconds, as Foundation's formatter prints them")
    func dates() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        for seconds in [
            0, 1.25, -1.5, 743_906_532.381, -978_307_200, -978_307_200.001, 951_782_400, 4_107_542_400.999, 86_399.999,
        ] {
            #expect(
                StoreSnapshot.iso8601(seconds)
                    == formatter.string(from: Date(timeIntervalSinceReferenceDate: seconds)), "\(seconds)")
        }
        #expect(StoreSnapshot.iso8601(0) == "2001-01-01T00:00:00.000Z")
        #expect(StoreSnapshot.iso8601(.infinity) == "inf")
    }

    @Test("FIX-28: strings quoted and escaped; blobs as size and hash; nil; numbers as stored")
    func storedValues() {
        #expect(StoreSnapshot.renderStored(.text("a\"b\\c\nd\te\u{1}\u{200B}é")) == #""a\"b\\c\nd\te\u{1}\u{200B}é""#)
        #expect(StoreSnapshot.renderStored(.text("")) == #""""#)
        // Never cut, however long; emoji sequences (joiners) stay whole.
        let long = String(repeating: "x", count: 500)
        #expect(StoreSnapshot.renderStored(.text(long)) == "\"\(long)\"")
        #expect(StoreSnapshot.renderStored(.text("👩\u{200D}💻")) == "\"👩\u{200D}💻\"")
        let blob = SQLValue.blob(Data("abc".utf8))
        // SHA-256("abc") begins ba7816bf8f01.
        #expect(StoreSnapshot.renderStored(blob) == "<3 bytes sha256:ba7816bf8f01>")
        #expect(StoreSnapshot.renderStored(.null) == "nil")
        #expect(StoreSnapshot.renderStored(.integer(-42)) == "-42")
        #expect(StoreSnapshot.renderStored(.real(0.1)) == "0.1")
    }
}

import Foundation
import OpenSwiftData
import Testing

/// Every attribute type round-trips through save and fetch in a new context (and through a
/// re-created container on disk); values SQLite cannot hold faithfully are rejected at save.
@Suite("AttributeTypes")
struct AttributeTypesTests {
    static let date = Date(timeIntervalSinceReferenceDate: 765_432_109.123_456)
    static let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    static let url = URL(string: "https://example.com/a%20b/%C3%A9?q=1&r=%2F#frag")!
    static let decimal = Decimal(string: "12345.6789", locale: Locale(identifier: "en_US_POSIX"))!
    static let text = "Grüße, 東京 — ünïcödé 🚀"

    /// Fills every attribute with a distinctive value; `int` is the lookup key.
    static func filled() -> Everything {
        let e = Everything()
        e.int = 1
        e.int8 = .min
        e.int16 = .max
        e.int32 = .min
        e.int64 = .max
        e.uint = UInt(Int64.max)
        e.uint8 = .max
        e.uint16 = .max
        e.uint32 = .max
        e.uint64 = UInt64(Int64.max)
        e.double = -1234.567_890_123_456_7
        e.float = 3.402_823_4e38
        e.bool = true
        e.string = text
        e.date = date
        e.uuid = uuid
        e.url = url
        e.data = Data([0, 0, 0xFF, 0, 7, 0])
        e.decimal = decimal
        e.priority = .high
        e.mood = .busy
        e.address = Address(street: "1 Rue de l'Église", city: "Zürich")
        e.list = ["b", "a", "c", "a", ""]

        e.oInt = Int.min
        e.oInt8 = .min
        e.oInt16 = .min
        e.oInt32 = .max
        e.oInt64 = .min
        e.oUInt = 42
        e.oUInt8 = 0
        e.oUInt16 = 1
        e.oUInt32 = .max
        e.oUInt64 = 0
        e.oDouble = .infinity
        e.oFloat = -.leastNonzeroMagnitude
        e.oBool = false
        e.oString = ""
        e.oDate = Date(timeIntervalSince1970: -1.5)
        e.oUUID = uuid
        e.oURL = URL(string: "file:///tmp/x%20y.txt")!
        e.oData = Data()
        e.oDecimal = Decimal(string: "-0.000001", locale: Locale(identifier: "en_US_POSIX"))!
        e.oPriority = .medium
        e.oMood = .calm
        e.oAddress = Address(street: "", city: "Ōsaka")
        e.oList = [3, 1, 2, 1]
        e.cache = 9
        return e
    }

    /// Checks every value `filled()` set.
    static func checkFilled(_ e: Everything, _ where_: String) {
        #expect(e.int == 1, "\(where_)")
        #expect(e.int8 == .min)
        #expect(e.int16 == .max)
        #expect(e.int32 == .min)
        #expect(e.int64 == .max)
        #expect(e.uint == UInt(Int64.max))
        #expect(e.uint8 == .max)
        #expect(e.uint16 == .max)
        #expect(e.uint32 == .max)
        #expect(e.uint64 == UInt64(Int64.max))
        #expect(e.double == -1234.567_890_123_456_7)
        #expect(e.float == 3.402_823_4e38)
        #expect(e.bool == true)
        #expect(e.string == text)
        #expect(e.date == date, "sub-second precision: \(e.date.timeIntervalSinceReferenceDate)")
        #expect(e.uuid == uuid)
        #expect(e.url == url)
        #expect(e.data == Data([0, 0, 0xFF, 0, 7, 0]))
        #expect(e.decimal == decimal)
        #expect(e.priority == .high)
        #expect(e.mood == .busy)
        #expect(e.address == Address(street: "1 Rue de l'Église", city: "Zürich"))
        #expect(e.list == ["b", "a", "c", "a", ""])

        #expect(e.oInt == Int.min)
        #expect(e.oInt8 == .min)
        #expect(e.oInt16 == .min)
        #expect(e.oInt32 == .max)
        #expect(e.oInt64 == .min)
        #expect(e.oUInt == 42)
        #expect(e.oUInt8 == 0)
        #expect(e.oUInt16 == 1)
        #expect(e.oUInt32 == .max)
        #expect(e.oUInt64 == 0)
        #expect(e.oDouble == .infinity)
        #expect(e.oFloat == -.leastNonzeroMagnitude)
        #expect(e.oBool == false)
        #expect(e.oString == "", "empty string must not become nil")
        #expect(e.oDate == Date(timeIntervalSince1970: -1.5))
        #expect(e.oUUID == uuid)
        #expect(e.oURL == URL(string: "file:///tmp/x%20y.txt")!)
        #expect(e.oData == Data(), "empty Data must not become nil")
        #expect(e.oDecimal == Decimal(string: "-0.000001", locale: Locale(identifier: "en_US_POSIX"))!)
        #expect(e.oPriority == .medium)
        #expect(e.oMood == .calm)
        #expect(e.oAddress == Address(street: "", city: "Ōsaka"))
        #expect(e.oList == [3, 1, 2, 1])
    }

    /// Checks the defaults of `Everything()` and that every optional is nil; `int` is 2.
    static func checkEmpty(_ e: Everything) {
        #expect(e.int == 2)
        #expect(e.string == "")
        #expect(e.data == Data())
        #expect(e.list == [])
        #expect(e.decimal == 0)
        #expect(e.address == Address(street: "", city: ""))
        #expect(e.oInt == nil)
        #expect(e.oInt8 == nil)
        #expect(e.oInt16 == nil)
        #expect(e.oInt32 == nil)
        #expect(e.oInt64 == nil)
        #expect(e.oUInt == nil)
        #expect(e.oUInt8 == nil)
        #expect(e.oUInt16 == nil)
        #expect(e.oUInt32 == nil)
        #expect(e.oUInt64 == nil)
        #expect(e.oDouble == nil)
        #expect(e.oFloat == nil)
        #expect(e.oBool == nil)
        #expect(e.oString == nil, "nil must not become an empty string")
        #expect(e.oDate == nil)
        #expect(e.oUUID == nil)
        #expect(e.oURL == nil)
        #expect(e.oData == nil, "nil must not become empty Data")
        #expect(e.oDecimal == nil)
        #expect(e.oPriority == nil)
        #expect(e.oMood == nil)
        #expect(e.oAddress == nil)
        #expect(e.oList == nil)
    }

    private func saveBoth(_ ctx: ModelContext) throws {
        ctx.insert(Self.filled())
        let empty = Everything()
        empty.int = 2
        ctx.insert(empty)
        try ctx.save()
    }

    private func fetchPair(_ ctx: ModelContext) throws -> (Everything, Everything) {
        let all = try ctx.fetch(FetchDescriptor<Everything>())
        #expect(all.count == 2)
        let full = try #require(all.first { $0.int == 1 })
        let empty = try #require(all.first { $0.int == 2 })
        return (full, empty)
    }

    @Test(
        "Every attribute type and its optional round-trips in a new context (ATT-07, ATT-09, ATT-10)",
        arguments: StoreKind.allCases)
    func roundTripNewContext(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "att")
        let container = try kind.makeContainer(for: [Everything.self], in: dir)
        try saveBoth(ModelContext(container))
        let reader = ModelContext(container)
        let (full, empty) = try fetchPair(reader)
        Self.checkFilled(full, "\(kind) new context")
        Self.checkEmpty(empty)
        withExtendedLifetime(reader) {}
    }

    @Test("Every attribute type round-trips on disk after the container is re-created (ATT-10)")
    func roundTripReopenedContainer() throws {
        let dir = try ScratchDirectory(prefix: "att-reopen")
        do {
            let container = try StoreKind.disk.makeContainer(for: [Everything.self], in: dir)
            try saveBoth(ModelContext(container))
        }
        let reopened = try StoreKind.disk.makeContainer(for: [Everything.self], in: dir)
        let reader = ModelContext(reopened)
        let (full, empty) = try fetchPair(reader)
        Self.checkFilled(full, "reopened")
        Self.checkEmpty(empty)
        withExtendedLifetime(reader) {}
    }

    @Test("Updated values round-trip, including setting optionals back to nil", arguments: StoreKind.allCases)
    func updateRoundTrip(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "att-update")
        let container = try kind.makeContainer(for: [Everything.self], in: dir)
        try saveBoth(ModelContext(container))
        let ctx = ModelContext(container)
        let (full, empty) = try fetchPair(ctx)
        full.oString = nil
        full.oData = nil
        full.oList = nil
        full.list = ["z"]
        full.int64 = .min
        empty.oString = "set"
        empty.oAddress = Address(street: "s", city: "c")
        try ctx.save()
        let reader = ModelContext(container)
        let (full2, empty2) = try fetchPair(reader)
        defer { withExtendedLifetime(reader) {} }
        #expect(full2.oString == nil)
        #expect(full2.oData == nil)
        #expect(full2.oList == nil)
        #expect(full2.list == ["z"])
        #expect(full2.int64 == .min)
        #expect(full2.string == Self.text)
        #expect(empty2.oString == "set")
        #expect(empty2.oAddress == Address(street: "s", city: "c"))
    }

    /// Documented limitation: SQLite stores whole-number floats in REAL columns as integers,
    /// so -0.0 comes back as +0.0 (equal under Swift's `==`, but with the sign lost).
    @Test("Double negative zero reads back equal to zero, without its sign", arguments: StoreKind.allCases)
    func negativeZero(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "att-negzero")
        let container = try kind.makeContainer(for: [Everything.self], in: dir)
        let ctx = ModelContext(container)
        let e = Everything()
        e.double = -0.0
        e.oDouble = -0.0
        ctx.insert(e)
        try ctx.save()
        let reader = ModelContext(container)
        defer { withExtendedLifetime(reader) {} }
        let back = try #require(try reader.fetch(FetchDescriptor<Everything>()).first)
        #expect(back.double == 0)
        #expect(back.double.sign == .plus)
        #expect(back.oDouble == 0)
    }

    @Test("@Transient resets to its default when fetched in a new context (ATT-06)", arguments: StoreKind.allCases)
    func transientResets(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "att-transient")
        let container = try kind.makeContainer(for: [Everything.self], in: dir)
        let ctx = ModelContext(container)
        let e = Everything()
        e.cache = 9
        e.int = 21
        ctx.insert(e)
        try ctx.save()
        #expect(e.cache == 9, "the live instance keeps its transient value")
        let reader = ModelContext(container)
        defer { withExtendedLifetime(reader) {} }
        let back = try #require(try reader.fetch(FetchDescriptor<Everything>()).first)
        #expect(back.int == 21)
        #expect(back.cache == 5)
        #expect(back.computed == 42)
    }

    // MARK: Values SQLite cannot hold

    @Test(
        "NaN in a Double: save throws .invalidValue, store unchanged, changes kept; retry succeeds",
        arguments: StoreKind.allCases)
    func nanRejected(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "att-nan")
        let container = try kind.makeContainer(for: [Everything.self], in: dir)
        let ctx = ModelContext(container)
        let ok = Everything()
        ok.int = 1
        ctx.insert(ok)
        let bad = Everything()
        bad.int = 2
        bad.double = .nan
        ctx.insert(bad)
        let error = #expect(throws: SwiftDataError.self) { try ctx.save() }
        #expect(error?.code == SwiftDataError.invalidValue.code)
        #expect(error?.propertyName == "double", "error: \(String(describing: error))")
        #expect(ctx.hasChanges)
        #expect(ctx.insertedModelsArray.count == 2)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Everything>()) == 0)

        bad.double = 2.5
        try ctx.save()
        #expect(!ctx.hasChanges)
        let reader = ModelContext(container)
        defer { withExtendedLifetime(reader) {} }
        let rows = try reader.fetch(FetchDescriptor<Everything>())
        #expect(rows.count == 2)
        #expect(rows.first { $0.int == 2 }?.double == 2.5)
    }

    @Test("NaN in an update of a saved row is rejected and the stored value kept", arguments: StoreKind.allCases)
    func nanInUpdate(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "att-nan-update")
        let container = try kind.makeContainer(for: [Everything.self], in: dir)
        let ctx = ModelContext(container)
        let e = Everything()
        e.double = 1.25
        e.oFloat = 1
        ctx.insert(e)
        try ctx.save()
        e.oFloat = .nan
        let error = #expect(throws: SwiftDataError.self) { try ctx.save() }
        #expect(error?.code == SwiftDataError.invalidValue.code)
        #expect(ctx.hasChanges)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Everything>()).first?.oFloat == 1)
        e.oFloat = 2
        try ctx.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Everything>()).first?.oFloat == 2)
    }

    @Test("UInt64 above Int64.max: save throws .invalidValue", arguments: StoreKind.allCases)
    func uint64OutOfRange(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "att-uint64")
        let container = try kind.makeContainer(for: [Everything.self], in: dir)
        let ctx = ModelContext(container)
        let e = Everything()
        e.uint64 = UInt64(Int64.max) + 1
        ctx.insert(e)
        let error = #expect(throws: SwiftDataError.self) { try ctx.save() }
        #expect(error?.code == SwiftDataError.invalidValue.code)
        #expect(ctx.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Everything>()) == 0)

        let other = Everything()
        other.oUInt = .max
        ctx.insert(other)
        e.uint64 = 7
        let again = #expect(throws: SwiftDataError.self) { try ctx.save() }
        #expect(again?.code == SwiftDataError.invalidValue.code)
        other.oUInt = nil
        try ctx.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Everything>()) == 2)
    }

    // MARK: Strings

    static let hostile: [String] = [
        "O'Brien", "\"quoted\"", "'; DROP TABLE \"Everything\"; --", "Robert'); DROP TABLE Word;--",
        "back\\slash", "tab\tnew\nline\rcr", "\u{1}\u{7}\u{1B}[31mred\u{7F}", "%_*?[]", "?1 :name @x $y",
        "😀👩‍👩‍👧‍👦🇫🇷", "\u{202E}rtl override", "   ", "",
    ]

    @Test("Hostile strings round-trip verbatim", arguments: StoreKind.allCases)
    func hostileStrings(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "att-hostile")
        let container = try kind.makeContainer(for: [Everything.self], in: dir)
        let ctx = ModelContext(container)
        for (i, s) in Self.hostile.enumerated() {
            let e = Everything()
            e.int = i
            e.string = s
            e.oString = s
            e.list = [s, s]
            e.address = Address(street: s, city: s)
            ctx.insert(e)
        }
        try ctx.save()
        let reader = ModelContext(container)
        defer { withExtendedLifetime(reader) {} }
        let rows = try reader.fetch(FetchDescriptor<Everything>())
        #expect(rows.count == Self.hostile.count)
        for (i, s) in Self.hostile.enumerated() {
            let e = try #require(rows.first { $0.int == i })
            #expect(e.string == s)
            #expect(Array(e.string.unicodeScalars) == Array(s.unicodeScalars), "scalars of \(s.debugDescription)")
            #expect(e.oString == s)
            #expect(e.list == [s, s])
            #expect(e.address == Address(street: s, city: s))
        }
    }

    @Test(
        "Text is stored NFC: e + combining acute reads back as é (matching: predicates suite, PRD-05)",
        arguments: StoreKind.allCases)
    func nfcNormalisation(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "att-nfc")
        let container = try kind.makeContainer(for: [Everything.self], in: dir)
        let ctx = ModelContext(container)
        let e = Everything()
        e.string = "e\u{301}"
        e.oString = "caf" + "e\u{301}"
        ctx.insert(e)
        try ctx.save()
        let reader = ModelContext(container)
        defer { withExtendedLifetime(reader) {} }
        let back = try #require(try reader.fetch(FetchDescriptor<Everything>()).first)
        #expect(back.string == "\u{e9}")
        #expect(
            Array(back.string.unicodeScalars) == ["\u{e9}"],
            "stored scalars: \(back.string.unicodeScalars.map { String($0.value, radix: 16) })")
        #expect(Array(back.oString?.unicodeScalars ?? "".unicodeScalars) == Array("caf\u{e9}".unicodeScalars))
    }
}

import Foundation
import Testing

@testable import OpenSwiftData

/// A composite of every element kind ``CompositeColumns`` stores: the ones its coders write and
/// read directly and the ones that go through JSON (Float, Decimal, Data, arrays, a nested
/// struct, raw-value enums).
struct AllKinds: Codable, Equatable {
    enum Tint: String, Codable, CaseIterable { case red, blue }
    enum Level: Int, Codable, CaseIterable {
        case low = 1
        case high = 10
    }
    struct Inner: Codable, Equatable {
        var a: Int
        var b: String?
    }
    var text: String
    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var int64: Int64
    var uint: UInt
    var uint8: UInt8
    var uint16: UInt16
    var uint32: UInt32
    var uint64: UInt64
    var flag: Bool
    var double: Double
    var float: Float
    var decimal: Decimal
    var date: Date
    var uuid: UUID
    var url: URL
    var data: Data
    var list: [String]
    var inner: Inner
    var tint: Tint
    var level: Level
    var maybeText: String?
    var maybeDouble: Double?
    var maybeDate: Date?
    var maybeUUID: UUID?
    var maybeInner: Inner?
}

/// Every element optional: a `nil` composite and an all-`nil` one are both NULL in every column.
private struct AllOptional: Codable, Equatable {
    var name: String?
    var count: Int?
    var ratio: Double?
}

/// Coding keys that rename the elements.
private struct Renamed: Codable, Equatable {
    var first: String
    var second: Int
    enum CodingKeys: String, CodingKey {
        case first = "given_name"
        case second = "age_years"
    }
}

/// Encodes a key its decoding never reads (not an element): the JSON codec drops it.
private struct ExtraKey: Codable, Equatable {
    var value: Int
    enum CodingKeys: String, CodingKey { case value, extra }
    init(value: Int) { self.value = value }
    init(from decoder: any Decoder) throws {
        value = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .value)
    }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(value, forKey: .value)
        try c.encode("dropped", forKey: .extra)
    }
}

/// Writes an element through a super-encoder: a shape the direct encoder refuses.
private struct NestedWriter: Codable, Equatable {
    var x: Int
    var y: Int
    enum CodingKeys: String, CodingKey { case x, y }
    init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        x = try c.decode(Int.self, forKey: .x)
        y = try c.decode(Int.self, forKey: .y)
    }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(x, forKey: .x)
        var s = c.superEncoder(forKey: .y).singleValueContainer()
        try s.encode(y)
    }
}

/// Decodes its keys in the reverse of the order it encodes them, and `c` through
/// `decodeIfPresent` (contains, decodeNil, decode of one key): the coders' guess of the next
/// element misses and they search.
struct Backwards: Codable, Equatable {
    var a: Int
    var b: String
    var c: Double?
    enum CodingKeys: String, CodingKey { case a, b, c }
    init(a: Int, b: String, c: Double?) {
        self.a = a
        self.b = b
        self.c = c
    }
    init(from decoder: any Decoder) throws {
        let k = try decoder.container(keyedBy: CodingKeys.self)
        c = try k.decodeIfPresent(Double.self, forKey: .c)
        b = try k.decode(String.self, forKey: .b)
        a = try k.decode(Int.self, forKey: .a)
    }
    func encode(to encoder: any Encoder) throws {
        var k = encoder.container(keyedBy: CodingKeys.self)
        try k.encode(a, forKey: .a)
        try k.encode(b, forKey: .b)
        try k.encodeIfPresent(c, forKey: .c)
    }
}

/// Keeps the container its decoding was given, to use it after the decoding returned.
private struct Keeper: Codable, Equatable {
    var x: Int
    nonisolated(unsafe) static var kept: KeyedDecodingContainer<CodingKeys>?
    enum CodingKeys: String, CodingKey { case x }
    init(x: Int) { self.x = x }
    init(from decoder: any Decoder) throws {
        let k = try decoder.container(keyedBy: CodingKeys.self)
        x = try k.decode(Int.self, forKey: .x)
        Self.kept = k
    }
}

/// Leaves `x` out when it is `nil`, and writes `y` through a super-encoder (a shape the direct
/// encoder refuses, after it wrote `x`) when `y` is negative.
private struct SometimesRefused: Codable, Equatable {
    var x: Int?
    var y: Int
    enum CodingKeys: String, CodingKey { case x, y }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(x, forKey: .x)
        if y < 0 {
            var s = c.superEncoder(forKey: .y).singleValueContainer()
            try s.encode(y)
        } else {
            try c.encode(y, forKey: .y)
        }
    }
}

/// A ``ColumnSink`` that throws at its `failing`-th value (counting from 0), then collects.
private struct FailingSink: ColumnSink {
    struct Failure: Error {}
    let statement: SQLiteStatement?
    var failing: Int
    var values: [SQLValue] = []
    mutating func integer(_ value: Int64) throws { try self.value(.integer(value)) }
    mutating func real(_ value: Double) throws { try self.value(.real(value)) }
    mutating func text(_ value: String) throws { try self.value(.text(value)) }
    mutating func value(_ value: SQLValue) throws {
        defer { failing -= 1 }
        if failing == 0 { throw Failure() }
        values.append(value)
    }
}

/// A ``ColumnSink`` collecting the values put, for a statement whose coders' state it names.
private struct CollectingSink: ColumnSink {
    let statement: SQLiteStatement?
    var values: [SQLValue] = []
    mutating func integer(_ value: Int64) throws { values.append(.integer(value)) }
    mutating func real(_ value: Double) throws { values.append(.real(value)) }
    mutating func text(_ value: String) throws { values.append(.text(value)) }
    mutating func value(_ value: SQLValue) throws { values.append(value) }
}

/// Two composites, one of them optional, read and written through contexts.
@Model final class CompositeHolder {
    var serial: Int
    var kinds: AllKinds
    var backwards: Backwards?
    init(serial: Int, kinds: AllKinds, backwards: Backwards?) {
        self.serial = serial
        self.kinds = kinds
        self.backwards = backwards
    }
}

/// A deterministic generator (the same values on every run).
private struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }
    mutating func bool() -> Bool { next() & 1 == 0 }
    mutating func uuid() -> UUID {
        let bytes = (next(), next())
        return withUnsafeBytes(of: bytes) { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
    }
    /// A string with ASCII, accents, emoji and escapes JSON must write.
    mutating func text() -> String {
        let pieces = ["a", "Zoë", "\u{301}", "/", "\"", "\\", "\n", "🙂", "日本", " ", "\u{0}", "x"]
        return (0..<int(0...6)).map { _ in pieces[int(0...(pieces.count - 1))] }.joined()
    }
}

/// ``CompositeColumns``' direct coders against its JSON codec: the same columns written, the
/// same values read, and the same errors, for every element kind and coding shape.
@Suite("CompositeCoding")
struct CompositeCodingTests {
    private static func columns<T: Codable>(_ type: T.Type, optional: Bool = false) throws -> CompositeColumns {
        let type: Any.Type = optional ? T?.self : T.self
        let codec = try #require(AttributeCodec.make(for: type, options: []))
        let elements = try #require(CompositeProbe.elements(of: T.self))
        return CompositeColumns(codec: codec, elements: elements)
    }

    /// `values` as one row (`SELECT ?, ?, …`), read by `body`.
    private static func withRow<R>(_ values: [SQLValue], _ body: (SQLiteStatement) throws -> R) throws -> R {
        let db = try SQLiteConnection(path: ":memory:")
        let stmt = try db.prepare("SELECT " + values.map { _ in "?" }.joined(separator: ", "))
        try stmt.bind(values)
        #expect(try stmt.step())
        return try body(stmt)
    }

    /// Doubles the JSON codec keeps exactly (at most 15 significant digits).
    private static func double(_ g: inout SplitMix) -> Double {
        Double(g.int(-10_000_000...10_000_000)) / [1, 10, 100, 1000][g.int(0...3)]
    }

    private static func allKinds(_ g: inout SplitMix) -> AllKinds {
        AllKinds(
            text: g.text(), int: Int(truncatingIfNeeded: g.next()), int8: Int8(truncatingIfNeeded: g.next()),
            int16: Int16(truncatingIfNeeded: g.next()), int32: Int32(truncatingIfNeeded: g.next()),
            int64: Int64(truncatingIfNeeded: g.next()), uint: UInt(g.next() >> 1),
            uint8: UInt8(truncatingIfNeeded: g.next()),
            uint16: UInt16(truncatingIfNeeded: g.next()), uint32: UInt32(truncatingIfNeeded: g.next()),
            uint64: g.next() >> 1, flag: g.bool(), double: double(&g), float: Float(g.int(-1000...1000)) / 8,
            decimal: Decimal(g.int(-100_000...100_000)) / 100,
            date: Date(timeIntervalSinceReferenceDate: Double(g.int(-1_000_000_000...1_000_000_000)) / 1000),
            uuid: g.uuid(), url: URL(string: "https://example.com/\(g.int(0...999))/a?b=c")!,
            data: Data((0..<g.int(0...8)).map { _ in UInt8(truncatingIfNeeded: g.next()) }),
            list: (0..<g.int(0...3)).map { _ in g.text() },
            inner: AllKinds.Inner(a: g.int(-5...5), b: g.bool() ? nil : g.text()), tint: g.bool() ? .red : .blue,
            level: g.bool() ? .low : .high,
            maybeText: g.bool() ? nil : g.text(), maybeDouble: g.bool() ? nil : double(&g),
            maybeDate: g.bool() ? nil : Date(timeIntervalSinceReferenceDate: Double(g.int(0...1_000_000))),
            maybeUUID: g.bool() ? nil : g.uuid(), maybeInner: g.bool() ? nil : AllKinds.Inner(a: 1, b: nil))
    }

    /// Encodes `value` both ways and expects the same columns; reads the columns back both ways
    /// and expects `value` (`expected` when given: an all-`nil` value of an optional composite
    /// reads back as `nil`).
    private static func roundTrip<T: Codable & Equatable>(
        _ value: T?, _ columns: CompositeColumns, expected: T?? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let expected = expected ?? value
        let direct = try columns.encode(value.map { $0 as Any })
        let json = try columns.encodeThroughJSON(value.map { $0 as Any })
        #expect(direct == json, "columns of \(String(describing: value))", sourceLocation: sourceLocation)
        let read = try withRow(direct) { try columns.read($0, 0) }
        let decoded = try columns.decode(direct)
        if columns.codec.isOptional {
            #expect(read as? T? == expected, sourceLocation: sourceLocation)
            #expect(decoded as? T? == expected, sourceLocation: sourceLocation)
        } else {
            #expect(read as? T == expected, sourceLocation: sourceLocation)
            #expect(decoded as? T == expected, sourceLocation: sourceLocation)
        }
    }

    @Test("ATT-07: every element kind: the direct coders write and read what the JSON codec does")
    func everyKind() throws {
        let columns = try Self.columns(AllKinds.self)
        var g = SplitMix(state: 42)
        for _ in 0..<300 { try Self.roundTrip(Self.allKinds(&g), columns) }
    }

    @Test("ATT-07: an optional composite: nil, all-nil and some values")
    func optionals() throws {
        let columns = try Self.columns(AllOptional.self, optional: true)
        try Self.roundTrip(AllOptional(), columns, expected: .some(nil))
        for value in [nil, AllOptional(name: "n"), AllOptional(name: "", count: 0, ratio: -0.5)] {
            try Self.roundTrip(value, columns)
        }
        let required = try Self.columns(AllOptional.self)
        try Self.roundTrip(AllOptional(count: 3), required)
        try Self.roundTrip(AllOptional(), required)
        let kinds = try Self.columns(AllKinds.self, optional: true)
        var g = SplitMix(state: 7)
        try Self.roundTrip(nil as AllKinds?, kinds)
        try Self.roundTrip(Self.allKinds(&g), kinds)
    }

    @Test("ATT-07: renamed coding keys, a key that is no element, a nested container")
    func shapes() throws {
        try Self.roundTrip(Renamed(first: "Ada", second: 36), try Self.columns(Renamed.self))
        let extra = try Self.columns(ExtraKey.self)
        #expect(extra.names == ["value"])
        try Self.roundTrip(ExtraKey(value: 5), extra)
        try Self.roundTrip(NestedWriter(x: 1, y: 2), try Self.columns(NestedWriter.self))
    }

    @Test("ATT-07: a Double element is stored exactly, every one of its 17 digits")
    func exactDoubles() throws {
        let columns = try Self.columns(AllOptional.self)
        var g = SplitMix(state: 3)
        for _ in 0..<2000 {
            let ratio = Double(bitPattern: g.next() & 0x7FEF_FFFF_FFFF_FFFF | g.next() & 0x8000_0000_0000_0000)
            let stored = try columns.encode(AllOptional(ratio: ratio))
            #expect(stored[2] == .real(ratio))
            let read = try Self.withRow(stored) { try columns.read($0, 0) } as? AllOptional
            #expect(read?.ratio?.bitPattern == ratio.bitPattern)
        }
    }

    @Test("ATT-07: a value that does not encode is refused as the JSON codec refuses it")
    func refusals() throws {
        let columns = try Self.columns(AllOptional.self)
        for ratio in [Double.nan, .infinity, -.infinity] {
            let direct = #expect(throws: SwiftDataError.self) { try columns.encode(AllOptional(ratio: ratio)) }
            let json = #expect(throws: SwiftDataError.self) { try columns.encodeThroughJSON(AllOptional(ratio: ratio)) }
            #expect(direct?.code == json?.code && direct?.code == SwiftDataError.invalidValue.code)
            #expect(direct?.localizedDescription == json?.localizedDescription)
        }
        #expect(try columns.encode("not the type") == [.null, .null, .null])
    }

    @Test("ATT-07: columns another tool wrote read as through the JSON codec: the same values or corruptStore")
    func foreignColumns() throws {
        let columns = try Self.columns(AllKinds.Inner.self)
        let rows: [[SQLValue]] = [
            [.integer(3), .text("x")], [.real(3), .null], [.real(3.5), .null], [.text("3"), .null],
            [.null, .text("x")], [.integer(Int64.max), .null], [.integer(1), .integer(5)], [.integer(1), .real(2)],
            [.integer(1), .blob(Data("\"q\"".utf8))], [.integer(1), .blob(Data([0xFF]))],
            [.blob(Data("7".utf8)), .null],
        ]
        for row in rows {
            let direct = Result { try Self.withRow(row) { try columns.read($0, 0) } as? AllKinds.Inner }
            let json = Result { try columns.decode(row) as? AllKinds.Inner }
            switch (direct, json) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(row)")
            case (.failure(let a as SwiftDataError), .failure(let b as SwiftDataError)):
                #expect(a.code == b.code && a.code == SwiftDataError.corruptStore.code, "\(row)")
            default: Issue.record("\(row): direct \(direct), JSON \(json)")
            }
        }
        let flags = try Self.columns(AllKinds.self)
        let flag = try #require(flags.names.firstIndex(of: "flag"))
        var g = SplitMix(state: 9)
        var row = try flags.encode(Self.allKinds(&g))
        for stored in [SQLValue.integer(2), .integer(0), .real(1), .text("true")] {
            row[flag] = stored
            let direct = Result { try Self.withRow(row) { try flags.read($0, 0) } as? AllKinds }
            let json = Result { try flags.decode(row) as? AllKinds }
            switch (direct, json) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(stored)")
            case (.failure, .failure): break
            default: Issue.record("\(stored): direct \(direct), JSON \(json)")
            }
        }
    }

    /// Encodes `value` into a sink naming `stmt` (the coders `stmt` keeps) and expects the
    /// JSON codec's columns.
    private static func sinkColumns(
        _ value: Any?, _ columns: CompositeColumns, on stmt: SQLiteStatement,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [SQLValue] {
        var sink = CollectingSink(statement: stmt)
        try columns.encode(value, on: stmt, into: &sink)
        #expect(sink.values == (try columns.encodeThroughJSON(value)), sourceLocation: sourceLocation)
        return sink.values
    }

    @Test("ATT-07: coders kept on a statement read and write row after row as the JSON codec does")
    func rowAfterRow() throws {
        let kinds = try Self.columns(AllKinds.self, optional: true)
        let backwards = try Self.columns(Backwards.self)
        let nested = try Self.columns(NestedWriter.self)
        let db = try SQLiteConnection(path: ":memory:")
        let width = kinds.names.count + backwards.names.count + nested.names.count
        let stmt = try db.prepare("SELECT " + Array(repeating: "?", count: width).joined(separator: ", "))
        let writer = try db.prepare("SELECT 1")
        var g = SplitMix(state: 11)
        for row in 0..<400 {
            // A nil composite, an all-kinds value, a shape that takes JSON, a search for keys.
            let kind: AllKinds? = row % 5 == 0 ? nil : Self.allKinds(&g)
            let back = Backwards(a: g.int(-9...9), b: g.text(), c: g.bool() ? nil : Self.double(&g))
            let pair = NestedWriter(x: g.int(0...9), y: g.int(0...9))
            var values = try Self.sinkColumns(kind.map { $0 as Any }, kinds, on: writer)
            values += try Self.sinkColumns(back, backwards, on: writer)
            values += try Self.sinkColumns(pair, nested, on: writer)
            try stmt.bind(values)
            #expect(try stmt.step())
            let first = Int32(kinds.names.count)
            let readKind = try kinds.read(stmt, 0) as? AllKinds?
            let readBack = try backwards.read(stmt, first) as? Backwards
            let readPair = try nested.read(stmt, first + Int32(backwards.names.count)) as? NestedWriter
            #expect(readKind == .some(kind), "row \(row)")
            #expect(readBack == back, "row \(row)")
            #expect(readPair == pair, "row \(row)")
            stmt.reset()
        }
        // One state per composite on each statement, made once.
        #expect(stmt.attachments.count == 3)
        #expect(writer.attachments.count == 3)
    }

    @Test("ATT-07: a value written after a refused or partly bound one holds only its own elements")
    func afterRefusal() throws {
        let columns = try Self.columns(SometimesRefused.self)
        let db = try SQLiteConnection(path: ":memory:")
        let writer = try db.prepare("SELECT 1")
        let values = [
            SometimesRefused(x: 1, y: -1), SometimesRefused(x: nil, y: 2), SometimesRefused(x: 3, y: 4),
            SometimesRefused(x: nil, y: -5), SometimesRefused(x: nil, y: 6),
        ]
        for value in values {
            let stored = try Self.sinkColumns(value, columns, on: writer)
            #expect(stored == [value.x.map { .integer(Int64($0)) } ?? .null, .integer(Int64(value.y))])
        }
        // A sink that fails after the first value leaves the second one in the coders' buffer;
        // the next value, which leaves `x` out, must not bind what is left.
        var failing = FailingSink(statement: writer, failing: 1)
        #expect(throws: FailingSink.Failure.self) {
            try columns.encode(SometimesRefused(x: 7, y: 8), on: writer, into: &failing)
        }
        #expect(try Self.sinkColumns(SometimesRefused(x: nil, y: 9), columns, on: writer) == [.null, .integer(9)])
        var early = FailingSink(statement: writer, failing: 0)
        #expect(throws: FailingSink.Failure.self) {
            try columns.encode(SometimesRefused(x: 7, y: 8), on: writer, into: &early)
        }
        #expect(try Self.sinkColumns(SometimesRefused(x: nil, y: 10), columns, on: writer) == [.null, .integer(10)])
        #expect(writer.attachments.count == 1)
    }

    @Test("ATT-07: one kept decoder reads each row the statement steps to, not the row it first read")
    func rowsStepped() throws {
        let columns = try Self.columns(Backwards.self)
        let db = try SQLiteConnection(path: ":memory:")
        // The columns in element order (``CompositeColumns/names``), the order they are bound in.
        try db.execute("CREATE TABLE t (" + columns.names.joined(separator: ", ") + ")")
        let expected = (0..<50).map { Backwards(a: $0, b: "row \($0)", c: $0 % 3 == 0 ? nil : Double($0) / 4) }
        for value in expected {
            let insert = try db.prepare("INSERT INTO t VALUES (?, ?, ?)")
            try insert.bind(try columns.encode(value))
            _ = try insert.step()
        }
        let stmt = try db.prepare("SELECT " + columns.names.joined(separator: ", ") + " FROM t ORDER BY rowid")
        var read: [Backwards] = []
        while try stmt.step() { read.append(try #require(try columns.read(stmt, 0) as? Backwards)) }
        #expect(read == expected)
        #expect(stmt.attachments.count == 1)
    }

    @Test("ATT-07: a container kept past its value's decoding throws instead of reading another row")
    func keptContainer() throws {
        let columns = try Self.columns(Keeper.self)
        let value = try Self.withRow([.integer(4)]) { try columns.read($0, 0) } as? Keeper
        #expect(value == Keeper(x: 4))
        let kept = try #require(Keeper.kept)
        #expect(throws: (any Error).self) { try kept.decode(Int.self, forKey: .x) }
        #expect(!kept.contains(.x))
        #expect(kept.allKeys.isEmpty)
    }

    @Test(
        "ATT-07: many rows of two composites saved, changed and fetched again through contexts",
        arguments: StoreKind.allCases)
    func throughContexts(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "composite-rows")
        let container = try kind.makeContainer(for: [CompositeHolder.self], in: dir)
        var g = SplitMix(state: 5)
        var expected: [Int: (AllKinds, Backwards?)] = [:]
        let writer = ModelContext(container)
        for batch in 0..<2 {
            for i in 0..<60 {
                let serial = batch * 60 + i
                let kinds = Self.allKinds(&g)
                let back: Backwards? =
                    serial % 3 == 0 ? nil : Backwards(a: serial, b: g.text(), c: g.bool() ? nil : Self.double(&g))
                writer.insert(CompositeHolder(serial: serial, kinds: kinds, backwards: back))
                expected[serial] = (kinds, back)
            }
            try writer.save()
        }
        // Every fourth row changed: an update writes both composites again.
        let changer = ModelContext(container)
        for holder in try changer.fetch(FetchDescriptor<CompositeHolder>()) where holder.serial % 4 == 0 {
            let kinds = Self.allKinds(&g)
            holder.kinds = kinds
            holder.backwards = holder.backwards == nil ? Backwards(a: -1, b: "set", c: 0.5) : nil
            expected[holder.serial] = (kinds, holder.backwards)
        }
        try changer.save()
        let reader = ModelContext(container)
        let all = try reader.fetch(FetchDescriptor<CompositeHolder>(sortBy: [SortDescriptor(\.serial)]))
        #expect(all.count == 120)
        for holder in all {
            let (kinds, back) = try #require(expected[holder.serial])
            #expect(holder.kinds == kinds, "row \(holder.serial)")
            #expect(holder.backwards == back, "row \(holder.serial)")
        }
        withExtendedLifetime(reader) {}
    }
}

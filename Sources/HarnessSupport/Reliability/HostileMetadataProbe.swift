import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

#if canImport(Glibc)
    import Glibc
#endif

extension ReliabilityProbe {
    /// Opens ``ReliabilityConfiguration/hostileFiles`` seeded hostile store files:
    /// `Z_METADATA.Z_PLIST` damaged in every way a binary property list can be (truncated, wrong
    /// magic, offsets and trailer fields out of range, huge lengths, cycles, deep nesting,
    /// "billion laughs" bombs, wrong types and missing keys), `Z_UUID` of the wrong type, keys at
    /// `Int64.max` (entity and history `Z_MAX`, a row's `Z_PK`), values of the wrong type, a row
    /// of an unknown entity, and triggers that abort saves.
    ///
    /// Each file opens a `ModelContainer` (where it opens: fetch, insert, save, fetch again) and
    /// goes through `harness fixtures describe` and `verify` (``StoreFileDescription`` and
    /// ``FixtureFile/verifyStore(_:)``), in a worker process: a crash is a failure of that file,
    /// not of the harness, and the next file runs in a new worker. Passes when nothing crashes,
    /// every error is a typed `SwiftDataError`, each file meets its expectation (a typed error,
    /// or a correct open), a failed open and the read-only tools leave the bytes unchanged, and
    /// no file takes longer than ``ReliabilityConfiguration/hostileFileSeconds``.
    package static let hostileMetadata = ReliabilityProbe(
        name: "hostile-metadata",
        title:
            "Hostile metadata, keys at Int64.max, wrong-type rows and aborting triggers: typed errors, fast, no crash",
        runsInWorker: false, body: HostileMetadataProbe.run)
}

/// What opening a hostile file must do.
enum HostileOpen: String, Codable {
    /// The container must refuse it with a typed error.
    case typedError
    /// The container must open it.
    case opens
    /// Either (a correct library may read past the damage or refuse it).
    case either
}

/// What the save of one new row must do, once the container opened.
enum HostileSave: String, Codable {
    /// It must succeed.
    case succeeds
    /// It must throw a typed error and write nothing.
    case typedError
    /// Either; a success must give the new row a fresh positive key.
    case either
}

/// One family of hostile files: a name, the expectations, and how to damage a clean store.
struct HostileFile {
    let name: String
    let open: HostileOpen
    let save: HostileSave
    /// Some step (open, fetch, save) must throw a typed error: the file holds a value the
    /// library must not read silently.
    var mustReport = false
    /// Damages the copy of the clean store (`db` is a raw connection to it).
    let damage: (HostileMetadataProbe.Damage) throws -> String

    /// Every family, in the order variants cycle through them.
    static var all: [HostileFile] {
        typealias P = HostilePlist
        return [
            HostileFile(name: "control: metadata re-encoded", open: .opens, save: .succeeds) { d in
                try d.setPlist(P.encoded(d.metadata))
                return "valid"
            },
            HostileFile(name: "plist truncated", open: .typedError, save: .either) { d in
                let bytes = P.encoded(d.metadata)
                let length = d.rng.uniform(in: 0..<bytes.count)
                try d.setPlist(bytes.prefix(length))
                return "\(length) of \(bytes.count) bytes"
            },
            HostileFile(name: "plist wrong magic", open: .typedError, save: .either) { d in
                var bytes = P.encoded(d.metadata)
                let magic = ["bplist01", "bplist1", "<?xml ve", "\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}", "BPLIST00"]
                let chosen = magic[d.rng.uniform(in: 0..<magic.count)]
                bytes.replaceSubrange(
                    0..<8,
                    with: Array(chosen.utf8).prefix(8) + [UInt8](repeating: 0, count: 8 - min(8, chosen.utf8.count)))
                try d.setPlist(bytes)
                return chosen.debugDescription
            },
            HostileFile(name: "plist offset out of range", open: .typedError, save: .either) { d in
                var plist = P.metadata(d.metadata)
                var bytes = plist.encode()
                let layout = plist.lastLayout
                let object = d.rng.uniform(in: 0..<layout.count)
                let value = UInt64(layout.tableOffset) + UInt64(d.rng.uniform(in: 0...1_000_000))
                let at = layout.tableOffset + object * layout.offsetSize
                HostilePlist.put(value, &bytes, at: at, size: layout.offsetSize)
                try d.setPlist(bytes)
                return "object \(object) at offset \(value)"
            },
            HostileFile(name: "plist trailer overflow", open: .typedError, save: .either) { d in
                var bytes = P.encoded(d.metadata)
                let t = bytes.count - 32
                let field = d.rng.uniform(in: 0..<5)
                let huge: [UInt64] = [.max, .max - 1, 1 << 63, UInt64(Int64.max), 1 << 32]
                let value = huge[d.rng.uniform(in: 0..<huge.count)]
                switch field {
                case 0: bytes[t + 6] = [0, 9, 255][d.rng.uniform(in: 0..<3)]  // offset size
                case 1: bytes[t + 7] = [0, 9, 255][d.rng.uniform(in: 0..<3)]  // reference size
                case 2: HostilePlist.put(value, &bytes, at: t + 8, size: 8)  // object count
                case 3: HostilePlist.put(value, &bytes, at: t + 16, size: 8)  // top object
                default: HostilePlist.put(value, &bytes, at: t + 24, size: 8)  // offset-table offset
                }
                try d.setPlist(bytes)
                return "trailer field \(field), value \(value)"
            },
            HostileFile(name: "plist huge length field", open: .typedError, save: .either) { d in
                var plist = P.metadata(d.metadata)
                let kinds: [UInt8] = [0x4, 0x5, 0x6, 0xA, 0xD]
                let kind = kinds[d.rng.uniform(in: 0..<kinds.count)]
                let lengths: [UInt64] = [UInt64(Int64.max), .max, 1 << 62, 1 << 40, 0xFFFF_FFFF]
                let length = lengths[d.rng.uniform(in: 0..<lengths.count)]
                let hostile = plist.raw([kind << 4 | 0x0F, 0x13] + HostilePlist.bigEndian(length, 8))
                plist.entries.append(("NSHostileEntry", .object(hostile)))
                try d.setPlist(plist.encode())
                return "marker 0x\(String(kind, radix: 16))F with length \(length)"
            },
            HostileFile(name: "plist cycle", open: .typedError, save: .either) { d in
                var plist = P.metadata(d.metadata)
                let length = d.rng.uniform(in: 1...4)
                let first = plist.cycle(length: length, dictionary: d.rng.uniform(in: 0..<2) == 1)
                if d.rng.uniform(in: 0..<2) == 0 {
                    plist.entries.append(("NSHostileEntry", .object(first)))
                } else {
                    plist.entries.removeAll { $0.key == "NSStoreModelVersionIdentifiers" }
                    plist.entries.append(("NSStoreModelVersionIdentifiers", .object(first)))
                }
                try d.setPlist(plist.encode())
                return "a cycle of \(length) collections"
            },
            HostileFile(name: "plist deep nesting", open: .typedError, save: .either) { d in
                var plist = P.metadata(d.metadata)
                let depth = d.rng.uniform(in: 600...20_000)
                plist.entries.append(("NSHostileEntry", .object(plist.nested(depth: depth))))
                try d.setPlist(plist.encode())
                return "arrays nested \(depth) deep"
            },
            HostileFile(name: "plist billion laughs (top object)", open: .typedError, save: .either) { d in
                var plist = HostilePlist()
                let levels = d.rng.uniform(in: 48...56)
                let top = plist.bomb(levels: levels)
                let bytes = plist.encode(top: top)
                try d.setPlist(bytes)
                return "\(levels) arrays each referring twice to the next, \(bytes.count) bytes"
            },
            HostileFile(name: "plist billion laughs (under an extra key)", open: .either, save: .either) { d in
                var plist = P.metadata(d.metadata)
                let levels = d.rng.uniform(in: 48...56)
                plist.entries.append(("NSHostileEntry", .object(plist.bomb(levels: levels))))
                try d.setPlist(plist.encode())
                return "\(levels) levels under NSHostileEntry"
            },
            HostileFile(name: "plist known key of the wrong type", open: .typedError, save: .either) { d in
                var plist = P.metadata(d.metadata)
                let choices: [(String, HostilePlist.Value)] = [
                    ("NSStoreModelVersionHashes", .string("not a dictionary")),
                    ("NSStoreModelVersionHashes", .dictionary([("ReliabilityValue", .string("not data"))])),
                    ("NSStoreModelVersionHashes", .array([.data(Data(count: 32))])),
                    ("NSStoreModelVersionIdentifiers", .integer(7)),
                    ("NSStoreModelVersionIdentifiers", .array([.integer(1), .data(Data([1]))])),
                    ("NSStoreType", .integer(1)),
                    ("NSPersistenceFrameworkVersion", .string("1523")),
                    ("NSStoreModelVersionHashesVersion", .array([])),
                    ("NSStoreModelVersionHashesDigest", .data(Data([0xFF]))),
                    ("_NSAutoVacuumLevel", .integer(2)),
                ]
                let (key, value) = choices[d.rng.uniform(in: 0..<choices.count)]
                plist.entries.removeAll { $0.key == key }
                plist.entries.append((key, value))
                try d.setPlist(plist.encode())
                return key
            },
            HostileFile(name: "plist keys missing", open: .either, save: .either) { d in
                var plist = P.metadata(d.metadata)
                var dropped: [String] = []
                for entry in plist.entries where d.rng.uniform(in: 0..<2) == 1 { dropped.append(entry.key) }
                if dropped.isEmpty { dropped = [plist.entries[d.rng.uniform(in: 0..<plist.entries.count)].key] }
                plist.entries.removeAll { dropped.contains($0.key) }
                try d.setPlist(plist.encode())
                return "without \(dropped.joined(separator: ", "))"
            },
            HostileFile(name: "plist bytes flipped", open: .either, save: .either) { d in
                var bytes = P.encoded(d.metadata)
                let flips = d.rng.uniform(in: 1...6)
                for _ in 0..<flips { bytes[d.rng.uniform(in: 0..<bytes.count)] ^= UInt8(d.rng.uniform(in: 1...255)) }
                try d.setPlist(bytes)
                return "\(flips) bytes flipped"
            },
            HostileFile(name: "Z_UUID of the wrong type", open: .either, save: .either) { d in
                let values: [SQLValue] = [
                    .integer(Int64(d.rng.uniform(in: 0...Int.max))), .real(2.5), .blob(Data(count: 16)), .null,
                    .text(String(repeating: "U", count: 100_000)),
                ]
                let value = values[d.rng.uniform(in: 0..<values.count)]
                try d.change("UPDATE Z_METADATA SET Z_UUID = ? WHERE Z_VERSION = 1", [value])
                return "\(value)".prefix(40).description
            },
            HostileFile(name: "Z_MAX at or near Int64.max", open: .opens, save: .either) { d in
                // Half the files at Int64.max itself, the others 1…3 below it.
                let below = Int64(d.rng.uniform(in: 0..<2) == 0 ? 0 : d.rng.uniform(in: 1...3))
                try d.change(
                    "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_NAME = 'ReliabilityValue'", [.integer(.max - below)])
                return "Int64.max - \(below)"
            },
            HostileFile(name: "a row with Z_PK = Int64.max", open: .opens, save: .either) { d in
                try d.change(
                    "INSERT INTO ZRELIABILITYVALUE (Z_PK, Z_ENT, Z_OPT, ZSERIAL, ZTEXT, ZINT, ZDOUBLE) SELECT ?, Z_ENT, 1, 500, 'max', 0, 0 FROM ZRELIABILITYVALUE LIMIT 1",
                    [.integer(.max)])
                return "Z_PK \(Int64.max)"
            },
            HostileFile(name: "history keys at Int64.max", open: .opens, save: .either) { d in
                let entities = [[16001], [16002], [16001, 16002]][d.rng.uniform(in: 0..<3)]
                let below = Int64(d.rng.uniform(in: 0...1))
                for entity in entities {
                    try d.change(
                        "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?",
                        [.integer(.max - below), .integer(Int64(entity))])
                }
                return "Z_MAX of \(entities) = Int64.max - \(below)"
            },
            HostileFile(name: "text in an integer column", open: .opens, save: .either, mustReport: true) { d in
                let texts = ["abc", "", "12abc", "٣", "9223372036854775808"]
                let text = texts[d.rng.uniform(in: 0..<texts.count)]
                let column = ["ZINT", "ZSERIAL"][d.rng.uniform(in: 0..<2)]
                try d.change("UPDATE ZRELIABILITYVALUE SET \(column) = ? WHERE ZSERIAL = 2", [.text(text)])
                return "\(column) = '\(text)'"
            },
            HostileFile(name: "a fraction in an integer column", open: .opens, save: .either, mustReport: true) { d in
                let values: [Double] = [2.5, -0.5, 1e300, 9.3e18]
                let value = values[d.rng.uniform(in: 0..<values.count)]
                let column = ["ZINT", "ZSERIAL"][d.rng.uniform(in: 0..<2)]
                try d.change("UPDATE ZRELIABILITYVALUE SET \(column) = ? WHERE ZSERIAL = 2", [.real(value)])
                return "\(column) = \(value)"
            },
            HostileFile(name: "invalid UTF-8 text", open: .opens, save: .either) { d in
                let samples: [[UInt8]] = [
                    [0xC3, 0x28], [0xFF, 0xFE, 0x41], [0xED, 0xA0, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80], [0x41, 0xC0],
                ]
                let bytes = samples[d.rng.uniform(in: 0..<samples.count)]
                try d.change(
                    "UPDATE ZRELIABILITYVALUE SET ZTEXT = CAST(? AS TEXT) WHERE ZSERIAL = 3", [.blob(Data(bytes))])
                return bytes.map { String(format: "%02X", $0) }.joined(separator: " ")
            },
            HostileFile(name: "NULL or a blob in a non-optional column", open: .opens, save: .either) { d in
                let column = ["ZTEXT", "ZINT", "ZDOUBLE", "ZSERIAL"][d.rng.uniform(in: 0..<4)]
                let value: SQLValue = d.rng.uniform(in: 0..<2) == 0 ? .null : .blob(Data([0, 1, 2]))
                try d.change("UPDATE ZRELIABILITYVALUE SET \(column) = ? WHERE ZSERIAL = 1", [value])
                return "\(column) = \(value)"
            },
            HostileFile(name: "a row with an unknown Z_ENT", open: .opens, save: .either) { d in
                let ent = [0, 99, 16001, -1, Int(Int32.max)][d.rng.uniform(in: 0..<5)]
                try d.change("UPDATE ZRELIABILITYVALUE SET Z_ENT = ? WHERE ZSERIAL = 4", [.integer(Int64(ent))])
                return "Z_ENT \(ent)"
            },
            HostileFile(name: "a trigger that aborts the save", open: .either, save: .typedError) { d in
                let raise = [
                    "RAISE(ABORT, 'hostile trigger')", "RAISE(FAIL, 'hostile trigger')",
                    "RAISE(ROLLBACK, 'hostile trigger')",
                ][
                    d.rng.uniform(in: 0..<3)]
                let on = [
                    "BEFORE INSERT ON ZRELIABILITYVALUE", "AFTER INSERT ON ZRELIABILITYVALUE",
                    "BEFORE UPDATE ON Z_PRIMARYKEY", "AFTER INSERT ON ATRANSACTION",
                ][d.rng.uniform(in: 0..<4)]
                try d.db.execute("CREATE TRIGGER hostile_trigger \(on) BEGIN SELECT \(raise); END")
                return "\(on): \(raise)"
            },
        ]
    }
}

/// A binary property list built object by object, so it can hold what no encoder writes:
/// cycles, shared subtrees, huge length fields, any nesting.
struct HostilePlist {
    /// A value of the metadata dictionary.
    indirect enum Value {
        case string(String)
        case data(Data)
        case integer(Int64)
        case array([Value])
        case dictionary([(String, Value)])
        /// An object already added (``raw(_:)``, ``cycle(length:dictionary:)`` …).
        case object(Int)
    }

    /// An object: raw bytes, or a collection whose references are written at encoding.
    enum Object {
        case raw([UInt8])
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    /// Where the last ``encode(top:)`` put the offset table.
    struct Layout {
        var tableOffset = 0
        var offsetSize = 1
        var count = 0
    }

    var objects: [Object] = []
    /// The top dictionary's entries (``encode()``).
    var entries: [(key: String, value: Value)] = []
    private(set) var lastLayout = Layout()

    /// The metadata dictionary of `m`, as this library writes it.
    static func metadata(_ m: StoreMetadata) -> HostilePlist {
        var p = HostilePlist()
        p.entries = [
            ("NSStoreType", .string(m.storeType)),
            (
                "NSStoreModelVersionHashes",
                .dictionary(m.versionHashes.sorted { $0.key < $1.key }.map { ($0.key, .data($0.value)) })
            ),
            ("NSStoreModelVersionIdentifiers", .array(m.versionIdentifiers.map { .string($0) })),
        ]
        if let v = m.versionHashesVersion { p.entries.append(("NSStoreModelVersionHashesVersion", .integer(Int64(v)))) }
        if let v = m.versionHashesDigest { p.entries.append(("NSStoreModelVersionHashesDigest", .string(v))) }
        if let v = m.versionChecksum { p.entries.append(("NSStoreModelVersionChecksumKey", .string(v))) }
        if let v = m.frameworkVersion { p.entries.append(("NSPersistenceFrameworkVersion", .integer(Int64(v)))) }
        if let v = m.maximumFrameworkVersion {
            p.entries.append(("NSPersistenceMaximumFrameworkVersion", .integer(Int64(v))))
        }
        if let v = m.autoVacuumLevel { p.entries.append(("_NSAutoVacuumLevel", .string(v))) }
        return p
    }

    /// The bytes of the metadata dictionary of `m` (``metadata(_:)``).
    static func encoded(_ m: StoreMetadata) -> [UInt8] {
        var p = metadata(m)
        return p.encode()
    }

    /// Adds an object of raw bytes; returns its index.
    mutating func raw(_ bytes: [UInt8]) -> Int {
        objects.append(.raw(bytes))
        return objects.count - 1
    }

    /// Adds `value` (and everything it holds); returns its index.
    mutating func add(_ value: Value) -> Int {
        switch value {
        case .object(let index): return index
        case .string(let s):
            if s.utf8.allSatisfy({ $0 < 0x80 }) { return raw(Self.header(0x5, s.utf8.count) + Array(s.utf8)) }
            return raw(Self.header(0x6, s.utf16.count) + s.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
        case .data(let d): return raw(Self.header(0x4, d.count) + Array(d))
        case .integer(let i): return raw([0x13] + Self.bigEndian(UInt64(bitPattern: i), 8))
        case .array(let items):
            let refs = items.map { add($0) }
            objects.append(.array(refs))
            return objects.count - 1
        case .dictionary(let pairs):
            let keys = pairs.map { add(.string($0.0)) }
            let values = pairs.map { add($0.1) }
            objects.append(.dictionary(keys: keys, values: values))
            return objects.count - 1
        }
    }

    /// `length` collections each holding the next, the last holding the first; returns the first.
    mutating func cycle(length: Int, dictionary: Bool) -> Int {
        let key = raw(Self.header(0x5, 1) + [0x6B])
        let start = objects.count
        for i in 0..<length {
            let next = i == length - 1 ? start : start + i + 1
            objects.append(dictionary ? .dictionary(keys: [key], values: [next]) : .array([next]))
        }
        return start
    }

    /// Arrays nested `depth` deep around an empty array; returns the outermost.
    mutating func nested(depth: Int) -> Int {
        var inner = add(.array([]))
        for _ in 0..<depth {
            objects.append(.array([inner]))
            inner = objects.count - 1
        }
        return inner
    }

    /// `levels` arrays, each holding two references to the next, around `false`: a few hundred
    /// bytes that expand to 2^levels leaves.
    mutating func bomb(levels: Int) -> Int {
        var inner = raw([0x08])
        for _ in 0..<levels {
            objects.append(.array([inner, inner]))
            inner = objects.count - 1
        }
        return inner
    }

    /// The bytes, with the metadata dictionary (``entries``) as the top object.
    mutating func encode() -> [UInt8] {
        let top = add(.dictionary(entries.map { ($0.key, $0.value) }))
        return encode(top: top)
    }

    /// The bytes, with object `top` as the top object.
    mutating func encode(top: Int) -> [UInt8] {
        let refSize = objects.count <= 0xFF ? 1 : objects.count <= 0xFFFF ? 2 : 4
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(out.count)
            switch object {
            case .raw(let bytes): out += bytes
            case .array(let refs):
                out += Self.header(0xA, refs.count)
                for r in refs { out += Self.bigEndian(UInt64(r), refSize) }
            case .dictionary(let keys, let values):
                out += Self.header(0xD, keys.count)
                for r in keys + values { out += Self.bigEndian(UInt64(r), refSize) }
            }
        }
        let tableOffset = out.count
        let offsetSize = tableOffset <= 0xFF ? 1 : tableOffset <= 0xFFFF ? 2 : 4
        for offset in offsets { out += Self.bigEndian(UInt64(offset), offsetSize) }
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)]
        out += Self.bigEndian(UInt64(objects.count), 8) + Self.bigEndian(UInt64(top), 8)
        out += Self.bigEndian(UInt64(tableOffset), 8)
        lastLayout = Layout(tableOffset: tableOffset, offsetSize: offsetSize, count: objects.count)
        return out
    }

    /// A marker with its count: in the low nibble, or `0xF` and an integer object.
    static func header(_ kind: UInt8, _ count: Int) -> [UInt8] {
        count < 15 ? [kind << 4 | UInt8(count)] : [kind << 4 | 0x0F, 0x13] + bigEndian(UInt64(count), 8)
    }

    /// `value` in `size` big-endian bytes.
    static func bigEndian(_ value: UInt64, _ size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) }
    }

    /// Writes `value` big-endian into `bytes[at..<at + size]`.
    static func put(_ value: UInt64, _ bytes: inout [UInt8], at: Int, size: Int) {
        bytes.replaceSubrange(at..<(at + size), with: bigEndian(value, size))
    }
}

/// The hostile-metadata coordinator and its worker.
enum HostileMetadataProbe {
    /// Rows in the clean store every hostile file starts from (serials 0…4).
    static let rows = 5
    /// The serial of the row each open inserts.
    static let newSerial = 999_999
    /// Seconds after its budget that a file still running is killed.
    static let grace = 3.0

    /// The damage of one hostile file: the raw connection, the clean store's metadata, a seeded generator.
    final class Damage {
        let db: SQLiteConnection
        let metadata: StoreMetadata
        var rng: SeededGenerator

        init(db: SQLiteConnection, metadata: StoreMetadata, rng: SeededGenerator) {
            self.db = db
            self.metadata = metadata
            self.rng = rng
        }

        /// Replaces `Z_METADATA.Z_PLIST`.
        func setPlist<C: Collection>(_ bytes: C) throws where C.Element == UInt8 {
            try change("UPDATE Z_METADATA SET Z_PLIST = ? WHERE Z_VERSION = 1", [.blob(Data(bytes))])
        }

        /// Runs `sql`, which must change at least one row (else the damage missed its target).
        func change(_ sql: String, _ arguments: [SQLValue] = []) throws {
            try db.run(sql, arguments)
            guard db.changes > 0 else { throw ReliabilityWorkerError("'\(sql)' changed no row") }
        }
    }

    /// What one hostile file did.
    struct Outcome: Codable {
        var index = 0
        var name = ""
        var detail = ""
        var opened = false
        var typedErrors = 0
        var untypedErrors = 0
        var filesChanged = 0
        var milliseconds = 0
        var problems: [String] = []
    }

    /// The family and seeded generator of variant `index`.
    static func variant(_ index: Int, seed: UInt64) -> (HostileFile, SeededGenerator) {
        let families = HostileFile.all
        let family = families[index % families.count]
        return (
            family,
            SeededGenerator(seed: SeededGenerator.derive(seed, labels: ["hostile-metadata"], index: UInt64(index)))
        )
    }

    static func run(_ run: ReliabilityRun, _ tally: inout ReliabilityTally) throws -> String {
        let c = run.configuration
        let count = c.hostileFiles
        tally.set("variants", count)
        tally.set("typed errors", 0)
        tally.set("opened correctly", 0)
        tally.set("crashes", 0)
        tally.set("hung (killed)", 0)
        tally.set("untyped errors", 0)
        tally.set("files changed", 0)
        tally.set("wrong outcomes", 0)
        tally.set("slowest variant (ms)", 0)
        var next = 0
        var workers = 0
        while next < count && workers < count + 1 {
            workers += 1
            let worker = try run.spawn("hostile-file", ["from=\(next)"], label: "hostile files from \(next)")
            var current: Int?
            var began: UInt64 = 0
            while next < count {
                let timeout = current == nil ? c.childTimeout : c.hostileFileSeconds + grace
                guard let line = worker.nextLine(timeout: timeout - (current == nil ? 0 : Clock.seconds(since: began)))
                else { break }
                if line.hasPrefix("begin ") {
                    current = Int(line.dropFirst(6))
                    began = Clock.now
                } else if line.hasPrefix("outcome ") {
                    // Not swallowed: an undecodable outcome is a wrong outcome of its file.
                    guard let outcome = try? JSONDecoder().decode(Outcome.self, from: Data(line.dropFirst(8).utf8))
                    else {
                        tally.add("wrong outcomes")
                        tally.fail("variant \(next): an unreadable outcome: \(line.prefix(200))")
                        next += 1
                        current = nil
                        continue
                    }
                    record(outcome, c, &tally)
                    next = outcome.index + 1
                    current = nil
                }
            }
            guard next < count else {
                // Every file has its outcome; the worker is exiting on its own.
                worker.kill()
                worker.wait()
                break
            }
            // The worker stopped answering: the variant it began hung or crashed it (a crash
            // still writing its backtrace counts as a crash).
            let hung =
                worker.allLines.last?.hasPrefix("begin ") == true && Clock.seconds(since: began) >= c.hostileFileSeconds
            worker.kill()
            let end = worker.wait()
            let index = current ?? next
            let (family, _) = variant(index, seed: c.seed)
            if hung && end == .signalled(SIGKILL) && worker.crashReason() == nil {
                tally.add("hung (killed)")
                tally.fail(
                    "variant \(index) (\(family.name), seed \(c.seed)): still running after \(c.hostileFileSeconds + grace) s, killed"
                )
            } else {
                tally.add("crashes")
                let how = worker.crashReason().map { "\(worker.label) crashed: \($0)" } ?? worker.describe(end)
                tally.fail("variant \(index) (\(family.name), seed \(c.seed)): \(how)")
            }
            next = index + 1
        }
        let bad = tally.value("crashes") + tally.value("hung (killed)") + tally.value("wrong outcomes")
        return
            "\(count) hostile files: \(tally.value("typed errors")) typed errors, \(tally.value("opened correctly")) correct opens, \(bad) crashes, hangs or wrong outcomes, slowest \(tally.value("slowest variant (ms)")) ms"
    }

    /// Adds one file's outcome to the figures.
    static func record(_ o: Outcome, _ c: ReliabilityConfiguration, _ tally: inout ReliabilityTally) {
        tally.add("typed errors", o.typedErrors)
        tally.add("untyped errors", o.untypedErrors)
        tally.add("files changed", o.filesChanged)
        if o.opened && o.problems.isEmpty { tally.add("opened correctly") }
        tally.set("slowest variant (ms)", max(tally.value("slowest variant (ms)"), o.milliseconds))
        var problems = o.problems
        if Double(o.milliseconds) > c.hostileFileSeconds * 1_000 {
            problems.append("took \(o.milliseconds) ms (budget \(Int(c.hostileFileSeconds * 1_000)) ms)")
        }
        if !problems.isEmpty {
            tally.add("wrong outcomes")
            tally.fail(
                "variant \(o.index) (\(o.name): \(o.detail), seed \(c.seed)): \(problems.joined(separator: "; "))")
        }
    }

    // MARK: Worker role

    /// Runs variants `from`… one after another: prepares each file, prints `begin <i>`, runs it,
    /// prints `outcome <json>`.
    static func worker(_ args: WorkerArguments) throws -> Int32 {
        let run = try args.run
        let from = try args.int("from")
        let c = run.configuration
        let clean = run.directory.appendingPathComponent("clean-\(from).store")
        try makeCleanStore(clean)
        let metadata = try StoreMetadata.read(contentsOf: clean)
        for index in from..<c.hostileFiles {
            let (family, rng) = variant(index, seed: c.seed)
            let url = run.directory.appendingPathComponent("hostile-\(index).store")
            for u in [url, FileBytes.wal(url), FileBytes.shm(url)] {
                // try?: a leftover of an earlier worker, or nothing there.
                try? FileManager.default.removeItem(at: u)
            }
            try FileManager.default.copyItem(at: clean, to: url)
            var outcome = Outcome()
            outcome.index = index
            outcome.name = family.name
            do {
                let db = try SQLiteConnection(path: url.path, mode: .readWrite)
                let damage = Damage(db: db, metadata: metadata, rng: rng)
                outcome.detail = try family.damage(damage)
                db.close()
            } catch {
                outcome.problems.append("could not prepare the file: \(error)")
            }
            WorkerIO.say("begin \(index)")
            let start = Clock.now
            if outcome.problems.isEmpty { exercise(url, family, &outcome) }
            outcome.milliseconds = Int(Clock.seconds(since: start) * 1_000)
            WorkerIO.say("outcome " + String(decoding: try JSONEncoder().encode(outcome), as: UTF8.self))
        }
        return 0
    }

    /// A store of ``rows`` value rows, closed cleanly (no WAL left).
    static func makeCleanStore(_ url: URL) throws {
        do {
            let container = try ModelContainer(
                for: ReliabilitySchemas.values, configurations: [ModelConfiguration(url: url)])
            let context = ModelContext(container)
            for serial in 0..<rows {
                context.insert(ReliabilityValue(serial: serial, text: "row \(serial)", int: serial))
            }
            try context.save()
        }
        for u in [FileBytes.wal(url), FileBytes.shm(url)] where FileBytes.size(u) == 0 {
            // try?: empty leftovers of the clean close.
            try? FileManager.default.removeItem(at: u)
        }
    }

    /// The main file's bytes and its WAL's (missing reads as empty).
    static func bytes(_ url: URL) -> [Data?] {
        [FileBytes.read(url), FileBytes.read(FileBytes.wal(url)) ?? Data()]
    }

    /// Opens the container (and where it opens: fetch, insert, save, fetch), then describes and
    /// verifies the file, recording every error and every broken expectation in `o`.
    static func exercise(_ url: URL, _ family: HostileFile, _ o: inout Outcome) {
        var reported = false
        func note(_ step: String, _ error: any Error) -> ThrownError {
            let thrown = ThrownError(error)
            if thrown.typed {
                o.typedErrors += 1
                reported = true
            } else {
                o.untypedErrors += 1
                o.problems.append("\(step) threw an untyped error: \(thrown)")
            }
            return thrown
        }
        let before = bytes(url)
        // The container lives in this block only: it is closed before the file is compared and
        // described.
        opening: do {
            let container: ModelContainer
            do {
                container = try ModelContainer(
                    for: ReliabilitySchemas.values, configurations: [ModelConfiguration(url: url)])
            } catch {
                let thrown = note("opening", error)
                if family.open == .opens { o.problems.append("must open, but threw \(thrown)") }
                if bytes(url) != before {
                    o.filesChanged += 1
                    o.problems.append("the failed open changed the file")
                }
                break opening
            }
            o.opened = true
            if family.open == .typedError { o.problems.append("must give a typed error, but opened") }
            let context = ModelContext(container)
            var stored: Int?
            do {
                let values = try context.fetch(FetchDescriptor<ReliabilityValue>(sortBy: [SortDescriptor(\.serial)]))
                stored = values.count
                // Every property of every model is read, so each stored value is decoded.
                var length = 0
                for v in values { length &+= v.serial &+ v.int &+ v.text.utf8.count &+ (v.double.isNaN ? 0 : 1) }
                withExtendedLifetime(length) {}
            } catch {
                _ = note("the fetch", error)
            }
            context.insert(ReliabilityValue(serial: newSerial, text: "new"))
            var saved = false
            do {
                try context.save()
                saved = true
                if family.save == .typedError { o.problems.append("the save must give a typed error, but succeeded") }
                if let problem = checkNewRow(container) { o.problems.append(problem) }
            } catch {
                let thrown = note("the save", error)
                if family.save == .succeeds { o.problems.append("the save must succeed, but threw \(thrown)") }
                context.rollback()
                if let problem = checkNothingWritten(container) { o.problems.append(problem) }
            }
            do {
                let again = try ModelContext(container).fetchCount(FetchDescriptor<ReliabilityValue>())
                if let stored, again != stored + (saved ? 1 : 0) {
                    o.problems.append(
                        "a fresh context counts \(again) rows after \(stored) were fetched and the save \(saved ? "succeeded" : "failed")"
                    )
                }
            } catch {
                _ = note("the second fetch", error)
            }
        }
        let afterOpen = bytes(url)
        describeAndVerify(url, note)
        if bytes(url) != afterOpen {
            o.filesChanged += 1
            o.problems.append("describe or verify (read-only) changed the file")
        }
        if family.mustReport && !reported {
            o.problems.append("the file's wrong value was read without any error (open, fetch and save all succeeded)")
        }
    }

    /// `harness fixtures describe` and `verify` on the file: any error must be typed.
    static func describeAndVerify(_ url: URL, _ note: (String, any Error) -> ThrownError) {
        do {
            _ = try StoreFileDescription(contentsOf: url).json()
        } catch {
            _ = note("describe", error)
        }
        do {
            _ = try FixtureFile.verifyStore(url)
        } catch {
            _ = note("verify", error)
        }
    }

    /// After a successful save: the new row is there once, with a positive key that no other
    /// row has, and every history row has a positive key. `nil` when all holds.
    static func checkNewRow(_ container: ModelContainer) -> String? {
        do {
            return try container.withStoreConnection { db in
                let keys = try db.rows(
                    "SELECT Z_PK FROM ZRELIABILITYVALUE WHERE ZSERIAL = ?", [.integer(Int64(newSerial))])
                guard keys.count == 1, case .integer(let pk)? = keys[0].first, pk > 0 else {
                    return "after the save the new row is stored as \(keys) (expected one row with a positive key)"
                }
                for table in ["ACHANGE", "ATRANSACTION"] {
                    if case .integer(let low)? = try db.scalar("SELECT min(Z_PK) FROM \(table)"), low <= 0 {
                        return "after the save \(table) holds key \(low)"
                    }
                }
                return nil
            }
        } catch {
            return "checking the saved row threw \(ThrownError(error))"
        }
    }

    /// After a failed save: no row of it is in the store.
    static func checkNothingWritten(_ container: ModelContainer) -> String? {
        do {
            let n = try container.withStoreConnection { db in
                try db.scalar("SELECT count(*) FROM ZRELIABILITYVALUE WHERE ZSERIAL = ?", [.integer(Int64(newSerial))])
            }
            return n == .integer(0) ? nil : "the failed save left its row in the store (\(n.map { "\($0)" } ?? "?"))"
        } catch {
            return "checking the failed save threw \(ThrownError(error))"
        }
    }
}

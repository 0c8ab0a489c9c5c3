import Foundation

/// A property-list value, as `Z_METADATA.Z_PLIST` holds them.
///
/// ```swift
/// let plist: PropertyListValue = .dictionary(["NSStoreType": .string("SQLite")])
/// let bytes = BinaryPropertyList.encode(plist)              // "bplist00…"
/// try BinaryPropertyList.decode(bytes) == plist             // true
/// ```
enum PropertyListValue: Hashable, Sendable {
    case string(String)
    case data(Data)
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    /// Seconds since 2001-01-01 00:00 UTC.
    case date(Date)
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])
    /// A keyed archiver's object reference (read only; never written by us).
    case uid(UInt64)

    var string: String? { if case .string(let s) = self { s } else { nil } }
    var data: Data? { if case .data(let d) = self { d } else { nil } }
    var integer: Int64? { if case .integer(let i) = self { i } else { nil } }
    var array: [PropertyListValue]? { if case .array(let a) = self { a } else { nil } }
    var dictionary: [String: PropertyListValue]? { if case .dictionary(let d) = self { d } else { nil } }
}

/// Apple's binary property list format (`bplist00`), written and read by us.
///
/// Foundation on this toolchain reads and writes valid `bplist00` too, but its writer orders
/// dictionary keys by the process's hash seed, so the same metadata gives different bytes on
/// every run; ours sorts keys (UTF-16 order) and uniques equal scalars, so equal values always
/// give equal bytes. Tests check both directions against Foundation's implementation.
///
/// Layout: `bplist00`, the objects, an offset table (one big-endian offset per object), and a
/// 32-byte trailer (`[5 unused][sort version][offset size][ref size][u64 count][u64 top]
/// [u64 offset-table offset]`). Object markers: `0x08`/`0x09` false/true, `0x1n` integer of
/// 2ⁿ bytes, `0x23` double, `0x33` date, `0x4n` data, `0x5n` ASCII, `0x6n` UTF-16BE,
/// `0x8n` UID, `0xAn` array, `0xCn` set, `0xDn` dictionary (n keys, then n values); a count
/// of 15 or more is written as `n = 0xF` followed by an integer object.
enum BinaryPropertyList {
    /// The bytes of `value` as a binary property list.
    static func encode(_ value: PropertyListValue) -> Data {
        var writer = Writer()
        let top = writer.add(value)
        return writer.finish(top: top)
    }

    private struct Writer {
        var objects: [[UInt8]] = []  // each object's bytes; refs patched in `finish`
        var refs: [[Int]] = []  // each collection object's referenced indexes
        var unique: [PropertyListValue: Int] = [:]

        mutating func add(_ value: PropertyListValue) -> Int {
            switch value {
            case .array(let items):
                let index = reserve()
                let children = items.map { add($0) }
                objects[index] = header(0xA, children.count)
                refs[index] = children
                return index
            case .dictionary(let dict):
                let index = reserve()
                let keys = StoreModel.sorted(Array(dict.keys))
                let keyRefs = keys.map { add(.string($0)) }
                let valueRefs = keys.map { add(dict[$0]!) }
                objects[index] = header(0xD, keys.count)
                refs[index] = keyRefs + valueRefs
                return index
            default:
                if let known = unique[value] { return known }
                let index = reserve()
                objects[index] = scalar(value)
                unique[value] = index
                return index
            }
        }

        mutating func reserve() -> Int {
            objects.append([])
            refs.append([])
            return objects.count - 1
        }

        func scalar(_ value: PropertyListValue) -> [UInt8] {
            switch value {
            case .bool(let b): return [b ? 0x09 : 0x08]
            case .integer(let i): return integer(i)
            case .real(let d): return [0x23] + bigEndian(d.bitPattern, 8)
            case .date(let d): return [0x33] + bigEndian(d.timeIntervalSinceReferenceDate.bitPattern, 8)
            case .data(let d): return header(0x4, d.count) + Array(d)
            case .string(let s):
                if isASCII(s) { return header(0x5, s.utf8.count) + Array(s.utf8) }
                var out = header(0x6, s.utf16.count)
                for unit in s.utf16 { out += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
                return out
            case .uid(let u):
                let size = byteCount(u)
                return [0x80 | UInt8(size - 1)] + bigEndian(u, size)
            case .array, .dictionary: return []
            }
        }

        func header(_ kind: UInt8, _ count: Int) -> [UInt8] {
            count < 15 ? [kind << 4 | UInt8(count)] : [kind << 4 | 0xF] + integer(Int64(count))
        }

        func integer(_ i: Int64) -> [UInt8] {
            // Negative numbers are always 8 bytes; 1, 2 and 4 byte integers are unsigned.
            if i < 0 { return [0x13] + bigEndian(UInt64(bitPattern: i), 8) }
            let size = byteCount(UInt64(i))
            let n: UInt8 = size == 1 ? 0 : size == 2 ? 1 : size <= 4 ? 2 : 3
            return [0x10 | n] + bigEndian(UInt64(i), 1 << Int(n))
        }

        mutating func finish(top: Int) -> Data {
            let refSize = byteCount(UInt64(objects.count))
            var out: [UInt8] = Array("bplist00".utf8)
            var offsets: [Int] = []
            for (index, bytes) in objects.enumerated() {
                offsets.append(out.count)
                out += bytes
                for ref in refs[index] { out += bigEndian(UInt64(ref), refSize) }
            }
            let tableOffset = out.count
            let offsetSize = byteCount(UInt64(tableOffset))
            for offset in offsets { out += bigEndian(UInt64(offset), offsetSize) }
            out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)]
            out += bigEndian(UInt64(objects.count), 8) + bigEndian(UInt64(top), 8) + bigEndian(UInt64(tableOffset), 8)
            return Data(out)
        }
    }
}

/// The bytes needed for `value` (1, 2, 4 or 8 for integers in objects; any of 1…8 elsewhere).
private func byteCount(_ value: UInt64) -> Int {
    if value <= 0xFF { return 1 }
    if value <= 0xFFFF { return 2 }
    if value <= 0xFFFF_FFFF { return 4 }
    return 8
}

private func bigEndian(_ value: UInt64, _ size: Int) -> [UInt8] {
    (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) }
}

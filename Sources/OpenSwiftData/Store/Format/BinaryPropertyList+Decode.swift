import Foundation

extension BinaryPropertyList {
    /// Why bytes are not a binary property list we can read.
    struct DecodingError: Error, Equatable, CustomStringConvertible {
        /// What is wrong, and where.
        let message: String
        var description: String { "binary property list: \(message)" }
    }

    /// The most objects any document may decode to, counting every reference: an object that
    /// several collections reference counts once per reference. A list whose collections
    /// reference one another twice per level (a "billion laughs" document) would otherwise
    /// expand a few hundred bytes into 2⁶³ values. Store metadata holds a few hundred objects;
    /// a save record with thousands of entries stays far below this.
    static let maximumDecodedObjects = 1_000_000

    /// The most objects a document of `size` bytes may decode to: 8 per byte, at least 10,000
    /// and at most ``maximumDecodedObjects``. A document whose collections are not shared
    /// decodes to at most one object per reference it holds (fewer than its bytes), so only
    /// shared collections come near this, and a bomb is refused after work proportional to
    /// its size.
    static func maximumDecodedObjects(forDocumentOf size: Int) -> Int {
        let perByte = size.multipliedReportingOverflow(by: 8)
        return min(maximumDecodedObjects, max(10_000, perByte.overflow ? Int.max : perByte.partialValue))
    }

    /// The deepest nesting of arrays and dictionaries one document may have (decoding recurses
    /// once per level).
    static let maximumDepth = 512

    /// The most bytes of strings and data one document may decode to, counting every
    /// reference: 64 MiB, or 16 times the document's size when that is more. A large data
    /// object is fine when its bytes are in the document; a small one referenced from
    /// everywhere is not.
    static func maximumDecodedBytes(forDocumentOf size: Int) -> Int {
        max(64 << 20, size.multipliedReportingOverflow(by: 16).overflow ? Int.max : size * 16)
    }

    /// Reads a `bplist00` document (see ``BinaryPropertyList`` for the layout). Every offset,
    /// count and reference is bounds-checked with checked arithmetic; a length larger than the
    /// bytes left after it is refused, as is a collection that contains itself. What a
    /// document may expand to is bounded: ``maximumDecodedObjects(forDocumentOf:)`` objects and
    /// ``maximumDecodedBytes(forDocumentOf:)`` bytes of strings and data, each reference
    /// counted, nested at most ``maximumDepth`` deep. Sets are read as arrays; dictionary keys
    /// must be strings.
    ///
    /// ```swift
    /// let value = try BinaryPropertyList.decode(plistBlob)     // .dictionary(["NSStoreType": …])
    /// ```
    /// - Throws: ``DecodingError`` naming the first problem.
    static func decode(_ data: Data) throws -> PropertyListValue {
        var reader = try Reader(Array(data))
        return try reader.object(reader.top, depth: 0)
    }

    private struct Reader {
        let bytes: [UInt8]
        let offsets: [Int]
        let refSize: Int
        let top: Int
        /// The collections being decoded (a reference back to one is a cycle).
        var active: Set<Int> = []
        /// Scalars already decoded, by object index: a shared string or data object is read
        /// (and its bytes copied) once.
        var scalars: [Int: PropertyListValue] = [:]
        /// Objects decoded so far, every reference counted.
        var decoded = 0
        /// Bytes of strings and data decoded so far, every reference counted.
        var decodedBytes = 0
        let byteBudget: Int
        let objectBudget: Int

        init(_ bytes: [UInt8]) throws {
            self.bytes = bytes
            byteBudget = BinaryPropertyList.maximumDecodedBytes(forDocumentOf: bytes.count)
            objectBudget = BinaryPropertyList.maximumDecodedObjects(forDocumentOf: bytes.count)
            guard bytes.count >= 8 + 32, bytes[0..<8].elementsEqual("bplist00".utf8) else {
                throw DecodingError(message: "missing the bplist00 header or the trailer")
            }
            let t = bytes.count - 32
            let offsetSize = Int(bytes[t + 6])
            refSize = Int(bytes[t + 7])
            let count = Reader.uint(bytes[(t + 8)..<(t + 16)])
            let topObject = Reader.uint(bytes[(t + 16)..<(t + 24)])
            let tableOffset = Reader.uint(bytes[(t + 24)..<(t + 32)])
            let (tableSize, tableOverflow) = count.multipliedReportingOverflow(by: UInt64(offsetSize))
            guard (1...8).contains(offsetSize), (1...8).contains(refSize), count > 0, topObject < count,
                !tableOverflow, tableOffset >= 8, tableOffset <= UInt64(t), UInt64(t) - tableOffset >= tableSize
            else {
                throw DecodingError(message: "the trailer's sizes do not fit the data")
            }
            // `count * offsetSize` bytes fit between the table's offset and the trailer, so
            // every index and position below fits `Int`.
            var offsets: [Int] = []
            offsets.reserveCapacity(Int(count))
            for i in 0..<Int(count) {
                let start = Int(tableOffset) + i * offsetSize
                let offset = Reader.uint(bytes[start..<(start + offsetSize)])
                guard offset >= 8, offset < tableOffset else {
                    throw DecodingError(message: "object \(i) has offset \(offset) outside the object area")
                }
                offsets.append(Int(offset))
            }
            self.offsets = offsets
            self.top = Int(topObject)
        }

        /// A big-endian unsigned integer of at most 8 bytes.
        static func uint(_ slice: ArraySlice<UInt8>) -> UInt64 {
            slice.reduce(0) { $0 << 8 | UInt64($1) }
        }

        /// `count` bytes from `start`, or an error when they run past the end.
        func take(_ start: Int, _ count: Int) throws -> ArraySlice<UInt8> {
            guard count >= 0, start >= 0, start <= bytes.count, count <= bytes.count - start else {
                throw DecodingError(message: "\(count) bytes at \(start) run past the end")
            }
            return bytes[start..<(start + count)]
        }

        /// The count in a marker's low nibble, or the integer object after it; and where the
        /// payload starts. The payload — `count × unit` bytes — must fit in the bytes left.
        func count(_ marker: UInt8, at offset: Int, unit: Int) throws -> (count: Int, payload: Int) {
            let low = Int(marker & 0x0F)
            var (n, payload) = (low, offset + 1)
            if low == 0x0F {
                let intMarker = try take(offset + 1, 1).first!
                guard intMarker >> 4 == 0x1, intMarker & 0x0F <= 3 else {
                    throw DecodingError(message: "a long count at \(offset) is not an integer")
                }
                let size = 1 << Int(intMarker & 0x0F)
                let value = Reader.uint(try take(offset + 2, size))
                guard value <= UInt64(bytes.count) else {
                    throw DecodingError(message: "count \(value) at \(offset) is larger than the data")
                }
                (n, payload) = (Int(value), offset + 2 + size)
            }
            let (length, overflow) = n.multipliedReportingOverflow(by: unit)
            guard !overflow, payload <= bytes.count, length <= bytes.count - payload else {
                throw DecodingError(
                    message: "the object at \(offset) says it has \(n) entries, more than the bytes after it hold")
            }
            return (n, payload)
        }

        /// The object index of reference `i` of the collection whose references start at `start`.
        func ref(_ start: Int, _ i: Int) throws -> Int {
            let r = Reader.uint(try take(start + i * refSize, refSize))
            guard r < UInt64(offsets.count) else { throw DecodingError(message: "reference \(r) to a missing object") }
            return Int(r)
        }

        /// Counts one decoded object (every reference counts) and `size` bytes of string or
        /// data, refusing a document that expands past the bounds.
        mutating func spend(bytes size: Int = 0, at offset: Int) throws {
            decoded += 1
            if FaultInjection.isActive(.plistUnbounded) { return }
            guard decoded <= objectBudget else {
                throw DecodingError(
                    message:
                        "the document of \(bytes.count) bytes expands to more than \(objectBudget) objects (its collections share references); refused as a decompression bomb"
                )
            }
            guard size <= byteBudget - decodedBytes else {
                throw DecodingError(
                    message:
                        "the strings and data at \(offset) and before expand to more than \(byteBudget) bytes (shared references); refused as a decompression bomb"
                )
            }
            decodedBytes += size
        }

        /// Object `index`, `depth` collections deep: a scalar is decoded once and remembered, a
        /// collection every time it is referenced (each reference counts toward the bounds).
        mutating func object(_ index: Int, depth: Int) throws -> PropertyListValue {
            guard depth < BinaryPropertyList.maximumDepth || FaultInjection.isActive(.plistUnbounded) else {
                throw DecodingError(message: "nesting deeper than \(BinaryPropertyList.maximumDepth)")
            }
            let offset = offsets[index]
            if let known = scalars[index] {
                switch known {
                case .string(let s): try spend(bytes: s.utf8.count, at: offset)
                case .data(let d): try spend(bytes: d.count, at: offset)
                default: try spend(at: offset)
                }
                return known
            }
            let marker = try take(offset, 1).first!
            let value: PropertyListValue
            switch marker >> 4 {
            case 0x0, 0x1, 0x2, 0x3: value = try fixedSize(marker, at: offset)
            case 0x4, 0x5, 0x6, 0x8: value = try counted(marker, at: offset)
            case 0xA, 0xC: return try array(index, marker, at: offset, depth: depth)
            case 0xD: return try dictionary(index, marker, at: offset, depth: depth)
            default:
                throw DecodingError(message: "unknown marker 0x\(String(marker, radix: 16)) at \(offset)")
            }
            scalars[index] = value
            return value
        }

        /// The boolean, integer, real or date whose `marker` is at `offset`.
        mutating func fixedSize(_ marker: UInt8, at offset: Int) throws -> PropertyListValue {
            let value: PropertyListValue
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x08: value = .bool(false)
                case 0x09: value = .bool(true)
                default:
                    throw DecodingError(
                        message: "unsupported marker 0x\(String(marker, radix: 16)) (null or fill) at \(offset)")
                }
            case 0x1:
                let n = Int(marker & 0x0F)
                guard n <= 4 else { throw DecodingError(message: "integer of 2^\(n) bytes at \(offset)") }
                let raw = try take(offset + 1, 1 << n)
                if n == 4 {  // 16 bytes: a 128-bit integer; only values that fit Int64 are accepted
                    let high = Reader.uint(raw.prefix(8))
                    let low = Reader.uint(raw.suffix(8))
                    guard high == 0, low <= UInt64(Int64.max) else {
                        throw DecodingError(message: "integer at \(offset) does not fit 64 bits")
                    }
                    value = .integer(Int64(low))
                } else {
                    let bits = Reader.uint(raw)
                    value = .integer(n == 3 ? Int64(bitPattern: bits) : Int64(bits))
                }
            case 0x2:
                switch marker & 0x0F {
                case 2: value = .real(Double(Float(bitPattern: UInt32(Reader.uint(try take(offset + 1, 4))))))
                case 3: value = .real(Double(bitPattern: Reader.uint(try take(offset + 1, 8))))
                default: throw DecodingError(message: "real of unsupported size at \(offset)")
                }
            default:
                guard marker == 0x33 else { throw DecodingError(message: "bad date marker at \(offset)") }
                value = .date(
                    Date(timeIntervalSinceReferenceDate: Double(bitPattern: Reader.uint(try take(offset + 1, 8)))))
            }
            try spend(at: offset)
            return value
        }

        /// The data, ASCII or UTF-16 string, or UID whose `marker` is at `offset`.
        mutating func counted(_ marker: UInt8, at offset: Int) throws -> PropertyListValue {
            switch marker >> 4 {
            case 0x4:
                let (n, start) = try count(marker, at: offset, unit: 1)
                try spend(bytes: n, at: offset)
                return .data(Data(try take(start, n)))
            case 0x5:
                let (n, start) = try count(marker, at: offset, unit: 1)
                try spend(bytes: n, at: offset)
                let raw = try take(start, n)
                guard raw.allSatisfy({ $0 < 0x80 }) else {
                    throw DecodingError(message: "ASCII string at \(offset) has non-ASCII bytes")
                }
                return .string(String(decoding: raw, as: UTF8.self))
            case 0x6:
                let (n, start) = try count(marker, at: offset, unit: 2)
                try spend(bytes: n * 2, at: offset)
                let raw = try take(start, n * 2)
                var units: [UInt16] = []
                units.reserveCapacity(n)
                var i = raw.startIndex
                while i < raw.endIndex {
                    units.append(UInt16(raw[i]) << 8 | UInt16(raw[i + 1]))
                    i += 2
                }
                return .string(String(decoding: units, as: UTF16.self))
            default:
                let value = PropertyListValue.uid(Reader.uint(try take(offset + 1, Int(marker & 0x0F) + 1)))
                try spend(at: offset)
                return value
            }
        }

        /// The array or set (decoded as an array) `index`, whose `marker` is at `offset`.
        mutating func array(_ index: Int, _ marker: UInt8, at offset: Int, depth: Int) throws -> PropertyListValue {
            let (n, start) = try count(marker, at: offset, unit: refSize)
            try spend(at: offset)
            return .array(
                try collection(index) { reader in
                    var items: [PropertyListValue] = []
                    items.reserveCapacity(n)
                    for i in 0..<n { items.append(try reader.object(try reader.ref(start, i), depth: depth + 1)) }
                    return items
                })
        }

        /// The dictionary `index`, whose `marker` is at `offset`: n keys, then n values (2n
        /// references). A key that is not a string is refused.
        mutating func dictionary(
            _ index: Int, _ marker: UInt8, at offset: Int, depth: Int
        ) throws -> PropertyListValue {
            let (n, start) = try count(marker, at: offset, unit: 2 * refSize)
            try spend(at: offset)
            return .dictionary(
                try collection(index) { reader in
                    var dict: [String: PropertyListValue] = [:]
                    dict.reserveCapacity(n)
                    for i in 0..<n {
                        guard case .string(let key) = try reader.object(try reader.ref(start, i), depth: depth + 1)
                        else {
                            throw DecodingError(message: "dictionary at \(offset) has a key that is not a string")
                        }
                        dict[key] = try reader.object(try reader.ref(start, n + i), depth: depth + 1)
                    }
                    return dict
                })
        }

        /// Runs `body` for collection `index`, refusing a collection nested in itself.
        mutating func collection<T>(_ index: Int, _ body: (inout Reader) throws -> T) throws -> T {
            guard active.insert(index).inserted || FaultInjection.isActive(.plistUnbounded) else {
                throw DecodingError(message: "object \(index) contains itself")
            }
            defer { active.remove(index) }
            return try body(&self)
        }
    }
}

import Foundation

extension BinaryPropertyList {
    /// Why bytes are not a binary property list we can read.
    struct DecodingError: Error, Equatable, CustomStringConvertible {
        /// What is wrong, and where.
        let message: String
        var description: String { "binary property list: \(message)" }
    }

    /// Reads a `bplist00` document (see ``BinaryPropertyList`` for the layout). Every offset,
    /// count and reference is bounds-checked; a collection that contains itself is refused.
    /// Sets are read as arrays; dictionary keys must be strings.
    ///
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
        var active: Set<Int> = []

        init(_ bytes: [UInt8]) throws {
            self.bytes = bytes
            guard bytes.count >= 8 + 32, bytes[0..<8].elementsEqual("bplist00".utf8) else {
                throw DecodingError(message: "missing the bplist00 header or the trailer")
            }
            let t = bytes.count - 32
            let offsetSize = Int(bytes[t + 6])
            refSize = Int(bytes[t + 7])
            let count = Reader.uint(bytes[(t + 8)..<(t + 16)])
            let topObject = Reader.uint(bytes[(t + 16)..<(t + 24)])
            let tableOffset = Reader.uint(bytes[(t + 24)..<(t + 32)])
            guard (1...8).contains(offsetSize), (1...8).contains(refSize), count > 0, topObject < count,
                count <= UInt64(t), tableOffset <= UInt64(t),
                UInt64(t) - tableOffset >= count * UInt64(offsetSize)
            else {
                throw DecodingError(message: "the trailer's sizes do not fit the data")
            }
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

        static func uint(_ slice: ArraySlice<UInt8>) -> UInt64 {
            slice.reduce(0) { $0 << 8 | UInt64($1) }
        }

        func take(_ start: Int, _ count: Int) throws -> ArraySlice<UInt8> {
            guard count >= 0, start >= 0, start <= bytes.count - count else {
                throw DecodingError(message: "\(count) bytes at \(start) run past the end")
            }
            return bytes[start..<(start + count)]
        }

        /// The count in a marker's low nibble, or the integer object after it; and where the
        /// payload starts.
        func count(_ marker: UInt8, at offset: Int) throws -> (count: Int, payload: Int) {
            let low = Int(marker & 0x0F)
            if low != 0x0F { return (low, offset + 1) }
            let intMarker = try take(offset + 1, 1).first!
            guard intMarker >> 4 == 0x1, intMarker & 0x0F <= 3 else {
                throw DecodingError(message: "a long count at \(offset) is not an integer")
            }
            let size = 1 << Int(intMarker & 0x0F)
            let value = Reader.uint(try take(offset + 2, size))
            guard value <= UInt64(bytes.count) else {
                throw DecodingError(message: "count \(value) at \(offset) is larger than the data")
            }
            return (Int(value), offset + 2 + size)
        }

        func ref(_ start: Int, _ i: Int) throws -> Int {
            let r = Reader.uint(try take(start + i * refSize, refSize))
            guard r < UInt64(offsets.count) else { throw DecodingError(message: "reference \(r) to a missing object") }
            return Int(r)
        }

        mutating func object(_ index: Int, depth: Int) throws -> PropertyListValue {
            guard depth < 512 || FaultInjection.isActive(.plistUnbounded) else {
                throw DecodingError(message: "nesting deeper than 512")
            }
            let offset = offsets[index]
            let marker = try take(offset, 1).first!
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x08: return .bool(false)
                case 0x09: return .bool(true)
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
                    return .integer(Int64(low))
                }
                let value = Reader.uint(raw)
                return .integer(n == 3 ? Int64(bitPattern: value) : Int64(value))
            case 0x2:
                switch marker & 0x0F {
                case 2: return .real(Double(Float(bitPattern: UInt32(Reader.uint(try take(offset + 1, 4))))))
                case 3: return .real(Double(bitPattern: Reader.uint(try take(offset + 1, 8))))
                default: throw DecodingError(message: "real of unsupported size at \(offset)")
                }
            case 0x3:
                guard marker == 0x33 else { throw DecodingError(message: "bad date marker at \(offset)") }
                return .date(
                    Date(timeIntervalSinceReferenceDate: Double(bitPattern: Reader.uint(try take(offset + 1, 8)))))
            case 0x4:
                let (n, start) = try count(marker, at: offset)
                return .data(Data(try take(start, n)))
            case 0x5:
                let (n, start) = try count(marker, at: offset)
                let raw = try take(start, n)
                guard raw.allSatisfy({ $0 < 0x80 }) else {
                    throw DecodingError(message: "ASCII string at \(offset) has non-ASCII bytes")
                }
                return .string(String(decoding: raw, as: UTF8.self))
            case 0x6:
                let (n, start) = try count(marker, at: offset)
                let raw = try take(start, n * 2)
                var units: [UInt16] = []
                units.reserveCapacity(n)
                var i = raw.startIndex
                while i < raw.endIndex {
                    units.append(UInt16(raw[i]) << 8 | UInt16(raw[i + 1]))
                    i += 2
                }
                return .string(String(decoding: units, as: UTF16.self))
            case 0x8:
                return .uid(Reader.uint(try take(offset + 1, Int(marker & 0x0F) + 1)))
            case 0xA, 0xC:
                let (n, start) = try count(marker, at: offset)
                return .array(
                    try collection(index) { reader in
                        try (0..<n).map { try reader.object(try reader.ref(start, $0), depth: depth + 1) }
                    })
            case 0xD:
                let (n, start) = try count(marker, at: offset)
                return .dictionary(
                    try collection(index) { reader in
                        var dict: [String: PropertyListValue] = [:]
                        for i in 0..<n {
                            guard case .string(let key) = try reader.object(try reader.ref(start, i), depth: depth + 1)
                            else {
                                throw DecodingError(message: "dictionary at \(offset) has a key that is not a string")
                            }
                            dict[key] = try reader.object(try reader.ref(start, n + i), depth: depth + 1)
                        }
                        return dict
                    })
            default:
                throw DecodingError(message: "unknown marker 0x\(String(marker, radix: 16)) at \(offset)")
            }
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

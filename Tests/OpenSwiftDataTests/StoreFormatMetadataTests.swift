import Foundation
import Testing

@testable import OpenSwiftData

@Suite("StoreFormat property lists")
struct StoreFormatPropertyListTests {
    /// Every kind of value we write, with counts and sizes across the 1/2/4/8-byte encodings.
    static let sample: PropertyListValue = .dictionary([
        "NSStoreType": .string("SQLite"),
        "NSStoreModelVersionHashesVersion": .integer(3),
        "NSStoreModelVersionHashes": .dictionary([
            "Item": .data(Data(repeating: 0xAB, count: 32)), "Ünïcode ☕️": .data(Data()),
        ]),
        "NSStoreModelVersionIdentifiers": .array([.string("1.0.0")]),
        "_NSAutoVacuumLevel": .string("2"),
        "a long ASCII string of more than fifteen characters": .string(String(repeating: "x", count: 300)),
        "unicode": .string("naïve café — 日本語 😀"),
        "integers": .array([
            .integer(0), .integer(255), .integer(256), .integer(65_536), .integer(4_294_967_296),
            .integer(-1), .integer(Int64.min), .integer(Int64.max),
        ]),
        "flags": .array([.bool(true), .bool(false)]),
        "real": .real(1.5),
        "date": .date(Date(timeIntervalSinceReferenceDate: 743_906_532.380816)),
        "big data": .data(Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0) })),
        "many": .array((0..<300).map { .string("item \($0)") }),
        "empty": .dictionary([:]),
    ])

    @Test("our bytes are a bplist00 that Foundation reads back to the same values")
    func foundationReadsOurs() throws {
        let bytes = BinaryPropertyList.encode(Self.sample)
        #expect(bytes.prefix(8) == Data("bplist00".utf8))
        var format = PropertyListSerialization.PropertyListFormat.xml
        let object = try PropertyListSerialization.propertyList(from: bytes, options: [], format: &format)
        #expect(format == .binary)
        #expect(try Self.value(fromFoundation: object) == Self.sample)
    }

    @Test("we read Foundation's binary property lists to the same values")
    func weReadFoundations() throws {
        let object = try PropertyListSerialization.propertyList(
            from: BinaryPropertyList.encode(Self.sample), options: [], format: nil)
        let foundationBytes = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        #expect(try BinaryPropertyList.decode(foundationBytes) == Self.sample)
    }

    @Test("equal values give equal bytes, whatever the dictionaries' insertion order")
    func deterministic() {
        var a: [String: PropertyListValue] = [:]
        var b: [String: PropertyListValue] = [:]
        let keys = (0..<50).map { "key\($0)" }
        for k in keys { a[k] = .string(k) }
        for k in keys.reversed() { b[k] = .string(k) }
        #expect(BinaryPropertyList.encode(.dictionary(a)) == BinaryPropertyList.encode(.dictionary(b)))
        #expect(BinaryPropertyList.encode(Self.sample) == BinaryPropertyList.encode(Self.sample))
    }

    @Test(
        "damaged bytes throw instead of reading as something",
        arguments: [
            "empty", "bad header", "truncated", "offset past the end", "reference past the objects",
            "a dictionary inside itself",
        ])
    func damaged(case name: String) throws {
        var bytes = [UInt8](BinaryPropertyList.encode(.dictionary(["k": .array([.string("v")])])))
        switch name {
        case "empty": bytes = []
        case "bad header": bytes[7] = UInt8(ascii: "1")
        case "truncated": bytes.removeLast(3)
        case "offset past the end": bytes[bytes.count - 1] = 0xF0  // offset-table offset
        case "reference past the objects": bytes[10] = 0x7F  // the dictionary's first key reference
        default:
            // One dictionary (object 0) whose only key is a string and whose value is itself.
            bytes = Array("bplist00".utf8) + [0xD1, 0x01, 0x00, 0x51, UInt8(ascii: "k")]
            let table = bytes.count
            bytes +=
                [8, 11] + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 2] + [UInt8](repeating: 0, count: 8)
                + [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        }
        #expect(throws: BinaryPropertyList.DecodingError.self) { try BinaryPropertyList.decode(Data(bytes)) }
    }

    /// Converts what Foundation read into our value type (numbers by their Objective-C type).
    static func value(fromFoundation object: Any) throws -> PropertyListValue {
        if type(of: object) == Bool.self, let b = object as? Bool { return .bool(b) }  // Linux: a Swift Bool
        switch object {
        case let s as String: return .string(s)
        case let d as Data: return .data(d)
        case let d as Date: return .date(d)
        case let a as [Any]: return .array(try a.map(value(fromFoundation:)))
        case let d as [String: Any]: return .dictionary(try d.mapValues(value(fromFoundation:)))
        case let n as NSNumber:
            if n.objCType.pointee == UInt8(ascii: "c") { return .bool(n.boolValue) }  // Darwin: a CFBoolean
            if n.objCType.pointee == UInt8(ascii: "d") || n.objCType.pointee == UInt8(ascii: "f") {
                return .real(n.doubleValue)
            }
            return .integer(n.int64Value)
        default:
            throw Unexpected(object: "\(type(of: object))")
        }
    }

    struct Unexpected: Error { let object: String }
}

@Suite("StoreFormat metadata")
struct StoreFormatMetadataTests {
    @Test(
        "metadata for a vector's model carries its hashes, digest, checksum and identifiers",
        arguments: StoreVector.names)
    func fromModel(vector name: String) throws {
        let vector = try StoreVector.named(name)
        let metadata = StoreMetadata(model: vector.storeModel, uuid: UUID())
        #expect(metadata.versionHashes == vector.entityHashes)
        if let digest = vector.metadata.NSStoreModelVersionHashesDigest {
            #expect(metadata.versionHashesDigest == digest)
        }
        if let checksum = vector.metadata.NSStoreModelVersionChecksumKey {
            #expect(metadata.versionChecksum == checksum)
        }
        #expect(metadata.versionIdentifiers == vector.metadata.NSStoreModelVersionIdentifiers)
        #expect(metadata.storeType == vector.metadata.NSStoreType)
        #expect(metadata.versionHashesVersion == vector.metadata.NSStoreModelVersionHashesVersion)
        #expect(metadata.autoVacuumLevel == vector.metadata._NSAutoVacuumLevel)
    }

    @Test("the plist has exactly the keys of the newest SwiftData store, with their types")
    func plistKeys() throws {
        let vector = try StoreVector.named("swiftdata-cart")
        let metadata = StoreMetadata(model: vector.storeModel, uuid: UUID())
        let object = try PropertyListSerialization.propertyList(
            from: metadata.encodedPropertyList(), options: [], format: nil)
        let dict = try #require(object as? [String: Any])
        #expect(
            Set(dict.keys) == [
                "NSPersistenceFrameworkVersion", "NSPersistenceMaximumFrameworkVersion",
                "NSStoreModelVersionChecksumKey",
                "NSStoreModelVersionHashes", "NSStoreModelVersionHashesDigest", "NSStoreModelVersionHashesVersion",
                "NSStoreModelVersionIdentifiers", "NSStoreType", "_NSAutoVacuumLevel",
            ])
        #expect(dict["_NSAutoVacuumLevel"] as? String == "2")
        #expect(
            (dict["NSStoreModelVersionHashes"] as? [String: Any])?["CartModel"] as? Data
                == vector.entityHashes["CartModel"])
        #expect(dict["NSStoreModelVersionHashesVersion"] as? Int == 3)
        #expect(metadata.uuid == metadata.uuid.uppercased() && UUID(uuidString: metadata.uuid) != nil)
    }

    @Test("encode then read gives the same metadata, unknown keys included")
    func roundTrip() throws {
        var metadata = StoreMetadata(model: try StoreVector.named("swiftdata-cocktails").storeModel, uuid: UUID())
        metadata.otherEntries["NSStoreModelVersionHashesVersionExtra"] = .array([.integer(1), .string("x")])
        let read = try StoreMetadata(propertyList: metadata.encodedPropertyList(), uuid: metadata.uuid)
        #expect(read == metadata)
        #expect(read.otherEntries["NSStoreModelVersionHashesVersionExtra"] == .array([.integer(1), .string("x")]))
    }

    @Test("an older store's plist (no digest, no checksum, no maximum version) reads with those fields nil")
    func olderStore() throws {
        let plist = BinaryPropertyList.encode(
            .dictionary([
                "NSPersistenceFrameworkVersion": .integer(849),
                "NSStoreModelVersionHashes": .dictionary(["Project": .data(Data(repeating: 1, count: 32))]),
                "NSStoreModelVersionHashesVersion": .integer(3),
                "NSStoreModelVersionIdentifiers": .array([.string("")]),
                "NSStoreType": .string("SQLite"),
                "_NSAutoVacuumLevel": .string("2"),
            ]))
        let metadata = try StoreMetadata(propertyList: plist, uuid: "4D1E…")
        #expect(
            metadata.versionHashesDigest == nil && metadata.versionChecksum == nil
                && metadata.maximumFrameworkVersion == nil)
        #expect(metadata.frameworkVersion == 849 && metadata.versionIdentifiers == [""])
        #expect(metadata.otherEntries.isEmpty)
    }

    @Test("a known key with the wrong type, or a plist that is not a dictionary, is a corrupt store")
    func wrongTypes() {
        let wrongHash = BinaryPropertyList.encode(
            .dictionary(["NSStoreModelVersionHashes": .dictionary(["A": .string("x")])]))
        #expect(throws: SwiftDataError.corruptStore) { try StoreMetadata(propertyList: wrongHash, uuid: "") }
        let wrongType = BinaryPropertyList.encode(.dictionary(["NSStoreType": .integer(1)]))
        #expect(throws: SwiftDataError.corruptStore) { try StoreMetadata(propertyList: wrongType, uuid: "") }
        let notDictionary = BinaryPropertyList.encode(.array([]))
        #expect(throws: SwiftDataError.corruptStore) { try StoreMetadata(propertyList: notDictionary, uuid: "") }
    }

    @Test("entities whose hashes differ are named, added and removed ones included")
    func differences() throws {
        let vector = try StoreVector.named("swiftdata-resources")
        let stored = StoreMetadata(model: vector.storeModel, uuid: UUID())
        var model = vector.storeModel
        let item = model.entities.firstIndex { $0.name == "Item" }!
        model.entities[item].attributes.append(.init(name: "weight", type: .double, isOptional: true))
        model.entities.append(.init(name: "Tool"))
        #expect(
            stored.entitiesWithDifferentHashes(from: StoreMetadata(model: model, uuid: UUID())) == ["Item", "Tool"])
    }
}

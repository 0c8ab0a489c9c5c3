import Foundation

/// The metadata of a store in Apple's SwiftData/Core Data format: the one `Z_METADATA` row,
/// its UUID and the binary property list that identifies the model the store was written with.
///
/// ```swift
/// let metadata = try StoreMetadata.read(contentsOf: url)
/// metadata.versionHashes["Item"]        // 32 bytes; compare with the app's model
/// metadata.versionIdentifiers           // ["1.0.0"]
/// metadata.frameworkVersion             // 1523: the Core Data build that last wrote it
/// ```
/// The row is `Z_METADATA (Z_VERSION = 1, Z_UUID, Z_PLIST)`; the plist holds `NSStoreType`,
/// `NSStoreModelVersionHashesVersion` (3), `NSStoreModelVersionHashes` (entity name → SHA-256),
/// `NSStoreModelVersionHashesDigest`, `NSStoreModelVersionChecksumKey`,
/// `NSStoreModelVersionIdentifiers`, `NSPersistenceFrameworkVersion`,
/// `NSPersistenceMaximumFrameworkVersion` and `_NSAutoVacuumLevel`. The UUID lives in the
/// `Z_UUID` column, not in the plist. Keys this type does not model are kept and written back.
public struct StoreMetadata: Hashable, Sendable {
    /// `Z_UUID`: the store's identifier (Core Data writes an upper-case UUID string).
    public var uuid: String
    /// `NSStoreType`: `"SQLite"` for every store this library reads or writes.
    public var storeType: String
    /// `NSStoreModelVersionHashes`: each entity's 32-byte version hash, by entity name.
    public var versionHashes: [String: Data]
    /// `NSStoreModelVersionHashesVersion`: the hash scheme (3 since Core Data 3).
    public var versionHashesVersion: Int?
    /// `NSStoreModelVersionHashesDigest`: base64 SHA-512 of the names and hashes (newer stores).
    public var versionHashesDigest: String?
    /// `NSStoreModelVersionChecksumKey`: base64 SHA-256 of the hashes (newer stores).
    public var versionChecksum: String?
    /// `NSStoreModelVersionIdentifiers`: SwiftData writes the schema version, `["1.0.0"]`.
    public var versionIdentifiers: [String]
    /// `NSPersistenceFrameworkVersion`: the Core Data build that wrote the metadata.
    public var frameworkVersion: Int?
    /// `NSPersistenceMaximumFrameworkVersion`: the newest Core Data build that opened the store.
    public var maximumFrameworkVersion: Int?
    /// `_NSAutoVacuumLevel`: `"2"` (incremental), a string.
    public var autoVacuumLevel: String?
    /// Entries this type does not model, written back unchanged.
    var otherEntries: [String: PropertyListValue] = [:]

    /// The Core Data build recorded in stores this library writes: 1523, the newest build seen
    /// in the reference stores (SwiftData, with `NSPersistenceMaximumFrameworkVersion` 1523 too).
    /// The layout, hashes and history tables are the same in every SwiftData build observed
    /// (1345–1523), so the number only says which key set to expect (Core Data records its own
    /// build in these keys when it writes the metadata).
    static let writtenFrameworkVersion = 1523

    /// Metadata for a new store of `model`, with the hashes, digest and checksum computed from it.
    ///
    /// ```swift
    /// let metadata = StoreMetadata(model: StoreModel(schema), uuid: UUID())
    /// ```
    init(model: StoreModel, uuid: UUID) {
        let hashes = VersionHash.entities(of: model)
        self.uuid = uuid.uuidString.uppercased()
        self.storeType = "SQLite"
        self.versionHashes = hashes.mapValues { Data($0) }
        self.versionHashesVersion = 3
        self.versionHashesDigest = VersionHash.digest(hashes)
        self.versionChecksum = VersionHash.checksum(hashes)
        self.versionIdentifiers = model.versionIdentifiers
        self.frameworkVersion = StoreMetadata.writtenFrameworkVersion
        self.maximumFrameworkVersion = StoreMetadata.writtenFrameworkVersion
        self.autoVacuumLevel = "2"
    }

    /// Reads the metadata from a `Z_PLIST` value and the row's `Z_UUID`.
    ///
    /// ```swift
    /// let metadata = try StoreMetadata(propertyList: plistBlob, uuid: "5B0C…")
    /// ```
    /// - Throws: ``SwiftDataError/corruptStore`` when the bytes are not a binary property list
    ///   holding a dictionary, or a known key holds a value of the wrong type.
    public init(propertyList: Data, uuid: String) throws {
        let root: [String: PropertyListValue]
        do {
            guard let dict = try BinaryPropertyList.decode(propertyList).dictionary else {
                throw StoreMetadata.corrupt("Z_METADATA.Z_PLIST is not a dictionary")
            }
            root = dict
        } catch let e as BinaryPropertyList.DecodingError {
            throw SwiftDataError(
                SwiftDataError.corruptStore.code,
                "Z_METADATA.Z_PLIST is not a readable binary property list (\(e.message)); the store was not modified",
                underlying: e)
        }
        var rest = root
        func take<T>(_ key: String, _ cast: (PropertyListValue) -> T?) throws -> T? {
            guard let value = rest.removeValue(forKey: key) else { return nil }
            guard let typed = cast(value) else {
                throw StoreMetadata.corrupt("\(key) in Z_METADATA.Z_PLIST has an unexpected type")
            }
            return typed
        }
        self.uuid = uuid
        self.storeType = try take("NSStoreType", \.string) ?? ""
        let hashes = try take("NSStoreModelVersionHashes", \.dictionary) ?? [:]
        var versionHashes: [String: Data] = [:]
        for (name, value) in hashes {
            guard let data = value.data else { throw StoreMetadata.corrupt("the version hash of \(name) is not data") }
            versionHashes[name] = data
        }
        self.versionHashes = versionHashes
        self.versionHashesVersion = try take("NSStoreModelVersionHashesVersion", \.integer).map { Int($0) }
        self.versionHashesDigest = try take("NSStoreModelVersionHashesDigest", \.string)
        self.versionChecksum = try take("NSStoreModelVersionChecksumKey", \.string)
        let identifiers = try take("NSStoreModelVersionIdentifiers", \.array) ?? []
        self.versionIdentifiers = try identifiers.map {
            guard let s = $0.string else { throw StoreMetadata.corrupt("a version identifier is not a string") }
            return s
        }
        self.frameworkVersion = try take("NSPersistenceFrameworkVersion", \.integer).map { Int($0) }
        self.maximumFrameworkVersion = try take("NSPersistenceMaximumFrameworkVersion", \.integer).map { Int($0) }
        self.autoVacuumLevel = try take("_NSAutoVacuumLevel", \.string)
        self.otherEntries = rest
    }

    /// The `Z_PLIST` bytes: a binary property list with sorted keys, so equal metadata always
    /// gives equal bytes. Optional entries that are `nil` are left out.
    func encodedPropertyList() -> Data {
        var dict = otherEntries
        dict["NSStoreType"] = .string(storeType)
        dict["NSStoreModelVersionHashes"] = .dictionary(versionHashes.mapValues { .data($0) })
        dict["NSStoreModelVersionIdentifiers"] = .array(versionIdentifiers.map { .string($0) })
        if let versionHashesVersion { dict["NSStoreModelVersionHashesVersion"] = .integer(Int64(versionHashesVersion)) }
        if let versionHashesDigest { dict["NSStoreModelVersionHashesDigest"] = .string(versionHashesDigest) }
        if let versionChecksum { dict["NSStoreModelVersionChecksumKey"] = .string(versionChecksum) }
        if let frameworkVersion { dict["NSPersistenceFrameworkVersion"] = .integer(Int64(frameworkVersion)) }
        if let maximumFrameworkVersion {
            dict["NSPersistenceMaximumFrameworkVersion"] = .integer(Int64(maximumFrameworkVersion))
        }
        if let autoVacuumLevel { dict["_NSAutoVacuumLevel"] = .string(autoVacuumLevel) }
        return BinaryPropertyList.encode(.dictionary(dict))
    }

    /// The names of the entities whose version hash differs between `self` (a store) and
    /// `other` (a model), including entities only one of them has; sorted.
    ///
    /// ```swift
    /// stored.entitiesWithDifferentHashes(from: expected)   // ["Item"]
    /// ```
    public func entitiesWithDifferentHashes(from other: StoreMetadata) -> [String] {
        let names = Set(versionHashes.keys).union(other.versionHashes.keys)
        return StoreModel.sorted(names.filter { versionHashes[$0] != other.versionHashes[$0] })
    }

    private static func corrupt(_ message: String) -> SwiftDataError {
        SwiftDataError(SwiftDataError.corruptStore.code, message)
    }
}

import Foundation

/// Core Data's version hashes, the digest and the checksum a store's metadata records — every
/// hash of the format in one place (store-format README §5; reproduced for all six vectors).
///
/// All digests are SHA-256 unless said; strings are UTF-8 without a terminator; integers are
/// little-endian; lists are sorted by name like `NSString compare:`.
/// ```text
/// property     = SHA256(name ‖ u16 flags ‖ versionHashModifier?)   flags: optional 1, transient 2, read-only 4
/// attribute    = SHA256(property ‖ i32 type ‖ 01 if external storage ‖ 01 if preserved on deletion)
/// composite    = SHA256(element hashes, by element name, transient elements skipped)
/// derived      = SHA256(expression ‖ filter?)
/// relationship = SHA256(property ‖ destination ‖ inverse (unless none or itself) ‖ u32 maxCount
///                       ‖ u32 minCount ‖ u16 1 if ordered)
/// entity       = SHA256(name ‖ u8 isAbstract ‖ superentity hash? ‖ hashes of the non-transient
///                       attributes and relationships, inherited included, by name
///                       ‖ versionHashModifier? ‖ uniqueness constraints joined by ".", sorted)
/// NSStoreModelVersionHashesDigest = base64(SHA512(name ‖ hash, entities by name))
/// NSStoreModelVersionChecksumKey  = base64(SHA256(hash, entities by name))
/// ```
/// The delete rule, indexes, class names, renaming identifiers and default values do not
/// change any hash.
enum VersionHash {
    /// The hash of a property's shared part: name, flags and modifier.
    static func property(
        name: String, isOptional: Bool, isTransient: Bool, isReadOnly: Bool,
        versionHashModifier: String?
    ) -> [UInt8] {
        var bytes = Array(name.utf8)
        let flags: UInt16 = (isOptional ? 1 : 0) | (isTransient ? 2 : 0) | (isReadOnly ? 4 : 0)
        append(flags, to: &bytes)
        if let versionHashModifier { bytes += Array(versionHashModifier.utf8) }
        return SHA256.digest(of: bytes)
    }

    /// An attribute's hash: plain, composite or derived.
    static func attribute(_ a: StoreModel.Attribute) -> [UInt8] {
        if a.isComposite {
            let elements = a.elements.filter { !$0.isTransient }
                .sorted { StoreModel.precedes($0.name, $1.name) }
            return SHA256.digest(of: elements.flatMap(attribute))
        }
        if let derivation = a.derivation {
            return SHA256.digest(of: Array(derivation.expression.utf8) + Array((derivation.filter ?? "").utf8))
        }
        var bytes = property(
            name: a.name, isOptional: a.isOptional, isTransient: a.isTransient,
            isReadOnly: a.isReadOnly, versionHashModifier: a.versionHashModifier)
        append(a.type.rawValue, to: &bytes)
        if a.allowsExternalStorage { bytes.append(1) }
        if a.preservesValueOnDeletion { bytes.append(1) }
        return SHA256.digest(of: bytes)
    }

    /// A relationship's hash. A negative `maxCount` (no bound) is hashed as its 32-bit pattern.
    static func relationship(_ r: StoreModel.Relationship) -> [UInt8] {
        var bytes = property(
            name: r.name, isOptional: r.isOptional, isTransient: r.isTransient,
            isReadOnly: r.isReadOnly, versionHashModifier: r.versionHashModifier)
        bytes += Array(r.destination.utf8)
        if let inverse = r.inverse, inverse != r.name { bytes += Array(inverse.utf8) }
        append(UInt32(truncatingIfNeeded: r.maxCount), to: &bytes)
        append(UInt32(truncatingIfNeeded: r.minCount), to: &bytes)
        if r.isOrdered { append(UInt16(1), to: &bytes) }
        return SHA256.digest(of: bytes)
    }

    /// Every entity's hash (`NSStoreModelVersionHashes`), by entity name.
    static func entities(of model: StoreModel) -> [String: [UInt8]] {
        var memo: [String: [UInt8]] = [:]
        for e in model.entities { _ = entity(e.name, in: model, memo: &memo) }
        return memo
    }

    /// The hash of entity `name` of `model` alone (its superentities' hashes are computed, no
    /// other entity's).
    static func entity(_ name: String, in model: StoreModel) -> [UInt8] {
        var memo: [String: [UInt8]] = [:]
        return entity(name, in: model, memo: &memo)
    }

    private static func entity(_ name: String, in model: StoreModel, memo: inout [String: [UInt8]]) -> [UInt8] {
        if let known = memo[name] { return known }
        guard let e = model.entity(named: name) else { return [] }
        var bytes = Array(name.utf8)
        bytes.append(e.isAbstract ? 1 : 0)
        if let sup = e.superentity, sup != name { bytes += entity(sup, in: model, memo: &memo) }
        var members: [(name: String, hash: [UInt8])] = []
        for a in model.allAttributes(of: name) where !a.isTransient { members.append((a.name, attribute(a))) }
        for r in model.allRelationships(of: name) where !r.isTransient { members.append((r.name, relationship(r))) }
        members.sort { StoreModel.precedes($0.name, $1.name) }
        for m in members { bytes += m.hash }
        if let modifier = e.versionHashModifier { bytes += Array(modifier.utf8) }
        for constraint in StoreModel.sorted(e.uniquenessConstraints.map { $0.joined(separator: ".") }) {
            bytes += Array(constraint.utf8)
        }
        let hash = SHA256.digest(of: bytes)
        memo[name] = hash
        return hash
    }

    /// `NSStoreModelVersionHashesDigest`: base64 of SHA-512 over each entity's name and hash.
    static func digest(_ hashes: [String: [UInt8]]) -> String {
        var sha = SHA512()
        for name in StoreModel.sorted(Array(hashes.keys)) {
            sha.update(name)
            sha.update(hashes[name]!)
        }
        return Data(sha.finalizeDigest()).base64EncodedString()
    }

    /// `NSStoreModelVersionChecksumKey`: base64 of SHA-256 over the entity hashes.
    static func checksum(_ hashes: [String: [UInt8]]) -> String {
        var sha = SHA256()
        for name in StoreModel.sorted(Array(hashes.keys)) { sha.update(hashes[name]!) }
        return Data(sha.finalizeDigest()).base64EncodedString()
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}

extension StoreModel {
    /// Every entity's version hash, as `NSStoreModelVersionHashes` records it.
    var versionHashes: [String: Data] { VersionHash.entities(of: self).mapValues { Data($0) } }
    /// `NSStoreModelVersionHashesDigest`.
    var versionHashesDigest: String { VersionHash.digest(VersionHash.entities(of: self)) }
    /// `NSStoreModelVersionChecksumKey`.
    var versionChecksum: String { VersionHash.checksum(VersionHash.entities(of: self)) }
}

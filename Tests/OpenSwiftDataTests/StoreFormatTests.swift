import Foundation
import Testing

@testable import OpenSwiftData

// Apple's store format (Store/Format): hashes, metadata, layout — checked against the six real
// stores in Tests/Vectors/store-format/vectors.json.

@Suite("StoreFormat SHA-2")
struct StoreFormatSHA2Tests {
    @Test("SHA-256: FIPS 180-4 / NIST test vectors")
    func sha256Vectors() {
        #expect(SHA256.hex(of: "") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(of: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex(of: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            SHA256.hex(
                of:
                    "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
            )
                == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
        var million = SHA256()
        let chunk = [UInt8](repeating: 0x61, count: 1_000)
        for _ in 0..<1_000 { million.update(chunk) }
        #expect(million.finalize() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("SHA-256: incremental updates equal one update, at every split")
    func sha256Incremental() {
        let text = Array("The quick brown fox jumps over the lazy dog, again and again and again!".utf8)
        let whole = SHA256.hex(of: String(decoding: text, as: UTF8.self))
        for split in 0...text.count {
            var h = SHA256()
            h.update(text[..<split])
            h.update(text[split...])
            #expect(h.finalize() == whole)
        }
        #expect(hexString(SHA256.digest(of: text)) == whole)
    }

    @Test("SHA-512: FIPS 180-4 / NIST test vectors")
    func sha512Vectors() {
        #expect(
            SHA512.hex(of: "")
                == "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"
        )
        #expect(
            SHA512.hex(of: "abc")
                == "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
        )
        #expect(
            SHA512.hex(
                of:
                    "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
            )
                == "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"
        )
        var million = SHA512()
        let chunk = [UInt8](repeating: 0x61, count: 1_000)
        for _ in 0..<1_000 { million.update(chunk) }
        #expect(
            million.finalize()
                == "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973ebde0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b"
        )
    }

    @Test("SHA-512: incremental updates equal one update, across the 112- and 128-byte boundaries")
    func sha512Incremental() {
        let text = [UInt8](repeating: 0x5A, count: 300)
        for length in [0, 1, 111, 112, 113, 127, 128, 129, 239, 240, 256, 300] {
            let whole = SHA512.digest(of: text[..<length])
            for split in stride(from: 0, through: length, by: 37) {
                var h = SHA512()
                h.update(text[..<split])
                h.update(text[split..<length])
                #expect(h.finalizeDigest() == whole, "length \(length), split \(split)")
            }
        }
    }
}

@Suite("StoreFormat version hashes")
struct StoreFormatVersionHashTests {
    @Test("every entity hash of every vector is reproduced from its model", arguments: StoreVector.names)
    func entityHashes(vector name: String) throws {
        let vector = try StoreVector.named(name)
        let hashes = vector.storeModel.versionHashes
        #expect(Set(hashes.keys) == Set(vector.entityHashes.keys))
        for (entity, expected) in vector.entityHashes {
            #expect(hashes[entity] == expected, "\(name): \(entity)")
        }
    }

    @Test("the digest (SHA-512) and checksum (SHA-256) of every vector that records them", arguments: StoreVector.names)
    func digestAndChecksum(vector name: String) throws {
        let vector = try StoreVector.named(name)
        let model = vector.storeModel
        if let digest = vector.metadata.NSStoreModelVersionHashesDigest {
            #expect(model.versionHashesDigest == digest)
        }
        if let checksum = vector.metadata.NSStoreModelVersionChecksumKey {
            #expect(model.versionChecksum == checksum)
        }
    }

    @Test("five vectors record a digest and four a checksum: the checks above are not vacuous")
    func vectorsRecordDigests() throws {
        let vectors = try StoreVector.names.map(StoreVector.named)
        #expect(vectors.filter { $0.metadata.NSStoreModelVersionHashesDigest != nil }.count == 5)
        #expect(vectors.filter { $0.metadata.NSStoreModelVersionChecksumKey != nil }.count == 4)
    }

    @Test("delete rules, indexes, class names and transient properties do not change an entity hash")
    func hashIgnores() throws {
        let model = try StoreVector.named("coredata-inheritance").storeModel
        let before = model.versionHashes
        var changed = model
        for i in changed.entities.indices {
            changed.entities[i].className = nil
            changed.entities[i].indexes = [.swiftData(["whatever"])]
            for r in changed.entities[i].relationships.indices {
                changed.entities[i].relationships[r].deleteRule = .deny
            }
            changed.entities[i].attributes.append(.init(name: "scratch", type: .string, isTransient: true))
        }
        #expect(changed.versionHashes == before)
    }

    @Test("optionality, a hash modifier, a uniqueness constraint and a superentity's change do change hashes")
    func hashIncludes() throws {
        let model = try StoreVector.named("coredata-inheritance").storeModel
        let before = model.versionHashes
        func index(_ name: String, _ m: StoreModel) -> Int { m.entities.firstIndex { $0.name == name }! }

        var optional = model
        let person = index("Person", optional)
        let firstName = optional.entities[person].attributes.firstIndex { $0.name == "firstName" }!
        optional.entities[person].attributes[firstName].isOptional.toggle()
        #expect(optional.versionHashes["Person"] != before["Person"])
        #expect(optional.versionHashes["Car"] == before["Car"])

        var modifier = model
        modifier.entities[index("Person", modifier)].versionHashModifier = "2"
        #expect(modifier.versionHashes["Person"] != before["Person"])

        var unique = model
        unique.entities[index("Person", unique)].uniquenessConstraints.append(["updatedAt"])
        #expect(unique.versionHashes["Person"] != before["Person"])

        // A new attribute on Car changes Car and, through the superentity hash, its sub-entities.
        var parent = model
        parent.entities[index("Car", parent)].attributes.append(.init(name: "vin", type: .string, isOptional: true))
        for entity in ["Car", "SportCar", "ExpensiveSportCar"] {
            #expect(parent.versionHashes[entity] != before[entity], "\(entity)")
        }
        #expect(parent.versionHashes["Person"] == before["Person"])
    }
}

@Suite("StoreFormat schema mapping")
struct StoreFormatSchemaMappingTests {
    @Test("@Model classes like the resources app's give the store's hashes, digest and checksum")
    func resources() throws {
        try expectSameHashes(StoreModel(ResourcesVectorModels.schema), as: StoreVector.named("swiftdata-resources"))
    }

    @Test("@Model classes like the cart app's give the store's hashes, digest and checksum")
    func cart() throws {
        try expectSameHashes(StoreModel(CartVectorModels.schema), as: StoreVector.named("swiftdata-cart"))
    }

    @Test("Codable structs and a raw-value enum map to the cocktails store's composite attributes and hashes")
    func cocktailComposites() throws {
        let vector = try StoreVector.named("swiftdata-cocktails")
        let model = StoreModel(CocktailsVectorModels.schema)
        let expected = vector.storeModel
        for name in ["Ingredient", "IngredientBase"] {
            #expect(model.versionHashes[name] == vector.entityHashes[name], "\(name)")
            let mine = try #require(model.entity(named: name)).attributes.sorted { $0.name < $1.name }
            let theirs = try #require(expected.entity(named: name)).attributes.sorted { $0.name < $1.name }
            for (a, b) in zip(mine, theirs) {
                #expect(a.name == b.name && a.type == b.type && a.isOptional == b.isOptional, "\(name).\(a.name)")
                #expect(a.elements.map(\.name) == b.elements.map(\.name), "\(name).\(a.name) elements")
                #expect(a.elements.map(\.type) == b.elements.map(\.type), "\(name).\(a.name) element types")
            }
        }
        let prep = try #require(model.entity(named: "IngredientBase")?.attributes.first { $0.name == "prep" })
        #expect(prep.isComposite && prep.elements.allSatisfy(\.isOptional))
        let unit = try #require(model.entity(named: "Ingredient")?.attributes.first { $0.name == "unit" })
        #expect(unit.isEnumeration && unit.elements.map(\.name) == ["unit"] && unit.elements[0].type == .string)
    }

    @Test(
        "the layout of the Swift models is the store's: every statement of resources and cart, ZINGREDIENTBASE of cocktails"
    )
    func layoutFromSchema() throws {
        for (schema, name) in [
            (ResourcesVectorModels.schema, "swiftdata-resources"), (CartVectorModels.schema, "swiftdata-cart"),
        ] {
            let layout = try StoreLayout(StoreModel(schema))
            #expect(Set(layout.statements) == Set(try StoreVector.named(name).ddl), "\(name)")
        }
        let cocktails = try StoreLayout(StoreModel(CocktailsVectorModels.schema))
        let table = try #require(cocktails.statements.first { $0.hasPrefix("CREATE TABLE ZINGREDIENTBASE ") })
        #expect(try StoreVector.named("swiftdata-cocktails").ddl.contains(table))
    }

    @Test(
        "#Unique, #Index, options and a hash modifier reach the model; ephemeral is transient; [String] is binary data")
    func optionsAndConstraints() throws {
        let model = StoreModel(Schema([StfIndexed.self]))
        let e = try #require(model.entity(named: "StfIndexed"))
        #expect(e.uniquenessConstraints == [["code", "day"]])
        #expect(e.indexes == [.swiftData(["code"]), .swiftData(["day", "code"])])
        func attribute(_ name: String) throws -> StoreModel.Attribute {
            try #require(e.attributes.first { $0.name == name })
        }
        #expect(try attribute("photo").allowsExternalStorage && attribute("photo").isOptional)
        #expect(try attribute("note").preservesValueOnDeletion && attribute("note").versionHashModifier == "v2")
        #expect(try attribute("scratch").isTransient)
        #expect(try attribute("tags").type == .binaryData && !attribute("tags").isComposite)
        #expect(try attribute("day").type == .integer64 && attribute("code").type == .string)
        #expect(model.versionIdentifiers == ["1.0.0"])

        let layout = try StoreLayout(model)
        #expect(
            layout.statements.contains(
                "CREATE TABLE ZSTFINDEXED ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZDAY INTEGER, ZCODE VARCHAR, ZNOTE VARCHAR, ZPHOTO BLOB, ZTAGS BLOB )"
            ))
        #expect(
            layout.statements.contains(
                "CREATE UNIQUE INDEX Z_StfIndexed_UNIQUE_code_day ON ZSTFINDEXED (ZCODE COLLATE BINARY ASC, ZDAY COLLATE BINARY ASC)"
            ))
        #expect(
            layout.statements.contains(
                "CREATE INDEX Z_StfIndexed_SwiftDataIndexOnBinarydaycode ON ZSTFINDEXED (ZDAY COLLATE BINARY ASC, ZCODE COLLATE BINARY ASC)"
            ))
        #expect(layout.entity(named: "StfIndexed")?.properties["scratch"] == .notStored)
    }

    @Test(
        "composite elements come from a Codable struct's keys in declaration order; other Codable types are not composites"
    )
    func compositeProbe() {
        let prep = CompositeProbe.elements(of: CocktailsVectorModels.Prep.self)
        #expect(prep?.map(\.name) == ["id", "prepIngredientName", "prepRecipe"])
        #expect(prep?.map(\.type) == [.uuid, .string, .binaryData])
        struct Renamed: Codable {
            var when: Date
            var unit: CocktailsVectorModels.MeasurementUnit
            var url: URL?
            enum CodingKeys: String, CodingKey {
                case when = "timestamp"
                case unit, url
            }
        }
        #expect(CompositeProbe.elements(of: Renamed.self)?.map(\.name) == ["timestamp", "unit", "url"])
        #expect(CompositeProbe.elements(of: Renamed.self)?.map(\.type) == [.date, .string, .uri])
        enum WithPayload: Codable {
            case a(String)
            case b(Int)
        }
        #expect(CompositeProbe.elements(of: WithPayload.self) == nil)
        #expect(CompositeProbe.elements(of: Int.self) == nil)
        #expect(CompositeProbe.elements(of: [String].self) == nil)
    }
}

private func expectSameHashes(
    _ model: StoreModel, as vector: StoreVector,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(model.versionHashes == vector.entityHashes, sourceLocation: sourceLocation)
    #expect(
        model.versionHashesDigest == vector.metadata.NSStoreModelVersionHashesDigest, sourceLocation: sourceLocation)
    #expect(model.versionChecksum == vector.metadata.NSStoreModelVersionChecksumKey, sourceLocation: sourceLocation)
    #expect(model.versionIdentifiers == vector.metadata.NSStoreModelVersionIdentifiers, sourceLocation: sourceLocation)
}

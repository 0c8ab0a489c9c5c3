import Foundation
import OpenSwiftData
import Testing

/// The schema the `@Model` macro and `Schema` build from real model classes: entities,
/// attributes, relationships, constraints, indexes and inheritance.
@Suite("Schema")
struct SchemaTests {
    private func entity(_ schema: Schema, _ name: String) throws -> Schema.Entity {
        try #require(schema.entitiesByName[name], "schema has no entity \(name): \(schema.entities.map(\.name))")
    }

    private func attribute(_ e: Schema.Entity, _ name: String) throws -> Schema.Attribute {
        try #require(e.attributes.first { $0.name == name }, "\(e.name) has no attribute \(name)")
    }

    private func relationship(_ e: Schema.Entity, _ name: String) throws -> Schema.Relationship {
        try #require(e.relationships.first { $0.name == name }, "\(e.name) has no relationship \(name)")
    }

    // MARK: Entities

    @Test("Listed types are entities, in order; related models are added (CFG-04)")
    func entitiesAndReachableModels() throws {
        let schema = Schema([User.self, Category.self])
        let names = schema.entities.map(\.name)
        #expect(Array(names.prefix(2)) == ["User", "Category"])
        #expect(Set(names) == ["User", "Category", "Word"])
        #expect(schema.entity(for: Word.self)?.name == "Word")
        #expect(schema.entity(for: Product.self) == nil)
        #expect(schema.entitiesByName.count == 3)
    }

    @Test("A model listed twice is one entity")
    func duplicatesCollapse() throws {
        let schema = Schema([User.self, User.self])
        #expect(schema.entities.map(\.name) == ["User"])
    }

    // MARK: Attributes

    @Test("Attributes keep declaration order; @Transient and computed properties are absent")
    func attributeNamesInOrder() throws {
        let e = try entity(Schema([Everything.self]), "Everything")
        let names = e.attributes.map(\.name)
        #expect(names.count == 46)
        #expect(Array(names.prefix(5)) == ["int", "int8", "int16", "int32", "int64"])
        #expect(names.last == "oList")
        #expect(!names.contains("cache"))
        #expect(!names.contains("computed"))
        #expect(e.relationships.isEmpty)
        #expect(e.properties.count == 46)
    }

    @Test("Attribute value types and optionality come from the declarations")
    func attributeValueTypes() throws {
        let e = try entity(Schema([Everything.self]), "Everything")
        let expectations: [(String, Any.Type, Bool)] = [
            ("int", Int.self, false), ("int8", Int8.self, false), ("uint64", UInt64.self, false),
            ("double", Double.self, false), ("float", Float.self, false), ("bool", Bool.self, false),
            ("string", String.self, false), ("date", Date.self, false), ("uuid", UUID.self, false),
            ("url", URL.self, false), ("data", Data.self, false), ("decimal", Decimal.self, false),
            ("priority", Priority.self, false), ("mood", Mood.self, false),
            ("address", Address.self, false), ("list", [String].self, false),
            ("oInt", Int?.self, true), ("oString", String?.self, true), ("oDate", Date?.self, true),
            ("oUUID", UUID?.self, true), ("oPriority", Priority?.self, true),
            ("oAddress", Address?.self, true), ("oList", [Int]?.self, true),
        ]
        for (name, type, optional) in expectations {
            let a = try attribute(e, name)
            #expect(
                ObjectIdentifier(a.valueType) == ObjectIdentifier(type),
                "\(name): valueType \(a.valueType), expected \(type)")
            #expect(a.isOptional == optional, "\(name): isOptional")
            #expect(a.isUnique == false, "\(name): isUnique")
        }
    }

    @Test("Default values from the declaration are recorded")
    func attributeDefaults() throws {
        let e = try entity(Schema([Everything.self]), "Everything")
        #expect(try attribute(e, "int").defaultValue as? Int == 0)
        #expect(try attribute(e, "string").defaultValue as? String == "")
        #expect(try attribute(e, "priority").defaultValue as? Priority == .low)
        let words = try entity(Schema([Word.self]), "Word")
        #expect(try attribute(words, "text").defaultValue == nil)
    }

    @Test("@Attribute(.unique) marks the attribute unique and becomes a uniqueness constraint (UNQ)")
    func uniqueAttribute() throws {
        let schema = Schema([User.self, Category.self])
        let user = try entity(schema, "User")
        #expect(try attribute(user, "id").isUnique)
        #expect(try attribute(user, "name").isUnique == false)
        #expect(user.uniquenessConstraints == [["id"]])
        let category = try entity(schema, "Category")
        #expect(try attribute(category, "name").isUnique)
        #expect(category.uniquenessConstraints == [["name"]])
        #expect(try entity(schema, "Word").uniquenessConstraints.isEmpty)
    }

    @Test("#Unique and #Index groups are recorded with .unique (UNQ)")
    func uniqueAndIndexMacros() throws {
        let schema = Schema([SchNote.self, Product.self])
        let note = try entity(schema, "SchNote")
        #expect(Set(note.uniquenessConstraints) == [["title", "day"], ["code"]])
        #expect(note.uniquenessConstraints.count == 2)
        #expect(note.indices == [["day"], ["title", "day"]])
        #expect(try attribute(note, "code").isUnique)
        #expect(try attribute(note, "title").isUnique == false)
        #expect(try attribute(note, "body").isOptional)
        let product = try entity(schema, "Product")
        #expect(product.indices == [["name"], ["price", "name"]])
        #expect(product.uniquenessConstraints.isEmpty)
    }

    // MARK: Relationships

    @Test("Relationships: destination, cardinality, delete rule and declared inverse (REL)")
    func declaredRelationships() throws {
        let schema = Schema([Category.self, Product.self])
        let words = try relationship(try entity(schema, "Category"), "words")
        #expect(words.destination == "Word")
        #expect(words.isToOneRelationship == false)
        #expect(words.deleteRule == .cascade)
        #expect(words.inverseName == "category")

        let category = try relationship(try entity(schema, "Word"), "category")
        #expect(category.destination == "Category")
        #expect(category.isToOneRelationship)
        #expect(category.isOptional)
        #expect(category.deleteRule == .nullify)
        #expect(category.inverseName == "words")

        let tags = try relationship(try entity(schema, "Product"), "tags")
        #expect(tags.destination == "Tag")
        #expect(tags.isToOneRelationship == false)
        #expect(tags.inverseName == "products")
        let products = try relationship(try entity(schema, "Tag"), "products")
        #expect(products.isToOneRelationship == false)
        #expect(products.deleteRule == .nullify)
        #expect(products.inverseName == "tags")
    }

    @Test("An unambiguous inverse is inferred when neither side writes inverse:")
    func inferredInverse() throws {
        let schema = Schema([SchAuthor.self])
        #expect(Set(schema.entities.map(\.name)) == ["SchAuthor", "SchBook"])
        let books = try relationship(try entity(schema, "SchAuthor"), "books")
        #expect(books.destination == "SchBook")
        #expect(books.isToOneRelationship == false)
        #expect(books.inverseName == "author")
        let author = try relationship(try entity(schema, "SchBook"), "author")
        #expect(author.destination == "SchAuthor")
        #expect(author.isToOneRelationship)
        #expect(author.inverseName == "books")
    }

    @Test("One-way relationships are allowed and ambiguous ones get no inverse")
    func oneWayRelationships() throws {
        let schema = Schema([SchFolder.self])
        let folder = try entity(schema, "SchFolder")
        #expect(Set(schema.entities.map(\.name)) == ["SchFolder", "SchNote"])
        let pinned = try relationship(folder, "pinned")
        #expect(pinned.destination == "SchNote")
        #expect(pinned.isToOneRelationship)
        #expect(pinned.inverseName == nil)
        #expect(try relationship(folder, "archived").inverseName == nil)
        let notes = try relationship(folder, "notes")
        #expect(notes.isToOneRelationship == false)
        #expect(notes.deleteRule == .noAction)
        #expect(notes.inverseName == nil)
        #expect(try entity(schema, "SchNote").relationships.isEmpty)
        // The schema is usable: a container opens on it.
        let container = try ModelContainer(for: schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(container.schema.entities.count == 2)
    }

    // MARK: Inheritance

    @Test("Trip hierarchy: super- and sub-entities; inherited properties come first")
    func tripHierarchy() throws {
        let schema = Schema([Trip.self, BusinessTrip.self, ExecutiveTrip.self, PersonalTrip.self])
        let trip = try entity(schema, "Trip")
        let business = try entity(schema, "BusinessTrip")
        let executive = try entity(schema, "ExecutiveTrip")
        let personal = try entity(schema, "PersonalTrip")
        #expect(
            Set(schema.entities.map(\.name)) == ["Trip", "BusinessTrip", "ExecutiveTrip", "PersonalTrip", "Traveler"])
        #expect(trip.superentity == nil)
        #expect(trip.superentityName == nil)
        #expect(Set(trip.subentities.map(\.name)) == ["BusinessTrip", "PersonalTrip"])
        #expect(business.superentity?.name == "Trip")
        #expect(business.superentityName == "Trip")
        #expect(business.subentities.map(\.name) == ["ExecutiveTrip"])
        #expect(executive.superentity?.name == "BusinessTrip")
        #expect(executive.subentities.isEmpty)
        #expect(personal.superentity?.name == "Trip")
        #expect(trip.attributes.map(\.name) == ["name", "days"])
        #expect(business.attributes.map(\.name) == ["name", "days", "perdiem"])
        #expect(executive.attributes.map(\.name) == ["name", "days", "perdiem", "lounge"])
        #expect(personal.attributes.map(\.name) == ["name", "days", "reason"])
        #expect(executive.relationships.map(\.name) == ["traveler"])
        #expect(try relationship(try entity(schema, "Traveler"), "trips").destination == "Trip")
    }

    @Test("Subclasses are not discovered from their base (a missing subclass at save: inheritance suite, INH-20)")
    func subclassesNotInferred() throws {
        let schema = Schema([Trip.self])
        #expect(Set(schema.entities.map(\.name)) == ["Trip", "Traveler"])
        #expect(try entity(schema, "Trip").subentities.isEmpty)
    }

    @Test(
        "A schema listing only a subclass brings its superclasses along (a missing subclass at save: inheritance suite, INH-20)"
    )
    func subclassBringsSuperclass() throws {
        let schema = Schema([ExecutiveTrip.self])
        #expect(Set(schema.entities.map(\.name)).isSuperset(of: ["ExecutiveTrip", "BusinessTrip", "Trip"]))
        #expect(schema.entitiesByName["PersonalTrip"] == nil)
        #expect(schema.entitiesByName["ExecutiveTrip"]?.superentity?.name == "BusinessTrip")
        #expect(schema.entitiesByName["BusinessTrip"]?.superentity?.name == "Trip")
        let dir = try ScratchDirectory(prefix: "schema-sub")
        let container = try ModelContainer(for: schema, configurations: ModelConfiguration(url: dir.file("s.store")))
        let ctx = ModelContext(container)
        ctx.insert(ExecutiveTrip(name: "e", days: 1, perdiem: 2, lounge: "L"))
        try ctx.save()
        let trips = try ModelContext(container).fetch(FetchDescriptor<Trip>())
        #expect(trips.count == 1)
        #expect(trips.first is ExecutiveTrip)
    }

    // MARK: Versioned schemas

    @Test("Schema(versionedSchema:) takes the models and the version identifier")
    func versionedSchema() throws {
        let schema = Schema(versionedSchema: SchSchemaV2.self)
        #expect(schema.version == Schema.Version(2, 1, 0))
        #expect(schema.version.description == "2.1.0")
        #expect(schema.entities.map(\.name) == ["SchAuthor", "SchBook"])
        #expect(Schema([User.self]).version == Schema.Version(1, 0, 0))
        #expect(Schema.Version(1, 2, 3) < Schema.Version(1, 10, 0))
        #expect(Schema.Version(2, 0, 0) > Schema.Version(1, 99, 99))
    }

    // MARK: Invalid schemas

    @Test("An unsupported attribute type makes container creation throw .unknownSchema naming the property")
    func unsupportedAttributeType() throws {
        let error = #expect(throws: SwiftDataError.self) {
            _ = try ModelContainer(
                for: SchUnstorable.self,
                configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        }
        #expect(error?.code == SwiftDataError.unknownSchema.code)
        #expect(error?.message.contains("blob") == true, "message: \(error?.message ?? "")")
        #expect(error?.propertyName == "blob")
        #expect(error?.entityName == "SchUnstorable")
    }

    @Test("An unsupported attribute type on disk throws and creates no store file")
    func unsupportedAttributeTypeOnDisk() throws {
        let dir = try ScratchDirectory(prefix: "schema-bad")
        let url = dir.file("bad.store")
        let error = #expect(throws: SwiftDataError.self) {
            _ = try ModelContainer(for: SchUnstorable.self, configurations: ModelConfiguration(url: url))
        }
        #expect(error?.code == SwiftDataError.unknownSchema.code)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }
}

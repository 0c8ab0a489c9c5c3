import Foundation
import OpenSwiftData

// Models added for the Schema, AttributeTypes, Storage and Reliability suites. Names carry a
// `Sch`/`St` prefix so they never collide with models other suites declare.

/// Compound and single-attribute uniqueness plus an index, for schema metadata checks.
@Model final class SchNote {
    #Unique<SchNote>([\.title, \.day])
    #Index<SchNote>([\.day], [\.title, \.day])
    @Attribute(.unique) var code: String
    var title: String
    var day: Int
    var body: String?
    init(code: String, title: String, day: Int) {
        self.code = code
        self.title = title
        self.day = day
    }
}

/// A relationship pair with no `inverse:` written on either side: the inverse is inferred.
@Model final class SchAuthor {
    var name: String
    var books: [SchBook] = []
    init(name: String) { self.name = name }
}

@Model final class SchBook {
    var title: String
    var author: SchAuthor?
    init(title: String) { self.title = title }
}

/// Two one-way relationships to the same type (no inverse can be inferred: ambiguous), and a
/// one-way to-many relationship.
@Model final class SchFolder {
    var name: String
    var pinned: SchNote?
    var archived: SchNote?
    @Relationship(deleteRule: .noAction) var notes: [SchNote] = []
    init(name: String) { self.name = name }
}

/// A value type that is neither a storable primitive nor `Codable`.
struct SchNotStorable: Equatable {
    var x: Int
}

/// A model with an attribute type no store can hold: container creation must fail.
@Model final class SchUnstorable {
    var name: String
    var blob: SchNotStorable = SchNotStorable(x: 1)
    init(name: String) { self.name = name }
}

/// A versioned schema of two models.
enum SchSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 1, 0) }
    static var models: [any PersistentModel.Type] { [SchAuthor.self, SchBook.self] }
}

/// A counter row, for the two-context reliability checks.
@Model final class StCounter {
    @Attribute(.unique) var key: String
    var value: Int
    var note: String
    init(key: String, value: Int, note: String = "") {
        self.key = key
        self.value = value
        self.note = note
    }
}

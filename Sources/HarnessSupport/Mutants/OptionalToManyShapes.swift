import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

/// The `[T]?` relationship shape (every CloudKit app's), with each delete rule: the schema the
/// mutation score runs ``SchemaConformance`` on first, so a delete-rule mutant must be caught by
/// the schema-derived cases of an optional to-many as well.
@Model package final class MutantClient {
    package var name: String
    @Relationship(deleteRule: .cascade, inverse: \MutantContact.cascadeClient)
    package var cascadeContacts: [MutantContact]? = []
    @Relationship(deleteRule: .nullify, inverse: \MutantContact.nullifyClient)
    package var nullifyContacts: [MutantContact]? = []
    @Relationship(deleteRule: .deny, inverse: \MutantContact.denyClient)
    package var denyContacts: [MutantContact]? = []

    package init(name: String) { self.name = name }
}

/// The members of ``MutantClient``'s optional to-many relationships.
@Model package final class MutantContact {
    package var email: String
    package var cascadeClient: MutantClient?
    package var nullifyClient: MutantClient?
    package var denyClient: MutantClient?

    package init(email: String) { self.email = email }
}

/// The schema of ``MutantClient`` and ``MutantContact``.
package enum OptionalToManyShapes {
    /// Its name in a check's label: `schema optional-to-many DEL-02 … on memory`.
    package static let name = "optional-to-many"
    /// The two models.
    package static var schema: Schema { Schema([MutantClient.self, MutantContact.self]) }
}

import Foundation
import Observation

/// What ``ModelContext/model(for:)`` returns for an identifier whose entity no model class in
/// this process is named after (an identifier decoded from another app or schema): a deleted
/// stand-in with no properties whose `persistentModelID` is that identifier.
///
/// ```swift
/// let model = context.model(for: decodedID)   // entity "Invoice", unknown here
/// model.persistentModelID == decodedID        // true
/// model.isDeleted                             // true; `model as? Trip` is nil
/// ```
final class UnknownEntityModel: PersistentModel {
    /// The identifier this model stands for.
    let identifier: PersistentIdentifier
    var persistentBackingData: BackingData

    static var schemaMetadata: [Schema.PropertyMetadata] { [] }

    init(_ identifier: PersistentIdentifier) {
        self.identifier = identifier
        persistentBackingData = BackingData.make()
        persistentBackingData.status = .removed
        persistentBackingData.vanished = true
        persistentBackingData.storeIdentifier = identifier.storeIdentifier
    }

    /// Never called: the stand-in is not a class of any schema, so no row materialises as one.
    init(backingData: BackingData) {
        identifier = PersistentIdentifier(
            entityName: "UnknownEntityModel", storeIdentifier: nil,
            key: .temporary(PersistentIdentifier.nextTemporaryKey()))
        persistentBackingData = backingData
    }
}

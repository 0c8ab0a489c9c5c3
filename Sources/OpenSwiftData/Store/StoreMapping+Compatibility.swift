import Foundation

extension StoreMapping {
    /// The entity version hashes of the schema's model (store-format README §5), as
    /// `Z_METADATA`'s `NSStoreModelVersionHashes` holds them.
    var versionHashes: [String: Data] {
        VersionHash.entities(of: model).mapValues { Data($0) }
    }

    /// Checks a store's metadata against the schema the way Core Data does: the store opens when
    /// every entity's version hash equals the model's.
    ///
    /// Otherwise it throws ``SwiftDataError/incompatibleSchema`` naming each entity whose hash
    /// differs and, from the store's own table, what changed:
    /// ```
    /// the store was written with a different model and no migration plan covers it; it was not modified.
    ///  Entities whose version hash differs:
    ///   Trip: the models add column ZRATING; the store has column ZSCORE that the models do not
    ///   Note: the store has it, the models do not (removed or renamed)
    /// ```
    /// An entity whose columns agree changed in a way only the hash records (a type, an
    /// option, optionality, a relationship's rule or counts, a uniqueness constraint).
    func checkCompatible(_ stored: StoreMetadata, db: SQLiteConnection, url: URL?) throws {
        let expected = versionHashes
        let names = Set(expected.keys).union(stored.versionHashes.keys)
        let differing = StoreModel.sorted(names.filter { expected[$0] != stored.versionHashes[$0] })
        guard !differing.isEmpty else { return }
        var lines: [String] = []
        for name in differing.prefix(12) {
            guard expected[name] != nil else {
                lines.append("\(name): the store has it, the models do not (removed or renamed)")
                continue
            }
            guard stored.versionHashes[name] != nil else {
                lines.append("\(name): the models have it, the store does not (added or renamed)")
                continue
            }
            lines.append("\(name): " + describeColumnChanges(of: name, db: db))
        }
        if differing.count > 12 { lines.append("… and \(differing.count - 12) more") }
        throw SwiftDataError(
            SwiftDataError.incompatibleSchema.code,
            "the store was written with a different model and no migration plan covers it; it was not modified.\n Entities whose version hash differs:\n  "
                + lines.joined(separator: "\n  "),
            entityName: differing.first, url: url)
    }

    /// What differs between the columns the layout gives `entity`'s table and the store's.
    private func describeColumnChanges(of entity: String, db: SQLiteConnection) -> String {
        guard let table = layout.table(of: entity) else { return "its definition changed" }
        let rows: [[SQLValue]]
        do {
            rows = try db.rows("SELECT name FROM pragma_table_info(?)", [.text(table.name)])
        } catch {
            return "its columns could not be read (\(error))"
        }
        let stored = Set(
            rows.compactMap { row -> String? in
                if case .text(let name)? = row.first { return name }
                return nil
            })
        if stored.isEmpty { return "the store has no table \(table.name)" }
        let wanted = Set(["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name))
        let added = wanted.subtracting(stored).sorted()
        let removed = stored.subtracting(wanted).sorted()
        var parts: [String] = []
        if !added.isEmpty {
            parts.append("the models add column\(added.count > 1 ? "s" : "") \(added.joined(separator: ", "))")
        }
        if !removed.isEmpty {
            parts.append(
                "the store has column\(removed.count > 1 ? "s" : "") \(removed.joined(separator: ", ")) that the models do not"
            )
        }
        if parts.isEmpty {
            return
                "same columns in \(table.name); a type, option, optionality, delete rule, count or uniqueness constraint changed"
        }
        return parts.joined(separator: "; ")
    }
}

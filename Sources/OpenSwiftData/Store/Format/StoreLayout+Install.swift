import Foundation

extension StoreLayout {
    /// The file settings of Apple's stores, applied before the first table exists (they cannot
    /// change afterwards without a `VACUUM`): 4096-byte pages, incremental auto-vacuum.
    static let filePragmas: [String] = ["PRAGMA page_size = 4096", "PRAGMA auto_vacuum = 2"]

    /// Creates the store's tables, indexes and triggers on an empty database and writes its
    /// `Z_PRIMARYKEY` rows (`Z_MAX` 0) and `Z_METADATA` row, in one `BEGIN IMMEDIATE`
    /// transaction after ``filePragmas``. The journal mode (WAL) is the caller's choice.
    ///
    /// ```swift
    /// let layout = try StoreLayout(model)
    /// try layout.install(on: db, metadata: StoreMetadata(model: model, uuid: UUID()))
    /// ```
    /// ```sql
    /// PRAGMA page_size = 4096; PRAGMA auto_vacuum = 2;
    /// BEGIN IMMEDIATE; CREATE TABLE …; CREATE INDEX …;
    /// INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?);   -- per entity
    /// INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?); COMMIT
    /// ```
    /// - Throws: ``SQLiteError`` when a statement fails; nothing is left half-created.
    func install(on db: SQLiteConnection, metadata: StoreMetadata) throws {
        for pragma in StoreLayout.filePragmas { try db.execute(pragma) }
        try db.immediateTransaction { try createContents(on: db, metadata: metadata, skipping: []) }
    }

    /// Runs ``statements`` (except those in `skipping`) and writes the `Z_PRIMARYKEY` and
    /// `Z_METADATA` rows, inside the caller's transaction; ``filePragmas`` are the caller's.
    func createContents(on db: SQLiteConnection, metadata: StoreMetadata, skipping: Set<String>) throws {
        for statement in statements where !skipping.contains(statement) { try db.execute(statement) }
        for row in primaryKeyRows {
            try db.run(
                StoreLayout.insertPrimaryKeySQL,
                [.integer(Int64(row.entity)), .text(row.name), .integer(Int64(row.superEntity)), .integer(0)])
        }
        try db.run(StoreLayout.insertMetadataSQL, [.text(metadata.uuid), .blob(metadata.encodedPropertyList())])
    }
}

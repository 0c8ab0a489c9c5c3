import Foundation

@testable import OpenSwiftData

/// Store files as SwiftData writes them on an Apple platform, built from a reference store's own
/// DDL, `Z_PRIMARYKEY` rows and metadata (`vectors.json`), with rows written through plain
/// SQLite as Core Data writes them; shared by the Apple-store and store-file tests.
enum AppleStoreFile {
    /// A fresh directory and the store path in it.
    static func storeURL() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("osd-apple-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent("default.store")
    }

    /// Writes the vector's schema and metadata as Core Data does, then `rows`; returns the
    /// writer's connection (still open: the content is in the `-wal` file).
    static func write(
        _ name: String, at url: URL, maxKeys: [String: Int],
        rows: (SQLiteConnection) throws -> Void
    ) throws -> SQLiteConnection {
        let vector = try StoreVector.named(name)
        let db = try SQLiteConnection(path: url.path)
        try db.execute("PRAGMA page_size = 4096")
        try db.execute("PRAGMA auto_vacuum = 2")
        _ = try db.scalar("PRAGMA journal_mode = WAL")
        // Keep the WAL: nothing may be checkpointed into the main file behind the reader's back.
        try db.execute("PRAGMA wal_autocheckpoint = 0")
        try db.immediateTransaction {
            for statement in vector.ddl { try db.execute(statement) }
            for row in vector.z_primarykey {
                try db.run(
                    "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                    [
                        .integer(Int64(row.entity)), .text(row.name), .integer(Int64(row.superEntity)),
                        .integer(Int64(maxKeys[row.name] ?? 0)),
                    ])
            }
            var metadata = StoreMetadata(model: vector.storeModel, uuid: UUID())
            metadata.versionHashes = vector.entityHashes
            metadata.versionHashesDigest = vector.metadata.NSStoreModelVersionHashesDigest
            metadata.versionChecksum = vector.metadata.NSStoreModelVersionChecksumKey
            metadata.frameworkVersion = vector.metadata.NSPersistenceFrameworkVersion
            metadata.maximumFrameworkVersion = vector.metadata.NSPersistenceMaximumFrameworkVersion
            try db.run(
                "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
                [.text(metadata.uuid), .blob(metadata.encodedPropertyList())])
            // A model cache as Core Data leaves it (its content is never read here).
            try db.run("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", [.blob(Data([0x78, 0x9C, 0x03, 0x00]))])
            guard vector.hasHistory else {
                try rows(db)
                return
            }
            try db.run(
                "INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (1, 16003, 1, 'com.example.app'), (2, 16003, 1, 'App')"
            )
            try db.run(
                "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZBUNDLEIDTS, ZPROCESSIDTS, ZTIMESTAMP) VALUES (1, 16002, NULL, 1, 2, 743906532.38)"
            )
            try db.run(
                "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID) VALUES (1, 16001, NULL, 0, 1, 1, 1)"
            )
            try rows(db)
        }
        return db
    }

    /// A UUID as Core Data stores it: 16 bytes.
    static func uuidBlob(_ uuid: UUID) -> SQLValue { withUnsafeBytes(of: uuid.uuid) { .blob(Data($0)) } }

    /// The `swiftdata-resources` app's store as copied from a device: its writer closed without a
    /// checkpoint, so the file, `-wal` and `-shm` lie side by side and the rows live only in
    /// the `-wal` file. Three items (Log, Plank, Stick), two recipes, two components.
    static func resourcesCopiedFromDevice() throws -> URL {
        let url = try storeURL()
        let writer = try write(
            "swiftdata-resources", at: url,
            maxKeys: ["Component": 2, "CraftingRecipe": 2, "Item": 5]
        ) { db in
            try db.run(
                """
                INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZCRAFTINGRECIPE, ZNAME) VALUES
                (1, 3, 2, 1, 'Plank'), (2, 3, 1, NULL, 'Log'), (3, 3, 3, 2, 'Stick')
                """)
            try db.run(
                """
                INSERT INTO ZCRAFTINGRECIPE (Z_PK, Z_ENT, Z_OPT, ZPRODUCEDITEM, ZPRODUCEDITEMCOUNT) VALUES
                (1, 2, 3, 1, '4'), (2, 2, 1, 3, '2')
                """)
            try db.run(
                "INSERT INTO ZCOMPONENT (Z_PK, Z_ENT, Z_OPT, ZCOUNT, ZCRAFTINGRECIPE, ZITEM, ZID) VALUES (1, 1, 1, 1, 1, 2, ?), (2, 1, 2, 2, 2, 1, ?)",
                [uuidBlob(UUID()), uuidBlob(UUID())])
        }
        writer.disableCheckpointOnClose()
        writer.close()
        return url
    }
}

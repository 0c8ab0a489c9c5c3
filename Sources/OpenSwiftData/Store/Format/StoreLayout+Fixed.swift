import Foundation

/// The statements every store has, whatever its model: the metadata tables, the persistent
/// history tables, and the templates of derived-attribute triggers — exactly as SwiftData and
/// Core Data write them (compared byte for byte with the reference stores).
extension StoreLayout {
    /// `Z_PRIMARYKEY` (one row per entity; `Z_MAX` is the largest `Z_PK` handed out in the
    /// hierarchy, kept on the root's row), `Z_METADATA` (one row: `Z_VERSION` 1, the store UUID
    /// and the metadata plist) and `Z_MODELCACHE`.
    ///
    /// `Z_MODELCACHE` is created empty: Core Data keeps a deflated keyed archive of its
    /// `NSManagedObjectModel` there, a private format we neither need (the version hashes in
    /// `Z_METADATA` identify the model) nor can write faithfully; Core Data treats a store
    /// without a cached model like one written before the cache existed and rebuilds it from
    /// the app's model when it next saves. (That Core Data accepts the missing row is inferred,
    /// not tested on an Apple platform.)
    static let metadataTableStatements: [String] = [
        "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
        "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
        "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)",
    ]

    /// The history tables for a model whose entities preserve at most `tombstones` attribute
    /// values on deletion: ``historyTableStatements`` with `ACHANGE` extended by untyped
    /// `ZTOMBSTONE0`, `ZTOMBSTONE1`, … columns. Core Data keeps `.preserveValueOnDeletion`
    /// values in such columns, but no reference store has them, so their names and typing are
    /// unverified; models without preserved attributes get exactly the reference DDL.
    static func historyTableStatements(tombstones: Int) -> [String] {
        guard tombstones > 0 else { return historyTableStatements }
        var statements = historyTableStatements
        let extra = (0..<tombstones).map { ", ZTOMBSTONE\($0)" }.joined()
        statements[0] = statements[0].replacingOccurrences(of: "ZCOLUMNS BLOB )", with: "ZCOLUMNS BLOB\(extra) )")
        return statements
    }

    /// Inserts one `Z_PRIMARYKEY` row: `(Z_ENT, Z_NAME, Z_SUPER, Z_MAX)`.
    static let insertPrimaryKeySQL = "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)"
    /// Inserts the `Z_METADATA` row: `(Z_UUID, Z_PLIST)`.
    static let insertMetadataSQL = "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)"

    /// The history tables: `ATRANSACTION` (one row per save; the `…TS` columns point at
    /// `ATRANSACTIONSTRING` rows), `ACHANGE` (one row per inserted, updated or deleted object)
    /// and `ATRANSACTIONSTRING` (unique names). Columns are ordered by the same rule as entity
    /// tables (keys, then `FLOAT`, then `VARCHAR`, then `BLOB`).
    static let historyTableStatements: [String] = [
        "CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB )",
        "CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )",
        "CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
    ]

    /// The history tables' indexes: one per key column, the unique string names, and Core
    /// Data's two fetch indexes on `ATRANSACTION`.
    static let historyIndexStatements: [String] = [
        "CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)",
        "CREATE INDEX ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS)",
        "CREATE INDEX ATRANSACTION_ZBUNDLEIDTS_INDEX ON ATRANSACTION (ZBUNDLEIDTS)",
        "CREATE INDEX ATRANSACTION_ZCONTEXTNAMETS_INDEX ON ATRANSACTION (ZCONTEXTNAMETS)",
        "CREATE INDEX ATRANSACTION_ZPROCESSIDTS_INDEX ON ATRANSACTION (ZPROCESSIDTS)",
        "CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)",
        "CREATE INDEX Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR COLLATE BINARY ASC)",
        "CREATE INDEX Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC)",
    ]

    /// The history entities' reserved numbers.
    static let historyPrimaryKeyRows: [PrimaryKeyRow] = [
        PrimaryKeyRow(entity: 16001, name: "CHANGE", superEntity: 0),
        PrimaryKeyRow(entity: 16002, name: "TRANSACTION", superEntity: 0),
        PrimaryKeyRow(entity: 16003, name: "TRANSACTIONSTRING", superEntity: 0),
    ]

    /// The five triggers that keep a `count:(toMany)` derived attribute up to date, for
    /// attribute `attribute` of `entity` (column `column` of `table`) counting the rows of
    /// `destinationTable` whose key column `key` points at it:
    ///
    /// ```sql
    /// CREATE TRIGGER Z_DA_ZBOOK_Book_pagesCount_SOURCE_INSERT AFTER INSERT ON ZBOOK FOR EACH ROW BEGIN
    ///   UPDATE ZBOOK SET ZPAGESCOUNT = (SELECT IFNULL(COUNT(ZBOOK), 0) FROM ZPAGE WHERE ZBOOK = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK;
    ///   SELECT NSCoreDataDATriggerInsertUpdatedAffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'pagesCount', ZPAGESCOUNT) FROM ZBOOK WHERE Z_PK = NEW.Z_PK; END
    /// -- and …_PARAMETER_INSERT / _DELETE / _UPDATE_INCREMENT / _UPDATE_DECREMENT on ZPAGE, ±1
    /// ```
    /// Each trigger body calls an SQL function Core Data registers on its connections
    /// (`NSCoreDataDATrigger…AffectedObjectValue`) to refresh objects in memory; a connection
    /// without it fails the statement that fires the trigger ("no such function"), so a store
    /// that runs them must register a function of that name (Core Data-only models use derived
    /// attributes; SwiftData cannot declare them).
    static func countTriggers(
        entity: String, attribute: String, table: String, column: String,
        destinationTable: String, key: String
    ) -> [String] {
        let prefix = "Z_DA_\(destinationTable)_\(entity)_\(attribute)_PARAMETER"
        func notify(_ function: String, _ row: String) -> String {
            "SELECT \(function)('\(table)', Z_ENT, Z_PK, '\(attribute)', \(column)) FROM \(table) WHERE Z_PK = \(row); END"
        }
        let updated = "NSCoreDataDATriggerUpdatedAffectedObjectValue"
        return [
            "CREATE TRIGGER Z_DA_\(table)_\(entity)_\(attribute)_SOURCE_INSERT AFTER INSERT ON \(table) FOR EACH ROW BEGIN "
                + "UPDATE \(table) SET \(column) = (SELECT IFNULL(COUNT(\(key)), 0) FROM \(destinationTable) WHERE \(key) = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK; "
                + notify("NSCoreDataDATriggerInsertUpdatedAffectedObjectValue", "NEW.Z_PK"),
            "CREATE TRIGGER \(prefix)_DELETE AFTER DELETE ON \(destinationTable) FOR EACH ROW WHEN (OLD.\(key) NOT NULL) BEGIN "
                + "UPDATE \(table) SET \(column) = \(column) - 1 WHERE Z_PK = OLD.\(key); "
                + notify(updated, "OLD.\(key)"),
            "CREATE TRIGGER \(prefix)_INSERT AFTER INSERT ON \(destinationTable) FOR EACH ROW WHEN (NEW.\(key) NOT NULL) BEGIN "
                + "UPDATE \(table) SET \(column) = IFNULL(\(column), 0) + 1 WHERE Z_PK = NEW.\(key); "
                + notify(updated, "NEW.\(key)"),
            "CREATE TRIGGER \(prefix)_UPDATE_DECREMENT AFTER UPDATE OF \(key) ON \(destinationTable) FOR EACH ROW WHEN (OLD.\(key) NOT NULL) BEGIN "
                + "UPDATE \(table) SET \(column) = \(column) - 1 WHERE Z_PK = OLD.\(key); "
                + notify(updated, "OLD.\(key)"),
            "CREATE TRIGGER \(prefix)_UPDATE_INCREMENT AFTER UPDATE OF \(key) ON \(destinationTable) FOR EACH ROW WHEN (NEW.\(key) NOT NULL) BEGIN "
                + "UPDATE \(table) SET \(column) = \(column) + 1 WHERE Z_PK = NEW.\(key); "
                + notify(updated, "NEW.\(key)"),
        ]
    }
}

import Foundation

/// Apple's SQLite layout for a ``StoreModel``: entity numbers, tables, columns (names, types and
/// order as Core Data writes them), join tables, indexes, triggers, the metadata tables and
/// the history tables — and every `CREATE` statement. Reproduces the DDL of all six reference
/// stores byte for byte (store-format README §2–§4).
///
/// ```swift
/// let layout = try StoreLayout(StoreModel(schema))
/// layout.entity(named: "Item")?.number                 // 3 (Z_ENT)
/// layout.entity(named: "Item")?.properties["name"]     // .column("ZNAME") in table ZITEM
/// layout.statements.first                               // "CREATE TABLE ZCOMPONENT ( Z_PK INTEGER PRIMARY KEY, …"
/// ```
/// The rules, each checked against the vectors:
/// - **Entity numbers** (`Z_ENT`): root entities sorted by name, each followed depth-first by
///   its sub-entities sorted by name, from 1; history uses 16001 `CHANGE`, 16002 `TRANSACTION`,
///   16003 `TRANSACTIONSTRING`.
/// - **Tables**: one per root, `Z` + the upper-cased root name, shared by the sub-entities;
///   `Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER` first; `<TABLE>_Z_ENT_INDEX` when
///   the hierarchy has more than one entity.
/// - **Column names**: `Z` + the upper-cased property name; a composite gives one column per
///   element, named after the element alone (`ZPERSON` for `author.person`); a to-one gives its
///   key column `Z<NAME>`, plus `Z<n>_<NAME>` (the destination's `Z_ENT`) when the destination
///   has sub-entities; a to-many without inverse gives `Z<n><NAME>` on the destination's table;
///   every column that references an entity carries that entity's number `n`. Names are handed
///   out entity by entity (root first), attributes by name with elements in declaration order,
///   then to-one relationships by name, then the one-way to-many keys pointing at the entity;
///   a name already taken in the table gets the next free number (`ZID`, `ZID1`).
/// - **Column order**: that sequence, stably sorted by storage class: integers, Booleans and
///   every key column; then `FLOAT` and `TIMESTAMP` together; `DECIMAL`; `VARCHAR` (strings,
///   URLs); UUID `BLOB`s; other `BLOB`s (data, transformables). FLOAT and TIMESTAMP columns
///   interleave by name in public Core Data stores beyond the vectors (`ZBCASSETDETAIL`:
///   `ZBOOKMARKTIME FLOAT, ZDATEFINISHED TIMESTAMP, …, ZREADINGPROGRESS FLOAT`); URLs sorting
///   with strings and binary data with transformables agree with the vectors but are not
///   proven by them.
/// - **Many-to-many**: a join table `Z_<n><NAME>` named by the side whose relationship name
///   sorts last (`Cocktail.garnish` over `Garnish.cocktails`, `blocking` over `blockedBy`; equal
///   names: the lower entity number — a guess), with columns `Z_<n><INVERSE>` (the naming
///   side's keys) and `Z_<m><NAME>` (the destination's keys), its primary key on both and an
///   index `<TABLE>_<second>_INDEX` on (second, first).
/// - **Indexes**: `<TABLE>_<COLUMN>_INDEX` on every to-one key and one-way to-many key;
///   `Z_<Entity>_UNIQUE_<a>_<b>` (unique, `COLLATE BINARY ASC` per column) per uniqueness
///   constraint; `Z_<Entity>_<index name>` per fetch index (`#Index`).
/// - **Derived attributes** keep their column; a `count:(toMany)` derivation gets Core Data's
///   five triggers (see ``derivedAttributeTriggers``). Fetched and transient properties have no
///   column.
struct StoreLayout: Sendable {
    /// What to create besides the model's own tables.
    struct Options: Sendable {
        /// Create the persistent-history tables (`ATRANSACTION`, `ACHANGE`,
        /// `ATRANSACTIONSTRING`) and their `Z_PRIMARYKEY` rows, as SwiftData always does.
        var includesHistory: Bool = true
    }

    /// A column's declared type, as Core Data spells it.
    enum ColumnType: String, Hashable, Sendable {
        case integer = "INTEGER"
        case float = "FLOAT"
        case timestamp = "TIMESTAMP"
        case decimal = "DECIMAL"
        case varchar = "VARCHAR"
        case blob = "BLOB"
    }

    /// What a column stores.
    enum Role: Hashable, Sendable {
        /// An attribute's value.
        case attribute(entity: String, attribute: String)
        /// One element of a composite attribute.
        case element(entity: String, attribute: String, element: String)
        /// A to-one relationship's destination `Z_PK`.
        case toOneKey(entity: String, relationship: String)
        /// A to-one relationship's destination `Z_ENT` (the destination has sub-entities).
        case toOneEntity(entity: String, relationship: String)
        /// The owner's `Z_PK` for a to-many relationship without inverse (on the destination).
        case toManyKey(entity: String, relationship: String)
    }

    /// A column of an entity table (after `Z_PK`, `Z_ENT`, `Z_OPT`).
    struct Column: Hashable, Sendable {
        var name: String
        var type: ColumnType
        var role: Role
    }

    /// The table of one inheritance hierarchy.
    struct Table: Hashable, Sendable {
        /// `Z` + the root entity's name, upper-cased.
        var name: String
        /// The root entity.
        var root: String
        /// The entities stored here, root first, in entity-number order.
        var entities: [String]
        /// The columns after `Z_PK, Z_ENT, Z_OPT`, in `CREATE TABLE` order.
        var columns: [Column]
    }

    /// The join table of a many-to-many relationship.
    struct JoinTable: Hashable, Sendable {
        /// `Z_<n><NAME>`.
        var name: String
        /// The entity whose relationship names the table.
        var entity: String
        /// That relationship.
        var relationship: String
        /// Holds the `Z_PK`s of `entity`'s objects: a row (a, b) means that `relationship` of
        /// object a contains object b (`Z_2BLOCKEDBY` = a, `Z_2BLOCKING` = b: a is blocking b).
        var ownerColumn: String
        /// Holds the `Z_PK`s of the destination's objects.
        var destinationColumn: String
    }

    /// Where one property's value lives.
    enum PropertyStorage: Hashable, Sendable {
        /// A column of the entity's table.
        case column(String)
        /// A composite's columns, one per element.
        case composite([ElementColumn])
        /// A to-one: the key column, and the entity column when the destination has sub-entities.
        case toOne(key: String, entity: String?)
        /// A to-many whose inverse is a to-one: the destination table's key column.
        case toManyThroughInverse(table: String, key: String)
        /// A to-many without inverse: the key column it owns on the destination table.
        case toManyWithoutInverse(table: String, key: String)
        /// A many-to-many: the join table, the column holding this object's `Z_PK` and the one
        /// holding the related objects'. `Cocktail.garnish` of cocktail 7:
        /// ```sql
        /// SELECT Z_2GARNISH FROM Z_1GARNISH WHERE Z_1COCKTAILS = 7
        /// ```
        case manyToMany(joinTable: String, ownColumn: String, otherColumn: String)
        /// Not stored: transient attributes and relationships, fetched properties.
        case notStored
    }

    /// A composite element's column.
    struct ElementColumn: Hashable, Sendable {
        var element: String
        var column: String
    }

    /// One entity's place in the store.
    struct EntityLayout: Hashable, Sendable {
        var name: String
        /// `Z_ENT`.
        var number: Int
        /// The parent's `Z_ENT`, 0 for a root (`Z_PRIMARYKEY.Z_SUPER`).
        var superNumber: Int
        /// The table it shares with its hierarchy.
        var table: String
        /// Every property, inherited ones included, by name.
        var properties: [String: PropertyStorage]
    }

    /// A row `Z_PRIMARYKEY` starts with (`Z_MAX` = 0).
    struct PrimaryKeyRow: Hashable, Sendable {
        var entity: Int
        var name: String
        var superEntity: Int
    }

    /// The model laid out.
    let model: StoreModel
    /// The entities in entity-number order.
    let entities: [EntityLayout]
    /// The entity tables, in the order of their roots' numbers.
    let tables: [Table]
    /// The many-to-many join tables.
    let joinTables: [JoinTable]
    /// `Z_PRIMARYKEY`'s initial rows, history rows included when created.
    let primaryKeyRows: [PrimaryKeyRow]
    /// Every `CREATE` statement: tables, then indexes, then triggers.
    let statements: [String]
    /// `Entity.attribute` of derived attributes whose expression is not `count:(toMany)`:
    /// they get a column but no triggers, so nothing keeps them up to date.
    let derivedAttributesWithoutTriggers: [String]

    /// The layout of `entity`.
    func entity(named name: String) -> EntityLayout? { entities.first { $0.name == name } }

    /// The table called `name`.
    func table(named name: String) -> Table? { tables.first { $0.name == name } }

    /// The table of `entity`.
    func table(of entity: String) -> Table? { self.entity(named: entity).flatMap { table(named: $0.table) } }
}

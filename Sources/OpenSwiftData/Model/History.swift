import Foundation

// SwiftData's persistent-history API (iOS 18): every save that changes something records one
// transaction with one change per inserted, updated and deleted row, in Apple's history tables
// (`ATRANSACTION`, `ACHANGE`, `ATRANSACTIONSTRING`), so history an Apple app wrote reads here
// and history written here reads there. Read it with `ModelContext.fetchHistory(_:)`.

/// A history token: a position in a store's history, to fetch what happened after it.
///
/// ```swift
/// let token = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token
/// ```
public protocol HistoryToken: Comparable, Hashable, Codable, Sendable {}

/// The position of one transaction in one store's history. Tokens of one store order as their
/// transactions were saved; persist one (it is `Codable`) to resume reading history later.
///
/// ```swift
/// let newer = #Predicate<DefaultHistoryTransaction> { $0.token > lastToken }
/// ```
public struct DefaultHistoryToken: HistoryToken, CustomStringConvertible {
    /// The store the transaction belongs to (``ModelContext``'s store `Z_UUID`).
    public let storeIdentifier: String
    /// The transaction's number (`ATRANSACTION.Z_PK`), increasing with every save.
    public let transactionIdentifier: Int64

    /// A token for transaction `transactionIdentifier` of store `storeIdentifier`.
    public init(storeIdentifier: String, transactionIdentifier: Int64) {
        self.storeIdentifier = storeIdentifier
        self.transactionIdentifier = transactionIdentifier
    }

    /// Orders by store, then by transaction.
    public static func < (lhs: DefaultHistoryToken, rhs: DefaultHistoryToken) -> Bool {
        (lhs.storeIdentifier, lhs.transactionIdentifier) < (rhs.storeIdentifier, rhs.transactionIdentifier)
    }

    /// `<store>:<transaction>`.
    public var description: String { "\(storeIdentifier):\(transactionIdentifier)" }
}

/// One saved transaction: who saved, when, and what changed.
public protocol HistoryTransaction: Hashable, Identifiable, Sendable {
    /// The token type positioning this transaction in its store's history.
    associatedtype TokenType: HistoryToken
    /// ``ModelContext/author`` of the context that saved, if it had one.
    var author: String? { get }
    /// One change per row the save inserted, updated or deleted.
    var changes: [HistoryChange] { get }
    /// The store the transaction was saved to.
    var storeIdentifier: String { get }
    /// When the save committed.
    var timestamp: Date { get }
    /// The transaction's position in its store's history.
    var token: TokenType { get }
    /// The transaction's number in its store.
    var transactionIdentifier: Int64 { get }
}

/// A transaction as the SQLite store records it (`ATRANSACTION`).
///
/// ```swift
/// for transaction in try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()) {
///     print(transaction.author ?? "-", transaction.changes.count)
/// }
/// ```
public struct DefaultHistoryTransaction: HistoryTransaction, CustomStringConvertible {
    /// The saving context's ``ModelContext/author`` (`ATRANSACTION.ZAUTHORTS`), if it had one.
    public let author: String?
    /// One change per row the save inserted, updated or deleted, in `ACHANGE` order.
    public let changes: [HistoryChange]
    /// The store's UUID (`Z_METADATA.Z_UUID`).
    public let storeIdentifier: String
    /// When the save committed (`ZTIMESTAMP`).
    public let timestamp: Date
    /// This transaction's position in the store's history.
    public let token: DefaultHistoryToken
    /// The transaction's key (`ATRANSACTION.Z_PK`), increasing with every save.
    public let transactionIdentifier: Int64
    /// The saving app's bundle identifier (on Linux: the process name unless the bundle has one).
    public let bundleIdentifier: String
    /// The saving process's name.
    public let processIdentifier: String

    /// The transaction's number: transactions are identified within their store.
    public var id: Int64 { transactionIdentifier }

    /// Transactions are equal when they are the same transaction of the same store.
    public static func == (lhs: DefaultHistoryTransaction, rhs: DefaultHistoryTransaction) -> Bool {
        lhs.storeIdentifier == rhs.storeIdentifier && lhs.transactionIdentifier == rhs.transactionIdentifier
    }

    /// Hashes the store and transaction number.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storeIdentifier)
        hasher.combine(transactionIdentifier)
    }

    /// `transaction 3 by widget at <date>: 2 changes`.
    public var description: String {
        "transaction \(transactionIdentifier) by \(author ?? "-") at \(timestamp): \(changes.count) change(s)"
    }
}

/// One change of a transaction.
///
/// ```swift
/// switch change {
/// case .insert(let insert): print("inserted", insert.changedPersistentIdentifier)
/// case .update(let update): print("updated", update.changedPersistentIdentifier)
/// case .delete(let delete): print("deleted", delete.changedPersistentIdentifier)
/// @unknown default: break
/// }
/// ```
public enum HistoryChange: Sendable, Hashable {
    /// A row was inserted.
    case insert(any HistoryInsert)
    /// A row's properties were changed (the values are not recorded, only which ones).
    case update(any HistoryUpdate)
    /// A row was deleted; its `.preserveValueOnDeletion` values are in the tombstone.
    case delete(any HistoryDelete)

    /// The identifier of the changed row's model.
    public var changedPersistentIdentifier: PersistentIdentifier {
        switch self {
        case .insert(let c): c.changedPersistentIdentifier
        case .update(let c): c.changedPersistentIdentifier
        case .delete(let c): c.changedPersistentIdentifier
        }
    }

    /// The change's number (`ACHANGE.Z_PK`).
    public var changeIdentifier: Int64 {
        switch self {
        case .insert(let c): c.changeIdentifier
        case .update(let c): c.changeIdentifier
        case .delete(let c): c.changeIdentifier
        }
    }

    /// The number of the transaction the change belongs to.
    public var transactionIdentifier: Int64 {
        switch self {
        case .insert(let c): c.transactionIdentifier
        case .update(let c): c.transactionIdentifier
        case .delete(let c): c.transactionIdentifier
        }
    }

    /// Changes are equal when they are the same change of the same store.
    public static func == (lhs: HistoryChange, rhs: HistoryChange) -> Bool {
        lhs.changeIdentifier == rhs.changeIdentifier
            && lhs.changedPersistentIdentifier == rhs.changedPersistentIdentifier
    }

    /// Hashes the change number and the changed row.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(changeIdentifier)
        hasher.combine(changedPersistentIdentifier)
    }
}

/// An inserted row.
public protocol HistoryInsert<Model>: Sendable {
    /// The model class of the row.
    associatedtype Model: PersistentModel
    /// The change's number.
    var changeIdentifier: Int64 { get }
    /// The inserted row's identifier.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The transaction's number.
    var transactionIdentifier: Int64 { get }
}

/// An updated row and which of its properties changed.
public protocol HistoryUpdate<Model>: Sendable {
    /// The model class of the row.
    associatedtype Model: PersistentModel
    /// The change's number.
    var changeIdentifier: Int64 { get }
    /// The updated row's identifier.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The transaction's number.
    var transactionIdentifier: Int64 { get }
    /// The properties the save changed (attributes and relationships; not their values).
    var updatedAttributes: [PartialKeyPath<Model>] { get }
}

/// A deleted row and its preserved values.
public protocol HistoryDelete<Model>: Sendable {
    /// The model class of the row.
    associatedtype Model: PersistentModel
    /// The change's number.
    var changeIdentifier: Int64 { get }
    /// The deleted row's identifier.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The transaction's number.
    var transactionIdentifier: Int64 { get }
    /// The values of the row's `.preserveValueOnDeletion` attributes when it was deleted.
    var tombstone: HistoryTombstone<Model> { get }
}

/// An insert as the SQLite store records it.
public struct DefaultHistoryInsert<Model: PersistentModel>: HistoryInsert, Hashable {
    /// The change's key (`ACHANGE.Z_PK`).
    public let changeIdentifier: Int64
    /// The inserted row's identifier.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The transaction's key.
    public let transactionIdentifier: Int64
}

/// An update as the SQLite store records it (`ACHANGE.ZCOLUMNS`: one bit per property).
/// (Key paths are immutable values; they are not marked `Sendable` by the standard library.)
public struct DefaultHistoryUpdate<Model: PersistentModel>: HistoryUpdate, Hashable, @unchecked Sendable {
    /// The change's key (`ACHANGE.Z_PK`).
    public let changeIdentifier: Int64
    /// The updated row's identifier.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The transaction's key.
    public let transactionIdentifier: Int64
    /// The properties whose bits `ZCOLUMNS` sets, as key paths of `Model`.
    public let updatedAttributes: [PartialKeyPath<Model>]
}

/// A delete as the SQLite store records it.
public struct DefaultHistoryDelete<Model: PersistentModel>: HistoryDelete, Hashable {
    /// The change's key (`ACHANGE.Z_PK`).
    public let changeIdentifier: Int64
    /// The deleted row's identifier.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The transaction's key.
    public let transactionIdentifier: Int64
    /// The row's `.preserveValueOnDeletion` values (`ZTOMBSTONE0…`).
    public let tombstone: HistoryTombstone<Model>

    /// Deletes are equal when they are the same change.
    public static func == (lhs: DefaultHistoryDelete, rhs: DefaultHistoryDelete) -> Bool {
        lhs.changeIdentifier == rhs.changeIdentifier
            && lhs.changedPersistentIdentifier == rhs.changedPersistentIdentifier
    }

    /// Hashes the change number and the deleted row.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(changeIdentifier)
        hasher.combine(changedPersistentIdentifier)
    }
}

/// The `.preserveValueOnDeletion` values of a deleted row, by key path.
///
/// ```swift
/// if case .delete(let delete as DefaultHistoryDelete<Trip>) = change {
///     let name = delete.tombstone[\Trip.name] as? String
/// }
/// ```
public struct HistoryTombstone<Model: PersistentModel>: Sequence, @unchecked Sendable {
    let values: [(keyPath: PartialKeyPath<Model>, value: any Sendable)]

    /// The preserved value of `keyPath`, or `nil` when the attribute is not preserved (or was nil).
    public subscript(keyPath: PartialKeyPath<Model>) -> (any Sendable)? {
        values.first { $0.keyPath == keyPath }?.value
    }

    /// The preserved (key path, value) pairs.
    public func makeIterator() -> IndexingIterator<[(keyPath: PartialKeyPath<Model>, value: any Sendable)]> {
        values.makeIterator()
    }
}

/// Which transactions ``ModelContext/fetchHistory(_:)`` returns, in which order, how many.
///
/// ```swift
/// var latest = HistoryDescriptor<DefaultHistoryTransaction>()
/// latest.sortBy = [SortDescriptor(\.transactionIdentifier, order: .reverse)]
/// latest.fetchLimit = 1
/// ```
public struct HistoryDescriptor<T: HistoryTransaction>: Sendable {
    /// The transactions to return (`nil`: all). Comparisons of `token`, `transactionIdentifier`,
    /// `timestamp`, `author` and `storeIdentifier` with captured values run as SQL; the rest in
    /// Swift, with the same result.
    public var predicate: Predicate<T>?
    /// The order (empty: the order they were saved in).
    public var sortBy: [SortDescriptor<T>]
    /// At most this many transactions (`nil`: no limit).
    public var fetchLimit: Int?

    /// A descriptor for the transactions `predicate` accepts.
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = [], fetchLimit: Int? = nil) {
        self.predicate = predicate
        self.sortBy = sortBy
        self.fetchLimit = fetchLimit
    }
}

extension HistoryDescriptor where T == DefaultHistoryTransaction {
    /// The transactions saved after `token`, oldest first: the same descriptor as
    /// `HistoryDescriptor(predicate: #Predicate { $0.token > token })` (HIS-04), the way an app
    /// that processes history remembers where it stopped. A `nil` token (nothing processed yet)
    /// selects every transaction.
    ///
    /// ```swift
    /// let changes = try context.fetchHistory(HistoryDescriptor(after: lastToken))
    /// lastToken = changes.last?.token ?? lastToken
    /// ```
    /// Like the predicate, a token whose transaction ``ModelContext/deleteHistory(_:)`` removed
    /// makes ``ModelContext/fetchHistory(_:)`` throw ``SwiftDataError/historyTokenExpired``.
    public init(after token: DefaultHistoryToken?, sortBy: [SortDescriptor<T>] = [], fetchLimit: Int? = nil) {
        guard let token else {
            self.init(sortBy: sortBy, fetchLimit: fetchLimit)
            return
        }
        self.init(predicate: #Predicate { $0.token > token }, sortBy: sortBy, fetchLimit: fetchLimit)
    }
}

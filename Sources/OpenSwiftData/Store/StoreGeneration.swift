/// When a row was read: the store's commit counters at that time (see
/// ``SQLiteStore/generation(_:)``). Equal generations mean the row cannot have changed.
struct StoreGeneration: Equatable {
    var local: UInt64
    var external: Int64
    /// Never equal to a real generation: forces the next refresh.
    static let unknown = StoreGeneration(local: .max, external: .min)
}

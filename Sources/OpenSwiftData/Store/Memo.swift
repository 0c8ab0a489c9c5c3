import Foundation

/// Values built the first time their key is asked for, then kept: the SQL a table or a mapping
/// writes once and every fetch and save of a container's contexts reads, from any thread
/// (hence the lock; a value is built under it, so each is built once).
final class Memo<Key: Hashable, Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Key: Value] = [:]

    /// The value of `key`: the kept one, else `build()`'s, kept.
    func value(_ key: Key, _ build: () -> Value) -> Value {
        lock.lock()
        defer { lock.unlock() }
        if let value = values[key] { return value }
        let value = build()
        values[key] = value
        return value
    }
}

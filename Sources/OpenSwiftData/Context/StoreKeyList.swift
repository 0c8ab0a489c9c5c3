/// The keys of a batched read, in fetch order, held as runs of consecutive keys while they come
/// in runs and as a plain array otherwise.
///
/// A read of a whole table in key order is one run per gap left by deleted rows, so a batched
/// read of a million rows holds a few runs instead of eight megabytes of keys, and its memory
/// stays what one batch needs. Keys in any other order (a sort, a filter that skips most rows)
/// switch to the plain array as soon as runs stop paying: the list never holds more than a plain
/// array of its keys plus a small constant.
struct StoreKeyList: RandomAccessCollection {
    private enum Storage {
        /// Run `i` is the keys `starts[i] ..< starts[i] + (ends[i] - ends[i - 1])`; `ends` is the
        /// running count of keys through each run.
        case runs(starts: [Int64], ends: [Int])
        case plain([Int64])
    }

    private var storage: Storage = .runs(starts: [], ends: [])

    /// Runs are kept while they average at least this many keys (measured once there are more
    /// than ``runsBeforeCheck`` runs).
    private static let minimumAverageRun = 4
    private static let runsBeforeCheck = 64

    init() {}

    /// A list of `keys` (for tests and callers that already hold them).
    init<S: Sequence>(_ keys: S) where S.Element == Int64 {
        for key in keys { append(key) }
    }

    /// The `count` consecutive keys from `first` (one run; `count` > 0).
    init(run first: Int64, count: Int) {
        storage = .runs(starts: [first], ends: [count])
    }

    /// Adds `key` after the last key.
    mutating func append(_ key: Int64) {
        switch storage {
        case .plain(var keys):
            storage = .runs(starts: [], ends: [])  // keeps `keys` uniquely referenced
            keys.append(key)
            storage = .plain(keys)
        case .runs(var starts, var ends):
            storage = .runs(starts: [], ends: [])
            let count = ends.last ?? 0
            // The key after the last run's end continues it (never across Int64.max).
            let runEnd = starts.last.map {
                $0.addingReportingOverflow(Int64(count - (ends.count > 1 ? ends[ends.count - 2] : 0)))
            }
            if let runEnd, !runEnd.overflow, runEnd.partialValue == key {
                ends[ends.count - 1] = count + 1
            } else {
                starts.append(key)
                ends.append(count + 1)
            }
            if starts.count > Self.runsBeforeCheck, starts.count * Self.minimumAverageRun > count + 1 {
                storage = .plain(Self.expand(starts: starts, ends: ends, Self.runIndex(0, ends), 0..<(count + 1)))
            } else {
                storage = .runs(starts: starts, ends: ends)
            }
        }
    }

    /// Whether the keys are held as runs (for tests).
    var isRunLength: Bool {
        if case .runs = storage { return true }
        return false
    }

    /// The first position, 0.
    var startIndex: Int { 0 }
    /// The number of keys.
    var endIndex: Int {
        switch storage {
        case .plain(let keys): return keys.count
        case .runs(_, let ends): return ends.last ?? 0
        }
    }

    /// The key at `position`.
    subscript(position: Int) -> Int64 {
        switch storage {
        case .plain(let keys):
            return keys[position]
        case .runs(let starts, let ends):
            precondition(position >= 0 && position < (ends.last ?? 0), "StoreKeyList index out of range")
            let run = Self.runIndex(position, ends)
            return starts[run] + Int64(position - (run > 0 ? ends[run - 1] : 0))
        }
    }

    /// The keys at `positions`, as an array slice (one batch's keys).
    func keys(_ positions: Range<Int>) -> ArraySlice<Int64> {
        switch storage {
        case .plain(let keys):
            return keys[positions]
        case .runs(let starts, let ends):
            precondition(positions.lowerBound >= 0 && positions.upperBound <= (ends.last ?? 0))
            guard !positions.isEmpty else { return [] }
            return Self.expand(starts: starts, ends: ends, Self.runIndex(positions.lowerBound, ends), positions)[...]
        }
    }

    /// The run holding position `position`: the first whose running count is above it.
    private static func runIndex(_ position: Int, _ ends: [Int]) -> Int {
        var low = 0
        var high = ends.count - 1
        while low < high {
            let mid = (low + high) / 2
            if ends[mid] > position { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// The keys at `positions`, starting in run `run`.
    private static func expand(starts: [Int64], ends: [Int], _ run: Int, _ positions: Range<Int>) -> [Int64] {
        var out: [Int64] = []
        out.reserveCapacity(positions.count)
        var run = run
        var position = positions.lowerBound
        while position < positions.upperBound {
            let runStart = run > 0 ? ends[run - 1] : 0
            let end = Swift.min(ends[run], positions.upperBound)
            let first = starts[run] + Int64(position - runStart)
            for offset in 0..<(end - position) { out.append(first + Int64(offset)) }
            position = end
            run += 1
        }
        return out
    }
}

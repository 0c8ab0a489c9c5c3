import Foundation

/// One statement SQLite finished running, as ``ModelContainer/setSQLTrace(_:)`` reports it.
///
/// The SQL is the statement's text with `?` placeholders: bound values are never part of it, so
/// a log of these events holds no user data.
/// ```swift
/// try container.setSQLTrace { event in print(event.sql, event.nanoseconds) }
/// ```
public struct SQLTraceEvent: Sendable, Equatable, CustomStringConvertible {
    /// The statement's SQL text, as prepared (placeholders, not values).
    public var sql: String
    /// How long the statement ran, from its first step to its end or reset, in nanoseconds
    /// (monotonic clock between `SQLITE_TRACE_STMT` and `SQLITE_TRACE_PROFILE`).
    public var nanoseconds: Int64

    /// Creates an event.
    public init(sql: String, nanoseconds: Int64) {
        self.sql = sql
        self.nanoseconds = nanoseconds
    }

    /// `"[0.042 ms] SELECT …"`: the time in milliseconds, then the SQL.
    public var description: String {
        "[" + String(format: "%.3f", Double(nanoseconds) / 1e6) + " ms] " + sql
    }
}

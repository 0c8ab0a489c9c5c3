import CSQLite
import Foundation

/// The handler a connection's trace calls, boxed so SQLite can hold it as a context pointer,
/// with the monotonic start time of each running statement (SQLite's own profile time has
/// millisecond resolution on Unix, too coarse for single statements).
final class SQLTraceBox {
    let handler: (SQLTraceEvent) -> Void
    /// Start times by statement, set at `SQLITE_TRACE_STMT` and taken at `SQLITE_TRACE_PROFILE`.
    /// Only touched by the thread using the connection, which the caller serialises.
    var starts: [OpaquePointer: UInt64] = [:]
    init(_ handler: @escaping (SQLTraceEvent) -> Void) { self.handler = handler }

    /// Nanoseconds on the monotonic clock.
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}

extension SQLiteConnection {
    /// Calls `handler` after every statement this connection runs (prepared, cached, or inside
    /// ``execute(_:)``), with its SQL and duration; `nil` removes the trace.
    ///
    /// ```c
    /// sqlite3_trace_v2(db, SQLITE_TRACE_STMT | SQLITE_TRACE_PROFILE, callback, box)   // (db, 0, NULL, NULL) stops it
    /// ```
    /// The handler runs on the thread using the connection, while the caller holds it: keep it
    /// short, and never use the connection from inside it.
    /// [SQLite: sqlite3_trace_v2](https://sqlite.org/c3ref/trace_v2.html)
    /// - Throws: ``SQLiteError`` when the connection is closed or SQLite refuses the trace.
    package func setTrace(_ handler: ((SQLTraceEvent) -> Void)?) throws {
        guard let handle else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "the connection is closed; a trace cannot be set")
        }
        guard let handler else {
            let rc = sqlite3_trace_v2(handle, 0, nil, nil)
            guard rc == SQLITE_OK else {
                throw SQLiteError(
                    code: rc, message: "the trace could not be removed: " + String(cString: sqlite3_errstr(rc)))
            }
            traceBox = nil
            return
        }
        let box = SQLTraceBox(handler)
        let mask = UInt32(SQLITE_TRACE_STMT | SQLITE_TRACE_PROFILE)
        let rc = sqlite3_trace_v2(
            handle, mask,
            { event, context, statement, detail in
                guard let context, let statement else { return 0 }
                let box = Unmanaged<SQLTraceBox>.fromOpaque(context).takeUnretainedValue()
                let stmt = OpaquePointer(statement)
                if event == UInt32(SQLITE_TRACE_STMT) {
                    // A trigger's sub-program reports "-- …" for a statement already started.
                    let text = detail?.assumingMemoryBound(to: CChar.self)
                    if let text, text[0] == 0x2D, text[1] == 0x2D { return 0 }
                    box.starts[stmt] = SQLTraceBox.now()
                    return 0
                }
                guard event == UInt32(SQLITE_TRACE_PROFILE) else { return 0 }
                let nanoseconds: Int64
                if let start = box.starts.removeValue(forKey: stmt) {
                    nanoseconds = Int64(SQLTraceBox.now() &- start)
                } else {
                    nanoseconds = detail?.load(as: Int64.self) ?? 0
                }
                let sql = sqlite3_sql(stmt).map { String(cString: $0) } ?? ""
                box.handler(SQLTraceEvent(sql: sql, nanoseconds: nanoseconds))
                return 0
            }, Unmanaged.passUnretained(box).toOpaque())
        guard rc == SQLITE_OK else {
            throw SQLiteError(
                code: rc, message: "the trace could not be installed: " + String(cString: sqlite3_errstr(rc)))
        }
        // SQLite now calls the new box only; the old one may go.
        traceBox = box
    }

    /// Whether a trace handler is installed (``setTrace(_:)``).
    package var isTraced: Bool { traceBox != nil }
}

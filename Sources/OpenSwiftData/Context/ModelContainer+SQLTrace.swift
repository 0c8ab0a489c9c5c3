import Foundation

extension ModelContainer {
    /// The environment variable that makes every container print its SQL: `OPENSWIFTDATA_SQL_LOG=1`
    /// (any value but empty or `0`) writes one line per statement to standard error.
    ///
    /// ```
    /// $ OPENSWIFTDATA_SQL_LOG=1 swift run MyBenchmarks
    /// [sql 0.041 ms] SELECT t."Z_PK", t."Z_ENT", … FROM "Item" t WHERE (t."code" = ?) ORDER BY t."Z_PK"
    /// ```
    public static let sqlLogEnvironmentVariable: String = "OPENSWIFTDATA_SQL_LOG"

    /// Calls `handler` after every SQL statement the container's store runs (fetches, counts,
    /// saves, index changes), with the statement's SQL and how long SQLite took; `nil` stops it.
    ///
    /// ```swift
    /// try container.setSQLTrace { event in print(event) }   // "[0.042 ms] SELECT … WHERE (t."code" = ?) …"
    /// _ = try container.mainContext.fetchCount(FetchDescriptor<Item>())
    /// try container.setSQLTrace(nil)
    /// ```
    /// The SQL has `?` placeholders, never bound values. Statements run while the container
    /// opened or created the store are not reported. With ``sqlLogEnvironmentVariable`` set the
    /// log line is written as well; the handler runs on the thread of the fetch or save, while
    /// the store is held, so it must not use the container.
    /// - Throws: ``SwiftDataError/storeError`` after ``erase()`` closed the store, or when SQLite
    ///   refuses the trace.
    public func setSQLTrace(_ handler: (@Sendable (SQLTraceEvent) -> Void)?) throws {
        try setSQLTrace(handler, environment: ProcessInfo.processInfo.environment)
    }

    /// ``setSQLTrace(_:)`` with the environment and the log's output given (for tests).
    func setSQLTrace(
        _ handler: (@Sendable (SQLTraceEvent) -> Void)?, environment: [String: String],
        write: @escaping (String) -> Void = SQLLog.standardError
    ) throws {
        let log = SQLLog.fromEnvironment(environment, write: write)
        let combined: ((SQLTraceEvent) -> Void)?
        switch (log, handler) {
        case (nil, nil): combined = nil
        case (let log?, nil): combined = log
        case (nil, let handler?): combined = handler
        case (let log?, let handler?):
            combined = {
                log($0)
                handler($0)
            }
        }
        do {
            for store in stack.stores { try store.withConnection { db in try db.setTrace(combined) } }
        } catch let e as SQLiteError {
            throw SwiftDataError(SwiftDataError.storeError.code, "the SQL trace could not be set", underlying: e)
        }
    }

    /// Installs the environment's SQL log, if any (called once the store is open).
    func installEnvironmentSQLLog() throws {
        guard SQLLog.fromEnvironment(ProcessInfo.processInfo.environment) != nil else { return }
        try setSQLTrace(nil)
    }
}

/// The standard-error SQL log that ``ModelContainer/sqlLogEnvironmentVariable`` switches on.
enum SQLLog {
    /// Whether `environment` asks for the log.
    static func isEnabled(_ environment: [String: String]) -> Bool {
        let value = environment[ModelContainer.sqlLogEnvironmentVariable] ?? ""
        return !value.isEmpty && value != "0"
    }

    /// The logger `environment` asks for, or `nil`; it hands each line to `write`.
    static func fromEnvironment(
        _ environment: [String: String],
        write: @escaping (String) -> Void = standardError
    ) -> ((SQLTraceEvent) -> Void)? {
        guard isEnabled(environment) else { return nil }
        return { event in write(line(event) + "\n") }
    }

    /// Writes `text` to standard error.
    static func standardError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// One log line: `[sql 0.042 ms] SELECT …`, the SQL on one line.
    static func line(_ event: SQLTraceEvent) -> String {
        let sql = event.sql.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: " ")
        return "[sql " + String(format: "%.3f", Double(event.nanoseconds) / 1e6) + " ms] " + sql
    }
}

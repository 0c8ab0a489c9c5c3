import Foundation
import Testing

@testable import OpenSwiftData

/// Collects trace events from any thread.
final class TraceRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var _events: [SQLTraceEvent] = []
    var events: [SQLTraceEvent] { lock.withLock { _events } }
    var statements: [String] { events.map(\.sql) }
    func record(_ e: SQLTraceEvent) { lock.withLock { _events.append(e) } }
    func clear() { lock.withLock { _events.removeAll() } }
}

/// `ModelContainer.setSQLTrace` and the `OPENSWIFTDATA_SQL_LOG` line format.
@Suite("SQLTrace")
struct SQLTraceTests {
    @Test("the trace reports every statement of a fetch, a count and a save, then stops", arguments: StoreKind.allCases)
    func traceReportsStatements(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "trace")
        let container = try makePlanContainer(kind, rows: 20, in: dir)
        let recorder = TraceRecorder()
        try container.setSQLTrace { recorder.record($0) }
        let context = ModelContext(container)
        let descriptor = FetchDescriptor<PlanItem>(predicate: #Predicate { $0.code < 5 })
        #expect(try context.fetch(descriptor).count == 5)
        #expect(try context.fetchCount(descriptor) == 5)
        let fetchSQL = try context.explain(descriptor, as: .fetch).sql
        let countSQL = try context.explain(descriptor, as: .count).sql
        #expect(recorder.statements.contains(fetchSQL), "\(recorder.statements)")
        #expect(recorder.statements.contains(countSQL), "\(recorder.statements)")
        #expect(recorder.events.allSatisfy { $0.nanoseconds >= 0 })
        // Bound values never appear in the SQL.
        #expect(!recorder.statements.contains { $0.contains("user1@") })

        recorder.clear()
        context.insert(PlanItem.row(100))
        try context.save()
        #expect(recorder.statements.contains { $0.hasPrefix("BEGIN") }, "\(recorder.statements)")
        #expect(recorder.statements.contains { $0.hasPrefix("INSERT") }, "\(recorder.statements)")
        #expect(recorder.statements.contains { $0.hasPrefix("COMMIT") }, "\(recorder.statements)")

        try container.setSQLTrace(nil)
        recorder.clear()
        _ = try context.fetchCount(descriptor)
        #expect(recorder.events.isEmpty)
    }

    @Test("the log line holds the time in milliseconds and the SQL on one line")
    func logLine() {
        let line = SQLLog.line(SQLTraceEvent(sql: "SELECT 1\n  FROM t", nanoseconds: 42_000))
        #expect(line == "[sql 0.042 ms] SELECT 1 FROM t")
        #expect(SQLTraceEvent(sql: "SELECT 1", nanoseconds: 1_500_000).description == "[1.500 ms] SELECT 1")
    }

    @Test("OPENSWIFTDATA_SQL_LOG switches the log on for any value but empty and 0")
    func environmentSwitch() {
        let name = ModelContainer.sqlLogEnvironmentVariable
        #expect(name == "OPENSWIFTDATA_SQL_LOG")
        #expect(SQLLog.isEnabled([name: "1"]))
        #expect(SQLLog.isEnabled([name: "yes"]))
        #expect(!SQLLog.isEnabled([name: "0"]))
        #expect(!SQLLog.isEnabled([name: ""]))
        #expect(!SQLLog.isEnabled([:]))
    }

    @Test("with OPENSWIFTDATA_SQL_LOG=1 every statement is logged, beside the handler", arguments: StoreKind.allCases)
    func environmentLog(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "trace-log")
        let container = try makePlanContainer(kind, rows: 3, in: dir)
        let lines = TraceRecorder()
        let events = TraceRecorder()
        try container.setSQLTrace(
            { events.record($0) }, environment: [ModelContainer.sqlLogEnvironmentVariable: "1"],
            write: { lines.record(SQLTraceEvent(sql: $0, nanoseconds: 0)) })
        let descriptor = FetchDescriptor<PlanItem>(predicate: #Predicate { $0.code > 0 })
        #expect(try ModelContext(container).fetchCount(descriptor) == 2)
        let count = try ModelContext(container).explain(descriptor, as: .count).sql
        #expect(
            lines.statements.contains { $0.hasPrefix("[sql ") && $0.hasSuffix(" ms] " + count + "\n") },
            "\(lines.statements)")
        #expect(events.statements.contains(count))
        // Off: neither the log nor a removed handler hears anything.
        lines.clear()
        events.clear()
        try container.setSQLTrace(nil, environment: [:])
        _ = try ModelContext(container).fetchCount(descriptor)
        #expect(lines.events.isEmpty && events.events.isEmpty)
    }

    @Test("setting a trace after erase() throws storeError")
    func traceAfterErase() throws {
        let dir = try ScratchDirectory(prefix: "trace-erase")
        let container = try StoreKind.disk.makeContainer(for: [PlanItem.self], in: dir)
        try container.erase()
        #expect(throws: SwiftDataError.self) { try container.setSQLTrace { _ in } }
    }
}

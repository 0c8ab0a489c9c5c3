import Foundation
import Testing

@testable import OpenSwiftData

/// The statement's row view reads each column's value cell in place, found from column 0's
/// (`Unsafe/ABIAssumptions.swift`, item 7). These pin what that rests on against SQLite's own
/// column reads; the debug build's row view also compares every cell it reads with SQLite's.
@Suite("Result cells")
struct ResultCellsTests {
    @Test("the result row's cells were found on this SQLite, a stride of one value cell")
    func strideMeasured() {
        #expect(ResultCells.stride >= 16)
        #expect(ResultCells.stride <= 1_024)
    }

    @Test("every column read in place agrees with SQLite's SQLValue of it, row after row")
    func readsAgree() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute("CREATE TABLE t(a INTEGER, b REAL, c TEXT, d BLOB, e)")
        let insert = try db.cachedStatement("INSERT INTO t VALUES (?, ?, ?, ?, ?)")
        let values: [[SQLValue]] = [
            [.integer(1), .real(0.5), .text("één"), .blob(Data([0, 1, 2])), .null],
            [.integer(.min), .real(-.infinity), .text(""), .blob(Data()), .integer(42)],
            [.null, .null, .null, .null, .text("12abc")],
            [
                .integer(.max), .real(1e300), .text(String(repeating: "x", count: 5_000)), .blob(Data([255])),
                .real(2.5),
            ],
        ]
        for row in values {
            try insert.bind(row)
            try insert.execute()
            insert.reset()
        }
        let select = try db.cachedStatement("SELECT a, b, c, d, e FROM t ORDER BY rowid")
        defer { select.reset() }
        var read: [[SQLValue]] = []
        var integers: [Int64] = []
        var texts: [String?] = []
        while try select.step() {
            let row = select.currentRow
            read.append((0..<5).map { row.value(at: $0) })
            // SQLite's conversions, read in place as its column functions make them.
            integers.append(row.int64(at: 4))
            texts.append(select.textIfPresent(at: 1))
        }
        // An empty blob reads as SQLite gives it: no bytes (`NULL` pointer), an empty `Data`.
        #expect(read == values)
        #expect(integers == [0, 42, 12, 2])
        #expect(texts == ["0.5", "-Inf", nil, "1.0e+300"])
    }

    @Test("a compound query's rows, each from its own part of the program, read right")
    func compoundRows() throws {
        let db = try SQLiteConnection(path: ":memory:")
        let stmt = try db.cachedStatement(
            "SELECT 1, 'one', 1.5 UNION ALL SELECT 2, 'two', NULL UNION ALL SELECT x, y, z FROM (SELECT 3 AS x, 'three' AS y, 3.5 AS z)"
        )
        defer { stmt.reset() }
        var rows: [String] = []
        while try stmt.step() {
            rows.append(
                "\(stmt.int64(at: 0)) \(stmt.text(at: 1)) \(stmt.isNull(at: 2) ? "-" : "\(stmt.double(at: 2))")")
        }
        #expect(rows == ["1 one 1.5", "2 two -", "3 three 3.5"])
    }

    @Test("a column outside the row reads as SQLite reads it: NULL, 0, no text")
    func outsideTheRow() throws {
        let db = try SQLiteConnection(path: ":memory:")
        let stmt = try db.cachedStatement("SELECT 7, 'x'")
        defer { stmt.reset() }
        #expect(try stmt.step())
        #expect(stmt.isNull(at: 2))
        #expect(stmt.isNull(at: -1))
        #expect(stmt.int64(at: 5) == 0)
        #expect(stmt.textIfPresent(at: 9) == nil)
        #expect(stmt.int64(at: 0) == 7)
        #expect(try !stmt.step())
        #expect(stmt.isNull(at: 0), "no row after the last: SQLite's NULL")
    }
}

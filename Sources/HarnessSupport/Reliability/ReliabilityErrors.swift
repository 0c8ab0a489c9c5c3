import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

/// An error a worker or a probe reports in words (a violated expectation of the experiment itself).
struct ReliabilityWorkerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `s` on one line (line breaks shown as ⏎), for the workers' line protocol and the reports.
func oneLine(_ s: String) -> String {
    s.replacingOccurrences(of: "\n", with: " ⏎ ")
}

/// How a probe classifies an error the library threw: typed (`SwiftDataError`, what every
/// public operation promises) or not (anything else, e.g. a raw `SQLiteError` leaking through).
struct ThrownError: Codable, Sendable, Equatable, CustomStringConvertible {
    /// Whether the error was a `SwiftDataError`.
    var typed: Bool
    /// The `SwiftDataError` code, or the error's type name.
    var code: String
    /// The error's description, on one line.
    var message: String

    init(_ error: any Error) {
        if let e = error as? SwiftDataError {
            typed = true
            code = e.code.name
            // The description without the whole SQL (a deep predicate's runs to kilobytes).
            var text = "SwiftDataError.\(e.code): \(e.message)"
            if let sql = e.sql { text += " [SQL: \(sql.count > 120 ? sql.prefix(120) + "…" : sql)]" }
            if let underlying = e.underlying { text += " [cause: \(underlying)]" }
            message = oneLine(text)
        } else {
            typed = false
            code = String(describing: type(of: error))
            message = oneLine("\(error)")
        }
    }

    /// `SwiftDataError.<code>: …` or `<Type> (untyped): …`.
    var description: String {
        typed ? message : "\(code) (not a SwiftDataError): \(message)"
    }

    /// Whether this is the `SwiftDataError` with `code`.
    func `is`(_ expected: SwiftDataError) -> Bool { typed && code == expected.code.name }
}

/// A file's bytes (or `nil` when there is no regular file), for before/after comparisons.
enum FileBytes {
    static func read(_ url: URL) -> Data? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return nil
        }
        // try?: a file that cannot be read compares as missing (nil), which the probes report as a change.
        return try? Data(contentsOf: url)
    }

    /// The size of the file at `url` in bytes (0 when missing).
    static func size(_ url: URL) -> Int {
        // try?: documented: 0 when missing.
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// `store-wal` beside `store`.
    static func wal(_ url: URL) -> URL { URL(fileURLWithPath: url.path + "-wal") }

    /// `store-shm` beside `store`.
    static func shm(_ url: URL) -> URL { URL(fileURLWithPath: url.path + "-shm") }
}

extension ModelContainer {
    /// `PRAGMA integrity_check` on the store's connection: `"ok"` or SQLite's first complaints.
    func integrityCheck() throws -> String {
        try withStoreConnection { db in
            let rows = try db.rows("PRAGMA integrity_check(5)")
            return rows.map { row in row.map { if case .text(let s) = $0 { s } else { "\($0)" } }.joined(separator: " ")
            }
            .joined(separator: "; ")
        }
    }
}

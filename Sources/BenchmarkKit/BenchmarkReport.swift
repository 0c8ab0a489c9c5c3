import Foundation
import OpenSwiftData

/// A whole benchmark run: schema version, time, machine, toolchain, SQLite, build, and results.
///
/// The JSON form (``JSONReportCoder``) is stable: fields are only added, and a breaking change
/// bumps ``currentSchemaVersion``.
/// ```swift
/// let report = BenchmarkReport.current(toolchain: swiftVersionOutput, results: results)
/// try JSONReportCoder.encode(report).write(to: dir.appendingPathComponent("bench.json"))
/// ```
public struct BenchmarkReport: Codable, Equatable, Sendable {
    /// The schema version this code writes.
    public static let currentSchemaVersion: Int = 1

    /// The schema version of this report.
    public var schemaVersion: Int
    /// When the run finished.
    public var timestamp: Date
    /// The machine it ran on.
    public var machine: MachineInfo
    /// The toolchain, e.g. the output of `swift --version`.
    public var toolchain: String
    /// The SQLite library version (`sqlite3_libversion()`).
    public var sqliteVersion: String
    /// `"release"` or `"debug"`.
    public var buildConfiguration: String
    /// The allocator status line (``JemallocStatus/explanation``), saying whether malloc metrics are real.
    public var allocator: String?
    /// The results, one per benchmark × scale.
    public var results: [BenchmarkResult]

    /// Creates a report from explicit values.
    public init(
        schemaVersion: Int = BenchmarkReport.currentSchemaVersion, timestamp: Date, machine: MachineInfo,
        toolchain: String, sqliteVersion: String, buildConfiguration: String, allocator: String? = nil,
        results: [BenchmarkResult]
    ) {
        self.schemaVersion = schemaVersion
        self.timestamp = timestamp
        self.machine = machine
        self.toolchain = toolchain
        self.sqliteVersion = sqliteVersion
        self.buildConfiguration = buildConfiguration
        self.allocator = allocator
        self.results = results
    }

    /// A report for this process now: current machine, linked SQLite, this build's configuration.
    ///
    /// - Parameters:
    ///   - toolchain: the output of `swift --version` if the caller has it; otherwise
    ///     ``ToolchainInfo/compilerDescription``.
    ///   - results: The results of the run, in the order they were measured.
    public static func current(toolchain: String? = nil, results: [BenchmarkResult]) -> BenchmarkReport {
        BenchmarkReport(
            timestamp: Date(), machine: .current(),
            toolchain: toolchain ?? ToolchainInfo.compilerDescription,
            sqliteVersion: SQLiteConnection.libraryVersion,
            buildConfiguration: BuildConfiguration.name,
            allocator: JemallocStatus.current.explanation, results: results)
    }

    /// The groups of the results, in first-appearance order.
    public var groups: [String] {
        var seen = Set<String>()
        return results.map(\.group).filter { seen.insert($0).inserted }
    }
}

/// The compiler that built BenchmarkKit, for reports made without `swift --version` output.
public enum ToolchainInfo {
    /// `"Swift compiler ≥ 6.x"`, from `#if compiler(>=…)` checks.
    public static var compilerDescription: String {
        #if compiler(>=6.4)
            return "Swift compiler >= 6.4"
        #elseif compiler(>=6.3)
            return "Swift compiler 6.3"
        #elseif compiler(>=6.2)
            return "Swift compiler 6.2"
        #elseif compiler(>=6.1)
            return "Swift compiler 6.1"
        #else
            return "Swift compiler 6.0"
        #endif
    }
}

/// Encodes and decodes reports as JSON: pretty-printed, sorted keys, ISO 8601 dates.
///
/// ```swift
/// let data = try JSONReportCoder.encode(report)
/// let back = try JSONReportCoder.decode(data)
/// ```
public enum JSONReportCoder {
    /// The report as UTF-8 JSON with sorted keys (stable diffs), ending in a newline.
    public static func encode(_ report: BenchmarkReport) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        var data = try encoder.encode(report)
        data.append(0x0A)
        return data
    }

    /// Decodes a report written by ``encode(_:)``.
    public static func decode(_ data: Data) throws -> BenchmarkReport {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try decoder.decode(BenchmarkReport.self, from: data)
    }

    /// Reads and decodes the report at `url`.
    public static func read(from url: URL) throws -> BenchmarkReport {
        try decode(Data(contentsOf: url))
    }
}

/// A benchmark that could not run, with a matchable code and the benchmark and scale involved.
///
/// ```swift
/// do { try runner.run(benchmarks) }
/// catch let error as BenchmarkError where error.code == .debugBuild { … }
/// ```
public struct BenchmarkError: Error, Equatable, CustomStringConvertible {
    /// What went wrong, as a code callers can match.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, e.g. `"debugBuild"`.
        public let description: String
        /// A debug build was asked to run without `allowDebug`.
        public static let debugBuild = Code(description: "debugBuild")
        /// The benchmark's untimed set-up threw.
        public static let setUpFailed = Code(description: "setUpFailed")
        /// The benchmark's timed body (ours or raw) threw.
        public static let bodyFailed = Code(description: "bodyFailed")
        /// The runner's configuration cannot be run (e.g. zero iterations).
        public static let invalidConfiguration = Code(description: "invalidConfiguration")
    }

    /// What went wrong.
    public var code: Code
    /// The benchmark's name, when one was running.
    public var benchmark: String?
    /// The scale, when one was running.
    public var scale: Int?
    /// A human-readable explanation, including the underlying error's description.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, benchmark: String? = nil, scale: Int? = nil, message: String) {
        self.code = code
        self.benchmark = benchmark
        self.scale = scale
        self.message = message
    }

    /// `"<code>: <benchmark> @ <scale>: <message>"`.
    public var description: String {
        var parts = [code.description]
        if let benchmark { parts.append(scale.map { "\(benchmark) @ \($0)" } ?? benchmark) }
        parts.append(message)
        return parts.joined(separator: ": ")
    }
}

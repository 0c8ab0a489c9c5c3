// On Linux, `import OSLog` resolves to this module: Apple's unified-logging API (`Logger`,
// `OSLog`, `os_log`) writing one line per message to standard error, so persistence code that
// logs compiles unchanged. On Apple platforms the module is empty and clients depend on the
// product with `condition: .when(platforms: [.linux])`, so Apple's framework is never shadowed
// (the same arrangement as the SwiftData product).
#if os(Linux)
    import Foundation

    /// A message's level, from `debug` (most verbose) to `fault`.
    public struct OSLogType: RawRepresentable, Hashable, Sendable {
        /// The level's number: the values of Apple's `os_log_type_t`.
        public let rawValue: UInt8
        /// A level from its number.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Notices: the default level.
        public static let `default` = OSLogType(rawValue: 0x00)
        /// Helpful but not essential information.
        public static let info = OSLogType(rawValue: 0x01)
        /// Information for debugging.
        public static let debug = OSLogType(rawValue: 0x02)
        /// An error of the process.
        public static let error = OSLogType(rawValue: 0x10)
        /// A bug: a fault of the program or of a system it uses.
        public static let fault = OSLogType(rawValue: 0x11)

        /// The level's name in the written line.
        var name: String {
            switch self {
            case .info: "info"
            case .debug: "debug"
            case .error: "error"
            case .fault: "fault"
            default: "notice"
            }
        }

        /// The level's rank for ``OSLogOutput/minimumLevel`` (debug lowest).
        var rank: Int {
            switch self {
            case .debug: 0
            case .info: 1
            case .error: 3
            case .fault: 4
            default: 2
            }
        }
    }

    /// A log: a subsystem (usually the app's reverse-DNS identifier) and a category.
    public final class OSLog: Sendable {
        /// The subsystem, e.g. `com.example.Trips`.
        public let subsystem: String
        /// The category, e.g. `persistence`.
        public let category: String
        /// Whether messages to this log are written (``disabled`` writes none).
        let isEnabled: Bool

        /// A log for `subsystem` and `category`.
        public init(subsystem: String, category: String) {
            self.subsystem = subsystem
            self.category = category
            isEnabled = true
        }

        private init(disabled: Void) {
            subsystem = ""
            category = ""
            isEnabled = false
        }

        /// The process's default log (no subsystem, no category).
        public static let `default` = OSLog(subsystem: "", category: "")
        /// A log that writes nothing.
        public static let disabled = OSLog(disabled: ())

        /// Whether a message of `type` to this log is written (``OSLogOutput/minimumLevel``).
        public func isEnabled(type: OSLogType) -> Bool {
            isEnabled && OSLogOutput.minimumLevel.map { type.rank >= $0.rank } ?? false
        }
    }

    /// How a value appears in the log. On Linux every value is written as it is (as Xcode's
    /// console shows them while debugging): standard error is the developer's own output.
    public struct OSLogPrivacy: Hashable, Sendable {
        let name: String
        /// Apple's default: public for scalars, private for strings and objects.
        public static let auto = OSLogPrivacy(name: "auto")
        /// Always shown.
        public static let `public` = OSLogPrivacy(name: "public")
        /// Redacted in Apple's persisted logs.
        public static let `private` = OSLogPrivacy(name: "private")
        /// Redacted in Apple's persisted logs, even when private data is enabled.
        public static let sensitive = OSLogPrivacy(name: "sensitive")
        /// How a redacted value is masked on Apple platforms.
        public enum Mask: Hashable, Sendable {
            /// A salted hash of the value.
            case hash
            /// No mask.
            case none
        }
        /// Private, masked as `mask`.
        public static func `private`(mask: Mask) -> OSLogPrivacy { .private }
        /// Sensitive, masked as `mask`.
        public static func sensitive(mask: Mask) -> OSLogPrivacy { .sensitive }
        /// Automatic, masked as `mask`.
        public static func auto(mask: Mask) -> OSLogPrivacy { .auto }
    }

    /// How an integer is written.
    public struct OSLogIntegerFormatting: Sendable {
        let radix: Int
        let prefix: String
        let uppercase: Bool
        /// Base 10.
        public static let decimal = OSLogIntegerFormatting(radix: 10, prefix: "", uppercase: false)
        /// Base 16, lowercase digits.
        public static let hex = OSLogIntegerFormatting(radix: 16, prefix: "", uppercase: false)
        /// Base 8.
        public static let octal = OSLogIntegerFormatting(radix: 8, prefix: "", uppercase: false)
        /// Base 10 (the explicit-sign and minimum-digit options are accepted and ignored).
        public static func decimal(explicitPositiveSign: Bool = false, minDigits: Int = 0) -> OSLogIntegerFormatting {
            .decimal
        }
        /// Base 16, with an optional `0x` prefix and uppercase digits.
        public static func hex(
            explicitPositiveSign: Bool = false, includePrefix: Bool = false, uppercase: Bool = false, minDigits: Int = 0
        ) -> OSLogIntegerFormatting {
            OSLogIntegerFormatting(radix: 16, prefix: includePrefix ? "0x" : "", uppercase: uppercase)
        }
        /// Base 8, with an optional `0o` prefix.
        public static func octal(
            explicitPositiveSign: Bool = false, includePrefix: Bool = false, uppercase: Bool = false, minDigits: Int = 0
        ) -> OSLogIntegerFormatting {
            OSLogIntegerFormatting(radix: 8, prefix: includePrefix ? "0o" : "", uppercase: uppercase)
        }

        func format<T: BinaryInteger>(_ value: T) -> String {
            let digits = String(value.magnitude, radix: radix, uppercase: uppercase)
            return (value < 0 ? "-" : "") + prefix + digits
        }
    }

    /// How a floating-point number is written.
    public struct OSLogFloatFormatting: Sendable {
        let precision: Int?
        let exponential: Bool
        /// Swift's own description of the number.
        public static let fixed = OSLogFloatFormatting(precision: nil, exponential: false)
        /// `precision` digits after the point.
        public static func fixed(precision: Int, explicitPositiveSign: Bool = false, uppercase: Bool = false)
            -> OSLogFloatFormatting
        { OSLogFloatFormatting(precision: precision, exponential: false) }
        /// Exponent notation.
        public static let exponential = OSLogFloatFormatting(precision: nil, exponential: true)

        func format(_ value: Double) -> String {
            if exponential { return String(format: "%e", value) }
            guard let precision else { return "\(value)" }
            return String(format: "%.\(max(0, precision))f", value)
        }
    }

    /// Padding of an interpolated value.
    public struct OSLogStringAlignment: Sendable {
        let width: Int
        /// No padding.
        public static let none = OSLogStringAlignment(width: 0)
        /// Right-aligned in `columns` characters.
        public static func right(columns: Int) -> OSLogStringAlignment { OSLogStringAlignment(width: columns) }
        /// Left-aligned in `columns` characters.
        public static func left(columns: Int) -> OSLogStringAlignment { OSLogStringAlignment(width: -columns) }

        func pad(_ text: String) -> String {
            let missing = abs(width) - text.count
            guard missing > 0 else { return text }
            let padding = String(repeating: " ", count: missing)
            return width > 0 ? padding + text : text + padding
        }
    }

    /// How a `Bool` is written.
    public enum OSLogBoolFormat: Sendable {
        /// `true` / `false`.
        case truth
        /// `YES` / `NO`.
        case answer
    }

    /// The interpolations a ``Logger`` message accepts: the value with Apple's formatting and
    /// privacy arguments (formatting applied, privacy accepted).
    public struct OSLogInterpolation: StringInterpolationProtocol, Sendable {
        var text = ""

        /// An empty message with room for the literal's characters.
        public init(literalCapacity: Int, interpolationCount: Int) { text.reserveCapacity(literalCapacity) }

        /// Appends literal text.
        public mutating func appendLiteral(_ literal: String) { text += literal }

        /// Appends a string.
        public mutating func appendInterpolation(
            _ value: @autoclosure () -> String, align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto
        ) { text += align.pad(value()) }

        /// Appends an integer.
        public mutating func appendInterpolation<T: BinaryInteger>(
            _ value: @autoclosure () -> T, format: OSLogIntegerFormatting = .decimal,
            align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto
        ) { text += align.pad(format.format(value())) }

        /// Appends a `Double`.
        public mutating func appendInterpolation(
            _ value: @autoclosure () -> Double, format: OSLogFloatFormatting = .fixed,
            align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto
        ) { text += align.pad(format.format(value())) }

        /// Appends a `Float`.
        public mutating func appendInterpolation(
            _ value: @autoclosure () -> Float, format: OSLogFloatFormatting = .fixed,
            align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto
        ) {
            text += align.pad(
                format.precision == nil && !format.exponential ? "\(value())" : format.format(Double(value())))
        }

        /// Appends a `Bool`.
        public mutating func appendInterpolation(
            _ value: @autoclosure () -> Bool, format: OSLogBoolFormat = .truth, privacy: OSLogPrivacy = .auto
        ) {
            let v = value()
            text += format == .truth ? (v ? "true" : "false") : (v ? "YES" : "NO")
        }

        /// Appends a value's `description`.
        public mutating func appendInterpolation<T: CustomStringConvertible>(
            _ value: @autoclosure () -> T, align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto
        ) { text += align.pad(value().description) }

        /// Appends an optional value's `description`, or `nil`.
        public mutating func appendInterpolation<T: CustomStringConvertible>(
            _ value: @autoclosure () -> T?, align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto
        ) { text += align.pad(value().map(\.description) ?? "nil") }

        /// Appends an error's description.
        public mutating func appendInterpolation(
            _ value: @autoclosure () -> any Error, privacy: OSLogPrivacy = .auto
        ) { text += String(describing: value()) }

        /// Appends a type's name.
        public mutating func appendInterpolation(_ value: @autoclosure () -> Any.Type, privacy: OSLogPrivacy = .auto) {
            text += String(describing: value())
        }

        /// Appends any other value as `String(describing:)` writes it.
        public mutating func appendInterpolation<T>(_ value: @autoclosure () -> T, privacy: OSLogPrivacy = .auto) {
            text += String(describing: value())
        }
    }

    /// A ``Logger`` message: a string literal with interpolations.
    public struct OSLogMessage: ExpressibleByStringInterpolation, ExpressibleByStringLiteral, Sendable {
        /// The message's text.
        let text: String
        /// A message without interpolations.
        public init(stringLiteral value: String) { text = value }
        /// A message with interpolations.
        public init(stringInterpolation: OSLogInterpolation) { text = stringInterpolation.text }
    }

    /// Writes messages to a log: Apple's `Logger` API, one line per message on standard error.
    ///
    /// ```swift
    /// let logger = Logger(subsystem: "com.example.Trips", category: "persistence")
    /// logger.info("saved \(count) trips to \(url.path, privacy: .public)")
    /// ```
    /// A line is `<time> <level> [<subsystem>:<category>] <message>`; which levels are written
    /// is ``OSLogOutput/minimumLevel`` (all by default; `OSLOG_LEVEL=error` in the environment keeps
    /// errors and faults only, `off` none).
    public struct Logger: Sendable {
        /// The log written to.
        public let log: OSLog

        /// A logger for the default log.
        public init() { log = .default }
        /// A logger for `subsystem` and `category`.
        public init(subsystem: String, category: String) { log = OSLog(subsystem: subsystem, category: category) }
        /// A logger for `log`.
        public init(_ log: OSLog) { self.log = log }

        /// Writes `message` at `level`.
        public func log(level: OSLogType, _ message: OSLogMessage) { OSLogOutput.emit(level, log, message.text) }
        /// Writes `message` at the default level.
        public func log(_ message: OSLogMessage) { log(level: .default, message) }
        /// Writes `message` at the debug level.
        public func trace(_ message: OSLogMessage) { log(level: .debug, message) }
        /// Writes `message` at the debug level.
        public func debug(_ message: OSLogMessage) { log(level: .debug, message) }
        /// Writes `message` at the info level.
        public func info(_ message: OSLogMessage) { log(level: .info, message) }
        /// Writes `message` at the default (notice) level.
        public func notice(_ message: OSLogMessage) { log(level: .default, message) }
        /// Writes `message` at the error level (Apple's `warning` is an error-level message).
        public func warning(_ message: OSLogMessage) { log(level: .error, message) }
        /// Writes `message` at the error level.
        public func error(_ message: OSLogMessage) { log(level: .error, message) }
        /// Writes `message` at the fault level (Apple's `critical` is a fault-level message).
        public func critical(_ message: OSLogMessage) { log(level: .fault, message) }
        /// Writes `message` at the fault level.
        public func fault(_ message: OSLogMessage) { log(level: .fault, message) }
    }

    /// Writes `message` (a `printf` format with Apple's `%{public}@`-style privacy qualifiers,
    /// which are dropped) formatted with `args` to `log` at `type`.
    public func os_log(
        _ message: StaticString, dso: UnsafeRawPointer? = nil, log: OSLog = .default, type: OSLogType = .default,
        _ args: any CVarArg...
    ) {
        let format = OSLogOutput.droppingPrivacy(message.description)
        OSLogOutput.emit(type, log, args.isEmpty ? format : String(format: format, arguments: args))
    }

    /// Writes `message` to `log` at `type`.
    public func os_log(_ type: OSLogType, dso: UnsafeRawPointer? = nil, log: OSLog, _ message: OSLogMessage) {
        OSLogOutput.emit(type, log, message.text)
    }

    /// Writes `message` to the default log at `type`.
    public func os_log(_ type: OSLogType, dso: UnsafeRawPointer? = nil, _ message: OSLogMessage) {
        OSLogOutput.emit(type, .default, message.text)
    }

    /// Where and which messages are written.
    public enum OSLogOutput {
        private static let lock = NSLock()
        nonisolated(unsafe) private static var writer: (@Sendable (String) -> Void)?
        nonisolated(unsafe) private static var level: OSLogType?? = .none

        /// The lowest level written: `OSLOG_LEVEL` (`debug`, `info`, `notice`, `error`, `fault`;
        /// `off` for none) when set, else `debug` (everything). `nil`: nothing is written.
        public static var minimumLevel: OSLogType? {
            lock.withLock {
                if case .some(let chosen) = level { return chosen }
                let chosen = parse(ProcessInfo.processInfo.environment["OSLOG_LEVEL"])
                level = .some(chosen)
                return chosen
            }
        }

        /// The level an `OSLOG_LEVEL` value names (`debug` when unset or unknown, `nil` for `off`).
        static func parse(_ value: String?) -> OSLogType? {
            switch value?.lowercased() {
            case "off", "none": nil
            case "info": .info
            case "notice", "default": .default
            case "error": .error
            case "fault": .fault
            default: .debug
            }
        }

        /// Sends every written line to `body` instead of standard error (`nil`: standard error
        /// again), e.g. to assert on a program's log in a test.
        public static func redirect(to body: (@Sendable (String) -> Void)?) {
            lock.withLock { writer = body }
        }

        static func emit(_ type: OSLogType, _ log: OSLog, _ message: String) {
            guard log.isEnabled, let minimum = minimumLevel, type.rank >= minimum.rank else { return }
            let place = log.subsystem.isEmpty && log.category.isEmpty ? "" : "[\(log.subsystem):\(log.category)] "
            let line = "\(timestamp()) \(type.name) \(place)\(message)"
            if let writer = lock.withLock({ writer }) {
                writer(line)
            } else {
                FileHandle.standardError.write(Data((line + "\n").utf8))
            }
        }

        /// `%{public}@` → `%@`, `%{private, mask.hash}d` → `%d`: Apple's qualifiers removed.
        static func droppingPrivacy(_ format: String) -> String {
            var out = ""
            var rest = Substring(format)
            while let open = rest.range(of: "%{") {
                out += rest[..<open.lowerBound] + "%"
                rest = rest[open.upperBound...]
                if let close = rest.firstIndex(of: "}") { rest = rest[rest.index(after: close)...] }
            }
            return out + rest
        }

        private static func timestamp() -> String {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            var seconds = now.tv_sec
            var parts = tm()
            gmtime_r(&seconds, &parts)
            return String(
                format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec),
                Int(now.tv_nsec / 1_000_000))
        }
    }
#endif

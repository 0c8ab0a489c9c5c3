import DecodingDiagnostics
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Typed, checked option values: every command validates all its options with these before any
// work starts, so a bad value fails in milliseconds with one line naming the option
// (`ArgumentError.invalidValue`), never minutes into a run.

extension ParsedArguments {
    // MARK: Numbers

    /// The value of `--name` as an `Int` within `range`; `nil` when the option was not given.
    ///
    /// Underscores may group digits (`1_000_000`).
    /// ```swift
    /// let jobs = try parsed.integer("jobs", in: 1...) ?? 4
    /// // "--jobs 0" throws ArgumentError.invalidValue: --jobs takes an integer ≥ 1, not '0'
    /// ```
    /// - Throws: ``ArgumentError`` `.invalidValue` naming the option.
    public func integer(_ name: String, in range: PartialRangeFrom<Int>) throws -> Int? {
        try integer(name, as: Int.self, in: range.lowerBound...Int.max)
    }

    /// The value of `--name` as an `Int` within `range`; `nil` when the option was not given.
    ///
    /// ```swift
    /// let percent = try parsed.integer("percent", in: 0...100) ?? 50
    /// ```
    /// - Throws: ``ArgumentError`` `.invalidValue` naming the option.
    public func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        try integer(name, as: Int.self, in: range)
    }

    /// The value of `--name` as an integer of type `T` (any value `T` can hold, or within `range`);
    /// `nil` when the option was not given.
    ///
    /// ```swift
    /// let seed = try parsed.integer("seed", as: UInt64.self) ?? 1
    /// // "--seed -1" throws: --seed takes an integer from 0 to 18446744073709551615, not '-1'
    /// ```
    /// - Throws: ``ArgumentError`` `.invalidValue` naming the option.
    public func integer<T: FixedWidthInteger>(
        _ name: String, as type: T.Type,
        in range: ClosedRange<T> = T.min...T.max
    ) throws -> T? {
        guard let text = value(name) else { return nil }
        return try Self.integer(text, option: name, in: range)
    }

    /// Every value of `--name`, split on commas, each an `Int` within `range`; empty when the
    /// option was not given.
    ///
    /// ```swift
    /// let scales = try parsed.integers("scale", in: 1...)   // "--scale 1000,10_000 --scale 100000"
    /// // "--scale 1000,-5" throws: --scale takes an integer ≥ 1, not '-5'
    /// ```
    /// - Throws: ``ArgumentError`` `.invalidValue` naming the option, also when the option was
    ///   given but holds no value at all (`--scale ,`).
    public func integers(_ name: String, in range: PartialRangeFrom<Int>) throws -> [Int] {
        try items(name).map { try Self.integer($0, option: name, in: range.lowerBound...Int.max) }
    }

    /// Every value of `--name`, split on commas, each an `Int` within `range`; empty when the
    /// option was not given.
    ///
    /// ```swift
    /// let levels = try parsed.integers("level", in: 1...3)
    /// ```
    /// - Throws: ``ArgumentError`` `.invalidValue` naming the option.
    public func integers(_ name: String, in range: ClosedRange<Int>) throws -> [Int] {
        try items(name).map { try Self.integer($0, option: name, in: range) }
    }

    /// The value of `--name` as a finite decimal number within `range`; `nil` when the option was
    /// not given.
    ///
    /// ```swift
    /// let timeout = try parsed.number("timeout", in: 1...86_400) ?? 60
    /// // "--timeout 0.5" throws: --timeout takes a number from 1 to 86400, not '0.5'
    /// ```
    /// - Throws: ``ArgumentError`` `.invalidValue` naming the option, the value and the range.
    public func number(_ name: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let text = value(name) else { return nil }
        return try Self.number(text, option: name, in: range)
    }

    // MARK: Names

    /// The value of `--name`, which must be one of `choices`; `nil` when the option was not given.
    ///
    /// ```swift
    /// let store = try parsed.choice("store", from: ["memory", "disk", "all"]) ?? "all"
    /// // "--store dsk" throws: --store takes memory, disk or all, not 'dsk'; did you mean 'disk'?
    /// ```
    /// - Throws: ``ArgumentError`` `.invalidValue` naming the option, with the nearest choice
    ///   (by edit distance) as its suggestion.
    public func choice(_ name: String, from choices: [String]) throws -> String? {
        guard let text = value(name) else { return nil }
        return try Self.choice(text, option: name, from: choices)
    }

    /// Every value of `--name`, split on commas, each one of `choices`; empty when the option was
    /// not given.
    ///
    /// ```swift
    /// let suites = try parsed.choices("suite", from: ["uniqueness", "predicates", "differential"])
    /// ```
    /// - Throws: ``ArgumentError`` `.invalidValue` naming the option and the first unknown name.
    public func choices(_ name: String, from choices: [String]) throws -> [String] {
        try items(name).map { try Self.choice($0, option: name, from: choices) }
    }

    // MARK: Files

    /// The value of `--name` as the URL of a file that exists and can be read; `nil` when the
    /// option was not given.
    ///
    /// ```swift
    /// let input = try parsed.existingFile("input")   // "--input /nonexistent.json" throws
    /// ```
    /// - Throws: ``ArgumentError`` `.invalidValue` naming the option when there is no such file,
    ///   it is a directory, or it cannot be read.
    public func existingFile(_ name: String) throws -> URL? {
        guard let text = try path(name) else { return nil }
        let url = URL(fileURLWithPath: text)
        switch PathProbe.kind(url.path) {
        case .missing:
            throw Self.invalid(name, text, "--\(name): no such file '\(text)'")
        case .directory:
            throw Self.invalid(name, text, "--\(name): '\(text)' is a directory, not a file")
        case .regularFile, .other:
            if let reason = PathProbe.accessProblem(url.path, mode: R_OK) {
                throw Self.invalid(name, text, "--\(name): cannot read '\(text)' (\(reason))")
            }
        }
        return url
    }

    /// Reads the existing file named by `--name` with `read` and returns what it read; `nil` when
    /// the option was not given. `description` says what the file must hold, for the message.
    ///
    /// ```swift
    /// let baseline = try parsed.existingFile("compare", holding: "a benchmark report") {
    ///     try JSONReportCoder.read(from: $0)
    /// }
    /// // a JSON file of another shape throws:
    /// // --compare: 'x.json' is not a benchmark report (field 'results' is missing)
    /// ```
    /// - Throws: ``ArgumentError`` `.invalidValue` naming the option, as ``existingFile(_:)``
    ///   does, or when `read` throws (its reason in a few words).
    public func existingFile<T>(
        _ name: String, holding description: String,
        read: (URL) throws -> T
    ) throws -> T? {
        guard let url = try existingFile(name), let text = value(name) else { return nil }
        do {
            return try read(url)
        } catch {
            throw Self.invalid(name, text, "--\(name): '\(text)' is not \(description) (\(Self.reason(error)))")
        }
    }

    /// The value of `--name` as the URL of a file that can be written: an existing regular file
    /// that may be written, or a new file whose nearest existing ancestor is a directory where
    /// files can be created (probed by creating and removing a hidden file); `nil` when the
    /// option was not given. Nothing is created.
    ///
    /// ```swift
    /// let junit = try parsed.writableFile("junit")
    /// // "--junit /dev/null/x.xml" throws: --junit: '/dev/null/x.xml' is under '/dev/null', which is not a directory
    /// ```
    /// - Throws: ``ArgumentError`` `.invalidValue` naming the option when the path is a
    ///   directory or a device, lies under a regular file, or cannot be written.
    public func writableFile(_ name: String) throws -> URL? {
        guard let text = try path(name) else { return nil }
        let url = URL(fileURLWithPath: text)
        if text.hasSuffix("/") {
            throw Self.invalid(name, text, "--\(name): '\(text)' names a directory; give a file path")
        }
        switch PathProbe.kind(url.path) {
        case .directory:
            throw Self.invalid(name, text, "--\(name): '\(text)' is a directory; give a file path")
        case .other:
            throw Self.invalid(name, text, "--\(name): '\(text)' is not a regular file")
        case .regularFile:
            if let reason = PathProbe.accessProblem(url.path, mode: W_OK) {
                throw Self.invalid(name, text, "--\(name): cannot write '\(text)' (\(reason))")
            }
            // Reports are written atomically: a temporary file beside the target, then a rename.
            try Self.checkCanCreateFiles(in: (url.path as NSString).deletingLastPathComponent, for: name, text)
        case .missing:
            try Self.checkCanCreate(url, for: name, text)
        }
        return url
    }

    /// The value of `--name` as the URL of a directory that files can be written to: an existing
    /// directory, or one that can be created (its nearest existing ancestor is a directory where
    /// files can be created); `nil` when the option was not given. Nothing is left behind.
    ///
    /// ```swift
    /// let out = try parsed.writableDirectory("out") ?? URL(fileURLWithPath: "Reports")
    /// // "--out /dev/null/x" throws: --out: '/dev/null/x' is under '/dev/null', which is not a directory
    /// ```
    /// - Throws: ``ArgumentError`` `.invalidValue` naming the option when the path is a file,
    ///   lies under one, or no file can be created there.
    public func writableDirectory(_ name: String) throws -> URL? {
        guard let text = try path(name) else { return nil }
        return try Self.writableDirectory(text, option: name)
    }

    /// The value of `--name`, or `defaultPath` when the option was not given, checked as
    /// ``writableDirectory(_:)`` checks it: a default that cannot be written fails up front too.
    ///
    /// ```swift
    /// let out = try parsed.writableDirectory("out", default: "Reports")
    /// ```
    /// - Throws: ``ArgumentError`` `.invalidValue` naming the option (and the default path).
    public func writableDirectory(_ name: String, default defaultPath: String) throws -> URL {
        try Self.writableDirectory(try path(name) ?? defaultPath, option: name)
    }

    private static func writableDirectory(_ text: String, option name: String) throws -> URL {
        let url = URL(fileURLWithPath: text, isDirectory: true)
        switch PathProbe.kind(url.path) {
        case .directory:
            try checkCanCreateFiles(in: url.path, for: name, text)
        case .regularFile, .other:
            throw invalid(name, text, "--\(name): '\(text)' is a file, not a directory")
        case .missing:
            try checkCanCreate(url, for: name, text)
        }
        return url
    }

    // MARK: Shared

    /// Every comma-separated item of `--name`; throws when the option was given with no item.
    private func items(_ name: String) throws -> [String] {
        let items = list(name)
        if items.isEmpty, let raw = values(name).first {
            throw Self.invalid(name, raw, "--\(name) needs at least one value, not '\(raw)'")
        }
        return items
    }

    /// The value of `--name` as a path; throws when it is empty.
    private func path(_ name: String) throws -> String? {
        guard let text = value(name) else { return nil }
        if text.isEmpty { throw Self.invalid(name, text, "--\(name) needs a path, not an empty string") }
        return text
    }

    static func invalid(_ name: String, _ value: String, _ message: String, suggestion: String? = nil) -> ArgumentError
    {
        ArgumentError(code: .invalidValue, argument: value, message: message, suggestion: suggestion)
    }

    static func integer<T: FixedWidthInteger>(_ text: String, option: String, in range: ClosedRange<T>) throws -> T {
        guard let n = T(text.replacingOccurrences(of: "_", with: "")), range.contains(n) else {
            throw invalid(option, text, "--\(option) takes \(describe(range)), not '\(text)'")
        }
        return n
    }

    /// `an integer ≥ 1`, `an integer from 0 to 9`, `an integer from 0 to 18446744073709551615` …
    static func describe<T: FixedWidthInteger>(_ range: ClosedRange<T>) -> String {
        switch (range.lowerBound == T.min, range.upperBound == T.max) {
        case (true, true): return "an integer from \(range.lowerBound) to \(range.upperBound)"
        case (false, true): return "an integer ≥ \(range.lowerBound)"
        case (true, false): return "an integer ≤ \(range.upperBound)"
        case (false, false): return "an integer from \(range.lowerBound) to \(range.upperBound)"
        }
    }

    static func number(_ text: String, option: String, in range: ClosedRange<Double>) throws -> Double {
        guard let n = Double(text.replacingOccurrences(of: "_", with: "")), n.isFinite, range.contains(n) else {
            let bounds = OptionRange.reals(range).text
            throw invalid(option, text, "--\(option) takes a number from \(bounds), not '\(text)'")
        }
        return n
    }

    static func choice(_ text: String, option: String, from choices: [String]) throws -> String {
        guard choices.contains(text) else {
            let listed =
                choices.count > 1
                ? choices.dropLast().joined(separator: ", ") + " or " + choices[choices.count - 1]
                : choices.joined()
            throw invalid(
                option, text, "--\(option) takes \(listed), not '\(text)'",
                suggestion: ArgumentParser.closest(to: text, in: choices))
        }
        return text
    }

    /// For a path that does not exist yet: its nearest existing ancestor must be a directory
    /// where files can be created.
    private static func checkCanCreate(_ url: URL, for name: String, _ text: String) throws {
        let ancestor = PathProbe.nearestExistingAncestor(of: url.path)
        guard PathProbe.kind(ancestor) == .directory else {
            throw invalid(name, text, "--\(name): '\(text)' is under '\(ancestor)', which is not a directory")
        }
        try checkCanCreateFiles(in: ancestor, for: name, text)
    }

    private static func checkCanCreateFiles(in directory: String, for name: String, _ text: String) throws {
        if let reason = PathProbe.createProblem(in: directory) {
            throw invalid(name, text, "--\(name): cannot create files in '\(directory)' for '\(text)' (\(reason))")
        }
    }

    /// A read failure in a few words: a decoding error's field, else the error's own description.
    static func reason(_ error: any Error) -> String {
        let text: String
        if let error = error as? DecodingError {
            text = error.briefDescription
        } else if error is CocoaError {
            text = (error as NSError).localizedDescription
        } else {
            text = "\(error)"
        }
        return text.split(whereSeparator: \.isNewline).joined(separator: "; ")
    }
}

/// What is at a path, and whether files can be read, written or created there, through `stat`,
/// `access` and a created-then-removed probe file.
enum PathProbe {
    enum Kind: Equatable { case missing, directory, regularFile, other }

    /// What is at `path` (symbolic links followed).
    static func kind(_ path: String) -> Kind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .directory
        case S_IFREG: return .regularFile
        default: return .other
        }
    }

    /// The deepest ancestor of `path` that exists (`/` at the latest).
    static func nearestExistingAncestor(of path: String) -> String {
        var current = path
        while true {
            let parent = (current as NSString).deletingLastPathComponent
            if parent.isEmpty || parent == current { return "/" }
            if kind(parent) != .missing { return parent }
            current = parent
        }
    }

    /// `nil` when the process may access `path` in `mode` (`R_OK`, `W_OK`), else the reason.
    static func accessProblem(_ path: String, mode: Int32) -> String? {
        access(path, mode) == 0 ? nil : String(cString: strerror(errno))
    }

    /// `nil` when a file can be created in `directory` (created and removed again), else the reason.
    ///
    /// A real creation, not `access(W_OK)`: root passes `access` even on a read-only mount.
    static func createProblem(in directory: String) -> String? {
        let probe = (directory as NSString).appendingPathComponent(
            ".harness-write-probe-\(getpid())-\(UUID().uuidString)")
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        close(descriptor)
        unlink(probe)
        return nil
    }
}

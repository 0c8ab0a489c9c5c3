/// One `--option` of a subcommand: a flag, or an option taking a value (optionally repeatable).
///
/// ```swift
/// let options: [CommandOption] = [
///     .flag("quick", help: "Run the quick set."),
///     .option("scale", placeholder: "rows", repeatable: true, help: "Scales to run."),
/// ]
/// ```
public struct CommandOption: Sendable, Equatable {
    /// Whether the option takes a value.
    public enum Kind: Sendable, Equatable {
        /// `--name`, no value.
        case flag
        /// `--name value` or `--name=value`; the placeholder names the value in help text.
        case value(placeholder: String)
    }

    /// The name without dashes (`"scale"` for `--scale`).
    public var name: String
    /// Flag or value.
    public var kind: Kind
    /// Whether the option may be given more than once (values accumulate).
    public var isRepeatable: Bool
    /// Whether each value is a comma-separated list (every repeatable option, and those created
    /// with `list: true`): the parser refuses a value that names no item (`''`, `,`), which would
    /// otherwise read as the option not given at all.
    public var isList: Bool
    /// The numbers the option accepts, stated in help and checked by the parser for every value
    /// (each item of a list); `nil` when the value is not a number.
    public var range: OptionRange?
    /// One line of help.
    public var help: String

    /// Creates an option; `isList` is `isRepeatable` unless given.
    public init(
        name: String, kind: Kind, isRepeatable: Bool = false, isList: Bool? = nil, range: OptionRange? = nil,
        help: String
    ) {
        self.name = name
        self.kind = kind
        self.isRepeatable = isRepeatable
        self.isList = isList ?? isRepeatable
        self.range = range
        self.help = help
    }

    /// A flag, `--name`.
    public static func flag(_ name: String, help: String) -> CommandOption {
        CommandOption(name: name, kind: .flag, help: help)
    }

    /// An option with a value, `--name <placeholder>`: a comma-separated list when `repeatable`
    /// or `list`, a number within `range` (each item of a list) when `range` is given.
    ///
    /// ```swift
    /// .option("scale", placeholder: "rows", repeatable: true, range: .integers(1...10_000_000), help: "Scales.")
    /// ```
    public static func option(
        _ name: String, placeholder: String = "value", repeatable: Bool = false, list: Bool = false,
        range: OptionRange? = nil, help: String
    ) -> CommandOption {
        CommandOption(
            name: name, kind: .value(placeholder: placeholder), isRepeatable: repeatable, isList: repeatable || list,
            range: range, help: help)
    }

    /// Checks one value of the option as it was given: a list must name an item, a number (each
    /// item of a list) must be within ``range``.
    ///
    /// - Throws: ``ArgumentError`` `.invalidValue` naming the option, the value and the range.
    func check(_ value: String, subcommand: String) throws {
        let items = isList ? ParsedArguments.items(of: value) : [value]
        do {
            if items.isEmpty {
                let what = range.map { " (\($0.text))" } ?? ""
                throw ParsedArguments.invalid(name, value, "--\(name) needs at least one value\(what), not '\(value)'")
            }
            if let range {
                for item in items { try range.check(item, option: name) }
            }
        } catch var error as ArgumentError {
            error.subcommand = subcommand
            throw error
        }
    }

    /// What help adds after the option's text: its range and whether it repeats,
    /// ` (1 to 10000000, repeatable)`; empty when neither applies.
    var helpSuffix: String {
        let notes = [range?.text, isRepeatable ? "repeatable" : nil].compactMap { $0 }
        return notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))"
    }

    /// `--name` or `--name <placeholder>`, as help shows it.
    var synopsis: String {
        switch kind {
        case .flag: return "--\(name)"
        case .value(let placeholder): return "--\(name) <\(placeholder)>"
        }
    }
}

/// A subcommand of the CLI (`harness bench …`) with its options.
///
/// ```swift
/// let bench = Subcommand("bench", abstract: "Run the persistence benchmarks.",
///                        options: [.flag("quick", help: "Run the quick set.")])
/// ```
public struct Subcommand: Sendable, Equatable {
    /// The word that selects it.
    public var name: String
    /// One line of help.
    public var abstract: String
    /// Its options (`--help` is implicit).
    public var options: [CommandOption]
    /// The placeholder for positional arguments in help, or `nil` when none are accepted.
    public var positionalPlaceholder: String?

    /// Creates a subcommand.
    public init(
        _ name: String, abstract: String, options: [CommandOption] = [],
        positionalPlaceholder: String? = nil
    ) {
        self.name = name
        self.abstract = abstract
        self.options = options
        self.positionalPlaceholder = positionalPlaceholder
    }
}

/// The result of parsing: the subcommand, its flags and option values, positionals, or a help request.
///
/// ```swift
/// let parsed = try parser.parse(Array(CommandLine.arguments.dropFirst()))
/// if parsed.isHelpRequested { print(parser.helpText(for: parsed.subcommand)); return }
/// let scales = parsed.list("scale").compactMap { Int($0) }   // "--scale 1000,10000 --scale 100000"
/// ```
public struct ParsedArguments: Sendable, Equatable {
    /// The chosen subcommand; `nil` when only `--help` was given.
    public var subcommand: String?
    /// `true` when `--help` or `-h` appeared, or `help [<subcommand>]` was given; the caller
    /// prints ``ArgumentParser/helpText(for:)``.
    public var isHelpRequested: Bool = false
    /// `true` when `--version` was the first argument; the caller prints ``ArgumentParser/version``.
    public var isVersionRequested: Bool = false
    /// The flags given.
    public var flags: Set<String> = []
    /// Values per option name, in command-line order.
    public var options: [String: [String]] = [:]
    /// Arguments that are not options (after `--`, everything is positional).
    public var positionals: [String] = []

    /// Whether the flag `--name` was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }
    /// The last value of `--name`, or `nil`.
    public func value(_ name: String) -> String? { options[name]?.last }
    /// Every value of `--name`, in order.
    public func values(_ name: String) -> [String] { options[name] ?? [] }
    /// Every value of `--name`, each split on commas, empty pieces dropped.
    public func list(_ name: String) -> [String] {
        values(name).flatMap(Self.items(of:))
    }

    /// The comma-separated items of one value, trimmed, empty pieces dropped: `" a, ,b"` → `["a", "b"]`.
    static func items(of value: String) -> [String] {
        value.split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}

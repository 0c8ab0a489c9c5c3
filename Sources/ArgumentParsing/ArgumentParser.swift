/// A command-line error with a matchable code and, for a misspelling, a suggestion.
///
/// ```swift
/// catch let error as ArgumentError where error.code == .unknownOption {
///     print(error)   // unknown option '--scael' for 'bench'; did you mean '--scale'?
/// }
/// ```
public struct ArgumentError: Error, Equatable, CustomStringConvertible {
    /// What went wrong, as a code callers can match.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let description: String
        /// No subcommand was given.
        public static let missingSubcommand = Code(description: "missingSubcommand")
        /// The first argument names no subcommand.
        public static let unknownSubcommand = Code(description: "unknownSubcommand")
        /// An `--option` the subcommand does not declare.
        public static let unknownOption = Code(description: "unknownOption")
        /// An option that needs a value was last, or followed by another option.
        public static let missingValue = Code(description: "missingValue")
        /// A flag was given `=value`.
        public static let unexpectedValue = Code(description: "unexpectedValue")
        /// An option's value is malformed or out of range, names nothing known, or names a file
        /// that cannot be read or a path that cannot be written (see ``ParsedArguments``' checks).
        public static let invalidValue = Code(description: "invalidValue")
        /// A non-repeatable option was given twice.
        public static let duplicateOption = Code(description: "duplicateOption")
        /// A positional argument where none is accepted.
        public static let unexpectedArgument = Code(description: "unexpectedArgument")
    }

    /// What went wrong.
    public var code: Code
    /// The offending argument as typed.
    public var argument: String
    /// The explanation.
    public var message: String
    /// A close valid spelling (`"--scale"`), when one exists.
    public var suggestion: String?
    /// The subcommand whose arguments were being parsed (`"bench"`), or `nil` for the program's
    /// own arguments; its help is the one to show with the error.
    public var subcommand: String?

    /// Creates an error; commands built on the parser use it to reject option values.
    public init(
        code: Code, argument: String, message: String, suggestion: String? = nil,
        subcommand: String? = nil
    ) {
        self.code = code
        self.argument = argument
        self.message = message
        self.suggestion = suggestion
        self.subcommand = subcommand
    }

    /// The message, followed by `; did you mean '<suggestion>'?` when there is a suggestion.
    public var description: String {
        suggestion.map { "\(message); did you mean '\($0)'?" } ?? message
    }
}

/// Our own small command-line parser: `<subcommand> [--flag] [--option value] [--option=value] [args]`.
///
/// Options may repeat when declared repeatable; every value is checked against its option's
/// declaration as it is read (a list names an item, a number is within its ``OptionRange``); `--` ends options; `-h`/`--help` anywhere requests help,
/// as does `help [<subcommand>]` in first place; `--version` in first place requests the version
/// when the parser has one. Arguments are given without the program name.
/// ```swift
/// let parser = ArgumentParser(program: "harness", abstract: "OpenSwiftData's tool.", version: "0.1.0", subcommands: [
///     Subcommand("bench", abstract: "Run benchmarks.", options: [
///         .flag("quick", help: "Run the quick set."),
///         .option("scale", placeholder: "rows", repeatable: true, range: .integers(1...10_000_000),
///                 help: "Scales to run."),
///     ]),
/// ])
/// let parsed = try parser.parse(["bench", "--quick", "--scale=1000"])
/// ```
public struct ArgumentParser: Sendable {
    /// The program's name, for help text.
    public var program: String
    /// One line describing the program.
    public var abstract: String
    /// The program's version, printed for `--version`; `nil` when the program has none to show.
    public var version: String?
    /// The subcommands.
    public var subcommands: [Subcommand]

    /// Creates a parser.
    public init(program: String, abstract: String, version: String? = nil, subcommands: [Subcommand]) {
        self.program = program
        self.abstract = abstract
        self.version = version
        self.subcommands = subcommands
    }

    /// Parses `arguments` (without the program name).
    public func parse(_ arguments: [String]) throws -> ParsedArguments {
        var result = ParsedArguments()
        guard let first = arguments.first else {
            throw ArgumentError(
                code: .missingSubcommand, argument: "",
                message: "missing subcommand; one of: \(subcommands.map(\.name).joined(separator: ", "))")
        }
        if Self.isHelp(first) {
            result.isHelpRequested = true
            return result
        }
        if first == "--version", version != nil {
            result.isVersionRequested = true
            return result
        }
        if first == "help", !subcommands.contains(where: { $0.name == "help" }) {
            return try parseHelpCommand(Array(arguments.dropFirst()))
        }
        guard let command = subcommands.first(where: { $0.name == first }) else {
            throw ArgumentError(
                code: .unknownSubcommand, argument: first,
                message: "unknown subcommand '\(first)'",
                suggestion: Self.closest(to: first, in: subcommands.map(\.name)))
        }
        result.subcommand = command.name
        var index = 1
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                guard command.positionalPlaceholder != nil else {
                    throw ArgumentError(
                        code: .unexpectedArgument, argument: argument,
                        message: "unexpected argument '\(argument)' for '\(command.name)'",
                        subcommand: command.name)
                }
                result.positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            if Self.isHelp(argument) {
                result.isHelpRequested = true
                continue
            }

            let body = argument.drop { $0 == "-" }
            let name: String
            let inlineValue: String?
            if let equals = body.firstIndex(of: "=") {
                name = String(body[..<equals])
                inlineValue = String(body[body.index(after: equals)...])
            } else {
                name = String(body)
                inlineValue = nil
            }
            guard argument.hasPrefix("--"), let option = command.options.first(where: { $0.name == name }) else {
                throw ArgumentError(
                    code: .unknownOption, argument: argument,
                    message: "unknown option '\(argument)' for '\(command.name)'",
                    suggestion: Self.closest(to: name, in: command.options.map(\.name)).map { "--\($0)" },
                    subcommand: command.name)
            }
            let seen = result.flags.contains(name) || result.options[name] != nil
            if seen && !option.isRepeatable {
                throw ArgumentError(
                    code: .duplicateOption, argument: argument,
                    message: "option '--\(name)' given more than once", subcommand: command.name)
            }
            switch option.kind {
            case .flag:
                if inlineValue != nil {
                    throw ArgumentError(
                        code: .unexpectedValue, argument: argument,
                        message: "flag '--\(name)' takes no value", subcommand: command.name)
                }
                result.flags.insert(name)
            case .value(let placeholder):
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if index < arguments.count, !arguments[index].hasPrefix("--") {
                    value = arguments[index]
                    index += 1
                } else {
                    throw ArgumentError(
                        code: .missingValue, argument: argument,
                        message: "option '--\(name)' needs a value <\(placeholder)>",
                        subcommand: command.name)
                }
                try option.check(value, subcommand: command.name)
                result.options[name, default: []].append(value)
            }
        }
        return result
    }

    private static func isHelp(_ argument: String) -> Bool { argument == "--help" || argument == "-h" }

    /// `help` and `help <subcommand>`: a help request for the program or for that subcommand.
    private func parseHelpCommand(_ rest: [String]) throws -> ParsedArguments {
        var result = ParsedArguments()
        result.isHelpRequested = true
        guard let name = rest.first else { return result }
        guard subcommands.contains(where: { $0.name == name }) else {
            throw ArgumentError(
                code: .unknownSubcommand, argument: name,
                message: "unknown subcommand '\(name)'",
                suggestion: Self.closest(to: name, in: subcommands.map(\.name)))
        }
        if rest.count > 1 {
            throw ArgumentError(
                code: .unexpectedArgument, argument: rest[1],
                message: "unexpected argument '\(rest[1])' for 'help'")
        }
        result.subcommand = name
        return result
    }

    /// The candidate nearest to `word` by edit distance, if within max(2, a third of its length).
    ///
    /// ```swift
    /// ArgumentParser.closest(to: "uniquness", in: ["uniqueness", "lifecycle"])   // "uniqueness"
    /// ```
    public static func closest(to word: String, in candidates: [String]) -> String? {
        let limit = max(2, word.count / 3)
        let scored = candidates.map { ($0, editDistance(word, $0)) }.filter { $0.1 <= limit }
        return scored.min { $0.1 < $1.1 }?.0
    }

    /// Levenshtein distance.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

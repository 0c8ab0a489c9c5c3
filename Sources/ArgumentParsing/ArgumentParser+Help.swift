extension ArgumentParser {
    /// Help text: the program's subcommands when `subcommand` is `nil` or unknown, else that subcommand's options.
    ///
    /// ```text
    /// USAGE: harness bench [options]
    ///
    /// Run benchmarks.
    ///
    /// OPTIONS:
    ///   --quick              Run the quick set.
    ///   --scale <rows>       Scales to run. (1 to 10000000, repeatable)
    ///   -h, --help           Show this help.
    /// ```
    public func helpText(for subcommand: String? = nil) -> String {
        guard let name = subcommand, let command = subcommands.first(where: { $0.name == name }) else {
            var lines = ["USAGE: \(program) <subcommand> [options]", "", abstract, "", "SUBCOMMANDS:"]
            lines += Self.columns(subcommands.map { ($0.name, $0.abstract) })
            var options = [("-h, --help", "Show this help.")]
            if version != nil { options.append(("--version", "Show the version.")) }
            lines += ["", "OPTIONS:"] + Self.columns(options)
            lines += [
                "",
                "See '\(program) help <subcommand>' or '\(program) <subcommand> --help' for a subcommand's options.",
            ]
            return lines.joined(separator: "\n") + "\n"
        }
        var usage = "USAGE: \(program) \(command.name) [options]"
        if let placeholder = command.positionalPlaceholder { usage += " [<\(placeholder)> ...]" }
        var lines = [usage, "", command.abstract, "", "OPTIONS:"]
        var rows = command.options.map { option in
            (option.synopsis, option.help + option.helpSuffix)
        }
        rows.append(("-h, --help", "Show this help."))
        lines += Self.columns(rows)
        return lines.joined(separator: "\n") + "\n"
    }

    private static func columns(_ rows: [(String, String)]) -> [String] {
        let width = (rows.map(\.0.count).max() ?? 0) + 3
        return rows.map { left, right in
            "  " + left + String(repeating: " ", count: width - left.count) + right
        }
    }
}

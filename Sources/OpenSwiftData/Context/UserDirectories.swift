import Foundation

/// The per-user directories of the XDG Base Directory and user-dirs conventions, read from an
/// environment: where Linux keeps what Apple platforms keep in Application Support, Documents and
/// Caches.
///
/// The home directory is `$HOME` when it is set and absolute. Foundation's
/// `homeDirectoryForCurrentUser` on Linux reads the password database and ignores `$HOME`, so a
/// program run with another `HOME` (a sandbox, a CI job, a test) would share the real user's
/// files; the password database is the fallback only.
package struct UserDirectories: Sendable {
    /// The environment read (`ProcessInfo.processInfo.environment` by default).
    let environment: [String: String]

    /// The directories of the process's environment.
    package init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// `$HOME`, else the password database's home directory.
    package var home: URL {
        if let home = absolutePath("HOME") { return URL(fileURLWithPath: home, isDirectory: true) }
        return FileManager.default.homeDirectoryForCurrentUser
    }

    /// `$XDG_DATA_HOME`, else `~/.local/share` (Application Support on Apple platforms).
    package var dataHome: URL {
        directory("XDG_DATA_HOME") ?? home.appendingPathComponent(".local/share", isDirectory: true)
    }

    /// `$XDG_CACHE_HOME`, else `~/.cache` (Caches on Apple platforms).
    package var cacheHome: URL {
        directory("XDG_CACHE_HOME") ?? home.appendingPathComponent(".cache", isDirectory: true)
    }

    /// `$XDG_CONFIG_HOME`, else `~/.config`.
    package var configHome: URL {
        directory("XDG_CONFIG_HOME") ?? home.appendingPathComponent(".config", isDirectory: true)
    }

    /// `$XDG_DOCUMENTS_DIR`, else the `XDG_DOCUMENTS_DIR` line of `user-dirs.dirs` in
    /// ``configHome`` (which `xdg-user-dirs-update` writes, e.g. `"$HOME/Dokumente"`), else
    /// `~/Documents`.
    package var documents: URL {
        if let dir = directory("XDG_DOCUMENTS_DIR") { return dir }
        let file = configHome.appendingPathComponent("user-dirs.dirs")
        // try?: most systems have no such file; an unreadable one means the same default.
        if let text = try? String(contentsOf: file, encoding: .utf8), let path = Self.userDir("DOCUMENTS", in: text) {
            let expanded = path.hasPrefix("$HOME") ? home.path + path.dropFirst("$HOME".count) : path
            if expanded.hasPrefix("/") { return URL(fileURLWithPath: expanded, isDirectory: true) }
        }
        return home.appendingPathComponent("Documents", isDirectory: true)
    }

    /// The value of `XDG_<name>_DIR="…"` in a `user-dirs.dirs` file's text (shell syntax: one
    /// assignment per line, `#` comments, the value in double quotes), or `nil`.
    package static func userDir(_ name: String, in text: String) -> String? {
        let key = "XDG_\(name)_DIR="
        for line in text.split(separator: "\n") {
            let line = line.trimmingCharacters(in: .whitespaces)
            guard line.hasPrefix(key) else { continue }
            var value = line.dropFirst(key.count)
            if value.hasPrefix("\""), value.count >= 2, value.hasSuffix("\"") { value = value.dropFirst().dropLast() }
            return value.isEmpty ? nil : String(value)
        }
        return nil
    }

    /// The variable's value when it is an absolute path (the XDG specification says relative
    /// values are invalid and must be ignored).
    private func absolutePath(_ name: String) -> String? {
        guard let value = environment[name], value.hasPrefix("/") else { return nil }
        return value
    }

    /// ``absolutePath(_:)`` as a directory URL.
    private func directory(_ name: String) -> URL? {
        absolutePath(name).map { URL(fileURLWithPath: $0, isDirectory: true) }
    }
}

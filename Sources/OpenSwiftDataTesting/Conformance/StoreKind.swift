import Foundation
import OpenSwiftData

/// The two stores every check runs on: SQLite in memory and SQLite in a file.
///
/// The raw values are what `harness conform --store` accepts, and what Swift Testing prints
/// for a parameterised test, so a single case can be re-run.
/// ```swift
/// @Test(arguments: StoreKind.allCases) func counts(store: StoreKind) throws { … }
/// ```
public enum StoreKind: String, CaseIterable, Codable, Sendable, CustomStringConvertible {
    /// An in-memory SQLite database (`ModelConfiguration(isStoredInMemoryOnly: true)`).
    case memory
    /// An on-disk SQLite database in WAL mode, in a temporary directory.
    case disk

    /// The raw value: `memory` or `disk`.
    public var description: String { rawValue }

    /// A new, empty container of this kind for `schema`; on disk, the file is `directory/name.store`.
    ///
    /// ```swift
    /// let container = try StoreKind.disk.makeContainer(Schema([Item.self]), in: dir, name: "items")
    /// ```
    package func makeContainer(_ schema: Schema, in directory: URL, name: String = "store") throws -> ModelContainer {
        switch self {
        case .memory:
            return try ModelContainer(for: schema, configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        case .disk:
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            return try ModelContainer(
                for: schema,
                configurations: [ModelConfiguration(url: directory.appendingPathComponent("\(name).store"))])
        }
    }

    /// A new, empty container of this kind for `types`; on disk, the file is `name.store` in `directory`.
    ///
    /// ```swift
    /// @Test(arguments: StoreKind.allCases) func counts(store: StoreKind) throws {
    ///     let scratch = try ScratchDirectory(prefix: "counts")
    ///     let container = try store.makeContainer(for: [Item.self], in: scratch)
    /// }
    /// ```
    package func makeContainer(
        for types: [any PersistentModel.Type], in directory: ScratchDirectory,
        name: String = "store"
    ) throws -> ModelContainer {
        try makeContainer(Schema(types), in: directory.url, name: name)
    }
}

/// How many `T`s `container` holds, counted through a new context (so no context's pending
/// changes are included).
///
/// ```swift
/// #expect(try storedCount(Item.self, in: container) == 3)
/// ```
package func storedCount<T: PersistentModel>(_ type: T.Type, in container: ModelContainer) throws -> Int {
    try ModelContext(container).fetchCount(FetchDescriptor<T>())
}

/// A uniquely named temporary directory, removed (with everything in it) when this object goes away.
///
/// ```swift
/// let scratch = try ScratchDirectory(prefix: "conformance")
/// let url = scratch.url.appendingPathComponent("a.store")
/// ```
package final class ScratchDirectory: @unchecked Sendable {
    /// The directory's location.
    package let url: URL
    private let keep: Bool

    /// Creates `$TMPDIR/<prefix>-<unique>`; with `keep`, the directory survives this object.
    package init(prefix: String = "openswiftdata", keep: Bool = false) throws {
        let base = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        url = base.appendingPathComponent(
            "\(prefix)-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)",
            isDirectory: true)
        self.keep = keep
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The location of `name` inside the directory.
    ///
    /// ```swift
    /// let store = scratch.file("store.store")
    /// ```
    package func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    deinit {
        // try?: best-effort cleanup of scratch files; a leftover is harmless and must not mask the real result.
        if !keep { try? FileManager.default.removeItem(at: url) }
    }
}

import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

/// The two stores every behaviour is checked on: the harness's own `StoreKind`, so these tests
/// and the conformance suites name stores the same way.
typealias StoreKind = OpenSwiftDataTesting.StoreKind

/// A temporary directory per test case, removed when the value is released.
final class TemporaryDirectory: @unchecked Sendable {
    let url: URL
    init(_ label: String = "test") {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("openswiftdata-\(label)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func file(_ name: String) -> URL { url.appendingPathComponent(name) }
    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Builds a container of `kind` for `types`; disk stores live in `dir` (one per test case).
func makeContainer(_ kind: StoreKind, _ types: [any PersistentModel.Type], in dir: TemporaryDirectory,
                   name: String = "test.store") throws -> ModelContainer {
    let schema = Schema(types)
    switch kind {
    case .memory:
        return try ModelContainer(for: schema, configurations: [ModelConfiguration(schema: schema, isStoredInMemoryOnly: true)])
    case .disk:
        return try ModelContainer(for: schema, configurations: [ModelConfiguration(schema: schema, url: dir.file(name))])
    }
}

/// Reads every byte of a file.
func bytes(_ url: URL) throws -> Data { try Data(contentsOf: url) }

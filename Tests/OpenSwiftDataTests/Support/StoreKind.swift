import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

/// The two stores every behaviour is checked on: the harness's own `StoreKind`, so these tests
/// and the conformance suites name stores the same way. Containers come from
/// `StoreKind.makeContainer(for:in:name:)`, scratch directories from `ScratchDirectory` and row
/// counts from `storedCount(_:in:)`, all in OpenSwiftDataTesting.
typealias StoreKind = OpenSwiftDataTesting.StoreKind
typealias ScratchDirectory = OpenSwiftDataTesting.ScratchDirectory

/// Reads every byte of a file.
func bytes(_ url: URL) throws -> Data { try Data(contentsOf: url) }

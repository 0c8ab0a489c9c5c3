// On Linux, `import SwiftData` resolves to this module, which re-exports OpenSwiftData so that
// SwiftData model code compiles unchanged.
@_exported import OpenSwiftData

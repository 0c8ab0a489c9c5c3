// On Linux, `import SwiftData` resolves to this module, which re-exports OpenSwiftData so that
// SwiftData model code compiles unchanged.
//
// On Apple platforms this module is empty: `import SwiftData` must mean Apple's framework there.
// A module named SwiftData that is built at all would be found before the SDK's framework (SwiftPM
// puts every built module on the import path ahead of the SDK), so clients depend on this product
// with `condition: .when(platforms: [.linux])`: then SwiftPM never builds it for an Apple platform.
// The product itself is declared everywhere so that such a client's manifest resolves on a Mac.
#if os(Linux)
    @_exported import OpenSwiftData
#endif

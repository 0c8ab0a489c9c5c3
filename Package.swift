// swift-tools-version: 6.0
// OpenSwiftData — SwiftData's API and semantics on SQLite, for Linux.
import PackageDescription
import CompilerPluginSupport
import Foundation

/// The toolchain's own swift-syntax libraries (`<toolchain>/usr/lib/swift/host`), found by
/// following `swiftc` on `PATH` through symlinks. No outside package is fetched.
let hostLibraries: String = {
    let fm = FileManager.default
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
    for dir in path.split(separator: ":") {
        let candidate = "\(dir)/swiftc"
        guard fm.isExecutableFile(atPath: candidate) else { continue }
        let resolved = URL(fileURLWithPath: candidate).resolvingSymlinksInPath()
        let host = resolved.deletingLastPathComponent()   // usr/bin
            .deletingLastPathComponent()                   // usr
            .appendingPathComponent("lib/swift/host").path
        if fm.fileExists(atPath: host + "/SwiftSyntax.swiftmodule") { return host }
    }
    return "/opt/swift/usr/lib/swift/host"
}()

var products: [Product] = [
    .library(name: "OpenSwiftData", targets: ["OpenSwiftData"]),
    .library(name: "OpenSwiftDataTesting", targets: ["OpenSwiftDataTesting"]),
]
var targets: [Target] = [
    .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3",
                   providers: [.apt(["libsqlite3-dev"])]),
    .systemLibrary(name: "CJemalloc", pkgConfig: "jemalloc",
                   providers: [.apt(["libjemalloc-dev"])]),
    .macro(
        name: "OpenSwiftDataMacros",
        swiftSettings: [.unsafeFlags(["-I", hostLibraries])],
        linkerSettings: [.unsafeFlags([
            "-L", hostLibraries, "-lSwiftSyntax", "-lSwiftSyntaxMacros", "-lSwiftDiagnostics",
            "-lSwiftSyntaxBuilder", "-lSwiftCompilerPluginMessageHandling",
            "-Xlinker", "-rpath", "-Xlinker", hostLibraries,
        ])]
    ),
    .target(
        name: "OpenSwiftData",
        dependencies: ["CSQLite", "OpenSwiftDataMacros"]
    ),
    .testTarget(
        name: "OpenSwiftDataTests",
        dependencies: ["OpenSwiftData", "OpenSwiftDataTesting"]
    ),
    .target(name: "OpenSwiftDataTesting", dependencies: ["OpenSwiftData"]),
    .testTarget(name: "OpenSwiftDataTestingTests", dependencies: ["OpenSwiftDataTesting", "OpenSwiftData"]),
    .target(name: "BenchmarkKit", dependencies: ["CJemalloc", "CSQLite", "OpenSwiftData"]),
    .testTarget(name: "BenchmarkKitTests", dependencies: ["BenchmarkKit"]),
    .target(name: "PersistenceWorkloads", dependencies: ["OpenSwiftData", "BenchmarkKit"],
            path: "Benchmarks/PersistenceWorkloads"),
    .executableTarget(name: "PersistenceBenchmarks", dependencies: ["PersistenceWorkloads", "BenchmarkKit"],
                      path: "Benchmarks/PersistenceBenchmarks"),
    .executableTarget(name: "harness", dependencies: ["PersistenceWorkloads", "BenchmarkKit", "OpenSwiftData", "OpenSwiftDataTesting"]),
    .testTarget(name: "PersistenceWorkloadsTests", dependencies: ["PersistenceWorkloads", "BenchmarkKit", "OpenSwiftData"]),
]

#if os(Linux)
// `import SwiftData` works on Linux as written; on Apple platforms the real framework wins.
products.append(.library(name: "SwiftData", targets: ["SwiftData"]))
targets.append(.target(name: "SwiftData", dependencies: ["OpenSwiftData"]))
// Model code as users write it, compiled in Swift 5 mode with warnings as errors: the macros'
// expansions must be warning-free there as well as in Swift 6 mode (the other test target).
targets.append(.testTarget(name: "SwiftDataCompatibilityTests", dependencies: ["SwiftData"],
                           swiftSettings: [.swiftLanguageMode(.v5), .unsafeFlags(["-warnings-as-errors"])]))
#endif

let package = Package(
    name: "OpenSwiftData",
    platforms: [.macOS(.v14)],
    products: products,
    targets: targets
)
